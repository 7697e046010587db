package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/statuspage"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Paths of the health-check collection in the scopes the tests use.
const (
	globalHC   = "/compute/v1/projects/p/global/healthChecks"
	regionalHC = "/compute/v1/projects/p/regions/us-east1/healthChecks"
)

// scopes runs a test once for the global and once for a regional collection.
var scopes = []struct {
	name       string
	collection string // path of the collection
	operations string // path of the scope's operations
	region     string // region URL suffix; "" when global
}{
	{"global", globalHC, "/compute/v1/projects/p/global/operations", ""},
	{"regional", regionalHC, "/compute/v1/projects/p/regions/us-east1/operations", "projects/p/regions/us-east1"},
}

// emu is an emulator API served on loopback, with direct access to its
// store so that tests can prove an error changed nothing.
type emu struct {
	t     *testing.T
	url   string // root URL, "http://127.0.0.1:port"
	store store.Store
}

// errorLog fails the test when the server logs at level Error: that is
// how the API reports a failure it did not expect (a 500 or a panic).
type errorLog struct{ t *testing.T }

func (w errorLog) Write(p []byte) (int, error) {
	w.t.Errorf("server logged an error: %s", p)
	return len(p), nil
}

func newEmu(t *testing.T) *emu {
	t.Helper()
	return newEmuWith(t, store.NewMemory())
}

func newEmuWith(t *testing.T, st store.Store) *emu {
	t.Helper()
	return newEmuOptions(t, st, httpapi.Options{})
}

// newStrictEmu is an emulator that refuses fields the API does not define
// (--strict-fields).
func newStrictEmu(t *testing.T) *emu {
	t.Helper()
	return newEmuOptions(t, store.NewMemory(), httpapi.Options{StrictFields: true})
}

// newEmuOptions is an emulator built with o (RootURL and Log are its own;
// without a change feed of o's, every write's typed view is checked).
func newEmuOptions(t *testing.T, st store.Store, o httpapi.Options) *emu {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	root := "http://" + ts.Listener.Addr().String()
	o.RootURL = root
	o.Log = slog.New(slog.NewTextHandler(errorLog{t}, &slog.HandlerOptions{Level: slog.LevelError}))
	if o.OnChange == nil && o.Core == nil {
		o.OnChange = typedViewIsStored(t)
	}
	srv := httpapi.New(st, o)
	// The views the emulator mounts beside the API.
	views := statuspage.New(statuspage.Sources{Store: st})
	srv.Mount(views)
	ts.Config.Handler = srv
	ts.Start()
	t.Cleanup(ts.Close)
	t.Cleanup(views.StopStreams) // runs first: ts.Close waits for streams
	return &emu{t: t, url: root, store: st}
}

// send sends a request without touching the test, so that goroutines can
// use it; an empty body sends none.
func (e *emu) send(method, path, body string) (int, []byte, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, r)
	if err != nil {
		return 0, nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	// As the lbhealth client asks: answers with the emulator's extensions
	// (TestAnswersWithoutExtensions sees a client that does not ask).
	req.Header.Set(api.ExtensionsHeader, "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if ct := resp.Header.Get("Content-Type"); path != "/healthz" && !strings.HasPrefix(ct, "application/json") {
		return 0, nil, fmt.Errorf("%s %s: Content-Type %q, want JSON", method, path, ct)
	}
	return resp.StatusCode, b, nil
}

// do sends a request and fails the test if it gets no answer.
func (e *emu) do(method, path, body string) (int, []byte) {
	e.t.Helper()
	code, b, err := e.send(method, path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	return code, b
}

// ok sends a request that must succeed and decodes the answer into out.
func (e *emu) ok(method, path, body string, out any) {
	e.t.Helper()
	code, b := e.do(method, path, body)
	if code != http.StatusOK {
		e.t.Fatalf("%s %s %s: %d %s", method, path, body, code, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s %s: decoding %s: %v", method, path, b, err)
		}
	}
}

func (e *emu) insert(collection, body string) api.Operation {
	e.t.Helper()
	var op api.Operation
	e.ok("POST", collection, body, &op)
	return op
}

func (e *emu) get(path string) api.HealthCheck {
	e.t.Helper()
	var hc api.HealthCheck
	e.ok("GET", path, "", &hc)
	return hc
}

// fail sends a request that must fail with code and reason, and returns
// the error message. The body must be a Google-style error body.
func (e *emu) fail(method, path, body string, code int, reason string) string {
	e.t.Helper()
	got, b := e.do(method, path, body)
	if got != code {
		e.t.Fatalf("%s %s: %d %s, want %d", method, path, got, b, code)
	}
	return errorMessage(e.t, b, code, reason)
}

// errorMessage checks a Google-style error body and returns its message.
func errorMessage(t *testing.T, body []byte, code int, reason string) string {
	t.Helper()
	var eb api.ErrorBody
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&eb); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	d := eb.Error
	if d.Code != code || d.Message == "" || len(d.Errors) != 1 || d.Errors[0].Reason != reason || d.Errors[0].Message != d.Message {
		t.Fatalf("error body %s: want code %d, reason %q, one item repeating the message", body, code, reason)
	}
	return d.Message
}

// snapshot is everything stored, to prove that a failed request changed
// nothing (no object and no operation).
func (e *emu) snapshot() string {
	e.t.Helper()
	var b strings.Builder
	for _, c := range []string{"healthChecks", "operations"} {
		all, err := e.store.All(context.Background(), c)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, o := range all {
			fmt.Fprintf(&b, "%s %s\n", o.Path(), o.Body)
		}
	}
	return b.String()
}

// path is the part of a self link after the root URL.
func (e *emu) path(link string) string {
	e.t.Helper()
	p, ok := strings.CutPrefix(link, e.url)
	if !ok {
		e.t.Fatalf("link %q is not under %s", link, e.url)
	}
	return p
}

func TestInsert_AnswersAnOperationThatCanBeFetchedAgain(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			before := time.Now().Add(-time.Second)
			op := e.insert(sc.collection, `{"name": "web", "httpHealthCheck": {"requestPath": "/healthz"}}`)
			if op.Kind != api.KindOperation || op.Status != "DONE" || op.Progress != 100 || op.OperationType != "insert" || op.Error != nil {
				t.Errorf("operation = %+v, want a DONE insert", op)
			}
			if want := e.url + sc.collection + "/web"; op.TargetLink != want {
				t.Errorf("targetLink = %q, want %q", op.TargetLink, want)
			}
			if want := e.url + sc.operations + "/" + op.Name; op.SelfLink != want {
				t.Errorf("operation selfLink = %q, want %q", op.SelfLink, want)
			}
			if sc.region != "" && op.Region != e.url+"/compute/v1/"+sc.region || sc.region == "" && op.Region != "" {
				t.Errorf("operation region = %q", op.Region)
			}

			hc := e.get(sc.collection + "/web")
			if hc.ID == 0 || hc.ID != op.TargetID {
				t.Errorf("id = %d, operation targetId = %d: want the same, not 0", hc.ID, op.TargetID)
			}
			if hc.Kind != api.KindHealthCheck || hc.SelfLink != op.TargetLink || hc.Name != "web" || hc.Type != api.TypeHTTP {
				t.Errorf("stored = %+v", hc)
			}
			created, err := time.Parse(time.RFC3339, hc.CreationTimestamp)
			if err != nil || created.Before(before) || created.After(time.Now().Add(time.Second)) {
				t.Errorf("creationTimestamp %q: %v", hc.CreationTimestamp, err)
			}
			if sc.region != "" && hc.Region != e.url+"/compute/v1/"+sc.region || sc.region == "" && hc.Region != "" {
				t.Errorf("region = %q", hc.Region)
			}
			h := hc.HTTPHealthCheck
			if h == nil || h.Port == nil || *h.Port != 80 || h.RequestPath != "/healthz" || *hc.CheckIntervalSec != 5 || *hc.TimeoutSec != 5 {
				t.Errorf("defaults not applied: %+v", hc)
			}

			for _, method := range []string{"GET", "POST"} {
				path := e.path(op.SelfLink)
				if method == "POST" {
					path += "/wait"
				}
				var again api.Operation
				e.ok(method, path, "", &again)
				if !reflect.DeepEqual(again, op) {
					t.Errorf("%s %s = %+v, want the insert's answer %+v", method, path, again, op)
				}
			}
			// An operation belongs to its scope.
			other := scopes[0].operations
			if sc.region == "" {
				other = scopes[1].operations
			}
			e.fail("GET", other+"/"+op.Name, "", 404, api.ReasonNotFound)
		})
	}
}

func TestGet_Missing404(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			msg := e.fail("GET", sc.collection+"/nope", "", 404, api.ReasonNotFound)
			if !strings.Contains(msg, "projects/p/") || !strings.Contains(msg, "healthChecks/nope") {
				t.Errorf("message %q does not name the resource", msg)
			}
			e.fail("GET", sc.operations+"/operation-1-2", "", 404, api.ReasonNotFound)
		})
	}
}

func TestInsert_SameName409(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			e.insert(sc.collection, `{"name": "web", "tcpHealthCheck": {}}`)
			stored := e.get(sc.collection + "/web")
			before := e.snapshot()
			msg := e.fail("POST", sc.collection, `{"name": "web", "httpHealthCheck": {}}`, 409, api.ReasonAlreadyExists)
			if !strings.Contains(msg, "healthChecks/web") {
				t.Errorf("message %q does not name the resource", msg)
			}
			if after := e.snapshot(); after != before {
				t.Errorf("a refused insert changed the store:\n%s\nbecame\n%s", before, after)
			}
			if again := e.get(sc.collection + "/web"); !reflect.DeepEqual(again, stored) {
				t.Errorf("object changed: %+v", again)
			}
		})
	}
	t.Run("other scopes and projects are fine", func(t *testing.T) {
		e := newEmu(t)
		for _, c := range []string{globalHC, regionalHC, "/compute/v1/projects/p/regions/us-west1/healthChecks",
			"/compute/v1/projects/q/global/healthChecks"} {
			e.insert(c, `{"name": "web", "tcpHealthCheck": {}}`)
		}
		ids := map[uint64]bool{}
		for _, c := range []string{globalHC, regionalHC, "/compute/v1/projects/p/regions/us-west1/healthChecks"} {
			ids[e.get(c+"/web").ID] = true
		}
		if len(ids) != 3 {
			t.Errorf("ids %v: want three different objects", ids)
		}
	})
}

func TestList_Pages(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			var empty map[string]any
			e.ok("GET", sc.collection, "", &empty)
			if items, ok := empty["items"].([]any); !ok || len(items) != 0 || empty["kind"] != api.KindHealthCheckList {
				t.Errorf("empty list = %v, want kind and items: []", empty)
			}
			for _, n := range []string{"c", "a", "e", "b", "d"} {
				e.insert(sc.collection, `{"name": "`+n+`", "tcpHealthCheck": {}}`)
			}
			// Objects of other scopes and projects are not listed.
			e.insert("/compute/v1/projects/p/regions/europe-west1/healthChecks", `{"name": "aa", "tcpHealthCheck": {}}`)
			e.insert("/compute/v1/projects/q/global/healthChecks", `{"name": "aa", "tcpHealthCheck": {}}`)

			var pages [][]string
			token := ""
			for i := 0; i < 10; i++ {
				var page api.HealthCheckList
				e.ok("GET", sc.collection+"?maxResults=2&pageToken="+token, "", &page)
				if page.Kind != api.KindHealthCheckList {
					t.Errorf("kind = %q", page.Kind)
				}
				var names []string
				for _, hc := range page.Items {
					names = append(names, hc.Name)
				}
				pages = append(pages, names)
				token = page.NextPageToken
				if token == "" {
					break
				}
			}
			if got := fmt.Sprint(pages); got != "[[a b] [c d] [e]]" {
				t.Errorf("pages = %s, want [[a b] [c d] [e]]", got)
			}

			var all api.HealthCheckList
			e.ok("GET", sc.collection, "", &all)
			if len(all.Items) != 5 || all.NextPageToken != "" {
				t.Errorf("list without maxResults: %d items, token %q", len(all.Items), all.NextPageToken)
			}
			var exact api.HealthCheckList
			e.ok("GET", sc.collection+"?maxResults=5", "", &exact)
			if len(exact.Items) != 5 || exact.NextPageToken != "" {
				t.Errorf("maxResults=5 over 5 items: %d items, token %q: want no next page", len(exact.Items), exact.NextPageToken)
			}

			for _, q := range []string{"maxResults=x", "maxResults=-1", "maxResults=501", "maxResults=2.5", "pageToken=%21%21%21",
				"pageToken=Z2FyYmFnZSE", "pageToken=QDM"} { // base64 of "garbage!"; of "@3", a token of filtered lists
				msg := e.fail("GET", sc.collection+"?"+q, "", 400, api.ReasonInvalid)
				if field, _, _ := strings.Cut(q, "="); !strings.Contains(msg, field) {
					t.Errorf("?%s: message %q does not name %s", q, msg, field)
				}
			}
		})
	}
}

func TestUpdate_SwitchesProtocolInPlace(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			e.insert(sc.collection, `{"name": "web", "description": "d", "checkIntervalSec": 10, "httpHealthCheck": {"port": 8080}}`)
			before := e.get(sc.collection + "/web")

			var op api.Operation
			e.ok("PUT", sc.collection+"/web", `{"name": "web", "tcpHealthCheck": {"port": 9000}}`, &op)
			if op.OperationType != "update" || op.Status != "DONE" || op.TargetLink != before.SelfLink || op.TargetID != before.ID {
				t.Errorf("operation = %+v", op)
			}
			after := e.get(sc.collection + "/web")
			if after.ID != before.ID || after.CreationTimestamp != before.CreationTimestamp || after.SelfLink != before.SelfLink {
				t.Errorf("PUT changed id, creationTimestamp or selfLink: %+v -> %+v", before, after)
			}
			if after.Type != api.TypeTCP || after.HTTPHealthCheck != nil || after.TCPHealthCheck == nil || *after.TCPHealthCheck.Port != 9000 {
				t.Errorf("after PUT: %+v, want a TCP check on 9000 only", after)
			}
			// PUT replaces the whole object: what it leaves out is back to its default.
			if after.Description != "" || *after.CheckIntervalSec != 5 {
				t.Errorf("PUT kept fields it did not send: %+v", after)
			}

			// What GET returns can be sent back as it is (read-modify-write).
			raw, _ := json.Marshal(after)
			e.ok("PUT", sc.collection+"/web", string(raw), nil)
			if again := e.get(sc.collection + "/web"); !reflect.DeepEqual(again, after) {
				t.Errorf("PUT of the GET answer changed the object:\n%+v\n%+v", after, again)
			}
			// And without a name, the path names it.
			e.ok("PUT", sc.collection+"/web", `{"type": "SSL"}`, nil)
			if got := e.get(sc.collection + "/web"); got.Type != api.TypeSSL || *got.SSLHealthCheck.Port != 443 || got.ID != before.ID {
				t.Errorf("PUT of type alone: %+v", got)
			}
		})
	}
}

func TestPatch_Merges(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			e.insert(sc.collection, `{"name": "web", "description": "d", "httpHealthCheck": {"port": 8080, "requestPath": "/h"}}`)
			before := e.get(sc.collection + "/web")

			var op api.Operation
			e.ok("PATCH", sc.collection+"/web", `{"checkIntervalSec": 12}`, &op)
			if op.OperationType != "patch" || op.Status != "DONE" || op.TargetID != before.ID {
				t.Errorf("operation = %+v", op)
			}
			want := before
			want.CheckIntervalSec = ptr(12)
			if got := e.get(sc.collection + "/web"); !reflect.DeepEqual(got, want) {
				t.Errorf("PATCH checkIntervalSec:\n got  %s\n want %s", jsonOf(got), jsonOf(want))
			}

			// A nested object is merged too.
			e.ok("PATCH", sc.collection+"/web", `{"httpHealthCheck": {"requestPath": "/other"}}`, nil)
			got := e.get(sc.collection + "/web")
			if h := got.HTTPHealthCheck; h.RequestPath != "/other" || *h.Port != 8080 || got.Description != "d" {
				t.Errorf("nested PATCH: %s", jsonOf(got))
			}

			// Switch protocol: null deletes the old block.
			e.ok("PATCH", sc.collection+"/web", `{"httpHealthCheck": null, "tcpHealthCheck": {}}`, nil)
			got = e.get(sc.collection + "/web")
			if got.Type != api.TypeTCP || got.HTTPHealthCheck != nil || *got.TCPHealthCheck.Port != 80 || got.ID != before.ID ||
				got.CreationTimestamp != before.CreationTimestamp || *got.CheckIntervalSec != 12 || got.Description != "d" {
				t.Errorf("protocol switch by PATCH: %s", jsonOf(got))
			}

			// A stored default port must be removed to move to a named port.
			e.ok("PATCH", sc.collection+"/web", `{"tcpHealthCheck": {"port": null, "portSpecification": "USE_NAMED_PORT", "portName": "svc"}}`, nil)
			got = e.get(sc.collection + "/web")
			if tcp := got.TCPHealthCheck; tcp.Port != nil || tcp.PortName != "svc" {
				t.Errorf("move to a named port: %s", jsonOf(got))
			}
		})
	}
}

func TestUpdateAndPatch_RenameRefused(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			e.insert(sc.collection, `{"name": "web", "tcpHealthCheck": {}}`)
			before := e.snapshot()
			for _, method := range []string{"PUT", "PATCH"} {
				msg := e.fail(method, sc.collection+"/web", `{"name": "other", "tcpHealthCheck": {}}`, 400, api.ReasonInvalid)
				if !strings.Contains(msg, `name ("other")`) || !strings.Contains(msg, "renamed") {
					t.Errorf("%s: message %q", method, msg)
				}
			}
			if after := e.snapshot(); after != before {
				t.Errorf("a refused rename changed the store:\n%s\nbecame\n%s", before, after)
			}
			e.fail("GET", sc.collection+"/other", "", 404, api.ReasonNotFound)
		})
	}
}

func TestDelete(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			e.insert(sc.collection, `{"name": "web", "tcpHealthCheck": {}}`)
			e.insert(sc.collection, `{"name": "kept", "tcpHealthCheck": {}}`)
			hc := e.get(sc.collection + "/web")
			var op api.Operation
			e.ok("DELETE", sc.collection+"/web", "", &op)
			if op.OperationType != "delete" || op.Status != "DONE" || op.TargetLink != hc.SelfLink || op.TargetID != hc.ID {
				t.Errorf("operation = %+v", op)
			}
			e.ok("GET", e.path(op.SelfLink), "", nil)
			e.fail("GET", sc.collection+"/web", "", 404, api.ReasonNotFound)
			before := e.snapshot()
			e.fail("DELETE", sc.collection+"/web", "", 404, api.ReasonNotFound)
			if after := e.snapshot(); after != before {
				t.Errorf("a failed delete changed the store")
			}
			e.get(sc.collection + "/kept")
			// The name is free again.
			e.insert(sc.collection, `{"name": "web", "httpHealthCheck": {}}`)
			if again := e.get(sc.collection + "/web"); again.ID == hc.ID {
				t.Errorf("a new object got the id of the deleted one")
			}
		})
	}
}

// TestBadRequests covers every error path: each case must fail with its
// code, reason and a message naming what to fix, and change nothing.
func TestBadRequests(t *testing.T) {
	const valid = `{"name": "web", "httpHealthCheck": {}}`
	bigDescription := func(bodyLen int) string {
		prefix, suffix := `{"name": "web", "tcpHealthCheck": {}, "description": "`, `"}`
		return prefix + strings.Repeat("d", bodyLen-len(prefix)-len(suffix)) + suffix
	}
	type req struct{ method, path string }
	insertG, insertR := req{"POST", globalHC}, req{"POST", regionalHC}
	putG, patchG := req{"PUT", globalHC + "/web"}, req{"PATCH", globalHC + "/web"}
	putR, patchR := req{"PUT", regionalHC + "/web"}, req{"PATCH", regionalHC + "/web"}
	writes := []req{insertG, putG, patchG, insertR, putR, patchR}

	tests := []struct {
		name   string
		reqs   []req
		body   string
		code   int
		reason string
		// want are substrings of the message.
		want []string
	}{
		{"malformed JSON", writes, `{"name": "web",`, 400, api.ReasonInvalid, []string{"JSON"}},
		{"not JSON", writes, `name=web`, 400, api.ReasonInvalid, []string{"not valid JSON"}},
		{"wrong type", writes, `{"name": "web", "checkIntervalSec": "five", "httpHealthCheck": {}}`, 400, api.ReasonInvalid,
			[]string{"checkIntervalSec", "integer", "string"}},
		{"wrong nested type", writes, `{"name": "web", "httpHealthCheck": {"port": "eighty"}}`, 400, api.ReasonInvalid,
			[]string{"httpHealthCheck.port", "integer"}},
		{"fraction", writes, `{"name": "web", "checkIntervalSec": 5.5, "httpHealthCheck": {}}`, 400, api.ReasonInvalid,
			[]string{"checkIntervalSec"}},
		{"integer written as a float", writes, `{"name": "web", "checkIntervalSec": 1e1, "tcpHealthCheck": {}}`, 400, api.ReasonInvalid,
			[]string{"checkIntervalSec", "integer"}},
		{"block is not an object", writes, `{"name": "web", "httpHealthCheck": "yes"}`, 400, api.ReasonInvalid,
			[]string{"httpHealthCheck", "object"}},
		{"unknown field", writes, `{"name": "web", "checkIntervalSecs": 5, "httpHealthCheck": {}}`, 400, api.ReasonInvalid,
			[]string{`"checkIntervalSecs"`}},
		{"unknown nested field", writes, `{"name": "web", "httpHealthCheck": {"path": "/"}}`, 400, api.ReasonInvalid,
			[]string{`"httpHealthCheck.path"`}},
		{"snake_case field unknown either way", writes, `{"name": "web", "check_interval_secs": 5, "httpHealthCheck": {}}`, 400, api.ReasonInvalid,
			[]string{`"check_interval_secs"`, "camelCase"}},
		{"trailing object", writes, valid + ` {}`, 400, api.ReasonInvalid, []string{"after"}},
		{"trailing brace", writes, valid + `}`, 400, api.ReasonInvalid, nil},
		{"trailing bracket", writes, valid + `]`, 400, api.ReasonInvalid, nil},
		{"trailing garbage", writes, valid + `x`, 400, api.ReasonInvalid, nil},
		{"empty body", writes, ``, 400, api.ReasonInvalid, []string{"empty"}},
		{"blank body", writes, " \n\t", 400, api.ReasonInvalid, []string{"empty"}},
		{"array body", writes, `[]`, 400, api.ReasonInvalid, []string{"object"}},
		{"string body", writes, `"web"`, 400, api.ReasonInvalid, []string{"object"}},
		{"body over 1 MiB", writes, bigDescription(googleapi.MaxBodyBytes + 1), 413, api.ReasonRequestTooLarge,
			[]string{fmt.Sprint(googleapi.MaxBodyBytes)}},
		{"body of 1 MiB is read", writes, bigDescription(googleapi.MaxBodyBytes), 400, api.ReasonInvalid,
			[]string{"description is", "at most 2048"}},
		{"timeout over interval", writes, `{"name": "web", "checkIntervalSec": 5, "timeoutSec": 10, "httpHealthCheck": {}}`,
			400, api.ReasonInvalid, []string{"timeoutSec (10) must be less than or equal to checkIntervalSec (5)."}},
		{"bad port", writes, `{"name": "web", "tcpHealthCheck": {"port": 70000}}`,
			400, api.ReasonInvalid, []string{"tcpHealthCheck.port (70000) must be between 1 and 65535."}},
		{"two blocks", writes, `{"name": "web", "httpHealthCheck": {}, "tcpHealthCheck": {}}`,
			400, api.ReasonInvalid, []string{"exactly one protocol block"}},
		{"bad name", []req{insertG, insertR}, `{"name": "Web", "httpHealthCheck": {}}`,
			400, api.ReasonInvalid, []string{`name ("Web") is not a valid name`}},
		{"source regions on a regional check", []req{insertR, putR},
			`{"name": "web", "checkIntervalSec": 30, "sourceRegions": ["a", "b", "c"], "httpHealthCheck": {}}`,
			400, api.ReasonInvalid, []string{"sourceRegions can only be set on a global health check"}},
		{"region on a global check", []req{insertG, putG, patchG}, `{"name": "web", "region": "us-east1", "httpHealthCheck": {}}`,
			400, api.ReasonInvalid, []string{`region ("us-east1")`, "global"}},
		{"region mismatching the path", []req{insertR, putR, patchR}, `{"name": "web", "region": "us-west1", "httpHealthCheck": {}}`,
			400, api.ReasonInvalid, []string{`region ("us-west1")`, `"us-east1"`}},
		{"region URL mismatching the path", []req{insertR, putR, patchR},
			`{"name": "web", "region": "https://compute.googleapis.com/compute/v1/projects/p/regions/us-west1", "httpHealthCheck": {}}`,
			400, api.ReasonInvalid, []string{"regions/us-west1", `"us-east1"`}},
		{"invalid project in the path", []req{{"POST", "/compute/v1/projects/Bad_Project/global/healthChecks"},
			{"GET", "/compute/v1/projects/Bad_Project/global/healthChecks"}, {"GET", "/compute/v1/projects/Bad_Project/global/healthChecks/web"},
			{"PUT", "/compute/v1/projects/Bad_Project/global/healthChecks/web"}, {"DELETE", "/compute/v1/projects/Bad_Project/global/healthChecks/web"},
			{"GET", "/compute/v1/projects/Bad_Project/global/operations/x"}},
			valid, 400, api.ReasonInvalid, []string{`project ("Bad_Project") is not a valid name`}},
		{"invalid region in the path", []req{{"POST", "/compute/v1/projects/p/regions/US/healthChecks"},
			{"GET", "/compute/v1/projects/p/regions/US/healthChecks/web"}},
			valid, 400, api.ReasonInvalid, []string{`region ("US") is not a valid name`}},
		{"PUT or PATCH of a missing object", []req{{"PUT", globalHC + "/nope"}, {"PATCH", globalHC + "/nope"}, {"DELETE", globalHC + "/nope"},
			{"PUT", regionalHC + "/nope"}}, `{"httpHealthCheck": {}}`, 404, api.ReasonNotFound, []string{"healthChecks/nope"}},
		{"PATCH that is not an object", []req{patchG, patchR}, `[{"name": "web"}]`, 400, api.ReasonInvalid, []string{"object"}},
		{"PATCH null", []req{patchG, patchR}, `null`, 400, api.ReasonInvalid, []string{"object"}},
		{"no such route", []req{{"GET", "/compute/v1/projects/p/global/nothings"}, {"GET", "/nope"},
			{"DELETE", globalHC}, {"POST", globalHC + "/web"}, {"GET", "/compute/v1/projects/p/zones/z/healthChecks"},
			{"GET", "/compute/v1/projects/p/global/healthChecks/web/extra"}},
			valid, 404, api.ReasonNotFound, []string{"no"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newStrictEmu(t) // the unknown-field cases; the others are the same either way
			e.insert(globalHC, `{"name": "web", "description": "before", "tcpHealthCheck": {"port": 81}}`)
			e.insert(regionalHC, `{"name": "web", "description": "before", "tcpHealthCheck": {"port": 82}}`)
			global, regional := e.get(globalHC+"/web"), e.get(regionalHC+"/web")
			before := e.snapshot()
			for _, r := range tc.reqs {
				msg := e.fail(r.method, r.path, tc.body, tc.code, tc.reason)
				for _, w := range tc.want {
					if !strings.Contains(msg, w) {
						t.Errorf("%s %s: message %q does not contain %q", r.method, r.path, msg, w)
					}
				}
			}
			if after := e.snapshot(); after != before {
				t.Errorf("a failed request changed the store:\n%s\nbecame\n%s", before, after)
			}
			if got := e.get(globalHC + "/web"); !reflect.DeepEqual(got, global) {
				t.Errorf("global object changed: %+v", got)
			}
			if got := e.get(regionalHC + "/web"); !reflect.DeepEqual(got, regional) {
				t.Errorf("regional object changed: %+v", got)
			}
		})
	}
}

func TestReset(t *testing.T) {
	e := newEmu(t)
	for i := range 3 {
		e.insert(globalHC, fmt.Sprintf(`{"name": "g%d", "tcpHealthCheck": {}}`, i))
		e.insert(regionalHC, fmt.Sprintf(`{"name": "r%d", "tcpHealthCheck": {}}`, i))
	}
	e.insert("/compute/v1/projects/q/global/healthChecks", `{"name": "other", "tcpHealthCheck": {}}`)
	op := e.insert(globalHC, `{"name": "last", "tcpHealthCheck": {}}`)
	e.ok("POST", "/_emulator/reset", "", nil)
	for _, c := range []string{globalHC, regionalHC, "/compute/v1/projects/q/global/healthChecks"} {
		var list api.HealthCheckList
		e.ok("GET", c, "", &list)
		if len(list.Items) != 0 {
			t.Errorf("%s after reset: %d items", c, len(list.Items))
		}
	}
	e.fail("GET", globalHC+"/g0", "", 404, api.ReasonNotFound)
	e.fail("GET", e.path(op.SelfLink), "", 404, api.ReasonNotFound)
	if s := e.snapshot(); s != "" {
		t.Errorf("store after reset:\n%s", s)
	}
	// And it keeps working.
	e.insert(globalHC, `{"name": "g0", "tcpHealthCheck": {}}`)
}

func TestHealthz(t *testing.T) {
	e := newEmu(t)
	code, body := e.do("GET", "/healthz", "")
	if code != 200 || strings.TrimSpace(string(body)) != "ok" {
		t.Fatalf("GET /healthz = %d %q", code, body)
	}
}

func ptr(n int64) *int64 { return &n }

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDelete_InUse: a health check a backend service uses cannot be
// deleted; the error names the user and nothing changes.
func TestDelete_InUse(t *testing.T) {
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			e := newEmu(t)
			e.insert(sc.collection, `{"name": "web", "tcpHealthCheck": {}}`)
			services := strings.Replace(sc.collection, "healthChecks", "backendServices", 1)
			e.insert(services, `{"name": "svc", "protocol": "TCP", "healthChecks": ["web"]}`)
			before := e.snapshot()
			msg := e.fail("DELETE", sc.collection+"/web", "", 400, api.ReasonResourceInUse)
			if !strings.Contains(msg, "healthChecks/web") || !strings.Contains(msg, "backendServices/svc") {
				t.Errorf("message %q does not name the check and its user", msg)
			}
			if after := e.snapshot(); after != before {
				t.Errorf("a refused delete changed the store")
			}
			e.get(sc.collection + "/web")
			e.ok("DELETE", services+"/svc", "", nil)
			e.ok("DELETE", sc.collection+"/web", "", nil)
		})
	}
}
