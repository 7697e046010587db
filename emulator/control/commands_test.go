//go:build unix

package control

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestMain also serves as a user's workload command: with
// LBHEALTH_TEST_SERVE set, the test binary answers HTTP at the address and
// port the emulator gives it, naming the instance, until it is stopped.
func TestMain(m *testing.M) {
	if os.Getenv("LBHEALTH_TEST_SERVE") != "" {
		addr := net.JoinHostPort(os.Getenv("LBHEALTH_ADDRESS"), os.Getenv("LBHEALTH_PORT"))
		fmt.Println("serving on", addr)
		http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, "user %s ports %s\n", os.Getenv("LBHEALTH_INSTANCE"), os.Getenv("LBHEALTH_PORTS"))
		}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// serveCommand is the command line that runs this test binary as a server.
func serveCommand(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "LBHEALTH_TEST_SERVE=1 exec '" + strings.ReplaceAll(self, "'", `'\''`) + "'"
}

// waitGet asks addr until it answers 200 (the command is starting), and
// returns the body.
func waitGet(t *testing.T, addr string) string {
	t.Helper()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if code, body, err := get(addr); err == nil && code == 200 {
			return body
		}
		if time.Since(start) > 30*time.Second { // a hang guard, not a measurement
			t.Fatalf("%s never answered", addr)
		}
	}
}

// A user's command runs as the instance's workload, told its address and
// ports, instead of the simulated servers; it stops with the instance and
// runs anew for a recreated one; without Commands, the metadata's command
// does not run and the status says why.
func TestWorkloads_UserCommand(t *testing.T) {
	const ip, path = "127.1.201.6", "projects/p/zones/z/instances/web-6"
	port := freePort(t, ip)
	addr := net.JoinHostPort(ip, strconv.Itoa(port))
	owner := []health.Target{probed(path, "HTTP", port, port)}
	eligible := func(netip.Addr) bool { return true }

	off := NewWorkloads(WorkloadConfig{Eligible: eligible})
	off.SetInstance(path, newInstance("web-6", ip, 1, api.MetadataWorkloadCommand, serveCommand(t)))
	off.SetOwner("projects/p/global/backendServices/bs", owner)
	off.Reconcile()
	if code, body, _ := get(addr); code != 200 || !strings.HasPrefix(body, "ok web-6") {
		t.Errorf("commands off: %d %q, want the simulated server", code, body)
	}
	if st := state(t, off, path); !strings.Contains(st.Note, "--workload-commands") || st.Command != "" {
		t.Errorf("commands off: status %+v, want a note naming --workload-commands", st)
	}
	off.Close()

	w := NewWorkloads(WorkloadConfig{Eligible: eligible, Commands: true})
	t.Cleanup(w.Close)
	w.SetInstance(path, newInstance("web-6", ip, 1, api.MetadataWorkloadCommand, serveCommand(t)))
	w.SetOwner("projects/p/global/backendServices/bs", owner)
	w.Reconcile()
	if body := waitGet(t, addr); body != fmt.Sprintf("user web-6 ports %d\n", port) {
		t.Errorf("the command answered %q, want its instance and ports", body)
	}
	if st := state(t, w, path); st.State != "SERVING" || !strings.HasPrefix(st.CommandState, "running, pid ") {
		t.Errorf("status %+v, want SERVING, the command running", st)
	}
	first := state(t, w, path).CommandState

	// Recreated: the old process ends, a new one starts.
	w.SetInstance(path, newInstance("web-6", ip, 2, api.MetadataWorkloadCommand, serveCommand(t)))
	w.Reconcile()
	waitGet(t, addr)
	if st := state(t, w, path); st.CommandState == first || !strings.HasPrefix(st.CommandState, "running") {
		t.Errorf("after recreation: %q, want a new process (was %q)", st.CommandState, first)
	}

	// Gone: the command is stopped, and the port refuses.
	w.SetInstance(path, nil)
	w.Reconcile()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if _, _, err := get(addr); err != nil {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatal("the command still answers after its instance is gone")
		}
	}
}
