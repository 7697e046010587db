package armor

import (
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
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
		{`evaluateThreatIntelligence('iplist-known-malicious-ips')`, false},
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

// TestPreconfiguredWaf runs the CRS signatures on requests that carry
// attacks and on one that does not.
func TestPreconfiguredWaf(t *testing.T) {
	sqli := &Request{Method: "GET", Path: "/items", Query: "id=1'%20OR%20'1'='1", Host: "shop.example"}
	xss := &Request{Method: "GET", Path: "/search", Query: "q=%3Cscript%3Ealert(1)%3C/script%3E", Host: "shop.example"}
	lfi := &Request{Method: "GET", Path: "/static/../../etc/passwd", Host: "shop.example"}
	scanner := &Request{Method: "GET", Path: "/", Host: "shop.example", Header: http.Header{"User-Agent": {"sqlmap/1.7"}}}
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	reads := 0
	bodySQLi := &Request{Method: "POST", Path: "/login", Host: "shop.example", Header: form,
		ReadBody: func(n int) []byte { reads++; return []byte("user=admin&password=x'%20OR%20'1'='1")[:min(n, 36)] }}
	plain := &Request{Method: "GET", Path: "/items", Query: "id=42&name=bob", Host: "shop.example",
		Header: http.Header{"User-Agent": {"Mozilla/5.0"}, "Cookie": {"session=abc"}}}
	for _, c := range []struct {
		expr string
		r    *Request
		want bool
	}{
		{`evaluatePreconfiguredWaf('sqli-v422-stable', {'sensitivity': 1})`, sqli, true},
		{`evaluatePreconfiguredExpr('sqli-v33-stable')`, sqli, true},
		{`evaluatePreconfiguredWaf('sqli-v33-stable')`, sqli, true},
		{`evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})`, plain, false},
		{`evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})`, sqli, false},
		{`evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})`, xss, true},
		{`evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})`, plain, false},
		{`evaluatePreconfiguredWaf('lfi-v33-stable', {'sensitivity': 1})`, lfi, true},
		{`evaluatePreconfiguredWaf('lfi-v33-stable', {'sensitivity': 1})`, plain, false},
		{`evaluatePreconfiguredWaf('scannerdetection-v33-stable', {'sensitivity': 1})`, scanner, true},
		// Sensitivity 0 counts no signature unless opted in.
		{`evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 0})`, sqli, false},
		{`evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 0, 'opt_in_rule_ids': ['owasp-crs-v030301-id942100-sqli']})`, sqli, true},
		// The one signature that matched, opted out.
		{`evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1, 'opt_out_rule_ids': ['owasp-crs-v030301-id942100-sqli']})`, sqli, false},
		// evaluatePreconfiguredExpr counts every level: more than 942100
		// matched.
		{`evaluatePreconfiguredExpr('sqli-stable', ['owasp-crs-v030001-id942100-sqli'])`, sqli, true},
		// Sets Cloud Armor writes itself: accepted, no signatures here.
		{`evaluatePreconfiguredWaf('cve-canary', {'sensitivity': 1})`, sqli, false},
		{`evaluatePreconfiguredWaf('sqli-v33-stable') && request.path == '/items'`, sqli, true},
		// A form's fields, from the body.
		{`evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})`, bodySQLi, true},
		{`evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})`, bodySQLi, false},
	} {
		x, err := Compile(c.expr)
		if err != nil {
			t.Fatalf("Compile(%s): %v", c.expr, err)
		}
		got, err := x.Match(c.r)
		if err != nil {
			t.Errorf("%s on %s?%s: %v", c.expr, c.r.Path, c.r.Query, err)
		}
		if got != c.want {
			t.Errorf("%s on %s?%s = %v, want %v", c.expr, c.r.Path, c.r.Query, got, c.want)
		}
	}
	if reads != 1 {
		t.Errorf("the body was read %d times, want once", reads)
	}
	// Each family ran once per request, however many rules asked.
	if len(sqli.waf) != 2 || sqli.waf["sqli"] == nil || sqli.waf["xss"] != nil {
		t.Errorf("the SQL injection request holds %v, want the sqli family's matches and xss's none", sqli.waf)
	}
}

// A rule's exclusions keep request fields from its preconfigured WAF
// rules: a signature an exclusion targets counts only if it matches
// without them.
func TestPreconfiguredWafExclusions(t *testing.T) {
	x, err := Compile(`evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})`)
	if err != nil {
		t.Fatal(err)
	}
	attack := "x'%20OR%20'1'='1"
	for _, c := range []struct {
		name string
		ex   []api.WafExclusion
		r    *Request
		want bool
	}{
		{"no exclusion", nil, &Request{Method: "GET", Path: "/", Query: "q=" + attack}, true},
		{"the parameter excluded", []api.WafExclusion{{TargetRuleSet: "sqli-v33-stable",
			RequestQueryParamsToExclude: []api.WafFieldMatch{{Op: "EQUALS", Val: "q"}}}},
			&Request{Method: "GET", Path: "/", Query: "q=" + attack}, false},
		{"another parameter excluded", []api.WafExclusion{{TargetRuleSet: "sqli-v33-stable",
			RequestQueryParamsToExclude: []api.WafFieldMatch{{Op: "STARTS_WITH", Val: "other"}}}},
			&Request{Method: "GET", Path: "/", Query: "q=" + attack}, true},
		{"excluded for another set", []api.WafExclusion{{TargetRuleSet: "xss-v33-stable",
			RequestQueryParamsToExclude: []api.WafFieldMatch{{Op: "EQUALS_ANY"}}}},
			&Request{Method: "GET", Path: "/", Query: "q=" + attack}, true},
		{"excluded for another signature", []api.WafExclusion{{TargetRuleSet: "sqli-v33-stable",
			TargetRuleIds:               []string{"owasp-crs-v030301-id942999-sqli"},
			RequestQueryParamsToExclude: []api.WafFieldMatch{{Op: "EQUALS", Val: "q"}}}},
			&Request{Method: "GET", Path: "/", Query: "q=" + attack}, true},
		{"a header excluded, any case", []api.WafExclusion{{TargetRuleSet: "sqli-v33-stable",
			RequestHeadersToExclude: []api.WafFieldMatch{{Op: "EQUALS", Val: "x-search"}}}},
			&Request{Method: "GET", Path: "/", Header: http.Header{"X-Search": {"1' OR '1'='1"}}}, false},
		{"a cookie excluded", []api.WafExclusion{{TargetRuleSet: "sqli-v33-stable",
			RequestCookiesToExclude: []api.WafFieldMatch{{Op: "CONTAINS", Val: "filt"}}}},
			&Request{Method: "GET", Path: "/", Header: http.Header{"Cookie": {"session=abc; filter=1' OR '1'='1"}}}, false},
		{"a form field excluded", []api.WafExclusion{{TargetRuleSet: "sqli-v33-stable",
			RequestQueryParamsToExclude: []api.WafFieldMatch{{Op: "ENDS_WITH", Val: "word"}}}},
			&Request{Method: "POST", Path: "/login", Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
				ReadBody: func(int) []byte { return []byte("user=a&password=" + attack) }}, false},
	} {
		got, err := x.WithExclusions(c.ex).Match(c.r)
		if err != nil || got != c.want {
			t.Errorf("%s: %v (%v), want %v", c.name, got, err, c.want)
		}
	}
}

// However many requests arrive at once, no more WAF evaluations run at
// once than wafSlots holds.
func TestWafEvaluationsBounded(t *testing.T) {
	x, err := Compile(`evaluatePreconfiguredExpr('sqli-v33-stable')`)
	if err != nil {
		t.Fatal(err)
	}
	query := strings.Repeat("a=1'%20OR%20'1'='1&", 10)
	var wg sync.WaitGroup
	for range 4 * cap(wafSlots) {
		wg.Go(func() {
			for range 2 {
				if ok, err := x.Match(&Request{Method: "GET", Path: "/", Query: query}); !ok || err != nil {
					t.Errorf("Match = %v, %v", ok, err)
				}
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p < 1 || int(p) > cap(wafSlots) {
		t.Errorf("%d evaluations ran at once, want at most %d", p, cap(wafSlots))
	}
}

func TestCompileRefuses(t *testing.T) {
	for expr, want := range map[string]string{
		`request.pathh == '/'`:                        "undeclared reference to 'request.pathh'",
		`request.path`:                                "not a boolean condition",
		`inIpRange(origin.ip`:                         "Syntax error",
		`origin.asn == 'x'`:                           "no matching overload",
		`evaluatePreconfiguredWaf('sqlx-v33-stable')`: `"sqlx-v33-stable" is not a preconfigured WAF rule set: a set is a family (java, lfi, methodenforcement, nodejs, php, protocolattack, rce, rfi, scannerdetection, sessionfixation, sqli, xss) with its version and stability, such as sqli-v33-stable or xss-v422-canary`,
		`evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 5})`:                                       "the sensitivity of sqli-v33-stable (5) is not a level from 0 to 4",
		`evaluatePreconfiguredWaf('sqli-v33-stable', {'opt_out_rule_ids': ['942100']})`:                         "opt_out_rule_ids of sqli-v33-stable names 942100, not a signature ID such as owasp-crs-v030301-id942100-sqli",
		`evaluatePreconfiguredWaf('sqli-v33-stable', {'opt_out_rule_ids': 'x'})`:                                "opt_out_rule_ids of sqli-v33-stable is not a list of signature IDs",
		`evaluatePreconfiguredWaf('sqli-v33-stable', {'paranoia': 1})`:                                          `"paranoia" is not an option of evaluatePreconfiguredWaf: the options are sensitivity, opt_in_rule_ids and opt_out_rule_ids`,
		`evaluatePreconfiguredWaf('sqli-v33-stable', {'opt_in_rule_ids': ['owasp-crs-v030301-id942100-sqli']})`: "sqli-v33-stable opts signatures in with sensitivity 4: signatures are opted in at sensitivity 0 only",
		`evaluatePreconfiguredWaf(request.path)`:                                                                "the arguments of evaluatePreconfiguredWaf are literals, not expressions",
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

// An expression that reads the HTTP request (its attributes, the
// reCAPTCHA tokens, the WAF rules) is told from one over the connection's
// origin alone, which a TCP or SSL proxy can decide.
func TestReadsRequest(t *testing.T) {
	for expr, want := range map[string]bool{
		"origin.ip == '127.0.0.1'":                              false,
		"inIpRange(origin.ip, '10.0.0.0/8') && origin.asn == 0": false,
		"origin.region_code == 'US'":                            false,
		"request.path.lower().contains('/admin')":               true,
		"origin.ip == '1.2.3.4' || request.headers['x'] == 'y'": true,
		"token.recaptcha_session.valid":                         true,
		"evaluatePreconfiguredWaf('sqli-v33-stable')":           true,
		"evaluatePreconfiguredExpr('xss-v33-stable', [])":       true,
		"evaluateThreatIntelligence('iplist-tor-exit-nodes')":   false,
	} {
		x, err := Compile(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := x.ReadsRequest(); got != want {
			t.Errorf("%s: ReadsRequest %v, want %v", expr, got, want)
		}
		if got := x.WithExclusions(nil).ReadsRequest(); got != want {
			t.Errorf("%s with exclusions: ReadsRequest %v, want %v", expr, got, want)
		}
	}
}
