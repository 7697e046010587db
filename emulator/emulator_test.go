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
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/firewall"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/plan"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	bin := emulatorBinary(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--log-level", "loud")
	cmd.Env = []string{"HOME=" + home}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "--log-level") {
		t.Errorf("bad --log-level: %v %s", err, out)
	}
	for _, bad := range [][]string{{"--operations-max", "0"}, {"--operations-ttl", "10ms"}} {
		cmd := exec.Command(bin, append([]string{"--listen", "127.0.0.1:0"}, bad...)...)
		cmd.Env = []string{"HOME=" + home}
		out, err := cmd.CombinedOutput()
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), bad[0]) {
			t.Errorf("bad %s: %v %s", bad[0], err, out)
		}
	}

	p := run(t, "--listen", "127.0.0.1:0")
	// run sets XDG_DATA_HOME to $HOME/data.
	if got := p.line(t); !strings.HasPrefix(got, "data: ") || !strings.HasSuffix(got, filepath.Join("data", "lbhealth", emulator.DatabaseFile)) {
		t.Errorf("data line %q, want $XDG_DATA_HOME/lbhealth/%s", got, emulator.DatabaseFile)
	}
}

// TestCommand_HelpVersionAndJSONLogs: --help and version exit 0, an
// unknown command exits 2 without starting, healthcheck exits 0 against a
// running emulator (and 1 against none), and --log-format json (here from
// LBHEALTH_LOG_FORMAT) writes one JSON object per log line.
func TestCommand_HelpVersionAndJSONLogs(t *testing.T) {
	t.Parallel()
	bin := emulatorBinary(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "lbhealth-emulator targets [flags]"},
		{[]string{"version"}, 0, "lbhealth-emulator dev ("},
		{[]string{"serve", "--version"}, 0, "lbhealth-emulator dev ("},
		{[]string{"start"}, 2, `unknown command "start"`},
		{[]string{"healthcheck", "--listen", "127.0.0.1:1"}, 1, "connection refused"},
	} {
		out, err := exec.Command(bin, c.args...).CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		if code != c.code || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: exit %d (%v), want %d with %q:\n%s", c.args, code, err, c.code, c.want, out)
		}
	}

	p := runEnv(t, []string{"LBHEALTH_LOG_FORMAT=json"}, "--listen", "127.0.0.1:0", "--in-memory")
	if code, _, err := call("POST", p.url+"/_emulator/reset", ""); err != nil || code != 200 {
		t.Fatalf("reset: %d %v", code, err)
	}
	addr := strings.TrimPrefix(p.url, "http://")
	if out, err := exec.Command(bin, "healthcheck", "--listen", addr).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("healthcheck of a running emulator: %v %s, want exit 0 and ok", err, out)
	}
	_, port, _ := net.SplitHostPort(addr)
	if out, err := exec.Command(bin, "healthcheck", "--listen", "0.0.0.0:"+port).CombinedOutput(); err != nil {
		t.Errorf("healthcheck of 0.0.0.0 (asked on loopback): %v %s", err, out)
	}
	waitFor(t, "the reset logged as JSON", func() bool { return strings.Contains(p.stderr.String(), "every resource deleted") })
	for _, line := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		var rec struct{ Time, Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Time == "" || rec.Level == "" || rec.Msg == "" {
			t.Errorf("log line %q is not a JSON record with time, level and msg (%v)", line, err)
		}
	}
}

// TestClose_Twice: Close is idempotent, so that a test can both close an
// emulator to restart it and leave a deferred Close in place.
func TestClose_Twice(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// ackedState is what the acknowledged writes say of one check.
type ackedState struct {
	exists      bool
	id          uint64
	description string
}

// TestCommand_KeepsAcknowledgedWritesOfConcurrentWritersAcrossKill9: 8
// clients insert, patch and delete at once (so that their writes share
// commits) until SIGKILL lands mid-burst; after a restart on the same data
// directory, every acknowledged write is there, and the one request each
// client had in flight is either wholly there or not at all.
func TestCommand_KeepsAcknowledgedWritesOfConcurrentWritersAcrossKill9(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := run(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	const writers = 8
	type inflight struct{ method, name, description string }
	var (
		mu      sync.Mutex
		acked   = map[string]ackedState{}
		pending = make([]inflight, writers)
		total   int
	)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			var mine []string
			for i := 0; ; i++ {
				var req inflight
				switch {
				case i%5 == 4 && len(mine) > 1:
					req = inflight{"DELETE", mine[0], ""}
				case i%3 == 2 && len(mine) > 0:
					req = inflight{"PATCH", mine[len(mine)-1], fmt.Sprintf("v%d", i)}
				default:
					req = inflight{"POST", fmt.Sprintf("w%d-%04d", w, i), ""}
				}
				mu.Lock()
				pending[w] = req
				mu.Unlock()
				var code int
				var body []byte
				var err error
				switch req.method {
				case "POST":
					code, body, err = call("POST", p.url+healthChecks, `{"name": "`+req.name+`", "tcpHealthCheck": {}}`)
				case "PATCH":
					code, body, err = call("PATCH", p.url+healthChecks+"/"+req.name, `{"description": "`+req.description+`"}`)
				case "DELETE":
					code, body, err = call("DELETE", p.url+healthChecks+"/"+req.name, "")
				}
				if err != nil {
					return // killed
				}
				if code != http.StatusOK {
					t.Errorf("%s %s: %d %s", req.method, req.name, code, body)
					return
				}
				var op api.Operation
				json.Unmarshal(body, &op)
				mu.Lock()
				switch req.method {
				case "POST":
					acked[req.name] = ackedState{exists: true, id: op.TargetID}
					mine = append(mine, req.name)
				case "PATCH":
					st := acked[req.name]
					st.description = req.description
					acked[req.name] = st
				case "DELETE":
					acked[req.name] = ackedState{}
					mine = mine[1:]
				}
				pending[w] = inflight{}
				total++
				mu.Unlock()
			}
		})
	}
	// Kill mid-burst: once enough writes are acknowledged that commits are
	// being shared, while every writer has a request on the wire.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := total
		mu.Unlock()
		if n >= 600 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 5*time.Second)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if total < 100 {
		t.Fatalf("only %d writes acknowledged before the kill", total)
	}

	p = run(t, "--listen", strings.TrimPrefix(p.url, "http://"), "--data-dir", dir)
	inFlight := map[string]inflight{}
	for _, req := range pending {
		if req.method != "" {
			inFlight[req.name] = req
		}
	}
	for name, want := range acked {
		code, body, err := call("GET", p.url+healthChecks+"/"+name, "")
		if err != nil {
			t.Fatal(err)
		}
		var got api.HealthCheck
		json.Unmarshal(body, &got)
		req, racing := inFlight[name]
		switch {
		case want.exists && code == 200 && got.ID == want.id &&
			(got.Description == want.description || racing && req.method == "PATCH" && got.Description == req.description):
		case want.exists && racing && req.method == "DELETE" && code == 404:
		case !want.exists && code == 404:
		default:
			t.Errorf("%s after kill -9: %d %s; acknowledged %+v, in flight %+v", name, code, body, want, req)
		}
	}
	// Nothing is there that was acknowledged as deleted, or that was never
	// acknowledged nor in flight.
	var list api.HealthCheckList
	for token := ""; ; {
		var page api.HealthCheckList
		json.Unmarshal(must(t, "GET", p.url+healthChecks+"?pageToken="+token, ""), &page)
		list.Items = append(list.Items, page.Items...)
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	for _, hc := range list.Items {
		if st, ok := acked[hc.Name]; !(ok && st.exists) && inFlight[hc.Name].method != "POST" {
			if _, deleting := inFlight[hc.Name]; !deleting {
				t.Errorf("%s is there after kill -9, though its delete was acknowledged or its insert never was (and nothing was in flight for it)", hc.Name)
			}
		}
	}
	t.Logf("%d writes acknowledged by 8 writers before SIGKILL; %d checks after restart", total, len(list.Items))
}

// TestConfigValidate: each value the emulator cannot run with is refused
// with a message naming its flag and the rule; Start refuses it too, while
// zero fields there take their defaults.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	good := emulator.Config{InMemory: true, Probers: 1, Limits: emulator.Limits{MaxConnections: 1},
		OperationsTTL: time.Second, OperationsMax: 1, NodeRole: emulator.RoleMaster, Firewalls: plan.FirewallsWarn, Universe: firewall.GoogleCloud,
		SelfLinkRoot: emulator.GoogleSelfLinkRoot, WorkloadBoot: time.Second}
	if err := good.Validate(); err != nil {
		t.Fatalf("a valid config: %v", err)
	}
	for _, tc := range []struct {
		change func(*emulator.Config)
		want   string
	}{
		{func(c *emulator.Config) { c.Probers = 0 }, "--probers 0: want 1 to 16"},
		{func(c *emulator.Config) { c.Probers = 17 }, "--probers 17: want 1 to 16"},
		{func(c *emulator.Config) { c.Limits.MaxConnections = 0 }, "--max-connections 0: want at least 1"},
		{func(c *emulator.Config) { c.DataPlaneMaxConnections = -1 }, "--data-plane-max-connections -1: want at least 1 (0: the default)"},
		{func(c *emulator.Config) { c.DataPlaneMaxConnectionsPerListener = -5 }, "--data-plane-max-connections-per-listener -5: want at least 1 (0: the default)"},
		{func(c *emulator.Config) { c.OperationsTTL = 10 * time.Millisecond }, "--operations-ttl 10ms: want at least 1s"},
		{func(c *emulator.Config) { c.OperationsMax = -1 }, "--operations-max -1: want at least 1"},
		{func(c *emulator.Config) { c.Limits.IdleTimeout = -time.Second }, "the idle timeout (-1s) must not be negative"},
		{func(c *emulator.Config) { c.InMemory = false }, "no data directory: set --data-dir, or --in-memory"},
		{func(c *emulator.Config) { c.NodeRole = "PRIMARY" }, `--node-role "PRIMARY": want MASTER or BACKUP`},
		{func(c *emulator.Config) { c.Firewalls = "strict" }, `--firewalls "strict": want off, warn or enforce`},
		{func(c *emulator.Config) { c.Universe = "aws" }, `--universe "aws": want googlecloud or s3ns`},
		{func(c *emulator.Config) { c.ManagedInstanceRange = netip.MustParsePrefix("127.2.8.0/24") },
			"--managed-instance-range 127.2.8.0/24 overlaps 127.2.0.0/16, where forwarding rules without an IPAddress get theirs"},
		{func(c *emulator.Config) { c.ManagedInstanceRange = netip.MustParsePrefix("127.0.0.0/8") },
			"--managed-instance-range 127.0.0.0/8 overlaps 127.2.0.0/16"},
		{func(c *emulator.Config) { c.WorkloadBoot = -time.Second }, "--workload-boot -1s: want 0 (at once) to 1h"},
		{func(c *emulator.Config) { c.WorkloadBoot = 2 * time.Hour }, "--workload-boot 2h0m0s: want 0 (at once) to 1h"},
		{func(c *emulator.Config) { c.SelfLinkRoot = "https://www.googleapis.com/storage/v1/" },
			`--self-link-root "https://www.googleapis.com/storage/v1/": want an http(s) URL ending with /compute/v1/`},
		{func(c *emulator.Config) { c.SelfLinkRoot = "ftp://x/compute/v1/" }, `--self-link-root "ftp://x/compute/v1/": want an http(s) URL`},
	} {
		c := good
		tc.change(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: %v, want %q", err, tc.want)
		}
	}
	if _, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", InMemory: true, Probers: 40}); err == nil ||
		!strings.Contains(err.Error(), "--probers 40") {
		t.Errorf("Start with 40 probers: %v, want the --probers rule", err)
	}
}

// TestCommand_StrictFields: the command ignores a field the API does not
// define by default, and refuses it with --strict-fields or
// LBHEALTH_STRICT_FIELDS.
func TestCommand_StrictFields(t *testing.T) {
	t.Parallel()
	const body = `{"name": "x", "tcpHealthCheck": {}, "checkIntervalSecs": 5}`
	p := run(t, "--listen", "127.0.0.1:0", "--in-memory")
	if code, out, err := call("POST", p.url+healthChecks, body); err != nil || code != 200 {
		t.Errorf("default: %d %s %v, want the unknown field ignored", code, out, err)
	}
	for name, proc := range map[string]*process{
		"flag": run(t, "--listen", "127.0.0.1:0", "--in-memory", "--strict-fields"),
		"env":  runEnv(t, []string{"LBHEALTH_STRICT_FIELDS=true"}, "--listen", "127.0.0.1:0", "--in-memory"),
	} {
		if code, out, err := call("POST", proc.url+healthChecks, body); err != nil || code != 400 || !strings.Contains(string(out), `Unknown field \"checkIntervalSecs\"`) {
			t.Errorf("%s: %d %s %v, want 400 naming the field", name, code, out, err)
		}
	}
}
