package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// post sends body to the emulator's collection path in project p.
func post(t *testing.T, e *emulator.Emulator, path, body string) {
	t.Helper()
	resp, err := http.Post(e.URL()+"/compute/v1/projects/p/"+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, msg)
	}
}

// twoEndpoints starts an emulator with a backend service web over two
// endpoints: one that serves, and one (port 1) that never answers.
func twoEndpoints(t *testing.T) *emulator.Emulator {
	t.Helper()
	e, err := emulator.Start(context.Background(), emulator.Config{InMemory: true, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	serving := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	t.Cleanup(serving.Close)
	port := serving.URL[strings.LastIndex(serving.URL, ":")+1:]
	post(t, e, "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	post(t, e, "zones/z-a/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP_PORT",
		"endpoints":[{"ipAddress":"127.0.0.1","port":`+port+`},{"ipAddress":"127.0.0.1","port":1}]}`)
	post(t, e, "global/backendServices", `{"name":"web","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP",
		"backends":[{"group":"zones/z-a/networkEndpointGroups/neg"}],"healthChecks":["global/healthChecks/hc"]}`)
	return e
}

// wait exits 0 once the endpoints it waits for are HEALTHY, and else,
// past its timeout, fails saying what it saw; it names its usage errors.
func TestWait(t *testing.T) {
	e := twoEndpoints(t)

	var out bytes.Buffer
	err := run([]string{"wait", "--endpoint", e.URL(), "--backend-service", "projects/p/global/backendServices/web",
		"--min-healthy", "1", "--timeout", "1m"}, &out, &out)
	if err != nil || !strings.Contains(out.String(), "healthy: 1 of 2 endpoints HEALTHY, want at least 1") {
		t.Fatalf("waiting for one of two: %v, %q", err, out.String())
	}
	out.Reset()
	err = run([]string{"wait", "--endpoint", e.URL(), "--backend-service", e.URL() + "/compute/v1/projects/p/global/backendServices/web",
		"--timeout", "2s"}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "wait: waited 2s: 1 of 2 endpoints HEALTHY, want every one; 127.0.0.1:1 UNHEALTHY") {
		t.Fatalf("waiting for every one, one never healthy: %v", err)
	}
	for args, want := range map[string]string{
		"--timeout 1s":                          "wait: name one of --backend-service, --target-pool or --composite-check",
		"--backend-service web --timeout 1s":    `"web" is not a backendServices reference`,
		"--target-pool x --min-healthy -1":      "--min-healthy -1: want 0 (every endpoint) or more",
		"--composite-check x --timeout -1s":     "--timeout -1s: want a positive duration, such as 30s or 2m",
		"--backend-service a --target-pool b":   "wait: name one of --backend-service, --target-pool or --composite-check",
		"--composite-check projects/p/global/x": `"projects/p/global/x" is not a compositeHealthChecks reference`,
	} {
		err := run(append([]string{"wait", "--endpoint", e.URL()}, strings.Fields(args)...), &out, &out)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("wait %s: %v, want %q", args, err, want)
		}
	}
}
