package dataplane

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
)

// What the event loop (loop_linux.go) reads of HTTP/1.1: a client's
// request head, and a backend's answer head and body framing. It reads
// strictly, and what it does not take as it is (another version, a
// folded or malformed line, two Hosts or two lengths, a body of unknown
// length, an Upgrade or an Expect) it leaves to fasthttp's server, which
// answers such requests as it always has.

// head is a client's request head.
type head struct {
	size          int // bytes of the head, its blank line included
	method        string
	target        []byte
	host          string
	contentLength int
	closing       bool // Connection: close
	loopable      bool // the loop may carry it
	err           error
	lines         [][]byte // the header lines, without CRLF
	keep          []bool   // whether each goes to the backend
}

var errBareLF = errors.New("a line ends in a bare LF")

// parseHead reads the head at the start of b; ok is false while it is
// not whole (h.err set when it never will be, for the loop).
func parseHead(b []byte) (h head, ok bool) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if bytes.Contains(b, []byte("\n\n")) || bytes.Contains(b, []byte("\n\r\n")) {
			h.err = errBareLF
		}
		return h, false
	}
	h.size = end + 4
	line, rest, _ := bytes.Cut(b[:end+2], []byte("\r\n"))
	method, line, ok1 := bytes.Cut(line, []byte(" "))
	target, version, ok2 := bytes.Cut(line, []byte(" "))
	if !ok1 || !ok2 || !isToken(method) || len(target) == 0 || target[0] != '/' || !visible(target) ||
		string(version) != "HTTP/1.1" || string(method) == "CONNECT" {
		return h, true // not loopable
	}
	h.method, h.target = string(method), target
	hosts, lengths := 0, 0
	var drop map[string]bool
	var buf [32]byte
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		if len(l) == 0 {
			break
		}
		name, value, found := bytes.Cut(l, []byte(":"))
		if !found || !isToken(name) || !fieldValue(value) {
			return h, true // folded, or not a header: fasthttp's to answer
		}
		value = bytes.Trim(value, " \t")
		keep := true
		switch requestHeaders[string(lowerName(&buf, name))] {
		case hHost:
			hosts++
			h.host = string(value)
		case hContentLength:
			lengths++
			n, err := strconv.Atoi(string(value))
			if err != nil || n < 0 || !digits(value) {
				return h, true
			}
			h.contentLength = n
		case hRefused:
			return h, true
		case hConnection:
			keep = false
			closing, upgrade := connectionTokens(value, &drop)
			if upgrade {
				return h, true
			}
			h.closing = h.closing || closing
		case hDropped:
			keep = false // hop by hop, or the proxy's own
		}
		h.lines = append(h.lines, l)
		h.keep = append(h.keep, keep)
	}
	if hosts != 1 || lengths > 1 || h.contentLength > maxHeaderBytes {
		return h, true
	}
	if drop != nil {
		unkeep(h.lines, h.keep, func(name string) bool { return drop[name] })
	}
	h.loopable = true
	return h, true
}

// Kinds of request headers the loop looks at.
const (
	hOther = iota
	hHost
	hContentLength
	hConnection
	hRefused // the loop leaves the request to fasthttp
	hDropped // not forwarded: hop by hop, or the proxy's own
	hTransferEncoding
)

// answerHeaders and requestHeaders sort the headers of answers and
// requests; the hop-by-hop ones are fast.go's hopHeaders.
var answerHeaders, requestHeaders = headerKinds()

func headerKinds() (answer, request map[string]int) {
	answer = map[string]int{"content-length": hContentLength, "transfer-encoding": hTransferEncoding, "connection": hConnection}
	request = map[string]int{"host": hHost, "content-length": hContentLength, "connection": hConnection,
		"transfer-encoding": hRefused, "expect": hRefused,
		"x-forwarded-for": hDropped, "x-forwarded-host": hDropped, "x-forwarded-proto": hDropped}
	for _, h := range hopHeaders {
		answer[strings.ToLower(h)] = hDropped
		request[strings.ToLower(h)] = hDropped
	}
	request["upgrade"] = hRefused // the loop does not carry upgrades
	return answer, request
}

// connectionTokens reads a Connection header's value: whether it says
// close or upgrade, and the other headers it names (hop by hop, not
// forwarded) into *drop.
func connectionTokens(value []byte, drop *map[string]bool) (closing, upgrade bool) {
	for tok := range strings.SplitSeq(strings.ToLower(string(value)), ",") {
		switch tok = strings.TrimSpace(tok); tok {
		case "close":
			closing = true
		case "upgrade":
			upgrade = true
		case "keep-alive", "":
		default:
			if *drop == nil {
				*drop = map[string]bool{}
			}
			(*drop)[tok] = true
		}
	}
	return closing, upgrade
}

// unkeep marks the lines whose header name (in lower case) gone names as
// not forwarded.
func unkeep(lines [][]byte, keep []bool, gone func(name string) bool) {
	for i, l := range lines {
		name, _, _ := bytes.Cut(l, []byte(":"))
		if gone(strings.ToLower(string(name))) {
			keep[i] = false
		}
	}
}

// lowerName is name in lower case, in buf when it has capitals; looked
// up as string(lowerName(...)) in a map, it costs no allocation.
func lowerName(buf *[32]byte, name []byte) []byte {
	for _, c := range name {
		if 'A' <= c && c <= 'Z' {
			if len(name) > len(buf) {
				return bytes.ToLower(name)
			}
			for i, c := range name {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf[i] = c
			}
			return buf[:len(name)]
		}
	}
	return name
}

// forBackend is the head as the backend gets it: the request line as
// sent, the headers but the hop-by-hop ones, and the X-Forwarded headers
// a proxy adds (as prepare does).
func (h *head) forBackend(raw []byte, clientIP string) []byte {
	out := make([]byte, 0, len(raw)+96)
	line, _, _ := bytes.Cut(raw, []byte("\r\n"))
	out = append(append(out, line...), "\r\n"...)
	for i, l := range h.lines {
		if h.keep[i] {
			out = append(append(out, l...), "\r\n"...)
		}
	}
	out = append(append(append(out, "X-Forwarded-For: "...), clientIP...), "\r\n"...)
	out = append(append(append(out, "X-Forwarded-Host: "...), h.host...), "\r\n"...)
	return append(out, "X-Forwarded-Proto: http\r\n\r\n"...)
}

// isToken tells whether b is a non-empty HTTP token.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// fieldValue tells whether b may be a header's value: no control bytes
// but tabs.
func fieldValue(b []byte) bool {
	for _, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// visible tells whether b has only visible ASCII.
func visible(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// loopReq is a head seen as a request, for routing and choosing.
type loopReq struct {
	h    *head
	uri  *fasthttp.URI
	addr string // the client's IP
}

func (r *loopReq) parsed() *fasthttp.URI {
	if r.uri == nil {
		r.uri = new(fasthttp.URI)
		r.uri.Parse([]byte(r.h.host), r.h.target) //nolint:errcheck // the target was checked: a path
	}
	return r.uri
}

func (r *loopReq) host() string { return strings.ToLower(r.h.host) }
func (r *loopReq) path() string { return string(r.parsed().Path()) }

func (r *loopReq) header(name string) (string, bool) {
	if isHostHeader(name) {
		return r.h.host, true
	}
	var vs []string
	for _, l := range r.h.lines {
		n, v, _ := bytes.Cut(l, []byte(":"))
		if strings.EqualFold(string(n), name) {
			vs = append(vs, string(bytes.Trim(v, " \t")))
		}
	}
	return strings.Join(vs, ","), vs != nil
}

func (r *loopReq) query(name string) (string, bool) {
	v := r.parsed().QueryArgs().Peek(name)
	if v == nil {
		return "", false
	}
	return string(v), true
}

func (r *loopReq) cookie(name string) string {
	v, _ := r.header("Cookie")
	for part := range strings.SplitSeq(v, ";") {
		if k, val, ok := strings.Cut(strings.TrimSpace(part), "="); ok && k == name {
			return val
		}
	}
	return ""
}

func (r *loopReq) clientIP() string { return r.addr }
func (r *loopReq) method() string   { return r.h.method }

// loopable tells whether the loop carries a request routed so: to an HTTP
// service, with nothing for the proxy to do beyond forwarding (no
// redirect, CORS, fault, mirror, retry, rewrite or header action).
func loopable(d *decision, bs *backendService) bool {
	return d.redirect == nil && d.cors == nil && d.fault == nil && d.mirror == nil && d.retry == nil &&
		d.rewrite == nil && d.headers == [4]*headerAction{} && bs != nil && (bs.Protocol == "HTTP" || bs.Protocol == "")
}

// answer is a backend's answer head.
type answer struct {
	size          int // bytes of the head, its blank line included
	status        int
	informational bool // 1xx: another head follows
	body          framing
	lines         [][]byte
	keep          []bool
	statusLine    []byte // the code and reason
}

var errAnswer = errors.New("malformed answer")

// parseAnswer reads the answer head at the start of b, to a request of
// method; ok is false while it is not whole.
func parseAnswer(b []byte, method string) (a answer, ok bool, err error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if bytes.Contains(b, []byte("\n\n")) {
			return a, false, errBareLF
		}
		return a, false, nil
	}
	a.size = end + 4
	line, rest, _ := bytes.Cut(b[:end+2], []byte("\r\n"))
	version, status, _ := bytes.Cut(line, []byte(" "))
	code, _, _ := bytes.Cut(status, []byte(" "))
	if len(code) != 3 || !digits(code) || (string(version) != "HTTP/1.1" && string(version) != "HTTP/1.0") {
		return a, false, errAnswer
	}
	a.status, _ = strconv.Atoi(string(code))
	a.statusLine = status
	if a.status < 200 {
		if a.status == 101 {
			return a, false, errors.New("switching protocols unasked")
		}
		a.informational = true
		return a, true, nil
	}
	a.body.reusable = string(version) == "HTTP/1.1"
	length, chunked, coded := -1, false, false
	var drop map[string]bool
	var buf [32]byte
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		if len(l) == 0 {
			break
		}
		name, value, found := bytes.Cut(l, []byte(":"))
		if !found || !isToken(name) {
			return a, false, errAnswer
		}
		value = bytes.Trim(value, " \t")
		keep := true
		switch answerHeaders[string(lowerName(&buf, name))] {
		case hContentLength:
			n, err := strconv.Atoi(string(value))
			if err != nil || n < 0 || !digits(value) || (length >= 0 && n != length) {
				return a, false, errAnswer
			}
			length = n
		case hTransferEncoding:
			coded = true
			codings := strings.Split(strings.ToLower(string(value)), ",")
			chunked = strings.TrimSpace(codings[len(codings)-1]) == "chunked"
		case hConnection:
			keep = false
			if closing, _ := connectionTokens(value, &drop); closing {
				a.body.reusable = false
			}
		case hDropped:
			keep = false
		}
		a.lines = append(a.lines, l)
		a.keep = append(a.keep, keep)
	}
	if drop != nil || coded {
		// A length beside a coding means nothing.
		unkeep(a.lines, a.keep, func(name string) bool { return drop[name] || coded && name == "content-length" })
	}
	switch {
	case method == "HEAD" || a.status == 204 || a.status == 304:
		a.body.remaining = 0
	case coded && chunked:
		a.body.chunked = true
	case coded || length < 0:
		a.body.untilClose = true
		a.body.reusable = false
	default:
		a.body.remaining = int64(length)
	}
	return a, true, nil
}

// forClient appends the head as the client gets it to dst: HTTP/1.1,
// the backend's status, its headers but the hop-by-hop ones, then extra
// (lines with their CRLF).
func (a *answer) forClient(dst, extra []byte) []byte {
	dst = append(append(append(dst, "HTTP/1.1 "...), a.statusLine...), "\r\n"...)
	for i, l := range a.lines {
		if a.keep[i] {
			dst = append(append(dst, l...), "\r\n"...)
		}
	}
	if a.body.untilClose {
		dst = append(dst, "Connection: close\r\n"...)
	}
	return append(append(dst, extra...), "\r\n"...)
}

// framing is where an answer's body ends.
type framing struct {
	remaining  int64 // of a body of known length, or of the chunk being read
	chunked    bool
	untilClose bool
	reusable   bool // the connection takes another request after it
	state      int  // of a chunked body
}

const (
	chunkSize = iota
	chunkData
	chunkEnd
	chunkTrailer
)

// maxChunkLine bounds a chunk's size line and a trailer line.
const maxChunkLine = 4096

var errChunk = errors.New("malformed chunked body")

// consume reads the body's bytes at the start of b: how many belong to it
// (relayed as they are), and whether the body ended with them.
func (f *framing) consume(b []byte) (n int, done bool, err error) {
	switch {
	case f.untilClose:
		return len(b), false, nil
	case !f.chunked:
		n := int(min(int64(len(b)), f.remaining))
		f.remaining -= int64(n)
		return n, f.remaining == 0, nil
	}
	pos := 0
	for pos < len(b) {
		switch f.state {
		case chunkSize, chunkTrailer:
			i := bytes.Index(b[pos:], []byte("\r\n"))
			if i < 0 {
				if len(b)-pos > maxChunkLine {
					return 0, false, errChunk
				}
				return pos, false, nil
			}
			line := b[pos : pos+i]
			pos += i + 2
			if f.state == chunkTrailer {
				if len(line) == 0 {
					return pos, true, nil
				}
				continue
			}
			hex, _, _ := bytes.Cut(line, []byte(";"))
			size, err := strconv.ParseInt(string(bytes.TrimRight(hex, " \t")), 16, 64)
			if err != nil || size < 0 || len(hex) == 0 || hex[0] == '+' || hex[0] == '-' {
				return 0, false, errChunk
			}
			if size == 0 {
				f.state = chunkTrailer
			} else {
				f.state, f.remaining = chunkData, size
			}
		case chunkData:
			k := int(min(int64(len(b)-pos), f.remaining))
			pos += k
			if f.remaining -= int64(k); f.remaining == 0 {
				f.state = chunkEnd
			}
		case chunkEnd:
			if len(b)-pos < 2 {
				return pos, false, nil
			}
			if b[pos] != '\r' || b[pos+1] != '\n' {
				return 0, false, errChunk
			}
			pos += 2
			f.state = chunkSize
		}
	}
	return pos, false, nil
}
