package prober

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
)

// HTTP, HTTPS, LEGACY_HTTP and LEGACY_HTTPS share one small hand-rolled
// HTTP/1.1 client. The emulator probes thousands of endpoints per second;
// a raw conn, one Write and a pooled bufio.Reader cost far less than an
// http.Transport per probe, and let us stop reading as soon as the verdict
// is known (a 1 GB body costs at most a few KB of reads).

// maxBodyMatch is how much of the body a response string may span.
const maxBodyMatch = 1024

// maxHeaderBytes bounds the response header block we are willing to read.
const maxHeaderBytes = 64 << 10

// maxInterim bounds the 1xx interim responses skipped before the real one.
const maxInterim = 8

// httpMode selects the variant of the shared HTTP/1.1 prober.
type httpMode struct {
	tls    bool
	legacy bool // LEGACY_*: no PROXY header, no response matching
}

func probeHTTP(ctx context.Context, spec Spec, t Target) Result {
	return probeHTTP1(ctx, spec, t, httpMode{})
}

func probeHTTPS(ctx context.Context, spec Spec, t Target) Result {
	return probeHTTP1(ctx, spec, t, httpMode{tls: true})
}

func probeLegacyHTTP(ctx context.Context, spec Spec, t Target) Result {
	return probeHTTP1(ctx, spec, t, httpMode{legacy: true})
}

func probeLegacyHTTPS(ctx context.Context, spec Spec, t Target) Result {
	return probeHTTP1(ctx, spec, t, httpMode{tls: true, legacy: true})
}

// rules returns the response string to look for and whether the PROXY
// line goes first: legacy checks have neither.
func (m httpMode) rules(spec Spec) (want string, proxy bool) {
	if m.legacy {
		return "", false
	}
	return spec.http().Response, wantsProxy(spec)
}

func probeHTTP1(ctx context.Context, spec Spec, t Target, m httpMode) Result {
	want, proxy := m.rules(spec)
	var conn, raw net.Conn
	var stop func() bool
	var err error
	if m.tls {
		conn, raw, stop, err = dialTLS(ctx, spec, t, proxy, nil)
	} else {
		raw, stop, err = dial(ctx, t, proxy)
		conn = raw
	}
	if err != nil {
		return result(ctx, err)
	}
	defer raw.Close()
	defer stop()
	return result(ctx, httpExchange(conn, spec, t, m.tls, want))
}

// httpExchange sends the GET and judges the answer (httpVerdict).
func httpExchange(conn net.Conn, spec Spec, t Target, useTLS bool, want string) error {
	b := bufPool.Get().(*[]byte)
	defer bufPool.Put(b)
	req, err := appendRequest((*b)[:0], spec, t, useTLS)
	if err != nil {
		return err
	}
	if _, err := conn.Write(req); err != nil {
		return err
	}
	return readVerdict(conn, (*b)[:readBufSize], newHTTPVerdict(want))
}

// bufPool holds per-probe buffers (request, then reads), so that a
// probe allocates almost nothing beyond its socket.
var bufPool = sync.Pool{New: func() any {
	b := make([]byte, readBufSize)
	return &b
}}

// appendRequest appends the probe's GET request to dst.
func appendRequest(dst []byte, spec Spec, t Target, useTLS bool) ([]byte, error) {
	path, err := requestPath(spec)
	if err != nil {
		return dst, err
	}
	dst = append(dst, "GET "...)
	dst = append(dst, path...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = appendHost(dst, spec.http().Host, t, defaultPort(useTLS))
	dst = append(dst, "\r\nUser-Agent: lbhealth-prober\r\nConnection: close\r\n\r\n"...)
	return dst, nil
}

// requestPath returns the path to GET, "/" by default. A space or control
// byte would let a health-check definition smuggle extra request lines or
// headers, so such paths and hosts are refused.
func requestPath(spec Spec) (string, error) {
	h := spec.http()
	path := h.RequestPath
	if path == "" {
		path = "/"
	}
	if path[0] != '/' || !validToken(path) || !validToken(h.Host) {
		return "", failure(ReasonProtocolError, "invalid request path or host")
	}
	return path, nil
}

func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

func defaultPort(useTLS bool) int {
	if useTLS {
		return 443
	}
	return 80
}

// appendHost appends the Host header value: spec.Host, or else the address
// probed, with the port omitted when it is the scheme's default.
func appendHost(dst []byte, host string, t Target, defPort int) []byte {
	if host != "" {
		return append(dst, host...)
	}
	v6 := strings.IndexByte(t.IP, ':') >= 0
	if v6 {
		dst = append(dst, '[')
	}
	dst = append(dst, t.IP...)
	if v6 {
		dst = append(dst, ']')
	}
	if t.Port != defPort {
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(t.Port), 10)
	}
	return dst
}

// hostHeader is appendHost for callers that need a string (HTTP/2).
func hostHeader(host string, t Target, defPort int) string {
	if host != "" {
		return host
	}
	return string(appendHost(nil, "", t, defPort))
}

// statusLineError explains a status line that could not be read whole.
// Bytes that cannot start an HTTP response are garbage whatever ended the
// read; otherwise the read error (timeout, EOF, reset) decides.
func statusLineError(partial []byte, err error) error {
	switch {
	case len(partial) > 0 && !maybeHTTP(partial):
		return failure(ReasonProtocolError, "not an HTTP response: "+quoteStart(partial))
	case err == io.EOF && len(partial) == 0:
		return failure(ReasonConnectionReset, "connection closed before HTTP response")
	case err == io.EOF:
		return failure(ReasonConnectionReset, "connection closed inside HTTP status line")
	}
	return err
}

// maybeHTTP reports whether p can be the start of "HTTP/1.".
func maybeHTTP(p []byte) bool {
	const prefix = "HTTP/1."
	n := min(len(p), len(prefix))
	return string(p[:n]) == prefix[:n]
}

// parseStatusLine parses "HTTP/1.x NNN[ reason]\r\n".
func parseStatusLine(line []byte) (int, bool) {
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || !isDigit(line[7]) || line[8] != ' ' {
		return 0, false
	}
	code := 0
	for _, c := range line[9:12] {
		if !isDigit(c) {
			return 0, false
		}
		code = code*10 + int(c-'0')
	}
	if len(line) > 12 && line[12] != ' ' && line[12] != '\r' && line[12] != '\n' {
		return 0, false
	}
	return code, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// quoteStart quotes the first bytes of p for a Detail.
func quoteStart(p []byte) string {
	const show = 40
	if len(p) > show {
		p = p[:show]
	}
	return strconv.Quote(string(p))
}

func httpPart(s *Spec, text func(string) string) {
	s.HTTP = &HTTPSpec{Host: text("host"), RequestPath: text("requestPath"), Response: text("response")}
}
