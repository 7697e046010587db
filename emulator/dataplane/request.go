package dataplane

import (
	"net"
	"net/http"
	"strings"

	"github.com/valyala/fasthttp"
)

// request is what routing by a URL map and choosing a backend read of an
// HTTP request, so that both front ends (net/http for HTTPS listeners,
// fasthttp for plain HTTP ones) route alike.
type request interface {
	// host is the Host header, lower case, with its port.
	host() string
	// path is the request's path, percent-decoded.
	path() string
	// header is the values of the header name (any case), joined by
	// commas, and whether it was sent.
	header(name string) (string, bool)
	// query is the first value of the query parameter name, and whether
	// it was sent.
	query(name string) (string, bool)
	// cookie is the value of the cookie name; "" when not sent.
	cookie(name string) string
	// clientIP is the address the request came from, without its port.
	clientIP() string
	// method is the request's method.
	method() string
}

// stdRequest is a net/http request seen as a request.
type stdRequest struct{ r *http.Request }

func (s stdRequest) host() string { return strings.ToLower(s.r.Host) }
func (s stdRequest) path() string { return s.r.URL.Path }

func (s stdRequest) header(name string) (string, bool) {
	if isHostHeader(name) {
		return s.r.Host, true
	}
	vs, ok := s.r.Header[http.CanonicalHeaderKey(name)]
	return strings.Join(vs, ","), ok
}

func (s stdRequest) query(name string) (string, bool) {
	vs, ok := s.r.URL.Query()[name]
	if !ok {
		return "", false
	}
	return vs[0], true
}

func (s stdRequest) cookie(name string) string {
	c, err := s.r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

func (s stdRequest) clientIP() string {
	host, _, err := net.SplitHostPort(s.r.RemoteAddr)
	if err != nil {
		return s.r.RemoteAddr
	}
	return host
}

func (s stdRequest) method() string { return s.r.Method }

// fastRequest is a fasthttp request seen as a request.
type fastRequest struct{ ctx *fasthttp.RequestCtx }

func (f fastRequest) host() string { return strings.ToLower(string(f.ctx.Request.Header.Host())) }
func (f fastRequest) path() string { return string(f.ctx.Request.URI().Path()) }

func (f fastRequest) header(name string) (string, bool) {
	if isHostHeader(name) {
		return string(f.ctx.Request.Header.Host()), true
	}
	vs := f.ctx.Request.Header.PeekAll(name)
	if len(vs) == 0 {
		return "", false
	}
	if len(vs) == 1 {
		return string(vs[0]), true
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = string(v)
	}
	return strings.Join(parts, ","), true
}

func (f fastRequest) query(name string) (string, bool) {
	v := f.ctx.QueryArgs().Peek(name)
	if v == nil {
		return "", false
	}
	return string(v), true
}

func (f fastRequest) cookie(name string) string { return string(f.ctx.Request.Header.Cookie(name)) }

func (f fastRequest) clientIP() string { return f.ctx.RemoteIP().String() }

func (f fastRequest) method() string { return string(f.ctx.Method()) }

// isHostHeader tells whether a header match names the request's host,
// which HTTP/2 calls :authority.
func isHostHeader(name string) bool { return strings.EqualFold(name, "host") || name == ":authority" }
