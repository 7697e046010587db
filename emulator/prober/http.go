package prober

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http/httputil"
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

func probeHTTP1(ctx context.Context, spec Spec, t Target, m httpMode) Result {
	want, proxy := spec.Response, wantsProxy(spec)
	if m.legacy {
		want, proxy = "", false
	}
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

// httpBufs are the per-probe buffers, pooled so that a probe allocates
// almost nothing beyond its socket.
type httpBufs struct {
	br   *bufio.Reader
	req  []byte
	body [maxBodyMatch]byte
}

var bufPool = sync.Pool{New: func() any {
	return &httpBufs{br: bufio.NewReaderSize(nil, 4096), req: make([]byte, 0, 256)}
}}

// httpExchange sends the GET and judges the answer: 200 only (redirects
// are never followed), then the optional body match.
func httpExchange(conn net.Conn, spec Spec, t Target, useTLS bool, want string) error {
	b := bufPool.Get().(*httpBufs)
	defer bufPool.Put(b)
	b.br.Reset(conn)
	defer b.br.Reset(nil) // do not keep the conn reachable from the pool
	var err error
	if b.req, err = appendRequest(b.req[:0], spec, t, useTLS); err != nil {
		return err
	}
	if _, err := conn.Write(b.req); err != nil {
		return err
	}
	status, err := readStatus(b.br)
	if err != nil {
		return err
	}
	if status != 200 {
		return failure(ReasonBadStatus, "HTTP status "+strconv.Itoa(status))
	}
	if want == "" {
		return nil // the status line is the verdict; skip headers and body
	}
	f, err := readHeaders(b.br)
	if err != nil {
		return err
	}
	return matchBody(b.br, f, b.body[:], want)
}

// appendRequest appends the probe's GET request to dst.
func appendRequest(dst []byte, spec Spec, t Target, useTLS bool) ([]byte, error) {
	path, err := requestPath(spec)
	if err != nil {
		return dst, err
	}
	dst = append(dst, "GET "...)
	dst = append(dst, path...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = appendHost(dst, spec.Host, t, defaultPort(useTLS))
	dst = append(dst, "\r\nUser-Agent: lbhealth-prober\r\nConnection: close\r\n\r\n"...)
	return dst, nil
}

// requestPath returns the path to GET, "/" by default. A space or control
// byte would let a health-check definition smuggle extra request lines or
// headers, so such paths and hosts are refused.
func requestPath(spec Spec) (string, error) {
	path := spec.RequestPath
	if path == "" {
		path = "/"
	}
	if path[0] != '/' || !validToken(path) || !validToken(spec.Host) {
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

// readStatus reads the status line, skipping 1xx interim responses.
func readStatus(br *bufio.Reader) (int, error) {
	for range maxInterim {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, statusLineError(line, err)
		}
		code, ok := parseStatusLine(line)
		if !ok {
			return 0, failure(ReasonProtocolError, "malformed HTTP status line "+quoteStart(line))
		}
		if code >= 200 || code == 101 {
			return code, nil
		}
		if _, err := readHeaders(br); err != nil {
			return 0, err
		}
	}
	return 0, failure(ReasonProtocolError, "too many 1xx interim responses")
}

// statusLineError explains a status line that could not be read whole.
// Bytes that cannot start an HTTP response are garbage whatever ended the
// read; otherwise the read error (timeout, EOF, reset) decides.
func statusLineError(partial []byte, err error) error {
	switch {
	case err == bufio.ErrBufferFull:
		return failure(ReasonProtocolError, "HTTP status line too long")
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

// framing is how the body of the response is delimited.
type framing struct {
	chunked bool
	length  int64 // Content-Length; -1 = until the connection closes
}

// readHeaders reads the header block, keeping only what frames the body.
// At most maxHeaderBytes are read; over-long lines are skipped, not kept.
func readHeaders(br *bufio.Reader) (framing, error) {
	f := framing{length: -1}
	total := 0
	for {
		line, err := readHeaderLine(br, &total)
		if err != nil {
			return f, err
		}
		if line[0] == '\r' || line[0] == '\n' {
			return f, nil // blank line: end of headers
		}
		if err := f.observe(line); err != nil {
			return f, err
		}
	}
}

// readHeaderLine returns the next header line (never empty) and counts its
// bytes against maxHeaderBytes. A line longer than the buffer is discarded
// and reported as skippedLine: the headers that matter are short.
func readHeaderLine(br *bufio.Reader, total *int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	*total += len(line)
	for err == bufio.ErrBufferFull && *total <= maxHeaderBytes {
		line = nil
		var more []byte
		more, err = br.ReadSlice('\n')
		*total += len(more)
	}
	switch {
	case *total > maxHeaderBytes:
		return nil, failure(ReasonProtocolError, "HTTP response headers too large")
	case err == io.EOF:
		return nil, failure(ReasonConnectionReset, "connection closed inside HTTP headers")
	case err != nil:
		return nil, err
	}
	if line == nil {
		return skippedLine, nil
	}
	return line, nil
}

// skippedLine stands for a discarded over-long header line.
var skippedLine = []byte("x-skipped: \r\n")

// observe records the body framing announced by one header line. Lines
// without a colon (obsolete folding, junk) are ignored, as lenient
// health checkers do; only the status line decides PROTOCOL_ERROR.
func (f *framing) observe(line []byte) error {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return nil
	}
	value = bytes.TrimSpace(value)
	switch {
	case bytes.EqualFold(name, []byte("Content-Length")):
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 {
			return failure(ReasonProtocolError, "bad Content-Length "+quoteStart(value))
		}
		f.length = n
	case bytes.EqualFold(name, []byte("Transfer-Encoding")):
		// Chunked is always the last coding when present (RFC 9112 6.1).
		v := value[max(0, len(value)-len("chunked")):]
		f.chunked = bytes.EqualFold(v, []byte("chunked"))
	}
	return nil
}

// matchBody reads at most len(buf) body bytes looking for want.
func matchBody(br *bufio.Reader, f framing, buf []byte, want string) error {
	var r io.Reader = br
	switch {
	case f.chunked: // chunked wins over Content-Length (RFC 9112 6.3)
		r = httputil.NewChunkedReader(br)
	case f.length >= 0 && f.length < int64(len(buf)):
		buf = buf[:f.length]
	}
	return readAndMatch(r, buf, want)
}

// readAndMatch fills buf from r (stopping early at EOF) and succeeds as
// soon as want appears in what was read. buf's length bounds the read.
func readAndMatch(r io.Reader, buf []byte, want string) error {
	w := []byte(want)
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if bytes.Contains(buf[:n], w) {
			return nil
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return orProtocolError(err) // e.g. malformed chunked encoding
		}
	}
	return failure(ReasonResponseMismatch, "response string not found in first "+
		strconv.Itoa(n)+" body bytes")
}
