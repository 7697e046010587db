package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/schema"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// catalogueScopes are request path prefixes, one per scope.
var catalogueScopes = map[api.Scopes]string{
	api.Global:   "/compute/v1/projects/p/global/",
	api.Regional: "/compute/v1/projects/p/regions/us-east1/",
	api.Zonal:    "/compute/v1/projects/p/zones/us-east1-b/",
}

// TestCatalogueIsTheAPISurface: every collection of the catalogue is served
// in its scopes, with the list kind the catalogue gives and its typed view
// matching the API's schema, and in no other scope; its custom methods
// reach their handlers (which refuse a missing resource or an empty body,
// rather than the route table answering that there is no such path); and an update the catalogue does not give it is not served.
func TestCatalogueIsTheAPISurface(t *testing.T) {
	e := newEmu(t)
	for _, c := range api.Catalogue {
		if schema.Get(c.Schema()) == nil {
			t.Errorf("%s: schema %s is not in the embedded API description (compute-v1.json)", c.Name, c.Schema())
		}
		if got := schema.Kind(c.Schema()); got != c.Kind {
			t.Errorf("%s: catalogue kind %q, API kind %q", c.Name, c.Kind, got)
		}
		if _, ok := c.New().(interface{ GetMeta() *api.Meta }); !ok {
			t.Errorf("%s: New() returns %T, which has no Meta", c.Name, c.New())
		}
		for sc, prefix := range catalogueScopes {
			path := prefix + c.Name
			code, body := e.do("GET", path, "")
			if !c.Scopes.Has(sc) {
				if code != http.StatusNotFound || !strings.Contains(string(body), "The emulator has no") {
					t.Errorf("GET %s: %d %s, want the API's 404 for a path it does not have", path, code, body)
				}
				continue
			}
			var list struct{ Kind string }
			if code != http.StatusOK || json.Unmarshal(body, &list) != nil || list.Kind != c.ListKind {
				t.Errorf("GET %s: %d %s, want a list of kind %s", path, code, body, c.ListKind)
			}
			for _, m := range c.Methods {
				if !c.MethodScopes(m).Has(sc) {
					continue
				}
				mpath := path + "/missing/" + m.Name
				if m.ProjectPath && sc == api.Global {
					mpath = "/compute/v1/projects/p/" + c.Name + "/missing/" + m.Name
				}
				code, body := e.do(m.HTTP, mpath, "")
				if code < 400 || code >= 500 || strings.Contains(string(body), "The emulator has no") {
					t.Errorf("%s %s: %d %s, want the method's own refusal (missing resource, or no body)", m.HTTP, mpath, code, body)
				}
			}
			for _, verb := range []string{"PUT", "PATCH"} {
				if c.UpdatesIn(verb, sc) {
					continue
				}
				code, body := e.do(verb, path+"/missing", "{}")
				if code != http.StatusNotFound || !strings.Contains(string(body), "The emulator has no") {
					t.Errorf("%s %s: %d %s, want the API's 404: the catalogue gives %s no %s", verb, path, code, body, c.Name, verb)
				}
			}
		}
	}
	code, body := e.do("GET", catalogueScopes[api.Global]+"targetVpnGateways", "")
	if code != http.StatusNotFound || !strings.Contains(string(body), "The emulator has no GET") {
		t.Errorf("GET of a collection not in the catalogue: %d %s, want 404 naming it", code, body)
	}
}

// withExtraCollection runs fn with a collection added to the catalogue that
// nothing has written handlers for.
func withExtraCollection(t *testing.T, c api.Collection, fn func()) {
	t.Helper()
	saved := api.Catalogue
	api.Catalogue = append(append([]api.Collection(nil), saved...), c)
	defer func() { api.Catalogue = saved }()
	fn()
}

// TestCollectionWithoutHandlersIsRefused: a collection added to the
// catalogue without handlers stops the server at construction, naming it.
func TestCollectionWithoutHandlersIsRefused(t *testing.T) {
	extra := api.Collection{Name: "targetVpnGateways", Kind: "compute#targetVpnGateway", ListKind: "compute#targetVpnGatewayList", Scopes: api.Global,
		New: func() any { return new(api.Firewall) }}
	withExtraCollection(t, extra, func() {
		defer func() {
			p := recover()
			if p == nil || !strings.Contains(p.(string), "targetVpnGateways") {
				t.Fatalf("New with a collection that has no handlers: panic %v, want one naming targetVpnGateways", p)
			}
		}()
		newEmu(t)
	})
}

// TestEmulatorPathsAnswerWrongMethodWith405: the emulator's own paths answer
// a method they do not take with 405 and the methods they do take (the
// Compute API's paths keep the cloud's 404, seen above).
func TestEmulatorPathsAnswerWrongMethodWith405(t *testing.T) {
	e := newEmu(t)
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/_emulator/reset", "POST"},
		{"DELETE", "/healthz", "GET"},
		{"POST", "/", "GET"},
	} {
		req, _ := http.NewRequest(c.method, e.url+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != c.allow ||
			!strings.Contains(string(body), c.path+" does not take "+c.method) {
			t.Errorf("%s %s: %d Allow %q %s, want 405 Allow %q naming the method", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), body, c.allow)
		}
	}
	if code, body := e.do("GET", "/_emulator/nothing", ""); code != http.StatusNotFound || !strings.Contains(string(body), "The emulator has no GET") {
		t.Errorf("GET of a path nobody serves: %d %s, want 404", code, body)
	}
}
