package dataplane

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// fastProxy is the listener of an Application Load Balancer's rule over
// plain HTTP. It is built on fasthttp, whose server and clients reuse a
// request's memory and forward it without copying it into new objects:
// net/http's ReverseProxy spends four times HAProxy's CPU per request
// (make bench). HTTP/1.1 is all the cloud's proxies speak to clients
// without TLS, and what fasthttp speaks; a request that needs more, an
// Upgrade (WebSocket) or a service spoken to over HTTP/2, goes to the
// net/http proxy of HTTPS listeners (httpProxy) through fasthttp's
// adaptor.
type fastProxy struct {
	plane *Plane
	std   *httpProxy
}

// hopHeaders are the hop-by-hop headers a proxy does not forward; fasthttp
// keeps Connection and Transfer-Encoding apart and writes its own.
var hopHeaders = []string{"Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Upgrade"}

func (f *fastProxy) serve(ctx *fasthttp.RequestCtx) {
	b := f.std.l.binding.Load()
	req := &ctx.Request
	d := b.router.route(fastRequest{ctx})
	m := f.plane.metrics
	if d.redirect != nil {
		code := redirectCode(d.redirect.RedirectResponseCode)
		uri := req.URI()
		ctx.Response.Header.Set("Location", redirectURL(d, string(req.Header.Host()), string(uri.Path()), string(uri.QueryString()), false))
		ctx.SetStatusCode(code)
		m.request(b.rule, "", "", code)
		return
	}
	if d.cors != nil && d.cors.preflight {
		d.cors.answer(&ctx.Response.Header)
		m.request(b.rule, d.service, "", http.StatusOK)
		return
	}
	// Set last, on whatever answer the request gets; fasthttp writes it
	// once this returns.
	defer d.cors.answer(&ctx.Response.Header)
	bs := f.plane.cfg.service(d.service)
	if bs == nil {
		fastNoBackend(ctx, http.StatusNotFound, notAService(d.service))
		m.request(b.rule, d.service, "", http.StatusNotFound)
		return
	}
	if delay, abort := d.fault.roll(); abort != 0 || delay > 0 {
		time.Sleep(delay)
		if abort != 0 {
			fastNoBackend(ctx, abort, faultAbortBody)
			m.request(b.rule, d.service, "", abort)
			return
		}
	}
	if bs.Protocol == "HTTP2" || len(req.Header.Peek("Upgrade")) > 0 {
		f.handOver(ctx, b.rule, d, bs)
		return
	}
	f.forward(ctx, b.rule, d, bs)
}

// forward sends the request to a healthy backend of bs, the service d
// chose, and again to one chosen anew while d's retry policy says so.
func (f *fastProxy) forward(ctx *fasthttp.RequestCtx, rule string, d decision, bs *backendService) {
	key := poolKey{d.service, modeProxy}
	// Affinity reads the request as the client sent it.
	c := f.plane.pools.get(f.plane.cfg, key).choose(fastRequest{ctx})
	overTLS := speaksTLS(bs)
	closing := ctx.Request.Header.ConnectionClose()
	prepare(ctx, &d, overTLS)
	if c.b != nil && d.mirror.roll() {
		if sh := fastShadow(&ctx.Request); sh != nil {
			f.plane.mirror(rule, d.mirror, sh)
		}
	}
	perTry, total := d.timeouts(bs)
	deadline := time.Now().Add(total)
	retries := 0
	// A request has no body when it says it is empty or says nothing (-2:
	// neither Content-Length nor chunked).
	if n := ctx.Request.Header.ContentLength(); n == 0 || n == -2 {
		retries = d.retry.retries()
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			c = f.plane.pools.get(f.plane.cfg, key).chooseAgain()
		}
		if c.b == nil {
			// As the cloud's proxies answer when no backend is healthy.
			fastNoBackend(ctx, http.StatusServiceUnavailable, "no healthy upstream")
			f.plane.metrics.request(rule, d.service, "", http.StatusServiceUnavailable)
			return
		}
		failure := f.try(ctx, c.b, overTLS, closing, min(perTry, time.Until(deadline)))
		code := ctx.Response.StatusCode()
		if attempt < retries && time.Until(deadline) > 0 &&
			d.retry.again(failure, code, string(ctx.Response.Header.Peek("Grpc-Status"))) {
			f.plane.count(rule, d.service, bs, c.b, code)
			ctx.Response.Reset() // and with it the connection of a streamed answer
			continue
		}
		if failure == answeredAttempt {
			res := &ctx.Response.Header
			for _, h := range hopHeaders {
				res.Del(h)
			}
			// The backend's wish to close its connection is not the client's.
			res.ResetConnectionClose()
			d.editResponse(res)
		}
		f.answered(ctx, rule, d.service, bs, c)
		return
	}
}

// try sends the prepared request to b and leaves its answer, or the one a
// proxy gives when there is none, in ctx: 502 when b could not be reached
// or did not answer, 504 when it did not in time. closing says that the
// client's connection closes after this answer.
func (f *fastProxy) try(ctx *fasthttp.RequestCtx, b *backend, overTLS, closing bool, timeout time.Duration) attemptFailure {
	b.inFlight.Add(1)
	defer b.inFlight.Add(-1)
	var err error
	if closing {
		// fasthttp's client closes the backend's connection when the
		// answer it read into says Connection: close once its body has
		// been streamed, and the server writes that into ctx's answer
		// for a client that closes: the backend's answer is read into a
		// Response of its own.
		answer := new(fasthttp.Response)
		if err = b.fastClient(overTLS).DoTimeout(&ctx.Request, answer, timeout); err == nil {
			moveAnswer(&ctx.Response, answer)
		}
	} else {
		err = b.fastClient(overTLS).DoTimeout(&ctx.Request, &ctx.Response, timeout)
	}
	if err == nil {
		return answeredAttempt
	}
	code, failure := http.StatusBadGateway, noAnswer
	switch {
	case errors.Is(err, fasthttp.ErrDialTimeout) || isDialError(err):
		failure = unreachable
	case errors.Is(err, fasthttp.ErrTimeout):
		code = http.StatusGatewayTimeout
	}
	fastNoBackend(ctx, code, "upstream "+b.addr+": "+err.Error())
	return failure
}

// handOver forwards what fasthttp cannot (an Upgrade, HTTP/2 to the
// backend) with net/http's reverse proxy, through fasthttp's adaptor.
func (f *fastProxy) handOver(ctx *fasthttp.RequestCtx, rule string, d decision, bs *backendService) {
	fasthttpadaptor.NewFastHTTPHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Not the adaptor's context, which is the fasthttp request's:
		// fasthttp reuses that once a connection is hijacked, while the
		// reverse proxy still reads its context. The service's timeout
		// still ends the request.
		f.std.forward(w, r.WithContext(context.Background()), rule, d, bs)
	})(ctx)
}

// answered adds to the answer what the data plane adds to every answer a
// backend gave (its name, an affinity cookie), counts it and tells outlier
// detection.
func (f *fastProxy) answered(ctx *fasthttp.RequestCtx, rule, service string, bs *backendService, c choice) {
	if !f.plane.opts.NoBackendHeader {
		ctx.Response.Header.Set(BackendHeader, c.b.addr)
	}
	if c.cookie != nil {
		ctx.Response.Header.Add("Set-Cookie", c.cookie.String())
	}
	f.plane.count(rule, service, bs, c.b, ctx.Response.StatusCode())
}

// prepare makes the client's request the backend's: addressed over TLS or
// not, rewritten as the URL map says, without hop-by-hop headers and with
// the X-Forwarded headers a proxy adds (the same as httpProxy's). A
// client's wish to close its connection (Connection: close, or HTTP/1.0
// without keep-alive) is not the backend's: fasthttp's server noted it
// before the handler ran, and closes the client's connection after the
// answer.
func prepare(ctx *fasthttp.RequestCtx, d *decision, overTLS bool) {
	req := &ctx.Request
	h := &req.Header
	h.ResetConnectionClose()
	// HTTP/1.1 to backends whatever the client spoke, as the cloud's
	// proxies do: an HTTP/1.0 request would have the backend close.
	h.SetProtocol("HTTP/1.1")
	host := string(h.Host())
	uri := req.URI()
	if overTLS {
		uri.SetScheme("https")
	} else {
		uri.SetScheme("http")
	}
	if rw := d.rewrite; rw != nil {
		if rw.HostRewrite != "" {
			h.SetHost(rw.HostRewrite)
		}
		if path, ok := d.rewrittenPath(string(uri.Path())); ok {
			uri.SetPath(path)
		}
	}
	req.UseHostHeader = true
	for _, name := range hopHeaders {
		h.Del(name)
	}
	h.Set("X-Forwarded-For", ctx.RemoteIP().String())
	h.Set("X-Forwarded-Host", host)
	h.Set("X-Forwarded-Proto", "http")
	d.editRequest(h)
}

// moveAnswer makes src, a backend's answer, dst's: its status and headers,
// and its body, which stays a stream of src's connection to the backend.
// That connection goes back to its pool or is closed when the stream is
// closed, as src (not dst) says.
func moveAnswer(dst, src *fasthttp.Response) {
	src.Header.CopyTo(&dst.Header)
	if body := src.BodyStream(); body != nil {
		dst.SetBodyStream(movedBody{body}, src.Header.ContentLength())
	} else if b := src.Body(); len(b) > 0 {
		dst.SetBodyRaw(b) // src is not pooled: b stays its own
	}
}

// movedBody is a backend's answer streamed in another Response, which
// closes it as fasthttp closes streams: with the error that ended the
// writing when there was one (the connection is then not reused).
type movedBody struct{ io.Reader }

func (m movedBody) Close() error { return m.CloseWithError(nil) }

func (m movedBody) CloseWithError(err error) error {
	if c, ok := m.Reader.(fasthttp.ReadCloserWithError); ok {
		return c.CloseWithError(err)
	}
	if c, ok := m.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func fastNoBackend(ctx *fasthttp.RequestCtx, code int, msg string) {
	ctx.Response.Reset()
	ctx.SetStatusCode(code)
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString(msg + "\n")
}

// fastClient is the backend's pool of connections for the fasthttp front
// end, over TLS or not, made at first use.
func (b *backend) fastClient(overTLS bool) *fasthttp.HostClient {
	i := 0
	if overTLS {
		i = 1
	}
	b.fastOnce[i].Do(func() {
		b.fast[i] = &fasthttp.HostClient{
			Addr:  b.addr,
			IsTLS: overTLS,
			// The cloud's proxies do not validate backends' certificates.
			TLSConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // as above
			Dial: func(addr string) (net.Conn, error) {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					return nil, err
				}
				return b.http.add(c), nil
			},
			NoDefaultUserAgentHeader:      true,
			DisableHeaderNamesNormalizing: true,
			DisablePathNormalizing:        true,
			MaxConns:                      1024,
			MaxConnWaitTimeout:            30 * time.Second,
			MaxIdleConnDuration:           90 * time.Second,
			ReadBufferSize:                maxHeaderBytes,
			StreamResponseBody:            true,
			// Only the route's retry policy tries a request again; this
			// retries just a keep-alive connection the backend had closed
			// before the request reached it, as net/http's transport does.
			MaxIdemponentCallAttempts: 2,
			RetryIfErr: func(r *fasthttp.Request, attempts int, err error) (bool, bool) {
				safe := r.Header.IsGet() || r.Header.IsHead() || r.Header.IsOptions()
				return false, safe && attempts == 1 && errors.Is(err, fasthttp.ErrConnectionClosed)
			},
		}
	})
	return b.fast[i]
}

// drainHTTP ends the fasthttp front end's connections to b, which gets
// no new requests: the idle ones at once, the others after timeout (the
// service's connectionDraining, or else its timeoutSec, by which their
// requests have ended anyway). Connections made after this are not
// touched: b may come back.
func (b *backend) drainHTTP(timeout time.Duration) {
	if lp := b.loop.Load(); lp != nil {
		lp.drain(b, timeout)
	}
	for _, hc := range b.fast {
		if hc != nil {
			hc.CloseIdleConnections()
		}
	}
	if open := b.http.list(); len(open) > 0 {
		time.AfterFunc(timeout, func() {
			for _, c := range open {
				c.Close()
			}
		})
	}
}

// maxHeaderBytes bounds the headers of a request or an answer the fasthttp
// front end reads.
const maxHeaderBytes = 64 << 10

// newFastServer is the fasthttp server of an HTTP listener.
func (p *Plane) newFastServer(l *listener) *fasthttp.Server {
	f := &fastProxy{plane: p, std: &httpProxy{plane: p, l: l}}
	return &fasthttp.Server{
		Handler:               f.serve,
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		IdleTimeout:           2 * time.Minute,
		ReadBufferSize:        maxHeaderBytes,
		// Bodies larger than the buffer are streamed to the backend as
		// they arrive rather than held.
		StreamRequestBody: true,
		Logger:            slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
		ConnState:         l.open.track,
	}
}

// openConns are the connections an HTTP listener serves, which its close
// ends at once, as net/http's Server.Close does (fasthttp's Shutdown
// waits for them).
type openConns struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool // a connection accepted as the listener closed is closed at once
}

// track follows a connection's state (fasthttp's ConnState hook).
func (o *openConns) track(c net.Conn, state fasthttp.ConnState) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch state {
	case fasthttp.StateNew:
		if o.closed {
			c.Close()
			return
		}
		if o.conns == nil {
			o.conns = map[net.Conn]struct{}{}
		}
		o.conns[c] = struct{}{}
	case fasthttp.StateHijacked, fasthttp.StateClosed:
		delete(o.conns, c)
	}
}

// add tracks c, a connection of ours, until it is closed.
func (o *openConns) add(c net.Conn) net.Conn {
	o.track(c, fasthttp.StateNew)
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

// trackedConn leaves its openConns when closed.
type trackedConn struct {
	net.Conn
	o *openConns
}

func (c *trackedConn) Close() error {
	c.o.track(c.Conn, fasthttp.StateClosed)
	return c.Conn.Close()
}

func (o *openConns) closeAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	for c := range o.conns {
		c.Close()
	}
	clear(o.conns)
}
