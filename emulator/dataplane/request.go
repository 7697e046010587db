package dataplane

import (
	"net"
	"net/http"
	"strings"
)

// request is what routing by a URL map and choosing a backend read of an
// HTTP request.
type request struct{ r *http.Request }

// host is the Host header, lower case, with its port.
func (s request) host() string { return strings.ToLower(s.r.Host) }

// path is the request's path, percent-decoded.
func (s request) path() string { return s.r.URL.Path }

// header is the values of the header name (any case), joined by commas,
// and whether it was sent.
func (s request) header(name string) (string, bool) {
	if isHostHeader(name) {
		return s.r.Host, true
	}
	vs, ok := s.r.Header[http.CanonicalHeaderKey(name)]
	return strings.Join(vs, ","), ok
}

// query is the first value of the query parameter name, and whether it
// was sent.
func (s request) query(name string) (string, bool) {
	vs, ok := s.r.URL.Query()[name]
	if !ok {
		return "", false
	}
	return vs[0], true
}

// cookie is the value of the cookie name; "" when not sent.
func (s request) cookie(name string) string {
	c, err := s.r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// clientIP is the address the request came from, without its port.
func (s request) clientIP() string {
	host, _, err := net.SplitHostPort(s.r.RemoteAddr)
	if err != nil {
		return s.r.RemoteAddr
	}
	return host
}

// method is the request's method.
func (s request) method() string { return s.r.Method }

// isHostHeader tells whether a header match names the request's host,
// which HTTP/2 calls :authority.
func isHostHeader(name string) bool { return strings.EqualFold(name, "host") || name == ":authority" }
