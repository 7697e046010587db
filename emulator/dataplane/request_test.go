package dataplane

import (
	"bufio"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// requestKinds make the same request as each front end sees it, so that a
// test shows routing and choosing read both alike.
var requestKinds = []struct {
	name string
	make func(t testing.TB, remote, target string, header ...string) request
}{
	{"net/http", stdTestRequest},
	{"fasthttp", fastTestRequest},
}

// stdTestRequest is a net/http request for target (an absolute URL) from
// remote, with header's name and value pairs.
func stdTestRequest(_ testing.TB, remote, target string, header ...string) request {
	r := httptest.NewRequest("GET", target, nil)
	r.RemoteAddr = remote
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	return stdRequest{r}
}

// fastTestRequest is the same request read by fasthttp from the wire.
func fastTestRequest(t testing.TB, remote, target string, header ...string) request {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var wire strings.Builder
	wire.WriteString("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n")
	for i := 0; i+1 < len(header); i += 2 {
		wire.WriteString(header[i] + ": " + header[i+1] + "\r\n")
	}
	wire.WriteString("\r\n")
	var req fasthttp.Request
	if err := req.Read(bufio.NewReader(strings.NewReader(wire.String()))); err != nil {
		t.Fatalf("fasthttp read %q: %v", wire.String(), err)
	}
	addr, err := net.ResolveTCPAddr("tcp", remote)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &fasthttp.RequestCtx{}
	ctx.Init(&req, addr, nil)
	return fastRequest{ctx}
}

func TestRequest_BothFrontEndsReadAlike(t *testing.T) {
	for _, kind := range requestKinds {
		r := kind.make(t, "10.0.0.7:4000", "http://API.example.com:8080/a%20b/c?x=1&x=2&empty=",
			"X-Multi", "one", "x-multi", "two", "Cookie", "a=1; session=s3")
		if got := r.host(); got != "api.example.com:8080" {
			t.Errorf("%s: host %q", kind.name, got)
		}
		if got := r.path(); got != "/a b/c" {
			t.Errorf("%s: path %q, want it decoded", kind.name, got)
		}
		if v, ok := r.header("x-MULTI"); v != "one,two" || !ok {
			t.Errorf("%s: header x-MULTI = %q, %v; want both values joined", kind.name, v, ok)
		}
		if v, ok := r.header("Host"); v != "API.example.com:8080" || !ok {
			t.Errorf("%s: header Host = %q, %v", kind.name, v, ok)
		}
		if _, ok := r.header("X-Absent"); ok {
			t.Errorf("%s: an absent header is present", kind.name)
		}
		if v, ok := r.query("x"); v != "1" || !ok {
			t.Errorf("%s: query x = %q, %v; want the first value", kind.name, v, ok)
		}
		if v, ok := r.query("empty"); v != "" || !ok {
			t.Errorf("%s: query empty = %q, %v; want present and empty", kind.name, v, ok)
		}
		if _, ok := r.query("absent"); ok {
			t.Errorf("%s: an absent query parameter is present", kind.name)
		}
		if got := r.cookie("session"); got != "s3" {
			t.Errorf("%s: cookie session = %q", kind.name, got)
		}
		if got := r.clientIP(); got != "10.0.0.7" {
			t.Errorf("%s: client IP %q", kind.name, got)
		}
	}
}
