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
	return result(ctx, exchange(conn, spec.Request, spec.Response))
}

// exchange runs the TCP/SSL request/response rules on an open connection:
//   - no request, no response: connecting was enough;
//   - request only: send it; the peer may close afterwards, still healthy;
//   - response only: send nothing, the first bytes received must match;
//   - both: send the request, then the first bytes received must match.
//
// Matching compares exactly len(response) bytes.
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
	return expectPrefix(conn, response)
}

// expectPrefix reads exactly len(want) bytes and compares them with want.
// It compares after every read so that a wrong answer fails at once
// instead of waiting for the deadline; it never reads more than len(want)
// bytes, so a chatty backend costs nothing extra.
func expectPrefix(r io.Reader, want string) error {
	buf := make([]byte, len(want))
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if string(buf[:n]) != want[:n] {
			return mismatch(buf[:n], want)
		}
		if err == io.EOF && n < len(buf) {
			return failure(ReasonConnectionReset,
				"connection closed after "+strconv.Itoa(n)+" of "+strconv.Itoa(len(want))+" expected response bytes")
		}
		if err != nil && n < len(buf) {
			return err
		}
	}
	return nil
}

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
