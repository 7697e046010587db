package dataplane

import (
	"encoding/json"
	"maps"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const routingMap = `{
  "defaultService": "projects/p/global/backendServices/default",
  "hostRules": [
    {"hosts": ["api.example.com"], "pathMatcher": "api"},
    {"hosts": ["*.example.com"], "pathMatcher": "wild"},
    {"hosts": ["*.shop.example.com"], "pathMatcher": "shop"},
    {"hosts": ["old.example.org"], "pathMatcher": "moved"}
  ],
  "pathMatchers": [
    {"name": "api", "defaultService": "projects/p/global/backendServices/api",
     "pathRules": [
       {"paths": ["/v1/*"], "service": "projects/p/global/backendServices/v1"},
       {"paths": ["/v1/users/*"], "service": "projects/p/global/backendServices/users"},
       {"paths": ["/v1/exact"], "service": "projects/p/global/backendServices/exact"},
       {"paths": ["/legacy/*"], "service": "projects/p/global/backendServices/v1",
        "routeAction": {"urlRewrite": {"pathPrefixRewrite": "/new/", "hostRewrite": "internal"}}}
     ],
     "routeRules": [
       {"priority": 20, "matchRules": [{"prefixMatch": "/v1/", "ignoreCase": true, "headerMatches": [{"headerName": "x-canary", "exactMatch": "yes"}]}],
        "service": "projects/p/global/backendServices/canary"},
       {"priority": 10, "matchRules": [{"fullPathMatch": "/v1/ping", "queryParameterMatches": [{"name": "deep", "presentMatch": true}]}],
        "service": "projects/p/global/backendServices/deep"},
       {"priority": 30, "matchRules": [{"regexMatch": "/v[0-9]+/reports"}],
        "service": "projects/p/global/backendServices/reports"},
       {"priority": 40, "matchRules": [{"prefixMatch": "/v1/", "headerMatches": [{"headerName": "x-debug", "presentMatch": true, "invertMatch": true}, {"headerName": "user-agent", "prefixMatch": "curl/"}]}],
        "service": "projects/p/global/backendServices/curl"}
     ]},
    {"name": "wild", "defaultService": "projects/p/global/backendServices/wild"},
    {"name": "shop", "defaultService": "projects/p/global/backendServices/shop"},
    {"name": "moved", "defaultUrlRedirect": {"hostRedirect": "new.example.org", "prefixRedirect": "/v2/", "redirectResponseCode": "FOUND"},
     "pathRules": [{"paths": ["/keep/*"], "urlRedirect": {"httpsRedirect": true, "stripQuery": true, "redirectResponseCode": "PERMANENT_REDIRECT"}}]}
  ]
}`

func TestRouter_PicksByHostPathHeadersAndPriority(t *testing.T) {
	var m api.URLMap
	if err := json.Unmarshal([]byte(routingMap), &m); err != nil {
		t.Fatal(err)
	}
	rt := newRouter(&m)
	cases := []struct {
		name, host, target string
		headers            map[string]string
		want               string
	}{
		{"no host rule: the map's default", "other.org", "/v1/x", nil, "default"},
		{"exact host, no path rule: the matcher's default", "api.example.com", "/", nil, "api"},
		{"the port does not count", "api.example.com:8080", "/", nil, "api"},
		{"prefix path rule", "api.example.com", "/v1/x", nil, "v1"},
		{"the longest path wins", "api.example.com", "/v1/users/7", nil, "users"},
		{"exact path rule", "api.example.com", "/v1/exact", nil, "exact"},
		{"an exact path is not a prefix", "api.example.com", "/v1/exact/more", nil, "v1"},
		{"/v1/* does not match /v1", "api.example.com", "/v1", nil, "api"},
		{"route rule by header", "api.example.com", "/v1/x", map[string]string{"X-Canary": "yes"}, "canary"},
		{"header value must be exact", "api.example.com", "/v1/x", map[string]string{"X-Canary": "no"}, "v1"},
		{"priority decides between route rules", "api.example.com", "/v1/ping?deep=1", map[string]string{"X-Canary": "yes"}, "deep"},
		{"query parameter must be present", "api.example.com", "/v1/ping", nil, "v1"},
		{"regex matches the whole path", "api.example.com", "/v12/reports", nil, "reports"},
		{"regex is not a prefix", "api.example.com", "/v12/reports/x", nil, "api"},
		{"prefix match ignoring case", "api.example.com", "/V1/USERS?deep", map[string]string{"X-Canary": "yes"}, "canary"},
		{"every header match must hold", "api.example.com", "/v1/x", map[string]string{"User-Agent": "curl/8"}, "curl"},
		{"inverted present match", "api.example.com", "/v1/x", map[string]string{"User-Agent": "curl/8", "X-Debug": "1"}, "v1"},
		{"wildcard host", "www.example.com", "/", nil, "wild"},
		{"the longer wildcard wins", "a.shop.example.com", "/", nil, "shop"},
	}
	for _, c := range cases {
		var header []string
		for k, v := range c.headers {
			header = append(header, k, v)
		}
		d := rt.route(testRequest(t, "10.0.0.1:1", "http://"+c.host+c.target, header...))
		if want := "projects/p/global/backendServices/" + c.want; d.service != want || d.redirect != nil {
			t.Errorf("%s: %s%s went to %q (redirect %v), want %q", c.name, c.host, c.target, d.service, d.redirect, want)
		}
	}
}

func TestRouter_RewritesAndRedirects(t *testing.T) {
	var m api.URLMap
	if err := json.Unmarshal([]byte(routingMap), &m); err != nil {
		t.Fatal(err)
	}
	rt := newRouter(&m)

	d := rt.route(testRequest(t, "10.0.0.1:1", "http://api.example.com/legacy/a/b"))
	if d.rewrite == nil || d.matched != "/legacy/" {
		t.Fatalf("legacy path: %+v, want a rewrite of the matched prefix /legacy/", d)
	}

	cases := []struct {
		target string
		code   int
		want   string
	}{
		{"http://old.example.org/a/b?q=1", 302, "http://new.example.org/v2/a/b?q=1"},
		{"http://old.example.org/keep/x?q=1", 308, "https://old.example.org/keep/x"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", c.target, nil)
		d := rt.route(request{r})
		if d.redirect == nil {
			t.Fatalf("%s: no redirect: %+v", c.target, d)
		}
		if got, code := redirectURL(d, r.Host, r.URL.Path, r.URL.RawQuery, false), redirectCode(d.redirect.RedirectResponseCode); got != c.want || code != c.code {
			t.Errorf("%s: redirected to %d %s, want %d %s", c.target, code, got, c.code, c.want)
		}
	}
}

func TestPickWeighted_FollowsWeights(t *testing.T) {
	w90, w10, w0 := int64(90), int64(10), int64(0)
	ws := []api.WeightedBackendService{{BackendService: "a", Weight: &w90}, {BackendService: "b", Weight: &w10}, {BackendService: "c", Weight: &w0}}
	got := map[string]int{}
	for range 10000 {
		got[pickWeighted(ws).BackendService]++
	}
	if got["c"] != 0 || got["a"] < 8500 || got["a"] > 9500 || got["b"] < 500 {
		t.Fatalf("90/10/0 weights picked %v", got)
	}
}

func TestPathTemplates_MatchCaptureAndRewrite(t *testing.T) {
	cases := []struct {
		template, path string
		ok             bool
		vars           map[string]string
	}{
		{"/v2/{country}/{lang}/*", "/v2/us/en/x", true, map[string]string{"country": "us", "lang": "en"}},
		{"/v2/{country}/{lang}/*", "/v2/us/en", false, nil},
		{"/v2/{country}/{lang}/*", "/v2/us/en/x/y", false, nil},
		{"/a/**", "/a/b/c", true, map[string]string{}},
		{"/a/**", "/a", true, map[string]string{}},
		{"/a/{rest=**}", "/a/b/c", true, map[string]string{"rest": "b/c"}},
		{"/{x=*}/b", "/q/b", true, map[string]string{"x": "q"}},
		{"/{x=*}/b", "/q/r/b", false, nil},
		{"/a.b/*", "/aXb/c", false, nil}, // literals are literal
	}
	for _, c := range cases {
		vars, ok := captures(compileTemplate(c.template), c.path)
		if ok != c.ok || ok && !maps.Equal(vars, c.vars) {
			t.Errorf("%s on %s: %v %v, want %v %v", c.template, c.path, vars, ok, c.vars, c.ok)
		}
	}
	for _, bad := range []string{"a/b", "/**/a", "/{x", "/a*b", "/{1x}", "/{x=y}"} {
		if compileTemplate(bad) != nil {
			t.Errorf("%q compiled: it is no path template", bad)
		}
	}
	if got := expandTemplate("/{rest}/in/{lang}", map[string]string{"rest": "a/b", "lang": "fr"}); got != "/a/b/in/fr" {
		t.Errorf("rewrite: %q", got)
	}
}

func TestRetryPolicy_Conditions(t *testing.T) {
	cases := []struct {
		conditions []string
		failure    attemptFailure
		code       int
		grpc       string
		want       bool
	}{
		{[]string{"5xx"}, answeredAttempt, 500, "", true},
		{[]string{"5xx"}, noAnswer, 502, "", true},
		{[]string{"5xx"}, answeredAttempt, 404, "", false},
		{[]string{"gateway-error"}, answeredAttempt, 503, "", true},
		{[]string{"gateway-error"}, answeredAttempt, 500, "", false},
		{[]string{"gateway-error"}, unreachable, 502, "", true},
		{[]string{"connect-failure"}, unreachable, 502, "", true},
		{[]string{"connect-failure"}, noAnswer, 504, "", false},
		{[]string{"connect-failure"}, answeredAttempt, 503, "", false},
		{[]string{"retriable-4xx"}, answeredAttempt, 409, "", true},
		{[]string{"retriable-4xx"}, answeredAttempt, 400, "", false},
		{[]string{"unavailable"}, answeredAttempt, 200, "14", true},
		{[]string{"unavailable"}, answeredAttempt, 200, "4", false},
		{[]string{"deadline-exceeded", "internal"}, answeredAttempt, 200, "13", true},
		{nil, answeredAttempt, 503, "", false},
	}
	for _, c := range cases {
		rp := &api.RetryPolicy{RetryConditions: c.conditions}
		if got := again(rp, c.failure, c.code, c.grpc); got != c.want {
			t.Errorf("%v after (failure %d, %d, grpc %q): %v, want %v", c.conditions, c.failure, c.code, c.grpc, got, c.want)
		}
	}
	var none *api.RetryPolicy
	if again(none, noAnswer, 502, "") || retries(none) != 0 {
		t.Error("no retry policy retried")
	}
	zero := int64(0)
	if retries(&api.RetryPolicy{}) != 1 || retries(&api.RetryPolicy{NumRetries: &zero}) != 0 {
		t.Error("numRetries: 1 unless set")
	}
}

func TestFaultInjection_Rolls(t *testing.T) {
	var fi api.FaultInjectionPolicy
	if err := json.Unmarshal([]byte(`{"delay":{"fixedDelay":{"seconds":"2","nanos":500000000},"percentage":100},"abort":{"httpStatus":418,"percentage":25}}`), &fi); err != nil {
		t.Fatal(err)
	}
	aborted := 0
	for range 4000 {
		delay, abort := rollFault(&fi)
		if delay != 2500*time.Millisecond {
			t.Fatalf("delay %v at 100%%, want 2.5s", delay)
		}
		if abort == 418 {
			aborted++
		}
	}
	if aborted < 800 || aborted > 1200 {
		t.Errorf("abort at 25%%: %d of 4000", aborted)
	}
	var none *api.FaultInjectionPolicy
	if d, a := rollFault(none); d != 0 || a != 0 {
		t.Error("no policy injected a fault")
	}
	bad := api.FaultInjectionPolicy{}
	json.Unmarshal([]byte(`{"abort":{"httpStatus":42,"percentage":100}}`), &bad)
	if _, a := rollFault(&bad); a != 0 {
		t.Errorf("abort with status 42, which no answer can have: %d", a)
	}
}
