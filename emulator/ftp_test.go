package emulator_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// TestFTPChecksThroughTheSimulator: FTP (over AUTH TLS: an FTPS check in
// explicit mode) and implicit FTPS checks log in to the simulator's FTP
// targets; a target that refuses logins is UNHEALTHY with BAD_STATUS and
// the server's 530, a hung one with TIMEOUT, and they recover. The
// password is never in an answer (get, list, aggregated list) nor in the
// log.
func TestFTPChecksThroughTheSimulator(t *testing.T) {
	t.Parallel()
	sim, err := targets.Start(t.Context(), targets.Config{FTP: 1, FTPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	var logs bytes.Buffer
	cfg := emulator0()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := startEmulator(t, cfg)
	const secret = "hunter2-secret"
	var refused map[string]any
	if code := apiCall(t, e, "POST", "global/healthChecks", `{"name":"bad","ftpHealthCheck":{"password":"`+secret+`"}}`, &refused); code != 400 ||
		!strings.Contains(fmt.Sprint(refused), "ftpHealthCheck.password is set but ftpHealthCheck.username is not") ||
		strings.Contains(fmt.Sprint(refused), secret) {
		t.Fatalf("an FTP check with a password and no user: %d %v, want 400 without the password", code, refused)
	}
	const fast = `"checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1`
	for _, tg := range sim.Targets() {
		name := tg.Name
		mode := "EXPLICIT" // the FTP target offers AUTH TLS
		if tg.Kind == targets.KindFTPS {
			mode = "IMPLICIT"
		}
		mustCall(t, e, "POST", "global/healthChecks", `{"name":"`+name+`",`+fast+`,"ftpsHealthCheck":{"port":`+strconv.Itoa(tg.Port)+
			`,"tlsMode":"`+mode+`","username":"probe","password":"`+secret+`"}}`)
		mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"`+name+`","endpoints":[{"ipAddress":"`+tg.IP+`","port":`+strconv.Itoa(tg.Port)+`}]}`)
		mustCall(t, e, "POST", "global/backendServices", `{"name":"`+name+`","backends":[{"group":"zones/z/networkEndpointGroups/`+name+`"}],"healthChecks":["`+name+`"]}`)
	}
	mustCall(t, e, "PATCH", "global/healthChecks/ftp-1", `{"description":"patched without the password"}`)
	var hc map[string]any
	apiCall(t, e, "GET", "global/healthChecks/ftp-1", "", &hc)
	block, _ := hc["ftpsHealthCheck"].(map[string]any)
	if hc["type"] != "FTPS" || block["username"] != "probe" || block["password"] != nil {
		t.Fatalf("stored check %v: want type FTPS, the user and no password", hc)
	}
	for _, path := range []string{"global/healthChecks/ftps-1", "global/healthChecks", "aggregated/healthChecks"} {
		for _, ext := range []bool{true, false} {
			if body := rawGet(t, e, path, ext); strings.Contains(body, secret) || !strings.Contains(body, "ftps-1") {
				t.Errorf("GET %s (extensions %v) shows the password or not the check: %s", path, ext, body)
			}
		}
	}

	for _, tg := range sim.Targets() {
		for _, step := range []struct {
			mode   targets.Mode
			reason string
		}{{targets.ModeOK, ""}, {targets.ModeReject, "BAD_STATUS"}, {targets.ModeHang, "TIMEOUT"}, {targets.ModeOK, ""}} {
			if err := sim.SetMode(tg.Name, step.mode); err != nil {
				t.Fatal(err)
			}
			waitFor(t, fmt.Sprintf("%s in mode %s: reason %q", tg.Name, step.mode, step.reason), func() bool {
				h := health(t, e, tg.Name)[int64(tg.Port)]
				if step.reason == "" {
					return h.HealthState == "HEALTHY"
				}
				return h.HealthState == "UNHEALTHY" && h.Reason == step.reason &&
					(step.mode != targets.ModeReject || strings.HasPrefix(h.Detail, "login: 530"))
			})
		}
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the log shows the password:\n%s", logs.String())
	}
}

// rawGet is the body of GET path, asking for the emulator's extensions or
// not.
func rawGet(t *testing.T, e interface{ URL() string }, path string, extensions bool) string {
	t.Helper()
	u := e.URL() + "/compute/v1/projects/p/" + path
	if extensions {
		u += "?lbhealthExtensions=true"
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
