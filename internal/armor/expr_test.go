package armor

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	r := &Request{Method: "GET", Path: "/admin/x", Query: "a=1", Scheme: "http",
		Header: http.Header{"User-Agent": {"Bad-Bot/1.0"}, "X-Token": {"c2VjcmV0"}}, Origin: netip.MustParseAddr("10.1.2.3")}
	for _, c := range []struct {
		expr string
		want bool
	}{
		{`inIpRange(origin.ip, '10.0.0.0/8')`, true},
		{`inIpRange(origin.ip, '192.168.0.0/16')`, false},
		{`inIpRange(origin.ip, '10.1.2.3')`, true},
		{`request.path.startsWith('/admin')`, true},
		{`request.headers['user-agent'].lower().contains('bad-bot')`, true},
		{`request.headers['x-token'].base64Decode() == 'secret'`, true},
		{`request.method == 'POST'`, false},
		{`request.headers['absent'] == 'x'`, false}, // an error: no match
		{`evaluatePreconfiguredExpr('sqli-v33-stable')`, false},
		{`evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})`, false},
		{`origin.region_code == 'AU'`, false},
		{`request.query.matches('a=[0-9]+')`, true},
	} {
		x, err := Compile(c.expr)
		if err != nil {
			t.Fatalf("Compile(%s): %v", c.expr, err)
		}
		if got, _ := x.Match(r); got != c.want {
			t.Errorf("%s = %v, want %v", c.expr, got, c.want)
		}
	}
}

func TestCompileRefuses(t *testing.T) {
	for expr, want := range map[string]string{
		`request.pathh == '/'`: "undeclared reference to 'request.pathh'",
		`request.path`:         "not a boolean condition",
		`inIpRange(origin.ip`:  "Syntax error",
		`origin.asn == 'x'`:    "no matching overload",
	} {
		_, err := Compile(expr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile(%s) = %v, want %q", expr, err, want)
		}
	}
}

func TestRanges(t *testing.T) {
	r, err := ParseRanges([]string{"10.0.0.0/8", "2001:db8::1"})
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{"10.9.9.9": true, "::ffff:10.0.0.1": true, "11.0.0.1": false, "2001:db8::1": true, "2001:db8::2": false} {
		if got := r.Contains(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Contains(%s) = %v", addr, got)
		}
	}
	all, _ := ParseRanges([]string{"*"})
	if !all.Contains(netip.MustParseAddr("1.2.3.4")) {
		t.Error(`"*" does not match`)
	}
	if ValidRange("10.0.0.0/33") || !ValidRange("*") {
		t.Error("ValidRange")
	}
}
