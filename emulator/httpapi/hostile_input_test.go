package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestHostileInput_RefusedInTheAPIsFormat: input the Compute API refuses is
// refused here too, with its error format, and nothing is stored: a body
// that is not UTF-8, a request path with empty, "." or ".." segments (net/http
// would redirect it with an HTML page), a forwarding rule whose target is
// not a target, and a backend service timeout below one second.
func TestHostileInput_RefusedInTheAPIsFormat(t *testing.T) {
	e := newEmu(t)
	before := e.snapshot()
	wantMessage(t, e.fail("POST", globalHC, "{\"name\": \"web\", \"description\": \"caf\xe9\", \"tcpHealthCheck\": {}}", 400, api.ReasonInvalid),
		"not valid UTF-8 (at byte 35)")
	// JSON escapes that make no text: a NUL, a lone surrogate (which Go's
	// decoder turns into U+FFFD); an escaped U+FFFD is text, and is kept.
	wantMessage(t, e.fail("POST", globalHC, `{"name": "web", "description": "a\u0000b", "tcpHealthCheck": {}}`, 400, api.ReasonInvalid),
		`description ("a\x00b") has a NUL character (\u0000): strings of the API are text.`)
	wantMessage(t, e.fail("POST", globalHC, `{"name": "web", "tcpHealthCheck": {"request": "\ud800"}}`, 400, api.ReasonInvalid),
		`tcpHealthCheck.request ("\ufffd") has an escape that is not a character (a lone UTF-16 surrogate, \ud800-\udfff): strings of the API are text.`)
	wantMessage(t, e.fail("POST", globalHC, `{"name": "web", "labels": {"a\u0000": "x"}, "tcpHealthCheck": {}}`, 400, api.ReasonInvalid),
		`A field name "a\x00" has a NUL character`)
	if after := e.snapshot(); after != before {
		t.Fatalf("refused bodies changed what is stored:\n%s\n%s", before, after)
	}
	e.insert(globalHC, `{"name": "kept", "description": "\ufffd", "tcpHealthCheck": {}}`)
	if got := e.get(globalHC + "/kept"); got.Description != "\ufffd" {
		t.Errorf("an escaped U+FFFD was stored as %q", got.Description)
	}
	e.ok("DELETE", globalHC+"/kept", "", nil)
	for _, path := range []string{"/compute/v1/projects/p/global//healthChecks", "/compute/v1/projects/p/global/healthChecks/../../x",
		"/compute/v1/projects/p/./global/healthChecks"} {
		req, err := http.NewRequest("GET", e.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = path // sent as written, not cleaned by the client
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(string(body), `"notFound"`) {
			t.Errorf("GET %s: %d %s %s, want the API's 404", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	e.insert(globalHC, `{"name": "hc", "tcpHealthCheck": {}}`)
	before = e.snapshot()
	wantMessage(t, e.fail("POST", "/compute/v1/projects/p/global/forwardingRules", `{"name": "fr", "target": "global/healthChecks/hc"}`, 400, api.ReasonInvalid),
		`target ("global/healthChecks/hc") refers to a healthChecks resource: a forwarding rule sends traffic to a target proxy`)
	wantMessage(t, e.fail("POST", "/compute/v1/projects/p/global/backendServices", `{"name": "bs", "timeoutSec": -30}`, 400, api.ReasonInvalid),
		"timeoutSec (-30) must be between 1 and 2147483647")
	if after := e.snapshot(); after != before {
		t.Errorf("refused requests changed the store:\n%s\nwas\n%s", after, before)
	}
	wantMessage(t, e.fail("POST", "/compute/v1/projects/p/global/forwardingRules", `{"name": "fr", "target": "global/targetHttpProxies/web-proxy"}`, 404, api.ReasonNotFound),
		`target ("global/targetHttpProxies/web-proxy") refers to projects/p/global/targetHttpProxies/web-proxy, which does not exist.`)
	wantMessage(t, e.fail("POST", "/compute/v1/projects/p/regions/us-east1/forwardingRules", `{"name": "fr", "target": "regions/us-east1/serviceAttachments/none"}`, 404, api.ReasonNotFound),
		`target ("regions/us-east1/serviceAttachments/none") refers to projects/p/regions/us-east1/serviceAttachments/none, which does not exist.`)
}
