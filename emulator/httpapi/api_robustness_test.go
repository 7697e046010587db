package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// seedBodies are valid health checks of every protocol, the starting point
// of the random and fuzz tests.
var seedBodies = []string{
	`{"name": "web", "tcpHealthCheck": {}}`,
	`{"name": "web", "type": "HTTPS"}`,
	`{"name": "web", "description": "d", "checkIntervalSec": 10, "timeoutSec": 3, "healthyThreshold": 3, "unhealthyThreshold": 4,
	  "httpHealthCheck": {"port": 8080, "host": "example.com", "requestPath": "/healthz?x=1", "response": "OK", "proxyHeader": "PROXY_V1"},
	  "logConfig": {"enable": true}}`,
	`{"name": "web", "sslHealthCheck": {"portSpecification": "USE_NAMED_PORT", "portName": "tls", "request": "PING", "response": "PONG"}}`,
	`{"name": "web", "http2HealthCheck": {"portSpecification": "USE_SERVING_PORT"}}`,
	`{"name": "web", "grpcHealthCheck": {"port": 50051, "grpcServiceName": "pkg.Svc"}}`,
	`{"name": "web", "grpcTlsHealthCheck": {"portSpecification": "USE_FIXED_PORT", "port": 8443}}`,
	`{"name": "web", "checkIntervalSec": 30, "sourceRegions": ["us-central1", "us-east1", "europe-west1"], "httpsHealthCheck": {}}`,
	`{"name": "web", "kind": "compute#healthCheck", "id": "42", "selfLink": "x", "creationTimestamp": "y", "tcpHealthCheck": {"port": 1}}`,
}

// randomValue is a JSON value of a random kind, often a nasty one.
func randomValue(rng *rand.Rand, depth int) any {
	values := []any{
		nil, true, false, "", "web", "USE_NAMED_PORT", "PROXY_V1", "TCP", "GRPC", "/", "a b", "é", "\x00\x7f",
		strings.Repeat("x", 1025), json.Number("0"), json.Number("-1"), json.Number("5"), json.Number("30"),
		json.Number("301"), json.Number("65536"), json.Number("9223372036854775808"), json.Number("1e400"),
		json.Number("5.5"), json.Number("1e1"), json.Number("-0"),
	}
	switch n := rng.Intn(len(values) + 2); {
	case n < len(values):
		return values[n]
	case depth > 3:
		return nil
	case n == len(values):
		a := make([]any, rng.Intn(4))
		for i := range a {
			a[i] = randomValue(rng, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for range rng.Intn(4) {
			m[randomKey(rng)] = randomValue(rng, depth+1)
		}
		return m
	}
}

// keys are the API's field names, plus a few it does not have.
var keys = append(api.ProtocolFields(), "name", "description", "type", "region", "checkIntervalSec", "timeoutSec",
	"healthyThreshold", "unhealthyThreshold", "logConfig", "enable", "sourceRegions", "port", "portName",
	"portSpecification", "proxyHeader", "request", "response", "host", "requestPath", "grpcServiceName",
	"id", "kind", "selfLink", "creationTimestamp", "bogus", "", "Name")

func randomKey(rng *rand.Rand) string { return keys[rng.Intn(len(keys))] }

// mutateObject changes a JSON object at a random depth.
func mutateObject(rng *rand.Rand, m map[string]any) {
	if len(m) > 0 && rng.Intn(3) > 0 {
		ks := make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		// Map order is random: sort for a deterministic run.
		slices.Sort(ks)
		k := ks[rng.Intn(len(ks))]
		if sub, ok := m[k].(map[string]any); ok && rng.Intn(2) == 0 {
			mutateObject(rng, sub)
			return
		}
		if rng.Intn(4) == 0 {
			delete(m, k)
			return
		}
		m[k] = randomValue(rng, 0)
		return
	}
	m[randomKey(rng)] = randomValue(rng, 0)
}

// mutateBytes damages the text of a body.
func mutateBytes(rng *rand.Rand, b []byte) []byte {
	const alphabet = "{}[]\",:0123456789-.eEtruefalsnl \\\x00\xff\n"
	out := bytes.Clone(b)
	for range 1 + rng.Intn(3) {
		if len(out) == 0 {
			return out
		}
		i := rng.Intn(len(out))
		switch rng.Intn(4) {
		case 0:
			out = append(out[:i], out[i+1:]...)
		case 1:
			out = append(out[:i], append([]byte{alphabet[rng.Intn(len(alphabet))]}, out[i:]...)...)
		case 2:
			out[i] = alphabet[rng.Intn(len(alphabet))]
		default:
			out = out[:i]
		}
	}
	return out
}

// randomBody is a seed body, as it is, mutated textually or structurally.
func randomBody(rng *rand.Rand) string {
	seed := seedBodies[rng.Intn(len(seedBodies))]
	switch rng.Intn(5) {
	case 0:
		return seed
	case 1:
		return string(mutateBytes(rng, []byte(seed)))
	}
	dec := json.NewDecoder(strings.NewReader(seed))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		panic(err)
	}
	for range 1 + rng.Intn(2) {
		mutateObject(rng, m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestRandomBodies_NeverA5xx posts a few hundred mutated bodies to insert,
// PUT and PATCH. Whatever comes, the answer is a client error or a
// success; a failure changes nothing; what is stored obeys the rules and
// can be sent back with PUT unchanged.
func TestRandomBodies_NeverA5xx(t *testing.T) {
	rng := rand.New(rand.NewSource(20240601))
	e := newEmu(t)
	counts := map[int]int{}
	for i := range 600 {
		sc := scopes[i%2]
		if code, _ := e.do("GET", sc.collection+"/web", ""); code == 404 {
			e.insert(sc.collection, seedBodies[0])
		}
		body := randomBody(rng)
		method, path := "POST", sc.collection
		switch i % 3 {
		case 0:
			body = strings.Replace(body, `"web"`, fmt.Sprintf(`"hc-%d"`, i), 1) // a new name, mostly
		case 1:
			method, path = "PUT", sc.collection+"/web"
		case 2:
			method, path = "PATCH", sc.collection+"/web"
		}
		before := e.snapshot()
		code, answer := e.do(method, path, body)
		counts[code]++
		switch code {
		case http.StatusOK:
			var op api.Operation
			if err := json.Unmarshal(answer, &op); err != nil || op.Status != "DONE" {
				t.Fatalf("%s %s: 200 %s: not a DONE operation", method, body, answer)
			}
			checkStored(t, e, e.path(op.TargetLink), sc.region != "")
			if method == "POST" && op.TargetLink != e.url+sc.collection+"/web" {
				e.ok("DELETE", e.path(op.TargetLink), "", nil) // keep the store small
			}
		case http.StatusBadRequest, http.StatusConflict:
			errorMessage(t, answer, code, map[int]string{400: api.ReasonInvalid, 409: api.ReasonAlreadyExists}[code])
			if after := e.snapshot(); after != before {
				t.Fatalf("%s %s: %d, yet the store changed:\n%s\nbecame\n%s", method, body, code, before, after)
			}
		default:
			t.Fatalf("%s %s %s: %d %s", method, path, body, code, answer)
		}
	}
	t.Logf("answers: %v", counts)
	if counts[200] < 30 || counts[400] < 100 {
		t.Errorf("answers %v: the mutations are too mild or too wild to test much", counts)
	}
	if code, _ := e.do("GET", "/healthz", ""); code != 200 {
		t.Fatalf("healthz after the storm: %d", code)
	}
}

// checkStored: the object at path is valid by the rules, and PUT of what
// GET returns is accepted and changes nothing.
func checkStored(t *testing.T, e *emu, path string, regional bool) {
	t.Helper()
	code, raw := e.do("GET", path, "")
	if code != 200 {
		t.Fatalf("GET %s after a successful write: %d %s", path, code, raw)
	}
	var hc api.HealthCheck
	if err := json.Unmarshal(raw, &hc); err != nil {
		t.Fatal(err)
	}
	if vs := rules.HealthCheck(&hc, regional); len(vs) > 0 {
		t.Fatalf("stored object %s breaks a rule: %v", raw, vs.Err())
	}
	if code, answer := e.do("PUT", path, string(raw)); code != 200 {
		t.Fatalf("PUT of the GET answer %s: %d %s", raw, code, answer)
	}
	if _, again := e.do("GET", path, ""); !bytes.Equal(again, raw) {
		t.Fatalf("PUT of the GET answer changed the object:\n%s\n%s", raw, again)
	}
}

// FuzzInsertHealthCheck: any body posted to insert gets a client error
// that changes nothing, or is stored as a valid object that GET returns
// and PUT accepts back. `go test` runs the seeds; `go test -fuzz` explores.
func FuzzInsertHealthCheck(f *testing.F) {
	for _, s := range seedBodies {
		f.Add(s)
	}
	for _, s := range []string{``, `{}`, `null`, `[]`, `{"name": "web"}`, `{"name": "web", "tcpHealthCheck": {}}}`,
		`{"name": "web", "tcpHealthCheck": {"port": "80"}}`, `{"name": "web", "grpcHealthCheck": {}}`,
		`{"name": "web", "type": "GRPC"}`, `{"name": "web", "tcpHealthCheck": null, "type": "TCP"}`,
		`{"name": "web", "httpHealthCheck": {"requestPath": "/%zz"}}`, `{"name":"web","checkIntervalSec":1e400,"tcpHealthCheck":{}}`,
		`{"name": "web", "id": 5, "tcpHealthCheck": {}}`, `{"name": "web", "region": "r", "tcpHealthCheck": {}}`} {
		f.Add(s)
	}
	const root = "http://localhost:8686" // a name the API answers to (guard.go)
	f.Fuzz(func(t *testing.T, body string) {
		st := store.NewMemory()
		log := slog.New(slog.NewTextHandler(errorLog{t}, &slog.HandlerOptions{Level: slog.LevelError}))
		h := httpapi.New(st, httpapi.Options{RootURL: root, Log: log})
		serve := func(method, path, body string) (int, []byte) {
			w := httptest.NewRecorder()
			req := httptest.NewRequest(method, root+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(w, req)
			return w.Code, w.Body.Bytes()
		}
		code, answer := serve("POST", globalHC, body)
		if code != 200 {
			if code != 400 && code != 413 {
				t.Fatalf("POST %q: %d %s", body, code, answer)
			}
			errorMessage(t, answer, code, map[int]string{400: api.ReasonInvalid, 413: api.ReasonRequestTooLarge}[code])
			if all, _ := st.All(context.Background(), "healthChecks"); len(all) != 0 {
				t.Fatalf("POST %q: %d, yet %d objects stored", body, code, len(all))
			}
			return
		}
		var op api.Operation
		if err := json.Unmarshal(answer, &op); err != nil {
			t.Fatal(err)
		}
		path := strings.TrimPrefix(op.TargetLink, root)
		code, raw := serve("GET", path, "")
		if code != 200 {
			t.Fatalf("GET %s: %d", path, code)
		}
		var hc api.HealthCheck
		if err := json.Unmarshal(raw, &hc); err != nil {
			t.Fatal(err)
		}
		if vs := rules.HealthCheck(&hc, false); len(vs) > 0 {
			t.Fatalf("POST %q stored %s, which breaks a rule: %v", body, raw, vs.Err())
		}
		if code, answer := serve("PUT", path, string(raw)); code != 200 {
			t.Fatalf("PUT of the GET answer %s: %d %s", raw, code, answer)
		}
		if _, again := serve("GET", path, ""); !bytes.Equal(again, raw) {
			t.Fatalf("PUT of the GET answer changed the object:\n%s\n%s", raw, again)
		}
	})
}

// stores runs a test against the memory store and the SQLite store.
func stores(t *testing.T, test func(t *testing.T, e *emu)) {
	t.Run("memory", func(t *testing.T) { test(t, newEmu(t)) })
	t.Run("sqlite", func(t *testing.T) {
		st, err := store.OpenSQLite(filepath.Join(t.TempDir(), "db"))
		if err != nil {
			t.Fatal(err)
		}
		e := newEmuWith(t, st) // the server's cleanup runs before the store's
		t.Cleanup(func() { st.Close() })
		test(t, e)
	})
}

// TestConcurrentInsertsAndPatches: 20 clients insert their own check and
// patch one shared check at the same time; every request succeeds and
// nothing is lost.
func TestConcurrentInsertsAndPatches(t *testing.T) {
	stores(t, func(t *testing.T, e *emu) {
		e.insert(globalHC, `{"name": "shared", "tcpHealthCheck": {}}`)
		const n = 20
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for _, r := range []struct{ method, path, body string }{
					{"POST", globalHC, fmt.Sprintf(`{"name": "hc-%d", "httpHealthCheck": {"port": %d}}`, i, 8000+i)},
					{"PATCH", globalHC + "/shared", fmt.Sprintf(`{"description": "writer %d", "checkIntervalSec": %d}`, i, 10+i)},
					{"PATCH", globalHC + "/hc-" + fmt.Sprint(i), fmt.Sprintf(`{"description": "mine %d"}`, i)},
				} {
					code, body, err := e.send(r.method, r.path, r.body)
					if err != nil || code != 200 {
						t.Errorf("%s %s: %d %s %v", r.method, r.path, code, body, err)
					}
				}
			}()
		}
		close(start)
		wg.Wait()

		var list api.HealthCheckList
		e.ok("GET", globalHC, "", &list)
		if len(list.Items) != n+1 {
			t.Fatalf("list has %d items, want %d", len(list.Items), n+1)
		}
		for _, hc := range list.Items {
			if hc.Name == "shared" {
				// The last patch won as a whole: its description and interval go together.
				var i int
				if _, err := fmt.Sscanf(hc.Description, "writer %d", &i); err != nil || *hc.CheckIntervalSec != int64(10+i) {
					t.Errorf("shared = %q, interval %d: a mix of two patches", hc.Description, *hc.CheckIntervalSec)
				}
				continue
			}
			var i int
			if _, err := fmt.Sscanf(hc.Name, "hc-%d", &i); err != nil || hc.Description != fmt.Sprintf("mine %d", i) ||
				*hc.HTTPHealthCheck.Port != int64(8000+i) {
				t.Errorf("item %s: %q port %d", hc.Name, hc.Description, *hc.HTTPHealthCheck.Port)
			}
		}
	})
}

// TestConcurrentInsertsOfOneName: exactly one of ten wins; the others get
// 409 and the winner's object is intact.
func TestConcurrentInsertsOfOneName(t *testing.T) {
	stores(t, func(t *testing.T, e *emu) {
		const n = 10
		start := make(chan struct{})
		codes := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				code, body, err := e.send("POST", regionalHC, fmt.Sprintf(`{"name": "same", "description": "%d", "tcpHealthCheck": {}}`, i))
				if err != nil || code != 200 && code != 409 {
					t.Errorf("insert %d: %d %s %v", i, code, body, err)
				}
				codes[i] = code
			}()
		}
		close(start)
		wg.Wait()
		winner, conflicts := -1, 0
		for i, c := range codes {
			switch c {
			case 200:
				if winner >= 0 {
					t.Errorf("inserts %d and %d both succeeded", winner, i)
				}
				winner = i
			case 409:
				conflicts++
			}
		}
		if winner < 0 || conflicts != n-1 {
			t.Fatalf("codes %v: want one 200 and %d 409", codes, n-1)
		}
		if got := e.get(regionalHC + "/same"); got.Description != fmt.Sprint(winner) {
			t.Errorf("stored description %q, want the winner's %d", got.Description, winner)
		}
		var list api.HealthCheckList
		e.ok("GET", regionalHC, "", &list)
		if len(list.Items) != 1 {
			t.Errorf("list has %d items, want 1", len(list.Items))
		}
	})
}

// fuzzCollections are the collections FuzzInsertAnyCollection posts to:
// every collection of the catalogue, in each of its scopes.
var fuzzCollections = func() []string {
	scopes := map[api.Scopes]string{api.Global: "global/", api.Regional: "regions/r/", api.Zonal: "zones/z/"}
	var out []string
	for _, c := range api.Catalogue {
		for _, sc := range c.Scopes.List() {
			out = append(out, scopes[sc]+c.Name)
		}
	}
	return out
}()

// FuzzInsertAnyCollection: whatever body is posted to whichever collection,
// the answer is a 200 with an Operation, or a client error that names a
// reason and changes nothing stored; never a 5xx. The seeds are the
// bodies terraform-provider-google sends, and broken variants of them.
func FuzzInsertAnyCollection(f *testing.F) {
	// Each seed is posted to the collection it was written for; the broken
	// ones (collection "") to each in turn.
	for i, seed := range []struct{ collection, body string }{
		{"global/backendServices", `{"name": "bs", "connectionDraining": {"drainingTimeoutSec": 300}, "sessionAffinity": "NONE", "backends": []}`},
		{"regions/r/backendServices", `{"name": "bs", "healthChecks": ["global/healthChecks/hc"], "loadBalancingScheme": "INTERNAL"}`},
		{"zones/z/networkEndpointGroups", `{"name": "neg", "networkEndpointType": "GCE_VM_IP_PORT", "defaultPort": 80, "network": "global/networks/default"}`},
		{"regions/r/targetPools", `{"name": "tp", "instances": ["127.0.0.1:80"], "sessionAffinity": "NONE"}`},
		{"regions/r/forwardingRules", `{"name": "fr", "IPProtocol": "TCP", "portRange": "80", "target": "regions/r/targetPools/tp"}`},
		{"global/httpHealthChecks", `{"name": "leg", "port": 80, "requestPath": "/"}`},
		{"regions/r/healthAggregationPolicies", `{"name": "hap", "healthyPercentThreshold": 60}`},
		{"regions/r/healthSources", `{"name": "hs", "sourceType": "BACKEND_SERVICE", "sources": ["x"]}`},
		{"regions/r/compositeHealthChecks", `{"name": "chc", "healthSources": [], "healthDestination": ""}`},
		{"zones/z/instances", `{"name": "vm", "networkInterfaces": [{"networkIP": "127.0.0.1"}]}`},
		{"regions/r/addresses", `{"name": "ip", "addressType": "EXTERNAL", "labels": {"a": "b"}}`},
		{"global/networks", `{"name": "net", "autoCreateSubnetworks": false}`},
		{"regions/r/subnetworks", `{"name": "sub", "ipCidrRange": "10.0.0.0/24", "network": "global/networks/net"}`},
		{"global/firewalls", `{"name": "fw", "allowed": [{"IPProtocol": "tcp", "ports": ["80"]}]}`},
		{"", `{"name": "x", "labels": {"a": 1}}`}, {"", `{"name": 5}`}, {"", `[]`}, {"", `{"name": "x", "id": "nope"}`},
	} {
		which := slices.Index(fuzzCollections, seed.collection)
		if seed.collection == "" {
			which = i
		} else if which < 0 {
			f.Fatalf("seed %d is for %s, which the catalogue does not serve", i, seed.collection)
		}
		f.Add(uint8(which), seed.body)
	}
	const root = "http://localhost:8686"
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		st := store.NewMemory()
		log := slog.New(slog.NewTextHandler(errorLog{t}, &slog.HandlerOptions{Level: slog.LevelError}))
		h := httpapi.New(st, httpapi.Options{RootURL: root, Log: log, OnChange: typedViewIsStored(t)})
		path := "/compute/v1/projects/p/" + fuzzCollections[int(which)%len(fuzzCollections)]
		w := httptest.NewRecorder()
		req := httptest.NewRequest("POST", root+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(w, req)
		switch code := w.Code; {
		case code == 200:
			var op api.Operation
			if err := json.Unmarshal(w.Body.Bytes(), &op); err != nil || op.Status != "DONE" {
				t.Fatalf("POST %s %q: 200 %s", path, body, w.Body.Bytes())
			}
		case code >= 500:
			t.Fatalf("POST %s %q: %d %s", path, body, code, w.Body.Bytes())
		default:
			var e api.ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || len(e.Error.Errors) == 0 || e.Error.Errors[0].Reason == "" {
				t.Fatalf("POST %s %q: %d without a Google error body: %s", path, body, code, w.Body.Bytes())
			}
			for _, c := range []string{"backendServices", "networkEndpointGroups", "targetPools", "forwardingRules", "operations",
				"instances", "addresses", "networks", "subnetworks", "firewalls", "httpHealthChecks"} {
				if all, _ := st.All(context.Background(), c); len(all) != 0 {
					t.Fatalf("POST %s %q: %d, yet %s holds %d objects", path, body, code, c, len(all))
				}
			}
		}
	})
}

// typedViewIsStored is a change feed that checks what every write says of
// itself: the typed view it hands the feed (core.Change.Object), which
// sync, the planner and the data plane keep instead of decoding the
// stored body, is exactly the stored body decoded, as it would be after a
// restart.
func typedViewIsStored(t *testing.T) func(context.Context, []core.Change) {
	return func(_ context.Context, changes []core.Change) {
		for _, ch := range changes {
			if ch.Object == nil {
				continue
			}
			c, ok := api.CollectionNamed(ch.Key.Collection)
			if !ok {
				t.Errorf("%s: a typed view of a collection beside the catalogue", ch.Key.Path())
				continue
			}
			decoded := c.New()
			if err := json.Unmarshal(ch.Body, decoded); err != nil {
				t.Errorf("%s: the stored body does not decode: %v", ch.Key.Path(), err)
				continue
			}
			if !reflect.DeepEqual(ch.Object, decoded) {
				t.Errorf("%s: the write's typed view is not what it stored:\n view   %#v\n stored %#v", ch.Key.Path(), ch.Object, decoded)
			}
		}
	}
}
