package emulator_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const healthChecks = "/compute/v1/projects/p/global/healthChecks"

// call sends a request to root and returns the status and body.
func call(method, url, body string) (int, []byte, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return 0, nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// must sends a request that must answer 200.
func must(t *testing.T, method, url, body string) []byte {
	t.Helper()
	code, b, err := call(method, url, body)
	if err != nil || code != http.StatusOK {
		t.Fatalf("%s %s: %d %s %v", method, url, code, b, err)
	}
	return b
}

func start(t *testing.T, cfg emulator.Config) *emulator.Emulator {
	t.Helper()
	e, err := emulator.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestStart_KeepsDataAcrossRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // Start creates it
	e := start(t, emulator.Config{Listen: "127.0.0.1:0", DataDir: dir})
	if want := filepath.Join(dir, emulator.DatabaseFile); e.DataPath() != want {
		t.Errorf("DataPath() = %q, want %q", e.DataPath(), want)
	}
	if !strings.HasPrefix(e.URL(), "http://127.0.0.1:") {
		t.Errorf("URL() = %q, want loopback", e.URL())
	}
	must(t, "POST", e.URL()+healthChecks, `{"name": "kept", "httpHealthCheck": {"port": 8080}}`)
	must(t, "POST", e.URL()+healthChecks, `{"name": "gone", "tcpHealthCheck": {}}`)
	must(t, "DELETE", e.URL()+healthChecks+"/gone", "")
	before := must(t, "GET", e.URL()+healthChecks+"/kept", "")
	addr := e.Addr()
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, _, err := call("GET", "http://"+addr+"/healthz", ""); err == nil {
		t.Fatal("the emulator still answers after Close")
	}

	// Same directory, same address: the same object, byte for byte.
	e = start(t, emulator.Config{Listen: addr, DataDir: dir})
	defer e.Close()
	after := must(t, "GET", e.URL()+healthChecks+"/kept", "")
	if string(after) != string(before) {
		t.Errorf("after restart:\n%s\nwant\n%s", after, before)
	}
	var hc api.HealthCheck
	if err := json.Unmarshal(after, &hc); err != nil || hc.ID == 0 {
		t.Fatalf("decoding %s: %v", after, err)
	}
	if code, _, _ := call("GET", e.URL()+healthChecks+"/gone", ""); code != 404 {
		t.Errorf("a deleted object came back: %d", code)
	}
}

func TestStart_InMemoryKeepsNothing(t *testing.T) {
	dir := t.TempDir()
	e := start(t, emulator.Config{Listen: "127.0.0.1:0", DataDir: dir, InMemory: true})
	if e.DataPath() != "" {
		t.Errorf("DataPath() = %q, want empty in memory", e.DataPath())
	}
	must(t, "POST", e.URL()+healthChecks, `{"name": "lost", "tcpHealthCheck": {}}`)
	must(t, "GET", e.URL()+healthChecks+"/lost", "")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = start(t, emulator.Config{Listen: "127.0.0.1:0", DataDir: dir, InMemory: true})
	defer e.Close()
	if code, b, _ := call("GET", e.URL()+healthChecks+"/lost", ""); code != 404 {
		t.Errorf("in memory, after restart: %d %s", code, b)
	}
	var list api.HealthCheckList
	if err := json.Unmarshal(must(t, "GET", e.URL()+healthChecks, ""), &list); err != nil || len(list.Items) != 0 {
		t.Errorf("list after restart: %+v %v", list, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("in memory, yet the data directory has %d entries", len(entries))
	}
}

func TestStart_Errors(t *testing.T) {
	if _, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0"}); err == nil ||
		!strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("no data directory: %v, want an error naming --data-dir", err)
	}
	e := start(t, emulator.Config{Listen: "127.0.0.1:0", InMemory: true})
	defer e.Close()
	if e2, err := emulator.Start(context.Background(), emulator.Config{Listen: e.Addr(), InMemory: true}); err == nil ||
		!strings.Contains(err.Error(), "--listen") {
		if e2 != nil {
			e2.Close()
		}
		t.Errorf("address in use: %v, want an error naming --listen", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", DataDir: file}); err == nil {
		t.Error("a data directory that is a file was accepted")
	}
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// emulatorBinary builds lbhealth-emulator once for the test run.
func emulatorBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the lbhealth-emulator binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lbhealth-emulator-test")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "lbhealth-emulator")
		out, err := exec.Command("go", "build", "-o", binary, "./cmd/lbhealth-emulator").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// process is a running lbhealth-emulator.
type process struct {
	cmd    *exec.Cmd
	lines  chan string // stdout, line by line
	stderr *lockedWriter
	done   chan error // Wait's result
	url    string
}

// run starts lbhealth-emulator with args and waits until it has printed its
// URL and answers /healthz.
func run(t *testing.T, args ...string) *process {
	t.Helper()
	return runEnv(t, nil, args...)
}

// runEnv is run with variables added to the environment.
func runEnv(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(emulatorBinary(t), args...)
	home := t.TempDir()
	// A clean environment: no LBHEALTH_* of the caller, no real home.
	cmd.Env = append([]string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"), "PATH=" + os.Getenv("PATH")}, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, lines: make(chan string, 100), stderr: &lockedWriter{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			p.lines <- s.Text()
		}
		close(p.lines)
	}()
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})

	line := p.line(t)
	url, ok := strings.CutPrefix(line, "lbhealth-emulator serving on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q, want the URL it serves", line)
	}
	p.url = url
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, err := call("GET", url+"/healthz", "")
		if err == nil && code == 200 {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /healthz within 10s: %d %v; stderr:\n%s", code, err, p.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// line returns the next line of stdout, waiting at most 10 seconds.
func (p *process) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatalf("stdout closed; stderr:\n%s", p.stderr)
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatalf("nothing printed within 10s; stderr:\n%s", p.stderr)
	}
	return ""
}

// wait waits for the process to exit, at most d.
func (p *process) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		return err
	case <-time.After(d):
		t.Fatalf("still running %v later; stderr:\n%s", d, p.stderr)
	}
	return nil
}

// lockedWriter collects stderr, written by exec's goroutine.
type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestCommand_KeepsAcknowledgedWritesAcrossKill9: every write the emulator
// acknowledged is still there after SIGKILL and a restart.
func TestCommand_KeepsAcknowledgedWritesAcrossKill9(t *testing.T) {
	dir := t.TempDir()
	p := run(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	const n = 50
	ids := map[string]uint64{}
	for i := range n {
		name := fmt.Sprintf("hc-%02d", i)
		var op api.Operation
		if err := json.Unmarshal(must(t, "POST", p.url+healthChecks, `{"name": "`+name+`", "tcpHealthCheck": {}}`), &op); err != nil ||
			op.Status != "DONE" || op.TargetID == 0 {
			t.Fatalf("insert %s: %+v %v", name, op, err)
		}
		ids[name] = op.TargetID
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := p.wait(t, 5*time.Second); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("exit after SIGKILL: %v", err)
	}

	// Same data directory and address.
	p = run(t, "--listen", strings.TrimPrefix(p.url, "http://"), "--data-dir", dir)
	for name, id := range ids {
		var hc api.HealthCheck
		if err := json.Unmarshal(must(t, "GET", p.url+healthChecks+"/"+name, ""), &hc); err != nil || hc.ID != id {
			t.Errorf("%s after kill -9: id %d, want %d (%v)", name, hc.ID, id, err)
		}
	}
	var list api.HealthCheckList
	if err := json.Unmarshal(must(t, "GET", p.url+healthChecks, ""), &list); err != nil || len(list.Items) != n {
		t.Errorf("list after kill -9: %d items, want %d (%v)", len(list.Items), n, err)
	}
}

// TestCommand_PrintsWhereAndStopsOnSignal: the command says where it
// serves and where its data lives, and exits 0 on SIGTERM and SIGINT.
func TestCommand_PrintsWhereAndStopsOnSignal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		signal os.Signal
		args   []string
		data   string
	}{
		{"SIGTERM", syscall.SIGTERM, []string{"--data-dir", "DIR"}, "data: DIR/" + emulator.DatabaseFile},
		{"SIGINT", os.Interrupt, []string{"--data-dir", "DIR"}, "data: DIR/" + emulator.DatabaseFile},
		{"in memory", syscall.SIGTERM, []string{"--in-memory"}, "data: in memory (lost on exit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--listen", "127.0.0.1:0"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "DIR", dir))
			}
			p := run(t, args...)
			if got, want := p.line(t), strings.ReplaceAll(tc.data, "DIR", dir); got != want {
				t.Errorf("second line %q, want %q", got, want)
			}
			if got, want := p.line(t), "point the provider at it: export LBHEALTH_EMULATOR_HOST="+strings.TrimPrefix(p.url, "http://"); got != want {
				t.Errorf("third line %q, want %q", got, want)
			}
			must(t, "POST", p.url+healthChecks, `{"name": "x", "tcpHealthCheck": {}}`)
			if err := p.cmd.Process.Signal(tc.signal); err != nil {
				t.Fatal(err)
			}
			if err := p.wait(t, 5*time.Second); err != nil {
				t.Fatalf("exit on %s: %v; stderr:\n%s", tc.name, err, p.stderr)
			}
			if _, _, err := call("GET", p.url+"/healthz", ""); err == nil {
				t.Error("still answering after exit")
			}
		})
	}
}

// TestCommand_DefaultDataDirAndBadFlags: without --data-dir the data goes
// to the per-user directory; a bad flag exits 1 with a message.
func TestCommand_DefaultDataDirAndBadFlags(t *testing.T) {
	bin := emulatorBinary(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--log-level", "loud")
	cmd.Env = []string{"HOME=" + home}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "--log-level") {
		t.Errorf("bad --log-level: %v %s", err, out)
	}

	p := run(t, "--listen", "127.0.0.1:0")
	// run sets XDG_DATA_HOME to $HOME/data.
	if got := p.line(t); !strings.HasPrefix(got, "data: ") || !strings.HasSuffix(got, filepath.Join("data", "lbhealth", emulator.DatabaseFile)) {
		t.Errorf("data line %q, want $XDG_DATA_HOME/lbhealth/%s", got, emulator.DatabaseFile)
	}
}

// TestClose_Twice: Close is idempotent, so that a test can both close an
// emulator to restart it and leave a deferred Close in place.
func TestClose_Twice(t *testing.T) {
	e := start(t, emulator.Config{Listen: "127.0.0.1:0", InMemory: true})
	done := make(chan error, 2)
	go func() {
		done <- e.Close()
		done <- e.Close()
	}()
	for i := range 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Close #%d: %v", i+1, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Close #%d did not return", i+1)
		}
	}
}

// A client connection that never sends a request must not make Close hang
// or fail (regression: Close waited 5 s, then returned an error).
func TestClose_WithAnIdleNewConnection(t *testing.T) {
	e, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", e.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := e.Close(); err != nil {
		t.Fatalf("Close with an idle connection: %v", err)
	}
}
