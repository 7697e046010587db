package dataplane

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"golang.org/x/net/http/httpguts"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// httpProxy is the listener of an Application Load Balancer's forwarding
// rule: a reverse proxy that routes by the URL map of its target proxy.
type httpProxy struct {
	plane *Plane
	l     *listener
}

// sent is what the reverse proxy's hooks need of a request's choice.
type sent struct {
	rule, service string
	bs            *api.BackendService
	b             *backend
	d             decision
	tls           bool          // the service speaks HTTPS or HTTP/2 to its backends
	front         front         // the rule that took the request
	perTry        time.Duration // how long one attempt may take; 0: as long as the request
	viaHeader     string        // the header that marks a request carried to Cloud Run (Serverless.Via)
}

type sentKey struct{}

func (h *httpProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A client that half-closes its connection after its request
	// (shutdown(SHUT_WR)) still waits for the answer, but net/http ends
	// the context of a request whose connection reads EOF: the backend's
	// answer would never come. So the request runs to the service's
	// timeout whatever the client does, as HAProxy's do without
	// abortonclose; a client that left makes the answer's writing fail.
	r = r.WithContext(context.WithoutCancel(r.Context()))
	b := h.l.binding.Load()
	if msg := unforwardable(r); msg != "" {
		noBackend(w, http.StatusBadRequest, msg)
		h.plane.metrics.request(b.rule, "", "", http.StatusBadRequest)
		return
	}
	d := b.router.route(request{r})
	m := h.plane.metrics
	if d.redirect != nil {
		code := redirectCode(d.redirect.RedirectResponseCode)
		http.Redirect(w, r, redirectURL(d, r.Host, r.URL.Path, r.URL.RawQuery, r.TLS != nil), code)
		m.request(b.rule, "", "", code)
		return
	}
	if c := d.cors; c != nil {
		if c.preflight {
			c.answer(w.Header())
			w.WriteHeader(http.StatusOK)
			m.request(b.rule, d.service, "", http.StatusOK)
			return
		}
		c.answer(w.Header()) // answered strips the backend's
	}
	cfg := h.plane.cfg
	bs := cfg.service(d.service)
	if bs == nil {
		if bk := cfg.bucket(d.service); bk != nil {
			m.request(b.rule, d.service, "", h.plane.serveBucket(w, r, bk))
			return
		}
		noBackend(w, http.StatusNotFound, notAService(d.service))
		m.request(b.rule, d.service, "", http.StatusNotFound)
		return
	}
	if code := h.plane.enforce(w, r, bs.EdgeSecurityPolicy, bs.SecurityPolicy); code != 0 {
		m.request(b.rule, d.service, "", code)
		return
	}
	if delay, abort := rollFault(d.fault); abort != 0 || delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		if abort != 0 {
			noBackend(w, abort, faultAbortBody)
			m.request(b.rule, d.service, "", abort)
			return
		}
	}
	h.forward(w, r, b, d, bs)
}

// unforwardable says why r cannot be sent on as it came ("" when it can).
// net/http's server reads any request target a URL parses from and checks
// a Host header, but not the host of an absolute-form target
// ("GET http://a"b/"), which its client would send the backend cut short;
// a proxy forwards only a path ("/a"), an http or https URL, and "*" for
// OPTIONS.
func unforwardable(r *http.Request) string {
	switch u := r.URL; {
	case !httpguts.ValidHostHeader(r.Host):
		return "malformed Host"
	case r.RequestURI == "*" && r.Method == http.MethodOptions, strings.HasPrefix(r.RequestURI, "/"):
		return ""
	case u.Opaque != "" || u.Host == "" || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")):
		return "malformed request target"
	}
	return ""
}

// forward sends r to a healthy backend of bs, the service d chose.
func (h *httpProxy) forward(w http.ResponseWriter, r *http.Request, b *binding, d decision, bs *api.BackendService) {
	rule := b.rule
	pl := h.plane.pools.get(h.plane.cfg, poolKey{d.service, modeProxy})
	c := pl.choose(request{r})
	if masked, ok := h.plane.maskedServerless(bs, r); ok {
		c = choice{b: masked} // a URL mask's Cloud Run service: the request's own
	}
	if c.b == nil {
		// As the cloud's proxies answer when no backend is healthy.
		noBackend(w, http.StatusServiceUnavailable, "no healthy upstream")
		h.plane.metrics.request(rule, d.service, "", http.StatusServiceUnavailable)
		return
	}
	h.plane.countGroup(pl.groups[c.b])
	if c.cookie != nil {
		http.SetCookie(w, c.cookie)
	}
	if rollMirror(d.mirror) && r.Header.Get("Upgrade") == "" {
		if sh := shadowOf(r, &d, b.front, bs); sh != nil {
			h.plane.mirror(rule, d.mirror, sh)
		}
	}
	c.b.inFlight.Add(1)
	s := &sent{rule: rule, service: d.service, bs: bs, b: c.b, d: d, tls: speaksTLS(bs), front: b.front, viaHeader: h.plane.viaHeader()}
	defer func() { s.b.inFlight.Add(-1) }() // a retry may have moved it
	perTry, total := d.timeouts(bs)
	if perTry < total {
		s.perTry = perTry
	}
	ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), sentKey{}, s), total)
	defer cancel()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { awaitClean(ctx, info) }})
	h.plane.proxy().ServeHTTP(w, r.WithContext(ctx))
}

// retrying is the reverse proxy's transport: it tries a request again on
// a backend chosen anew while the route's retry policy says so, each
// attempt within its perTryTimeout.
type retrying struct{ plane *Plane }

func (rt retrying) RoundTrip(r *http.Request) (*http.Response, error) {
	s := r.Context().Value(sentKey{}).(*sent)
	tries := 0
	if r.Body == nil || r.Body == http.NoBody {
		tries = retries(s.d.retry)
	}
	for attempt := 0; ; attempt++ {
		res, err := rt.attempt(r, s)
		failure, code, grpc := answeredAttempt, 0, ""
		switch {
		case err == nil:
			code, grpc = res.StatusCode, res.Header.Get("Grpc-Status")
		case isDialError(err):
			failure, code = unreachable, http.StatusBadGateway
		default:
			failure, code = noAnswer, http.StatusBadGateway
			if errors.Is(err, context.DeadlineExceeded) {
				code = http.StatusGatewayTimeout
			}
		}
		if attempt >= tries || r.Context().Err() != nil || !again(s.d.retry, failure, code, grpc) {
			return res, err
		}
		next := rt.plane.pools.get(rt.plane.cfg, poolKey{s.service, modeProxy}).chooseAgain()
		if next.b == nil {
			return res, err
		}
		if res != nil {
			res.Body.Close()
		}
		rt.plane.count(s.rule, s.service, s.bs, s.b, code)
		next.b.inFlight.Add(1)
		s.b.inFlight.Add(-1)
		s.b = next.b
		r = r.Clone(r.Context())
		r.URL.Host = s.b.addr
	}
}

// attempt sends r once, within s.perTry when that is set: the attempt's
// time covers reading the answer's body too, so its context ends when the
// body is closed.
func (rt retrying) attempt(r *http.Request, s *sent) (*http.Response, error) {
	next := rt.plane.transportFor(s.bs)
	if s.b.via != "" {
		next = rt.plane.http1 // Cloud Run's workloads speak HTTP/1.1, without TLS
	}
	if s.perTry <= 0 {
		return next.RoundTrip(r)
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.perTry)
	res, err := next.RoundTrip(r.WithContext(ctx))
	if res == nil {
		cancel()
	} else if rw, ok := res.Body.(io.ReadWriteCloser); ok && res.StatusCode == http.StatusSwitchingProtocols {
		// The proxy writes to an upgraded connection's body.
		res.Body = cancelOnCloseRW{cancelOnClose{rw, cancel}, rw}
	} else {
		res.Body = cancelOnClose{res.Body, cancel}
	}
	return res, err
}

// cancelOnClose is a body whose Close ends its attempt's context.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// cancelOnCloseRW is the same for an upgraded connection's body, which
// the proxy writes to as well.
type cancelOnCloseRW struct {
	cancelOnClose
	io.Writer
}

// isDialError tells whether err is a failure to connect.
func isDialError(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// speaksTLS tells whether bs's backends are spoken to over TLS.
func speaksTLS(bs *api.BackendService) bool { return bs.Protocol == "HTTPS" || bs.Protocol == "HTTP2" }

// notAService is the answer when the URL map sends a request to service,
// which is no backend service: a backend bucket, which the emulator does
// not model, or nothing.
func notAService(service string) string {
	if service == "" {
		return "the URL map sends this request to no backend service"
	}
	return "the URL map sends this request to " + service + ", which is not a backend service here"
}

func noBackend(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	io.WriteString(w, msg+"\n")
}

// backendTimeout is the service's timeoutSec: how long a backend has to
// answer (30 s when unset, as in the Compute API).
func backendTimeout(bs *api.BackendService) time.Duration {
	if t := orDefault(bs.TimeoutSec, 0); t > 0 {
		return time.Duration(t) * time.Second
	}
	return 30 * time.Second
}

// proxy is the one reverse proxy every listener hands its requests to,
// with its pools of connections to the backends.
func (p *Plane) proxy() *httputil.ReverseProxy {
	p.proxyOnce.Do(func() {
		p.http1, p.http2 = newTransport(false), newTransport(true)
		p.rp = &httputil.ReverseProxy{
			Rewrite:        rewrite,
			Transport:      retrying{plane: p},
			BufferPool:     copyBuffers{},
			ModifyResponse: p.answered,
			ErrorHandler:   p.failed,
		}
	})
	return p.rp
}

// maxHeaderBytes bounds the headers of a request a client sends and of an
// answer a backend gives (net/http reads 4 KB past it before it refuses a
// request).
const maxHeaderBytes = 64 << 10

// newTransport is a pool of connections to backends that speaks HTTP/1.1,
// over TLS or not, and, when http2 says so, HTTP/2 over TLS.
func newTransport(http2 bool) *http.Transport {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(http2)
	return &http.Transport{
		Proxy: nil, // never the environment's proxy: backends are local
		// Each connection is the chosen backend's, which draining closes;
		// a dial for the mirror has none.
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if s, ok := ctx.Value(sentKey{}).(*sent); ok && err == nil {
				return s.b.http.add(c), nil
			}
			return c, err
		},
		Protocols:              &protocols,
		MaxResponseHeaderBytes: maxHeaderBytes,
		MaxIdleConns:           1024,
		MaxIdleConnsPerHost:    256,
		IdleConnTimeout:        90 * time.Second,
		TLSClientConfig:        &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the cloud's proxies do not validate backends' certificates
		ExpectContinueTimeout:  time.Second,
	}
}

// transportFor is how the data plane speaks to bs's backends: HTTP/2 to
// a service of protocol HTTP2, else HTTP/1.1 (over TLS for HTTPS), as the
// cloud's proxies do.
func (p *Plane) transportFor(bs *api.BackendService) *http.Transport {
	p.proxy() // makes the transports
	if bs.Protocol == "HTTP2" {
		return p.http2
	}
	return p.http1
}

// openConns are the connections the reverse proxy opened to one backend.
type openConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// add tracks c until it is closed.
func (o *openConns) add(c net.Conn) net.Conn {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.conns == nil {
		o.conns = map[net.Conn]struct{}{}
	}
	o.conns[c] = struct{}{}
	return &trackedConn{Conn: c, o: o}
}

// list is the connections open now.
func (o *openConns) list() []net.Conn {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]net.Conn, 0, len(o.conns))
	for c := range o.conns {
		out = append(out, c)
	}
	return out
}

func (o *openConns) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.conns)
}

// trackedConn leaves its openConns when closed, and tells whether a
// read waits on it (see awaitClean).
type trackedConn struct {
	net.Conn
	o *openConns

	mu      sync.Mutex
	reading bool
	closed  bool
	changed chan struct{} // closed at the next change of reading or closed
}

func (c *trackedConn) Read(p []byte) (int, error) {
	c.set(func() { c.reading = true })
	defer c.set(func() { c.reading = false })
	return c.Conn.Read(p)
}

func (c *trackedConn) Close() error {
	c.o.mu.Lock()
	delete(c.o.conns, c.Conn)
	c.o.mu.Unlock()
	c.set(func() { c.closed = true })
	return c.Conn.Close()
}

func (c *trackedConn) set(change func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	change()
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// awaitIdle returns once the connection's reader waits for a new answer
// (nothing of the last one's is left over) or the connection is closed,
// or when ctx ends.
func (c *trackedConn) awaitIdle(ctx context.Context) {
	for {
		c.mu.Lock()
		if c.reading || c.closed {
			c.mu.Unlock()
			return
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// awaitClean keeps a backend's answer from going to a request it was not
// for. A backend may send bytes after its answer that no request asked
// for; net/http closes an idle connection that gets them, but it puts a
// connection back in the pool before it looks, so a request that takes
// it at once could read them as its answer. A request that reuses a
// connection therefore waits until the connection's reader has either
// found it clean (it waits on the socket) or found such bytes and closed
// it (the request then goes on another connection, or fails with 502).
func awaitClean(ctx context.Context, info httptrace.GotConnInfo) {
	if !info.Reused {
		return
	}
	conn := info.Conn
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn()
	}
	if c, ok := conn.(*trackedConn); ok {
		c.awaitIdle(ctx)
	}
}

// drainHTTP ends the reverse proxy's connections to b, which gets no new
// requests, after timeout (the service's connectionDraining, or else its
// timeoutSec, by which their requests have ended anyway). Connections
// made after this are not.
func (b *backend) drainHTTP(timeout time.Duration, after func(time.Duration, func()) func() bool) {
	if open := b.http.list(); len(open) > 0 {
		after(timeout, func() {
			for _, c := range open {
				c.Close()
			}
		})
	}
}

// copyBuffers lends the reverse proxy its copy buffers: without them it
// allocates 32 KB per request, most of what the data plane allocates.
type copyBuffers struct{}

var copyBufferPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (copyBuffers) Get() []byte  { return *copyBufferPool.Get().(*[]byte) }
func (copyBuffers) Put(b []byte) { copyBufferPool.Put(&b) }

// rewrite addresses the request to the chosen backend, with the URL
// map's rewrite applied and the X-Forwarded headers a proxy adds.
func rewrite(pr *httputil.ProxyRequest) {
	s := pr.In.Context().Value(sentKey{}).(*sent)
	pr.Out.URL.Scheme = "http"
	if s.tls && s.b.via == "" {
		pr.Out.URL.Scheme = "https"
	}
	pr.Out.URL.Host = s.b.addr
	s.d.outgoing(pr, s.front, s.bs)
	// Only the data plane marks a request a load balancer carried to
	// Cloud Run: a client's own mark is dropped.
	if h := s.viaHeader; h != "" {
		pr.Out.Header.Del(h)
		if s.b.via != "" {
			pr.Out.Header.Set(h, s.b.via)
		}
	}
	dropUpgrade(pr.In, pr.Out)
}

// outgoing makes pr.Out what a backend of bs gets of pr.In, which f's
// rule took, under d: the Host and path the URL map rewrites, the headers
// the cloud's proxies add, the header actions; the backend's own mirror's
// too (shadowOf).
func (d *decision) outgoing(pr *httputil.ProxyRequest, f front, bs *api.BackendService) {
	pr.Out.Host = pr.In.Host
	if rw := d.rewrite; rw != nil && rw.HostRewrite != "" {
		pr.Out.Host = rw.HostRewrite
	}
	if path, ok := d.rewrittenPath(pr.In.URL.Path); ok {
		pr.Out.URL.Path, pr.Out.URL.RawPath = path, ""
	}
	f.addHeaders(pr, bs)
	d.editRequest(pr.Out.Header)
}

func (p *Plane) answered(res *http.Response) error {
	if res.StatusCode == http.StatusSwitchingProtocols {
		if err := checkSwitch(res); err != nil {
			return err // failed answers 502
		}
	}
	s := res.Request.Context().Value(sentKey{}).(*sent)
	s.d.editResponse(res.Header)
	s.d.cors.strip(res.Header)
	res.Header.Add("Via", via)
	addCustom(res.Header, s.bs.CustomResponseHeaders, res.Request)
	if !p.opts.NoBackendHeader {
		res.Header.Set(BackendHeader, s.b.addr)
	}
	p.count(s.rule, s.service, s.bs, s.b, res.StatusCode)
	return nil
}

// failed answers 502 when the backend could not be reached or did not
// answer in time (504), as the cloud's proxies do.
func (p *Plane) failed(w http.ResponseWriter, r *http.Request, err error) {
	s := r.Context().Value(sentKey{}).(*sent)
	code := http.StatusBadGateway
	if errors.Is(err, context.DeadlineExceeded) {
		code = http.StatusGatewayTimeout
	}
	if !p.opts.NoBackendHeader {
		w.Header().Set(BackendHeader, s.b.addr)
	}
	noBackend(w, code, "upstream "+s.b.addr+": "+err.Error())
	p.count(s.rule, s.service, s.bs, s.b, code)
}

// redirectURL is where a urlRedirect sends a request for host, path and
// query, which came over TLS or not.
func redirectURL(d decision, host, path, query string, overTLS bool) string {
	rd := d.redirect
	u := url.URL{Scheme: "http", Host: host, Path: path}
	if overTLS || rd.HTTPSRedirect {
		u.Scheme = "https"
	}
	if rd.HostRedirect != "" {
		u.Host = rd.HostRedirect
	}
	switch {
	case rd.PathRedirect != "":
		u.Path = rd.PathRedirect
	case rd.PrefixRedirect != "":
		u.Path = rd.PrefixRedirect + strings.TrimPrefix(path, d.matched)
	}
	if !rd.StripQuery {
		u.RawQuery = query
	}
	return u.String()
}

// redirectCode is the status of a redirectResponseCode.
func redirectCode(name string) int {
	switch name {
	case "FOUND":
		return http.StatusFound
	case "SEE_OTHER":
		return http.StatusSeeOther
	case "TEMPORARY_REDIRECT":
		return http.StatusTemporaryRedirect
	case "PERMANENT_REDIRECT":
		return http.StatusPermanentRedirect
	}
	return http.StatusMovedPermanently // MOVED_PERMANENTLY_DEFAULT
}

// metrics counts what the listeners carry.
type metrics struct {
	requests    *prometheus.CounterVec
	connections *prometheus.CounterVec
	ejections   *prometheus.CounterVec
	open        *prometheus.GaugeVec
	capWaits    *prometheus.CounterVec
	armor       *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{requests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lbhealth_dataplane_requests_total",
		Help: "Requests the data plane answered, by forwarding rule, backend service, backend (host:port; empty when none was chosen) and status code.",
	}, []string{"forwarding_rule", "backend_service", "backend", "code"}),
		connections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lbhealth_dataplane_connections_total",
			Help: "TCP connections and UDP flows the data plane received, by forwarding rule, owner (backend service or target pool), backend and result: carried, dropped (nowhere to send it) or failed (the backend refused it).",
		}, []string{"forwarding_rule", "owner", "backend", "result"}),
		ejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lbhealth_dataplane_ejections_total",
			Help: "Times outlier detection took a backend out of its backend service's traffic, by backend service and backend.",
		}, []string{"backend_service", "backend"}),
		open: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lbhealth_dataplane_open_connections",
			Help: "Client connections the data plane's TCP listeners (HTTP, HTTPS, TCP and SSL proxies) and UDP flows its UDP listeners hold open, by listener address.",
		}, []string{"listener"}),
		capWaits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lbhealth_dataplane_connection_cap_waits_total",
			Help: "Times a listener found its connection cap, or the data plane's, full (--data-plane-max-connections, --data-plane-max-connections-per-listener) and left the next client waiting to be accepted (a UDP listener drops the datagram that would open a flow), by listener address.",
		}, []string{"listener"}),
		armor: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lbhealth_dataplane_security_policy_decisions_total",
			Help: "Requests a Cloud Armor rule matched, by security policy, rule priority, action taken (a rate limit's exceed action when over it) and outcome: enforced, or preview (counted, not enforced).",
		}, []string{"security_policy", "priority", "action", "outcome"})}
	if reg != nil {
		reg.MustRegister(m.requests, m.connections, m.ejections, m.open, m.capWaits, m.armor)
	}
	return m
}

func (m *metrics) connection(rule, owner, backend, result string) {
	m.connections.WithLabelValues(rule, owner, backend, result).Inc()
}

func (m *metrics) request(rule, service, backend string, code int) {
	m.requests.WithLabelValues(rule, service, backend, strconv.Itoa(code)).Inc()
}

// RuleTraffic is what one forwarding rule's listeners carried, for the
// status page: its addresses and, per owner and backend, the requests
// (HTTP) or flows (TCP, UDP) and how many of them failed.
type RuleTraffic struct {
	Rule      string
	Listeners []string // "tcp 127.0.0.1:8080"
	Rows      []TrafficRow
}

// TrafficRow is one owner and backend of a rule; Backend is "" for what
// found no backend (503, dropped).
type TrafficRow struct {
	Owner, Backend string
	Count, Failed  int64
}

// Traffic is what every rule with a listener carried since the emulator
// started, by rule, owner and backend.
func (p *Plane) Traffic() []RuleTraffic {
	rows := map[string]map[[2]string]*TrafficRow{}
	add := func(rule, owner, backend string, n int64, failed bool) {
		if rows[rule] == nil {
			rows[rule] = map[[2]string]*TrafficRow{}
		}
		r := rows[rule][[2]string{owner, backend}]
		if r == nil {
			r = &TrafficRow{Owner: owner, Backend: backend}
			rows[rule][[2]string{owner, backend}] = r
		}
		r.Count += n
		if failed {
			r.Failed += n
		}
	}
	collect(p.metrics.requests, func(l map[string]string, n int64) {
		code, _ := strconv.Atoi(l["code"])
		add(l["forwarding_rule"], l["backend_service"], l["backend"], n, code >= 500)
	})
	collect(p.metrics.connections, func(l map[string]string, n int64) {
		add(l["forwarding_rule"], l["owner"], l["backend"], n, l["result"] != "carried")
	})
	listening := p.Addrs()
	var out []RuleTraffic
	for rule, addrs := range listening {
		rt := RuleTraffic{Rule: rule, Listeners: addrs}
		slices.Sort(rt.Listeners)
		for _, r := range rows[rule] {
			rt.Rows = append(rt.Rows, *r)
		}
		slices.SortFunc(rt.Rows, func(a, b TrafficRow) int {
			return cmp.Or(strings.Compare(a.Owner, b.Owner), strings.Compare(a.Backend, b.Backend))
		})
		out = append(out, rt)
	}
	slices.SortFunc(out, func(a, b RuleTraffic) int { return strings.Compare(a.Rule, b.Rule) })
	return out
}

// collect reads every counter of v with its labels.
func collect(v *prometheus.CounterVec, f func(labels map[string]string, n int64)) {
	ch := make(chan prometheus.Metric, 64)
	go func() {
		v.Collect(ch)
		close(ch)
	}()
	for m := range ch {
		var d dto.Metric
		if m.Write(&d) != nil || d.Counter == nil {
			continue
		}
		labels := map[string]string{}
		for _, lp := range d.Label {
			labels[lp.GetName()] = lp.GetValue()
		}
		f(labels, int64(d.Counter.GetValue()))
	}
}
