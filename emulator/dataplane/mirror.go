package dataplane

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"sync/atomic"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A route action's requestMirrorPolicy shadows its requests to another
// backend service, as the cloud's proxies do: mirrorPercent percent of
// them (all when unset) are sent, as the backend gets them, to a healthy
// endpoint of that service too, with "-shadow" after the Host's name
// ("shop.example.com-shadow:8080"). Nothing waits for the shadow's
// answer, which is read and dropped, and counted as the service's. A
// request's body goes to the shadow too when it is at most
// mirrorBodyLimit long, which the proxy then holds; a request with a
// longer body, or one of unknown length, is streamed to its backend and
// not mirrored. Upgrades are not mirrored, nor requests past
// maxMirrorsInFlight.

// mirrorBodyLimit is the longest body a mirrored request carries.
const mirrorBodyLimit = 1 << 20

// maxMirrorsInFlight bounds the mirrored requests a plane has in flight:
// nothing waits for a shadow, so a slow one would otherwise pile up a
// goroutine and a connection per request for as long as its service's
// timeout. Past it, requests go unmirrored until some answer, as the
// cloud's proxies stop mirroring at their circuit breakers' limits.
const maxMirrorsInFlight = 1024

// mirrorSlots counts the mirrored requests in flight.
type mirrorSlots struct{ n atomic.Int64 }

// take takes a slot; false when all maxMirrorsInFlight are taken.
func (m *mirrorSlots) take() bool {
	if m.n.Add(1) > maxMirrorsInFlight {
		m.n.Add(-1)
		return false
	}
	return true
}

func (m *mirrorSlots) give() { m.n.Add(-1) }

// rollMirror tells whether this request is one of those m mirrors.
func rollMirror(m *api.RequestMirrorPolicy) bool {
	if m == nil || m.BackendService == "" {
		return false
	}
	if m.MirrorPercent == nil {
		return true
	}
	return rand.Float64()*100 < *m.MirrorPercent
}

// shadow is a copy of a request, as its backend gets it, for the mirror.
type shadow struct {
	method, uri, host string
	header            http.Header
	body              []byte
}

// shadowHost is host with "-shadow" after its name, before any port.
func shadowHost(host string) string {
	if name, port, err := net.SplitHostPort(host); err == nil {
		return net.JoinHostPort(name+"-shadow", port)
	}
	return host + "-shadow"
}

// mirror sends s to a healthy endpoint of m's service on a goroutine of
// its own.
func (p *Plane) mirror(rule string, m *api.RequestMirrorPolicy, s *shadow) {
	service := api.PathOf(m.BackendService)
	bs := p.cfg.service(service)
	if bs == nil {
		return
	}
	c := p.pools.get(p.cfg, poolKey{service, modeProxy}).chooseAgain()
	if c.b == nil || !p.mirrors.take() {
		return
	}
	scheme := "http"
	if speaksTLS(bs) {
		scheme = "https"
	}
	c.b.inFlight.Add(1)
	go func() {
		defer p.mirrors.give()
		defer c.b.inFlight.Add(-1)
		ctx, cancel := context.WithTimeout(context.Background(), backendTimeout(bs))
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, s.method, scheme+"://"+c.b.addr+s.uri, bytes.NewReader(s.body))
		if err != nil {
			return
		}
		req.Header, req.Host = s.header, shadowHost(s.host)
		code := http.StatusBadGateway
		if res, err := p.transportFor(bs).RoundTrip(req); err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			code = res.StatusCode
		}
		p.count(rule, service, bs, c.b, code)
	}()
}

// shadowOf is the copy of r, as the backend is to get it after d, for
// the mirror; nil when its body is too long or of unknown length. A body
// it copies, it reads: r reads it again from the copy.
func shadowOf(r *http.Request, d *decision, f front, bs *api.BackendService) *shadow {
	var body []byte
	switch n := r.ContentLength; {
	case r.Body == nil || r.Body == http.NoBody || n == 0:
	case n > 0 && n <= mirrorBodyLimit:
		var err error
		if body, err = io.ReadAll(io.LimitReader(r.Body, n)); err != nil {
			return nil
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	default:
		return nil
	}
	out := r.Clone(context.Background())
	// What the reverse proxy drops before its Rewrite (outgoing) runs:
	// the X-Forwarded headers and the hop-by-hop ones.
	for _, h := range []string{"Connection", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto",
		"Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	d.outgoing(&httputil.ProxyRequest{In: r, Out: out}, f, bs)
	return &shadow{method: out.Method, uri: out.URL.RequestURI(), host: out.Host, header: out.Header, body: body}
}
