package run

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain also serves as a user's command: with LBHEALTH_TEST_SERVE set,
// the test binary answers HTTP where Cloud Run tells a container to
// listen, naming what it was told, until it is stopped.
func TestMain(m *testing.M) {
	if os.Getenv("LBHEALTH_TEST_SERVE") != "" {
		addr := net.JoinHostPort(os.Getenv("LBHEALTH_ADDRESS"), os.Getenv("PORT"))
		http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, "user %s %s %s\n", os.Getenv("K_SERVICE"), os.Getenv("K_REVISION"), os.Getenv("GREETING"))
		}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// freePort is a port free at ip now.
func freePort(t *testing.T, ip string) int {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// get asks url once: its status and body (0 when it does not answer).
func get(url string) (int, string) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 30*time.Second { // a hang guard, not a measurement
			t.Fatalf("never: %s", what)
		}
	}
}

// A container's LBHEALTH_WORKLOAD_COMMAND runs as the service, with
// --workload-commands only: told where to listen and what it is (PORT,
// K_SERVICE, K_REVISION and the container's variables); it stops with
// the service. Without the flag the simulated workload serves, and the
// status says why the command does not run.
func TestServing_UserCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := netip.MustParsePrefix("127.253.7.0/24")
	port := freePort(t, "127.253.7.1")
	w := &Workload{Service: "projects/p/locations/l/services/hello", Port: port, Ingress: IngressAll, Generation: 1,
		Revisions: []Split{{Revision: "hello-00001-abc", Percent: 100}},
		Command:   "LBHEALTH_TEST_SERVE=1 exec '" + strings.ReplaceAll(self, "'", `'\''`) + "'", Env: []string{"GREETING=hi"}}
	url := fmt.Sprintf("http://127.253.7.1:%d/", port)

	off := NewServing(ServingConfig{Range: rng})
	off.Set(w.Service, w)
	waitFor(t, "the simulated workload serving", func() bool { code, body := get(url); return code == 200 && strings.HasPrefix(body, "ok hello ") })
	if st := off.List(); len(st) != 1 || st[0].Command != "" || !strings.Contains(st[0].Note, "--workload-commands") {
		t.Errorf("without commands: %+v", st)
	}
	off.Close()

	on := NewServing(ServingConfig{Range: rng, Commands: true})
	defer on.Close()
	on.Set(w.Service, w)
	waitFor(t, "the command serving", func() bool { code, body := get(url); return code == 200 && body == "user hello hello-00001-abc hi\n" })
	if st := on.List(); len(st) != 1 || st[0].State != "SERVING" || !strings.HasPrefix(st[0].CommandState, "running, pid ") {
		t.Errorf("with commands: %+v", st)
	}
	on.Set(w.Service, nil)
	waitFor(t, "the command stopped with its service", func() bool { code, _ := get(url); return code == 0 })
}

// Ingress: a direct request reaches a service for all traffic only; one a
// load balancer marked reaches a service for load balancers, and one for
// internal traffic when the load balancer is internal; a forged mark is a
// direct request.
func TestServing_Ingress(t *testing.T) {
	s := NewServing(ServingConfig{})
	for _, tt := range []struct {
		ingress, via string
		want         bool
	}{
		{IngressAll, "", true},
		{IngressInternalLoadBalancer, "", false},
		{IngressInternalLoadBalancer, s.Via(true), true},
		{IngressInternalLoadBalancer, "forged", false},
		{IngressInternalOnly, s.Via(true), false},
		{IngressInternalOnly, s.Via(false), true},
		{IngressNone, s.Via(false), false},
	} {
		if got := admits(tt.ingress, s.from(tt.via)); got != tt.want {
			t.Errorf("%s from %q: %v, want %v", tt.ingress, tt.via, got, tt.want)
		}
	}
}

// A load balancer's tag (a serverless NEG's) picks the revision it names,
// whatever the split; an unknown tag is Cloud Run's 404; a direct request
// cannot pick a revision by a tag.
func TestServing_Tags(t *testing.T) {
	s := NewServing(ServingConfig{})
	sv := &served{addr: netip.MustParseAddrPort("127.253.8.1:8080")}
	sv.workload.Store(&Workload{Service: "projects/p/locations/l/services/hello", Ingress: IngressAll,
		Revisions: []Split{{Revision: "hello-00002-new", Percent: 100}, {Revision: "hello-00001-old", Percent: 0}},
		Tags:      map[string]string{"old": "hello-00001-old"}})
	ask := func(via string) (int, string) {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/", nil)
		if via != "" {
			r.Header.Set(ViaHeader, via)
		}
		s.handler(sv).ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	for _, tt := range []struct {
		via, want string
		code      int
	}{
		{s.Via(true) + " old", "ok hello revision hello-00001-old at 127.253.8.1:8080\n", 200},
		{s.Via(true), "ok hello revision hello-00002-new at 127.253.8.1:8080\n", 200},
		{"forged old", "ok hello revision hello-00002-new at 127.253.8.1:8080\n", 200},
		{s.Via(false) + " nope", "", 404},
	} {
		code, body := ask(tt.via)
		if code != tt.code || tt.want != "" && body != tt.want {
			t.Errorf("via %q: %d %q, want %d %q", tt.via, code, body, tt.code, tt.want)
		}
	}
}
