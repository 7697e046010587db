package httpapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/statuspage"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const (
	guardRoot = "http://127.0.0.1:8686"
	hcBody    = `{"name": "web", "tcpHealthCheck": {"port": 80}}`
)

// guarded is an API with access settings, called in process so that each
// request can carry any Host and headers.
type guarded struct {
	t     *testing.T
	h     *httpapi.Server
	store store.Store
}

func newGuarded(t *testing.T, a httpapi.Access) *guarded {
	st := store.NewMemory()
	log := slog.New(slog.NewTextHandler(errorLog{t}, &slog.HandlerOptions{Level: slog.LevelError}))
	h := httpapi.New(st, httpapi.Options{RootURL: guardRoot, Log: log, Access: a})
	// The views the emulator mounts beside the API, some open without the
	// token.
	h.Mount(statuspage.New(statuspage.Sources{Store: st}))
	return &guarded{t: t, h: h, store: st}
}

// call sends method path with body and the headers given as name, value
// pairs ("Host" sets the Host header).
func (g *guarded) call(method, path, body string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, guardRoot+path, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	w := httptest.NewRecorder()
	g.h.ServeHTTP(w, req)
	return w
}

// refused checks a Google-style error of code and reason whose message
// names each of mention.
func (g *guarded) refused(w *httptest.ResponseRecorder, code int, reason string, mention ...string) {
	g.t.Helper()
	var eb api.ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || w.Code != code || eb.Error.Code != code ||
		len(eb.Error.Errors) != 1 || eb.Error.Errors[0].Reason != reason {
		g.t.Fatalf("answer %d %s, want %d %s in a Google-style error", w.Code, w.Body, code, reason)
	}
	for _, m := range mention {
		if !strings.Contains(eb.Error.Message, m) {
			g.t.Errorf("message %q does not mention %q", eb.Error.Message, m)
		}
	}
}

// stored counts the health checks stored.
func (g *guarded) stored() int {
	all, err := g.store.All(context.Background(), api.CollectionHealthChecks)
	if err != nil {
		g.t.Fatal(err)
	}
	return len(all)
}

// TestGuard_WhatAWebPageCanSendIsRefused covers the requests a page in the
// user's browser can send to 127.0.0.1 without a CORS preflight:
// none is served, and none stores anything.
func TestGuard_WhatAWebPageCanSendIsRefused(t *testing.T) {
	tests := []struct {
		name    string
		headers []string
		code    int
		reason  string
		mention []string
	}{
		{"cross-site text/plain POST", []string{"Content-Type", "text/plain", "Origin", "http://evil.example"},
			http.StatusForbidden, api.ReasonForbidden, []string{"http://evil.example", "web page"}},
		{"another local site", []string{"Content-Type", "application/json", "Origin", "http://127.0.0.1:3000"},
			http.StatusForbidden, api.ReasonForbidden, []string{"Origin"}},
		{"a sandboxed page", []string{"Content-Type", "application/json", "Origin", "null"},
			http.StatusForbidden, api.ReasonForbidden, nil},
		{"text/plain without Origin", []string{"Content-Type", "text/plain;charset=UTF-8"},
			http.StatusUnsupportedMediaType, api.ReasonBadContent, []string{"application/json", `"text/plain;charset=UTF-8"`}},
		{"a form", []string{"Content-Type", "application/x-www-form-urlencoded"},
			http.StatusUnsupportedMediaType, api.ReasonBadContent, nil},
		{"multipart", []string{"Content-Type", "multipart/form-data; boundary=x"},
			http.StatusUnsupportedMediaType, api.ReasonBadContent, nil},
		{"no type at all", nil,
			http.StatusUnsupportedMediaType, api.ReasonBadContent, []string{"type: none"}},
		{"DNS rebinding", []string{"Content-Type", "application/json", "Host", "attacker.example:8686"},
			http.StatusForbidden, api.ReasonForbidden, []string{"attacker.example", "--allowed-hosts attacker.example", "LBHEALTH_ALLOWED_HOSTS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGuarded(t, httpapi.Access{})
			g.refused(g.call("POST", globalHC, hcBody, tt.headers...), tt.code, tt.reason, tt.mention...)
			g.refused(g.call("POST", "/_emulator/reset", "{}", tt.headers...), tt.code, tt.reason)
			if n := g.stored(); n != 0 {
				t.Errorf("%d health checks stored by a refused request", n)
			}
		})
	}
}

func TestGuard_ForeignHostIsRefusedOnEveryPath(t *testing.T) {
	g := newGuarded(t, httpapi.Access{AllowedHosts: []string{"emulator.internal", " Dev.Box:8686 "}})
	for _, path := range []string{globalHC, "/healthz", "/metrics", "/"} {
		g.refused(g.call("GET", path, "", "Host", "attacker.example:8686"), http.StatusForbidden, api.ReasonForbidden, "--allowed-hosts")
	}
	for _, host := range []string{"127.0.0.1:8686", "[::1]:8686", "10.1.2.3:8686", "localhost:8686", "LOCALHOST.", "localhost",
		"emulator.internal:8686", "dev.box", ""} {
		if w := g.call("GET", globalHC, "", "Host", host); w.Code != http.StatusOK {
			t.Errorf("Host %q: %d %s, want 200", host, w.Code, w.Body)
		}
	}
	for _, host := range []string{"127.0.0.1.attacker.example", "sub.localhost:8686", "2130706433:8686", "emulator.internal.evil"} {
		if w := g.call("GET", globalHC, "", "Host", host); w.Code != http.StatusForbidden {
			t.Errorf("Host %q: %d, want 403", host, w.Code)
		}
	}
}

func TestGuard_SameOriginAndToolsAreServed(t *testing.T) {
	g := newGuarded(t, httpapi.Access{})
	for _, h := range [][]string{
		{"Content-Type", "application/json"}, // what this repo's client and Google's clients send
		{"Content-Type", "application/json; charset=UTF-8"},
		{"Content-Type", "Application/JSON"},
		{"Content-Type", "application/json", "Origin", "http://127.0.0.1:8686"},
		{"Content-Type", "application/json", "Origin", "http://localhost:8686", "Host", "LOCALHOST:8686"},
	} {
		g.store.Reset(context.Background())
		if w := g.call("POST", globalHC, hcBody, h...); w.Code != http.StatusOK {
			t.Errorf("POST with %q: %d %s, want 200", h, w.Code, w.Body)
		}
	}
	// A POST with no body needs no type: getHealth, operations wait.
	g.call("POST", "/compute/v1/projects/p/zones/z/networkEndpointGroups", `{"name": "neg"}`, "Content-Type", "application/json")
	g.call("POST", "/compute/v1/projects/p/global/backendServices",
		`{"name": "bs", "backends": [{"group": "zones/z/networkEndpointGroups/neg"}], "healthChecks": ["web"]}`,
		"Content-Type", "application/json")
	if w := g.call("POST", "/compute/v1/projects/p/global/backendServices/bs/getHealth", ""); w.Code != http.StatusOK {
		t.Errorf("getHealth without a body: %d %s, want 200", w.Code, w.Body)
	}
	if w := g.call("POST", "/_emulator/reset", ""); w.Code != http.StatusOK {
		t.Errorf("reset without a body: %d %s, want 200", w.Code, w.Body)
	}
}

func TestGuard_TokenIsRequiredOnEveryAPICall(t *testing.T) {
	const token = "s3cret-token"
	g := newGuarded(t, httpapi.Access{Token: token})
	json := []string{"Content-Type", "application/json"}

	w := g.call("POST", globalHC, hcBody, json...)
	g.refused(w, http.StatusUnauthorized, api.ReasonRequired, "LBHEALTH_TOKEN", "Authorization: Bearer")
	if got := w.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
		t.Errorf("WWW-Authenticate %q, want a Bearer challenge", got)
	}
	g.refused(g.call("POST", globalHC, hcBody, append(json, "Authorization", "Bearer wrong")...),
		http.StatusUnauthorized, api.ReasonAuthError, "LBHEALTH_TOKEN")
	g.refused(g.call("POST", globalHC, hcBody, append(json, "Authorization", "Basic "+token)...),
		http.StatusUnauthorized, api.ReasonRequired)
	for _, path := range []string{globalHC, globalHC + "/web", "/compute/v1/projects/p/global/operations/x", "/no/such/path"} {
		g.refused(g.call("GET", path, ""), http.StatusUnauthorized, api.ReasonRequired)
	}
	g.refused(g.call("POST", "/_emulator/reset", ""), http.StatusUnauthorized, api.ReasonRequired)
	if n := g.stored(); n != 0 {
		t.Fatalf("%d health checks stored without the token", n)
	}
	if w := g.call("POST", globalHC, hcBody, append(json, "Authorization", "Bearer "+token)...); w.Code != http.StatusOK {
		t.Fatalf("with the token: %d %s", w.Code, w.Body)
	}
	if w := g.call("GET", globalHC+"/web", "", "Authorization", "bearer "+token); w.Code != http.StatusOK {
		t.Errorf("GET with the token (scheme in lower case): %d %s", w.Code, w.Body)
	}
	// Read-only views of health stay open; what they serve is tested elsewhere.
	for _, path := range []string{"/healthz", "/", "/_emulator/status.js", "/_emulator/status.css"} {
		if w := g.call("GET", path, ""); w.Code != http.StatusOK {
			t.Errorf("GET %s without the token: %d %s, want it open", path, w.Code, w.Body)
		}
	}
	if w := g.call("GET", "/metrics", ""); w.Code == http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token: 401, want it open")
	}
	if w := g.call("POST", "/healthz", "", "Content-Type", "application/json"); w.Code != http.StatusUnauthorized {
		t.Errorf("POST /healthz without the token: %d, want 401 (only reads are open)", w.Code)
	}
}
