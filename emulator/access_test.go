package emulator_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// send sends one request to e with the given headers ("Host" sets the Host
// header) and returns the status.
func send(t *testing.T, e *emulator.Emulator, method, path, body string, headers ...string) int {
	t.Helper()
	req, err := http.NewRequest(method, e.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestAccess_CrossSiteReproducerIsRefused replays a cross-site attack over a
// real connection: a page posts text/plain (no CORS preflight) to the
// emulator, or reaches it under its own name by DNS rebinding.
func TestAccess_CrossSiteReproducerIsRefused(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator0())
	body := `{"name": "evil", "tcpHealthCheck": {"port": 22, "request": "anything"}}`
	if code := send(t, e, "POST", healthChecks, body, "Content-Type", "text/plain;charset=UTF-8", "Origin", "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("cross-site text/plain POST: %d, want 403", code)
	}
	if code := send(t, e, "POST", "/_emulator/reset", "", "Origin", "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("cross-site reset: %d, want 403", code)
	}
	if code := send(t, e, "POST", healthChecks, body, "Content-Type", "application/json", "Host", "attacker.example:8686"); code != http.StatusForbidden {
		t.Errorf("POST with Host attacker.example: %d, want 403", code)
	}
	if code := send(t, e, "GET", "/", "", "Host", "attacker.example:8686"); code != http.StatusForbidden {
		t.Errorf("status page with Host attacker.example: %d, want 403", code)
	}
	if code := send(t, e, "GET", healthChecks+"/evil", ""); code != http.StatusNotFound {
		t.Fatalf("GET of the check a refused request sent: %d, want 404 (nothing stored)", code)
	}
}

func TestAccess_TokenIsRequired(t *testing.T) {
	t.Parallel()
	cfg := emulator0()
	cfg.Token = "t0ken"
	e := startEmulator(t, cfg)
	body := `{"name": "hc", "tcpHealthCheck": {"port": 80}}`
	if code := send(t, e, "POST", healthChecks, body, "Content-Type", "application/json"); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", code)
	}
	if code := send(t, e, "POST", healthChecks, body, "Content-Type", "application/json", "Authorization", "Bearer t0ken"); code != http.StatusOK {
		t.Errorf("with the token: %d, want 200", code)
	}
	if code := send(t, e, "GET", "/healthz", ""); code != http.StatusOK {
		t.Errorf("/healthz without the token: %d, want 200", code)
	}
}

// TestCommand_TokenFromTheEnvironment: LBHEALTH_TOKEN guards the API of
// the command, and the token shows neither in its help nor in its output.
func TestCommand_TokenFromTheEnvironment(t *testing.T) {
	t.Parallel()
	const token = "env-t0ken-never-shown"
	help := exec.Command(emulatorBinary(t), "-h")
	help.Env = []string{"LBHEALTH_TOKEN=" + token}
	out, _ := help.CombinedOutput()
	if !strings.Contains(string(out), "-token") || strings.Contains(string(out), token) {
		t.Errorf("-h must describe --token and never show its value:\n%s", out)
	}
	p := runEnv(t, []string{"LBHEALTH_TOKEN=" + token}, "--listen", "127.0.0.1:0", "--in-memory")
	body := `{"name": "hc", "tcpHealthCheck": {}}`
	if code, _, err := call("POST", p.url+healthChecks, body); err != nil || code != http.StatusUnauthorized {
		t.Errorf("without the token: %d %v, want 401", code, err)
	}
	req, _ := http.NewRequest("POST", p.url+healthChecks, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("with the token: %v %v, want 200", resp, err)
	} else {
		resp.Body.Close()
	}
	var printed []string
	for range 3 {
		printed = append(printed, p.line(t))
	}
	if all := strings.Join(printed, "\n") + p.stderr.String(); strings.Contains(all, token) {
		t.Errorf("the output shows the token:\n%s", all)
	}
}

func TestStart_WarnsWhenListeningBeyondLoopbackWithoutToken(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		listen, token string
		warn          bool
	}{
		{"0.0.0.0:0", "", true},
		{"0.0.0.0:0", "t0ken", false},
		{"127.0.0.1:0", "", false},
	} {
		var logs lockedWriter
		e, err := emulator.Start(context.Background(), emulator.Config{Listen: tt.listen, InMemory: true, Token: tt.token,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
		out := logs.String()
		warned := strings.Contains(out, "level=WARN") && strings.Contains(out, "LBHEALTH_TOKEN")
		if warned != tt.warn {
			t.Errorf("listen %s, token %q: warned %v, want %v; log:\n%s", tt.listen, tt.token, warned, tt.warn, out)
		}
		if tt.token != "" && strings.Contains(out, tt.token) {
			t.Errorf("the log shows the token:\n%s", out)
		}
	}
}

// Workload commands make the API a way to run shell commands: they are
// refused on a listener beyond loopback unless a token guards it, and the
// log says, whenever they may run, that the API can run commands.
func TestStart_WorkloadCommandsNeedLoopbackOrAToken(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		listen, token string
		refused       bool
	}{
		{"0.0.0.0:0", "", true},
		{"0.0.0.0:0", "t0ken", false},
		{"127.0.0.1:0", "", false},
	} {
		var logs lockedWriter
		e, err := emulator.Start(context.Background(), emulator.Config{Listen: tt.listen, InMemory: true, Token: tt.token,
			WorkloadCommands: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if tt.refused {
			if err == nil {
				e.Close()
				t.Fatalf("listen %s without a token: workload commands started", tt.listen)
			}
			for _, want := range []string{"--workload-commands", "beyond loopback", "--token", "shell command"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("listen %s: error %q does not name %q", tt.listen, err, want)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("listen %s, token %q: %v", tt.listen, tt.token, err)
		}
		e.Close()
		if out := logs.String(); !strings.Contains(out, "workload commands are on") || !strings.Contains(out, "shell commands") {
			t.Errorf("listen %s: no warning naming command execution; log:\n%s", tt.listen, out)
		}
	}
}

// Clients holding more idle keep-alive connections than the API keeps open
// (1,100 against the default 1,024) do not keep a new client waiting: the
// connection idle the longest makes room for it, and each of them got its
// answer first.
func TestLimits_IdleConnectionsDoNotKeepANewClientWaiting(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator0())
	held := make([]net.Conn, 0, 1100)
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	for i := range cap(held) {
		c, err := net.Dial("tcp", e.Addr())
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		held = append(held, c)
		c.SetDeadline(time.Now().Add(20 * time.Second)) // a hang guard, not a measurement
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: "+e.Addr()+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d, with %d idle before it: no answer (%v)", i+1, i, err)
		}
		resp.Body.Close()
	}
	client := &http.Client{Timeout: 20 * time.Second} // a hang guard
	resp, err := client.Get(e.URL() + "/healthz")
	if err != nil {
		t.Fatalf("a new client, with %d idle connections held: %v", len(held), err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a new client: %d", resp.StatusCode)
	}
}

// TestLimits_StalledRequestIsCut: a client that sends part of a request
// and stalls loses its connection once the read timeout passes, instead of
// holding it (and a descriptor) for as long as it likes.
func TestLimits_StalledRequestIsCut(t *testing.T) {
	t.Parallel()
	cfg := emulator0()
	cfg.Limits = emulator.Limits{ReadHeaderTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond}
	e := startEmulator(t, cfg)
	for name, partial := range map[string]string{
		"headers and 4 bytes of body": "POST " + healthChecks + " HTTP/1.1\r\nHost: " + e.Addr() +
			"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na",
		"half the headers": "GET " + healthChecks + " HTTP/1.1\r\nHost: ",
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", e.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, partial); err != nil {
				t.Fatal(err)
			}
			// A hang guard, not a measurement: anything but a closed
			// connection before it fails.
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err = io.Copy(io.Discard, conn) // an error answer, if any, then the end
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the stalled connection is still open after 10 s; the read timeout is 200 ms")
			}
		})
	}
}

// TestLimits_MaxConnections: beyond the cap, a connection waits while
// every open one is busy with a request, until one closes; an idle one
// (between keep-alive requests) makes room for it at once.
func TestLimits_MaxConnections(t *testing.T) {
	t.Parallel()
	cfg := emulator0()
	cfg.Limits = emulator.Limits{MaxConnections: 1}
	e := startEmulator(t, cfg)
	get := func(answered chan<- int) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(e.URL() + "/healthz")
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}

	// Busy: a request whose body is still coming. The server's "100
	// Continue" says its handler has begun reading it.
	busy, err := net.Dial("tcp", e.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	io.WriteString(busy, "POST "+healthChecks+" HTTP/1.1\r\nHost: "+e.Addr()+
		"\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n")
	busy.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang guard
	if line, err := bufio.NewReader(busy).ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("the busy request: %q %v, want 100 Continue", line, err)
	}
	io.WriteString(busy, `{"na`)
	var wg sync.WaitGroup
	answered := make(chan int, 1)
	wg.Go(func() { get(answered) })
	time.Sleep(300 * time.Millisecond) // a chance to break the cap; passing does not depend on it
	select {
	case code := <-answered:
		t.Fatalf("a second connection was served (%d) while the only one allowed was busy", code)
	default:
	}
	busy.Close()
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("second connection after the first closed: %d, want 200", code)
	}
	wg.Wait()

	// Idle: answered, then held open.
	idle, err := net.Dial("tcp", e.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	io.WriteString(idle, "GET /healthz HTTP/1.1\r\nHost: "+e.Addr()+"\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(idle), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the idle connection's request: %v %v", resp, err)
	}
	wg.Go(func() { get(answered) })
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("a new connection while the only one allowed is idle: %d, want 200", code)
	}
	wg.Wait()
}

// TestStart_UnreadableDatabaseSaysWhatToDo: a database file that is not
// one, or is damaged, stops the start with an error that names the file
// and the ways out.
func TestStart_UnreadableDatabaseSaysWhatToDo(t *testing.T) {
	t.Parallel()
	wantRemedy := func(t *testing.T, err error, path string) {
		t.Helper()
		if err == nil {
			t.Fatal("the emulator started on a broken database")
		}
		t.Logf("%v", err)
		for _, want := range []string{path, "backup", "move it away", "--data-dir", "--in-memory"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	}
	t.Run("garbage bytes", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, emulator.DatabaseFile)
		os.WriteFile(path, bytes.Repeat([]byte("this is not a database\x00\xff"), 400), 0o644)
		_, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", DataDir: dir})
		wantRemedy(t, err, path)
	})
	t.Run("damaged pages", func(t *testing.T) {
		dir := t.TempDir()
		e := start(t, emulator.Config{Listen: "127.0.0.1:0", DataDir: dir})
		for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
			must(t, "POST", e.URL()+healthChecks, `{"name": "`+name+`", "description": "`+strings.Repeat("x", 2000)+`", "tcpHealthCheck": {}}`)
		}
		e.Close()
		path := filepath.Join(dir, emulator.DatabaseFile)
		raw, err := os.ReadFile(path)
		if err != nil || len(raw) < 3*4096 {
			t.Fatalf("database of %d bytes: %v", len(raw), err)
		}
		// Page 1 (the schema) stays; every later page becomes noise.
		for i := 4096; i < len(raw); i++ {
			raw[i] = byte(i*7 + 13)
		}
		os.WriteFile(path, raw, 0o644)
		_, err = emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", DataDir: dir})
		wantRemedy(t, err, path)
	})
	t.Run("permission denied", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads any file")
		}
		dir := t.TempDir()
		path := filepath.Join(dir, emulator.DatabaseFile)
		os.WriteFile(path, nil, 0o000)
		_, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", DataDir: dir})
		wantRemedy(t, err, path)
		if err != nil && !strings.Contains(err.Error(), "permission") {
			t.Errorf("error %q does not say it is a matter of permissions", err)
		}
	})
}
