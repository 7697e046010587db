package dataplane

import (
	"net/http/httptest"
	"testing"
)

// testRequest is a request for target (an absolute URL) from remote, with
// header's name and value pairs.
func testRequest(_ testing.TB, remote, target string, header ...string) request {
	r := httptest.NewRequest("GET", target, nil)
	r.RemoteAddr = remote
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	return request{r}
}

// A request reads as routing and choosing expect: the host lower case,
// the path decoded, repeated headers joined, the first query value.
func TestRequest_ReadsAsRoutingExpects(t *testing.T) {
	r := testRequest(t, "10.0.0.7:4000", "http://API.example.com:8080/a%20b/c?x=1&x=2&empty=",
		"X-Multi", "one", "x-multi", "two", "Cookie", "a=1; session=s3")
	if got := r.host(); got != "api.example.com:8080" {
		t.Errorf("host %q", got)
	}
	if got := r.path(); got != "/a b/c" {
		t.Errorf("path %q, want it decoded", got)
	}
	if v, ok := r.header("x-MULTI"); v != "one,two" || !ok {
		t.Errorf("header x-MULTI = %q, %v; want both values joined", v, ok)
	}
	if v, ok := r.header("Host"); v != "API.example.com:8080" || !ok {
		t.Errorf("header Host = %q, %v", v, ok)
	}
	if _, ok := r.header("X-Absent"); ok {
		t.Error("an absent header is present")
	}
	if v, ok := r.query("x"); v != "1" || !ok {
		t.Errorf("query x = %q, %v; want the first value", v, ok)
	}
	if v, ok := r.query("empty"); v != "" || !ok {
		t.Errorf("query empty = %q, %v; want present and empty", v, ok)
	}
	if _, ok := r.query("absent"); ok {
		t.Error("an absent query parameter is present")
	}
	if got := r.cookie("session"); got != "s3" {
		t.Errorf("cookie session = %q", got)
	}
	if got := r.clientIP(); got != "10.0.0.7" {
		t.Errorf("client IP %q", got)
	}
}
