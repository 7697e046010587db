// Package rawserver is a backend for tests of what a proxy does with
// answers no well-behaved server writes: it answers one path with bytes
// as given, and every other request with 200 "good".
package rawserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
)

// Good is the body of every answer but the raw one.
const Good = "good"

// Start serves on a loopback port, until tb ends, and returns its
// address: a request for path gets answer() written as it is, then its
// connection closed; any other request gets 200 with body Good.
func Start(tb testing.TB, path string, answer func() []byte) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c, path, answer)
		}
	}()
	return ln.Addr().String()
}

func serve(c net.Conn, path string, answer func() []byte) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		if req.URL.Path == path {
			c.Write(answer())
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n"+Good)
	}
}
