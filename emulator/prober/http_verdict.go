package prober

import (
	"bytes"
	"io"
	"strconv"
)

// maxLine bounds a status line or a chunk-size line; longer header lines
// are skipped rather than kept (the headers that matter are short).
const maxLine = 4096

// httpVerdict is the HTTP/HTTPS answer rule, fed the response bytes as
// they arrive: status 200 (1xx interim responses skipped, redirects never
// followed), then, when want is set, want within the first maxBodyMatch
// bytes of the body. It stops reading as soon as the verdict is known, so
// a 1 GB body costs at most a few KB of reads; without want the verdict
// comes once the whole header block has arrived: a status line alone,
// then silence, a close or headers that never end, is no answer.
type httpVerdict struct {
	want    string
	state   httpState
	line    []byte // the line being read, when it spans pieces
	lineLen int    // bytes of the current line, skipped ones included
	headers int    // bytes of the current header block
	interim int    // 1xx responses skipped so far
	framing framing
	left    int64 // bytes left in the current chunk
	body    bodyWindow
}

type httpState uint8

const (
	readingStatus httpState = iota
	readingInterimHeaders
	readingHeaders
	readingBody // Content-Length or until the connection closes
	readingChunkSize
	readingChunkData
	readingChunkEnd // the CRLF after a chunk's data
)

func newHTTPVerdict(want string) *httpVerdict {
	return &httpVerdict{want: want}
}

func (v *httpVerdict) feed(p []byte) (bool, error) {
	for len(p) > 0 {
		var done bool
		var err error
		switch v.state {
		case readingStatus:
			p, done, err = v.status(p)
		case readingInterimHeaders, readingHeaders:
			p, done, err = v.header(p)
		case readingBody:
			p, done, err = v.plainBody(p)
		case readingChunkSize:
			p, done, err = v.chunkSize(p)
		case readingChunkData:
			p, done, err = v.chunkData(p)
		case readingChunkEnd:
			p, done, err = v.chunkEnd(p)
		}
		if done {
			return true, err
		}
	}
	return false, nil
}

func (v *httpVerdict) eof() error {
	switch v.state {
	case readingStatus:
		return statusLineError(v.line, io.EOF)
	case readingInterimHeaders, readingHeaders:
		return failure(ReasonConnectionReset, "connection closed inside HTTP headers")
	case readingBody:
		return v.body.miss()
	}
	return failure(ReasonConnectionReset, "connection closed inside the chunked HTTP body")
}

func (v *httpVerdict) abort(err error) error {
	switch v.state {
	case readingStatus:
		return statusLineError(v.line, err)
	case readingInterimHeaders, readingHeaders:
		return err
	}
	return orProtocolError(err)
}

// takeLine consumes p up to the end of the current line. It returns the
// line once complete (nil while incomplete, or when it was longer than
// maxLine), the rest of p, and whether the line is complete. A line that
// arrived whole is returned in place, without a copy.
func (v *httpVerdict) takeLine(p []byte) (line, rest []byte, complete bool) {
	i := bytes.IndexByte(p, '\n')
	piece := p
	if i >= 0 {
		piece, rest = p[:i+1], p[i+1:]
	}
	v.lineLen += len(piece)
	switch {
	case v.lineLen > maxLine:
		v.line = v.line[:0]
	case i >= 0 && len(v.line) == 0:
		line = piece
	default:
		v.line = append(v.line, piece...)
		line = v.line
	}
	if i < 0 {
		return nil, rest, false
	}
	if v.lineLen > maxLine {
		line = nil
	}
	v.line, v.lineLen = v.line[:0], 0
	return line, rest, true
}

func (v *httpVerdict) status(p []byte) ([]byte, bool, error) {
	line, rest, complete := v.takeLine(p)
	switch {
	case v.lineLen > maxLine || (complete && line == nil):
		return nil, true, failure(ReasonProtocolError, "HTTP status line too long")
	case !complete:
		return rest, false, nil
	}
	code, ok := parseStatusLine(line)
	switch {
	case !ok:
		return nil, true, failure(ReasonProtocolError, "malformed HTTP status line "+quoteStart(line))
	case code < 200 && code != 101:
		v.state, v.headers = readingInterimHeaders, 0
		return rest, false, nil
	case code != 200:
		return nil, true, failure(ReasonBadStatus, "HTTP status "+strconv.Itoa(code))
	}
	v.state, v.headers, v.framing = readingHeaders, 0, framing{length: -1}
	return rest, false, nil
}

// header reads one header line, keeping only what frames the body. At
// most maxHeaderBytes are read per header block.
func (v *httpVerdict) header(p []byte) ([]byte, bool, error) {
	before := len(p)
	line, rest, complete := v.takeLine(p)
	v.headers += before - len(rest)
	switch {
	case v.headers > maxHeaderBytes:
		return nil, true, failure(ReasonProtocolError, "HTTP response headers too large")
	case !complete:
		return rest, false, nil
	case line == nil:
		return rest, false, nil // an over-long line, skipped
	case line[0] == '\r' || line[0] == '\n':
		return v.endOfHeaders(rest)
	}
	f := &v.framing
	if v.state == readingInterimHeaders {
		f = &framing{} // checked like any header, then forgotten
	}
	if err := f.observe(line); err != nil {
		return nil, true, err
	}
	return rest, false, nil
}

// endOfHeaders moves on after a blank line: to the next status line after
// an interim response, or into the body.
func (v *httpVerdict) endOfHeaders(rest []byte) ([]byte, bool, error) {
	if v.state == readingInterimHeaders {
		v.interim++
		if v.interim == maxInterim {
			return nil, true, failure(ReasonProtocolError, "too many 1xx interim responses")
		}
		v.state = readingStatus
		return rest, false, nil
	}
	if v.want == "" {
		return nil, true, nil // a complete 200 header block is the verdict; the body is not read
	}
	limit := maxBodyMatch
	switch {
	case v.framing.chunked: // chunked wins over Content-Length (RFC 9112 6.3)
		v.state = readingChunkSize
	case v.framing.length >= 0:
		v.state, limit = readingBody, int(min(v.framing.length, maxBodyMatch))
	default:
		v.state = readingBody // until the connection closes
	}
	v.body = newBodyWindow(v.want, limit)
	if limit == 0 {
		return nil, true, v.body.miss()
	}
	return rest, false, nil
}

func (v *httpVerdict) plainBody(p []byte) ([]byte, bool, error) {
	done, err := v.body.add(p)
	return nil, done, err
}

// chunkSize parses a chunk-size line ("1a;ext=x\r\n").
func (v *httpVerdict) chunkSize(p []byte) ([]byte, bool, error) {
	line, rest, complete := v.takeLine(p)
	switch {
	case v.lineLen > maxLine || (complete && line == nil):
		return nil, true, failure(ReasonProtocolError, "malformed chunked encoding: chunk-size line too long")
	case !complete:
		return rest, false, nil
	}
	hex, _, _ := bytes.Cut(line, []byte(";"))
	hex = bytes.TrimSpace(hex)
	size, err := strconv.ParseUint(string(hex), 16, 63)
	switch {
	case err != nil:
		return nil, true, failure(ReasonProtocolError, "malformed chunked encoding: chunk size "+quoteStart(hex))
	case size == 0:
		return nil, true, v.body.miss() // last chunk: the body ended without want
	}
	v.state, v.left = readingChunkData, int64(size)
	return rest, false, nil
}

func (v *httpVerdict) chunkData(p []byte) ([]byte, bool, error) {
	n := int(min(int64(len(p)), v.left))
	if done, err := v.body.add(p[:n]); done {
		return nil, true, err
	}
	v.left -= int64(n)
	if v.left == 0 {
		v.state = readingChunkEnd
	}
	return p[n:], false, nil
}

// chunkEnd checks the CRLF that closes a chunk's data.
func (v *httpVerdict) chunkEnd(p []byte) ([]byte, bool, error) {
	n := min(len(p), 2-len(v.line))
	v.line = append(v.line, p[:n]...)
	if string(v.line) != "\r\n"[:len(v.line)] {
		return nil, true, failure(ReasonProtocolError, "malformed chunked encoding: no CRLF after chunk data")
	}
	if len(v.line) == 2 {
		v.line, v.state = v.line[:0], readingChunkSize
	}
	return p[n:], false, nil
}

// bodyWindow is the response-string rule of HTTP, HTTPS and HTTP/2: want
// must appear within the first limit bytes of the body.
type bodyWindow struct {
	want  []byte
	seen  []byte
	limit int
}

func newBodyWindow(want string, limit int) bodyWindow {
	return bodyWindow{want: []byte(want), seen: make([]byte, 0, limit), limit: limit}
}

// add takes the next body bytes; done once want was found or the window
// is full.
func (w *bodyWindow) add(p []byte) (bool, error) {
	w.seen = append(w.seen, p[:min(len(p), w.limit-len(w.seen))]...)
	switch {
	case bytes.Contains(w.seen, w.want):
		return true, nil
	case len(w.seen) == w.limit:
		return true, w.miss()
	}
	return false, nil
}

func (w *bodyWindow) miss() error {
	return failure(ReasonResponseMismatch, "response string not found in first "+
		strconv.Itoa(len(w.seen))+" body bytes")
}

// bodyVerdict applies bodyWindow to a body already framed by someone else
// (the HTTP/2 client).
type bodyVerdict struct{ bodyWindow }

func (v *bodyVerdict) feed(p []byte) (bool, error) { return v.add(p) }
func (v *bodyVerdict) eof() error                  { return v.miss() }
func (v *bodyVerdict) abort(err error) error       { return orProtocolError(err) }

// framing is how the body of the response is delimited.
type framing struct {
	chunked bool
	length  int64 // Content-Length; -1 = until the connection closes
}

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
