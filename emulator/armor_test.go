package emulator_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// from sends GET url from the loopback address src: its status, the
// security policy header, and the body.
func from(t *testing.T, src, url string) (int, string, string) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("X-Lbhealth-Security-Policy"), string(body)
}

// A backend service's Cloud Armor policy decides its requests, sent from
// real loopback clients: a rule denying a source range answers 403 to it
// and lets the others through; a preview rule is counted and named but
// not enforced; a rate-based ban bans a client over its threshold, on
// the timeline, and lifts once its duration has passed (the emulator's
// clock fast-forwarded).
func TestArmor_RulesDenyPreviewAndBan(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "web", "", a)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/web"}`)
	mustCall(t, e, "POST", "global/securityPolicies", `{"name":"armor","rules":[
		{"priority":100,"action":"deny(403)","match":{"versionedExpr":"SRC_IPS_V1","config":{"srcIpRanges":["127.0.0.2/32"]}}},
		{"priority":200,"action":"deny(404)","preview":true,"match":{"expr":{"expression":"request.path.startsWith('/preview')"}}},
		{"priority":300,"action":"rate_based_ban","match":{"expr":{"expression":"request.path == '/limited'"}},
		 "rateLimitOptions":{"rateLimitThreshold":{"count":3,"intervalSec":10},"conformAction":"allow","exceedAction":"deny(429)",
		 "enforceOnKey":"IP","banDurationSec":60}},
		{"priority":2147483647,"action":"allow","match":{"versionedExpr":"SRC_IPS_V1","config":{"srcIpRanges":["*"]}}}]}`)
	mustCall(t, e, "POST", "global/backendServices/web/setSecurityPolicy", `{"securityPolicy":"global/securityPolicies/armor"}`)
	waitFor(t, "the backend serving", func() bool { code, _, _ := from(t, "127.0.0.1", lb+"/"); return code == 200 })

	code, decided, body := from(t, "127.0.0.2", lb+"/")
	if code != 403 || decided != "armor; priority=100; action=deny(403)" || !strings.Contains(body, "403 Forbidden") {
		t.Errorf("from the denied range: %d %q %q, want 403 by rule 100", code, decided, body)
	}
	if code, decided, _ := from(t, "127.0.0.1", lb+"/"); code != 200 || decided != "armor; priority=2147483647; action=allow" {
		t.Errorf("from another address: %d %q, want 200 by the default rule", code, decided)
	}
	if code, decided, _ := from(t, "127.0.0.1", lb+"/preview/x"); code != 200 ||
		decided != "armor; priority=2147483647; action=allow; preview=200:deny(404)" {
		t.Errorf("a preview rule's request: %d %q, want 200 with the preview named", code, decided)
	}

	for i := range 3 {
		if code, _, _ := from(t, "127.0.0.1", lb+"/limited"); code != 200 {
			t.Fatalf("request %d under the threshold: %d", i+1, code)
		}
	}
	if code, decided, _ := from(t, "127.0.0.1", lb+"/limited"); code != 429 || decided != "armor; priority=300; action=deny(429)" {
		t.Errorf("the fourth request in the interval: %d %q, want 429 by rule 300", code, decided)
	}
	if code, _, _ := from(t, "127.0.0.3", lb+"/limited"); code != 200 {
		t.Errorf("another client during the ban: %d, want 200 (the key is the client's address)", code)
	}
	e.FastForward(context.Background(), 30*time.Second) // the interval is over, the ban is not
	if code, _, _ := from(t, "127.0.0.1", lb+"/limited"); code != 429 {
		t.Errorf("a banned client 30 s later: %d, want 429", code)
	}
	e.FastForward(context.Background(), 31*time.Second)
	if code, _, _ := from(t, "127.0.0.1", lb+"/limited"); code != 200 {
		t.Errorf("once the ban lifted: %d, want 200", code)
	}

	_, _, tl := get(t, e.URL()+"/_emulator/timeline?kind=securityPolicy")
	var page api.TimelinePage
	if err := json.Unmarshal([]byte(tl), &page); err != nil {
		t.Fatal(err)
	}
	if ev := page.Events; len(ev) != 1 || ev[0].Resource != "projects/p/global/securityPolicies/armor" || ev[0].Endpoint != "127.0.0.1" ||
		ev[0].To != "BANNED" || ev[0].Detail != "rule 300 bans until "+ev[0].Time.Add(time.Minute).UTC().Format(time.RFC3339) {
		t.Errorf("timeline %s, want one ban of 127.0.0.1", tl)
	}
	_, _, metrics := get(t, e.URL()+"/metrics")
	for _, want := range []string{
		`lbhealth_dataplane_security_policy_decisions_total{action="deny(403)",outcome="enforced",priority="100",security_policy="projects/p/global/securityPolicies/armor"} 1`,
		`lbhealth_dataplane_security_policy_decisions_total{action="deny(404)",outcome="preview",priority="200",security_policy="projects/p/global/securityPolicies/armor"} 1`,
		`lbhealth_dataplane_security_policy_decisions_total{action="deny(429)",outcome="enforced",priority="300",security_policy="projects/p/global/securityPolicies/armor"} 2`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}

	// The status page shows each rule's decisions.
	_, _, status := get(t, e.URL()+"/")
	for _, want := range []string{"<h2>Cloud Armor</h2>", "<td>projects/p/global/securityPolicies/armor</td><td class=\"num\">100</td><td class=\"error\">deny(403)</td><td>enforced</td><td class=\"num\">1</td>",
		"<td class=\"error\">deny(404)</td><td>preview</td>"} {
		if !strings.Contains(status, want) {
			t.Errorf("the status page has no %q", want)
		}
	}

	// Detached, the policy decides nothing.
	mustCall(t, e, "POST", "global/backendServices/web/setSecurityPolicy", `{"securityPolicy":""}`)
	if code, decided, _ := from(t, "127.0.0.2", lb+"/"); code != 200 || decided != "" {
		t.Errorf("with the policy detached: %d %q, want 200 undecided", code, decided)
	}
}

// A preconfigured WAF rule denies, through the data plane, the requests
// that carry the attack its CRS signatures detect, and lets the others
// through; an opted-out signature, a field the rule excludes and a
// preview rule do not deny.
func TestArmor_PreconfiguredWafRules(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "web", "", a)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/web"}`)
	mustCall(t, e, "POST", "global/securityPolicies", `{"name":"waf","rules":[
		{"priority":100,"action":"deny(403)","match":{"expr":{"expression":"evaluatePreconfiguredWaf('sqli-v422-stable', {'sensitivity': 1})"}},
		 "preconfiguredWafConfig":{"exclusions":[{"targetRuleSet":"sqli-v422-stable","requestQueryParamsToExclude":[{"op":"EQUALS","val":"comment"}]}]}},
		{"priority":200,"action":"deny(403)","match":{"expr":{"expression":"evaluatePreconfiguredWaf('lfi-v33-stable', {'sensitivity': 1, 'opt_out_rule_ids': ['owasp-crs-v030301-id930100-lfi', 'owasp-crs-v030301-id930110-lfi']})"}}},
		{"priority":300,"action":"deny(404)","preview":true,"match":{"expr":{"expression":"evaluatePreconfiguredExpr('xss-v33-stable')"}}},
		{"priority":2147483647,"action":"allow","match":{"versionedExpr":"SRC_IPS_V1","config":{"srcIpRanges":["*"]}}}]}`)
	mustCall(t, e, "POST", "global/backendServices/web/setSecurityPolicy", `{"securityPolicy":"global/securityPolicies/waf"}`)
	waitFor(t, "the backend serving", func() bool { code, _, _ := from(t, "127.0.0.1", lb+"/"); return code == 200 })

	// A form's fields are inspected in the body's first 8 KB, and the
	// backend gets the whole body.
	post := func(body string) (int, string, string) {
		resp, err := http.Post(lb+"/login", "application/x-www-form-urlencoded", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("X-Lbhealth-Security-Policy"), resp.Header.Get("X-Body-Bytes")
	}
	if code, decided, _ := post("user=admin&password=x'%20OR%20'1'='1"); code != 403 || decided != "waf; priority=100; action=deny(403)" {
		t.Errorf("a form with SQL injection: %d %q, want 403 by rule 100", code, decided)
	}
	long := "note=" + strings.Repeat("a", 20000)
	if code, _, got := post(long); code != 200 || got != strconv.Itoa(len(long)) {
		t.Errorf("a long harmless form: %d, the backend read %s bytes, want 200 and %d", code, got, len(long))
	}
	if code, _, _ := post(long + "&id=1'%20OR%20'1'='1"); code != 200 {
		t.Errorf("SQL injection past the first 8 KB: %d, want 200 (not inspected)", code)
	}

	for _, c := range []struct {
		path, want string
		code       int
	}{
		{"/items?id=1'%20OR%20'1'='1", "waf; priority=100; action=deny(403)", 403},
		{"/items?id=42&name=bob", "waf; priority=2147483647; action=allow", 200},
		// The rule's exclusion: its set does not inspect comment.
		{"/items?comment=1'%20OR%20'1'='1", "waf; priority=2147483647; action=allow", 200},
		// Path traversal: the signatures that see it are opted out; an
		// OS file named in the query is another signature's.
		{"/static/..%2f..%2fwindows/win.ini", "waf; priority=2147483647; action=allow", 200},
		{"/download?file=/etc/passwd", "waf; priority=200; action=deny(403)", 403},
		{"/search?q=%3Cscript%3Ealert(1)%3C/script%3E", "waf; priority=2147483647; action=allow; preview=300:deny(404)", 200},
	} {
		if code, decided, _ := from(t, "127.0.0.1", lb+c.path); code != c.code || decided != c.want {
			t.Errorf("GET %s: %d %q, want %d %q", c.path, code, decided, c.code, c.want)
		}
	}
}

// answerFrom sends GET / over a connection from the loopback address src
// to addr (inside TLS when overTLS), and returns the answer's status, or 0
// when the connection was refused, closed or reset before an answer.
func answerFrom(t *testing.T, src, addr string, overTLS bool) int {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 10 * time.Second}
	var c net.Conn
	var err error
	if overTLS {
		c, err = tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
	} else {
		c, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return 0
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second)) // a hang guard
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A TCP or SSL proxy's backend service policy decides each connection as
// it is accepted, by what a connection has: source ranges and expressions
// over origin.ip refuse theirs (closed before a byte reaches a backend,
// and before TLS for an SSL proxy); an expression that reads the HTTP
// request never matches a connection; the decisions are counted.
func TestArmor_DecidesTCPAndSSLProxyConnections(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "tcp", "", a)
	mustCall(t, e, "PATCH", "global/backendServices/tcp", `{"protocol":"TCP"}`)
	sslCertificate(t, e, "db.example.com")
	mustCall(t, e, "POST", "global/targetTcpProxies", `{"name":"proxy","service":"global/backendServices/tcp"}`)
	mustCall(t, e, "POST", "global/targetSslProxies", `{"name":"ssl","service":"global/backendServices/tcp","sslCertificates":["global/sslCertificates/cert"]}`)
	tcpPort, sslPort := freePort(t), freePort(t)
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr-tcp","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetTcpProxies/proxy"}`, tcpPort))
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr-ssl","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetSslProxies/ssl"}`, sslPort))
	tcpLB, sslLB := fmt.Sprintf("127.0.0.1:%d", tcpPort), fmt.Sprintf("127.0.0.1:%d", sslPort)
	waitFor(t, "both proxies carrying", func() bool {
		return answerFrom(t, "127.0.0.2", tcpLB, false) == 200 && answerFrom(t, "127.0.0.2", sslLB, true) == 200
	})

	mustCall(t, e, "POST", "global/securityPolicies", `{"name":"armor","rules":[
		{"priority":50,"action":"deny(403)","match":{"expr":{"expression":"request.path.startsWith('/')"}}},
		{"priority":100,"action":"deny(403)","match":{"versionedExpr":"SRC_IPS_V1","config":{"srcIpRanges":["127.0.0.2/32"]}}},
		{"priority":200,"action":"deny(404)","match":{"expr":{"expression":"origin.ip == '127.0.0.3'"}}},
		{"priority":2147483647,"action":"allow","match":{"versionedExpr":"SRC_IPS_V1","config":{"srcIpRanges":["*"]}}}]}`)
	mustCall(t, e, "POST", "global/backendServices/tcp/setSecurityPolicy", `{"securityPolicy":"global/securityPolicies/armor"}`)
	waitFor(t, "the policy in force", func() bool { return answerFrom(t, "127.0.0.2", tcpLB, false) == 0 })

	for _, c := range []struct {
		src  string
		want int
	}{{"127.0.0.1", 200}, {"127.0.0.2", 0}, {"127.0.0.3", 0}, {"127.0.0.4", 200}} {
		if got := answerFrom(t, c.src, tcpLB, false); got != c.want {
			t.Errorf("TCP proxy, from %s: %d, want %d (0: closed)", c.src, got, c.want)
		}
		if got := answerFrom(t, c.src, sslLB, true); got != c.want {
			t.Errorf("SSL proxy, from %s: %d, want %d (0: closed)", c.src, got, c.want)
		}
	}
	_, _, metrics := get(t, e.URL()+"/metrics")
	for _, want := range []string{`action="deny(403)",outcome="enforced",priority="100",security_policy="projects/`,
		`action="deny(404)",outcome="enforced",priority="200"`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics does not count %s", want)
		}
	}
	if strings.Contains(metrics, `priority="50"`) {
		t.Error("the rule that reads the HTTP request decided a connection")
	}
}
