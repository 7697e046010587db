package prober

import (
	"context"
	"io"
	"net"
	"strconv"
)

// probeTCP: success is a connection opened before the deadline, plus the
// optional request/response exchange (see exchange).
func probeTCP(ctx context.Context, spec Spec, t Target) Result {
	conn, stop, err := dial(ctx, t, wantsProxy(spec))
	if err != nil {
		return result(ctx, err)
	}
	defer conn.Close()
	defer stop()
	return result(ctx, exchange(conn, spec.tcp().Request, spec.tcp().Response))
}

// exchange runs the TCP/SSL request/response rules on an open connection:
//   - no request, no response: connecting was enough;
//   - request only: send it; the peer may close afterwards, still healthy;
//   - response only: send nothing, the first bytes received must match;
//   - both: send the request, then the first bytes received must match.
func exchange(conn net.Conn, request, response string) error {
	if request != "" {
		_, err := io.WriteString(conn, request)
		if response == "" {
			// Connect is enough: a peer that closes (write error) is
			// still a peer that accepted the connection.
			return nil
		}
		if err != nil {
			return err
		}
	}
	if response == "" {
		return nil
	}
	// A short buffer: the verdict never needs more than len(response)
	// bytes, so a chatty backend costs nothing extra.
	return readVerdict(conn, make([]byte, min(len(response), readBufSize)), &prefixVerdict{want: response})
}

// prefixVerdict is the TCP/SSL response rule: the first len(want) bytes
// received must be exactly want. It compares after every piece so that a
// wrong answer fails at once instead of waiting for the deadline.
type prefixVerdict struct {
	want string
	n    int // bytes of want already matched
}

func (v *prefixVerdict) feed(p []byte) (bool, error) {
	got := p[:min(len(p), len(v.want)-v.n)]
	if string(got) != v.want[v.n:v.n+len(got)] {
		return true, mismatch(append([]byte(v.want[:v.n]), got...), v.want)
	}
	v.n += len(got)
	return v.n == len(v.want), nil
}

func (v *prefixVerdict) eof() error {
	return failure(ReasonConnectionReset,
		"connection closed after "+strconv.Itoa(v.n)+" of "+strconv.Itoa(len(v.want))+" expected response bytes")
}

func (v *prefixVerdict) abort(err error) error { return err }

// mismatch describes a TCP/SSL response that differs from the expected one.
func mismatch(got []byte, want string) error {
	const show = 40 // enough to recognise the answer, short enough for Detail
	if len(got) > show {
		got = got[:show]
	}
	return failure(ReasonResponseMismatch, "response mismatch: got "+strconv.Quote(string(got))+
		", want "+strconv.Quote(truncateBytes(want, show)))
}

func truncateBytes(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func tcpPart(s *Spec, text func(string) string) {
	s.TCP = &TCPSpec{Request: text("request"), Response: text("response")}
}
