//go:build unix

package control

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// A command sees PATH, HOME and its instance, nothing else of the
// emulator's environment: a command that prints its environment (its
// output goes to the log) must never put the token in the log.
func TestWorkloads_CommandSeesOnlyItsOwnEnvironment(t *testing.T) {
	const ip, path, secret = "127.1.201.7", "projects/p/zones/z/instances/web-7", "s3cret-token-value"
	t.Setenv("LBHEALTH_TOKEN", secret)
	t.Setenv("LBHEALTH_TEST_ELSE", "anything")
	port := freePort(t, ip)
	var out lockedBuffer
	log := slog.New(slog.NewJSONHandler(&out, nil))
	w := NewWorkloads(WorkloadConfig{Eligible: func(netip.Addr) bool { return true }, Commands: true, Log: log})
	t.Cleanup(w.Close)
	w.SetInstance(path, newInstance("web-7", ip, 1, api.MetadataWorkloadCommand, "env; echo env-done; exec sleep 60"))
	w.SetOwner("projects/p/global/backendServices/bs", []health.Target{probed(path, "HTTP", port, port)})
	w.Reconcile()

	var names []string
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		names = names[:0]
		done := false
		for line := range strings.Lines(out.String()) {
			var rec struct{ Msg, Output string }
			if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "workload command" {
				continue
			}
			if rec.Output == "env-done" {
				done = true
			} else if name, _, ok := strings.Cut(rec.Output, "="); ok {
				names = append(names, name)
			}
		}
		if done {
			break
		}
		if time.Since(start) > 30*time.Second { // a hang guard, not a measurement
			t.Fatalf("the command's output never reached the log:\n%s", out.String())
		}
	}
	if strings.Contains(out.String(), secret) {
		t.Errorf("the token reached the log:\n%s", out.String())
	}
	// The shell adds PWD (and some shells SHLVL, _) of its own.
	names = slices.DeleteFunc(names, func(n string) bool { return n == "PWD" || n == "SHLVL" || n == "_" || n == "OLDPWD" })
	slices.Sort(names)
	want := []string{"HOME", "LBHEALTH_ADDRESS", "LBHEALTH_INSTANCE", "LBHEALTH_PORT", "LBHEALTH_PORTS", "PATH"}
	if !slices.Equal(names, want) {
		t.Errorf("the command's environment has %v, want only %v", names, want)
	}
}

// lockedBuffer is a log's output, read while the log writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
