package dataplane

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// fixedHealth reports every endpoint of one owner HEALTHY.
type fixedHealth struct {
	owner string
	eps   []health.Endpoint
}

func (f fixedHealth) Statuses(owner string) []health.Status {
	if owner != f.owner {
		return nil
	}
	var out []health.Status
	for _, ep := range f.eps {
		out = append(out, health.Status{Owner: owner, Endpoint: ep, State: api.StateHealthy})
	}
	return out
}

// proxyPlane is a plane made with opts, whose one Application Load
// Balancer listener forwards to the healthy backend at backend; it
// answers at the address returned, and closes when tb ends.
func proxyPlane(tb testing.TB, opts Options, backend string) (*Plane, string) {
	tb.Helper()
	host, port, _ := net.SplitHostPort(backend)
	n, _ := strconv.Atoi(port)
	service := "projects/p/global/backendServices/web"
	opts.Health = fixedHealth{owner: service, eps: []health.Endpoint{{IP: host, Port: n}}}
	p := New(opts)
	tb.Cleanup(p.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, lport, _ := net.SplitHostPort(addr)
	p.Set("backendServices", service, []byte(`{"protocol":"HTTP"}`), nil)
	p.Set("urlMaps", "projects/p/global/urlMaps/um", []byte(`{"defaultService":"`+service+`"}`), nil)
	p.Set("targetHttpProxies", "projects/p/global/targetHttpProxies/tp", []byte(`{"urlMap":"projects/p/global/urlMaps/um"}`), nil)
	p.Set("forwardingRules", "projects/p/global/forwardingRules/fr",
		[]byte(`{"IPAddress":"127.0.0.1","portRange":"`+lport+`","target":"projects/p/global/targetHttpProxies/tp"}`), nil)
	p.Apply()
	return p, addr
}

// BenchmarkHTTPProxy is one request through an Application Load
// Balancer's listener to a loopback backend, client and backend in this
// process: the cost of the data plane's own code, for profiles
// (-cpuprofile); make bench compares the whole proxy with HAProxy.
func BenchmarkHTTPProxy(b *testing.B) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer backend.Close()
	_, addr := proxyPlane(b, Options{}, backend.Listener.Addr().String())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Get("http://" + addr + "/")
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}
