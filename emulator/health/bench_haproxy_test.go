//go:build linux

package health

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// haproxyResult is HAProxy's half of one size.
type haproxyResult struct {
	window   time.Duration
	answered int64         // checks the targets answered in the window
	cpu      time.Duration // HAProxy's user + system CPU in the window
	rss      int64
	up, down int   // servers UP and not UP at the end
	chkfail  int64 // failed checks since start
}

// haproxyConfig checks every target the way our engine probes them: HTTP
// GET / (over TLS, unverified, for HTTPS; over HTTP/2 with TLS for HTTP2)
// or a TLS handshake alone (SSL), every second, 1 s timeout, rise/fall 2
// like our thresholds.
// HAProxy staggers the first checks of a backend's servers over the
// interval on its own, as our engine does. No frontend: nothing but the
// checks runs.
func haproxyConfig(t *benchTargets, sock, nbthread string, interval time.Duration) string {
	mode, httpchk := "http", "    option httpchk GET /\n"
	if t.protocol == "SSL" { // with check-ssl and no other check, a handshake
		mode, httpchk = "tcp", ""
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, `global
    maxconn %d
    nbthread %s
    stats socket %s mode 600 level admin
defaults
    mode %s
    timeout connect 1s
    timeout client 5s
    timeout server 5s
    timeout check 1s
backend bench
%s    default-server check inter %dms rise 2 fall 2%s
`, len(t.addrs)+1000, nbthread, sock, mode, httpchk, interval.Milliseconds(), checkTLS[t.protocol])
	for i, a := range t.addrs {
		fmt.Fprintf(&cfg, "    server s%d %s\n", i, a)
	}
	return cfg.String()
}

// checkTLS is the server settings of the protocols HAProxy checks over
// TLS.
var checkTLS = map[string]string{
	"HTTPS": " check-ssl verify none",
	"SSL":   " check-ssl verify none",
	"HTTP2": " check-ssl verify none check-alpn h2 check-proto h2",
}

// measureHAProxy runs HAProxy's checks of t and measures them over the
// same warm-up and window as the engine.
func measureHAProxy(b *testing.B, haproxy string, t *benchTargets, opt benchOptions) haproxyResult {
	b.Helper()
	dir := b.TempDir()
	cfgPath, sock := filepath.Join(dir, "haproxy.cfg"), filepath.Join(dir, "haproxy.sock")
	if err := os.WriteFile(cfgPath, []byte(haproxyConfig(t, sock, opt.nbthread, opt.interval)), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(haproxy, "-f", cfgPath, "-db")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		b.Fatalf("start haproxy: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	select {
	case err := <-exited:
		exited <- err
		b.Fatalf("haproxy exited: %v\n%s", err, stderr.Bytes())
	case <-time.After(opt.warmup):
	}
	pid := cmd.Process.Pid
	var r haproxyResult
	cpu0, n0, t0 := cpuOf(b, pid), t.answered(b), time.Now()
	time.Sleep(opt.window)
	n1, cpu1 := t.answered(b), cpuOf(b, pid)
	r.window, r.answered, r.cpu = time.Since(t0), n1-n0, cpu1-cpu0
	r.rss, _ = memOf(b, strconv.Itoa(pid))
	r.up, r.down, r.chkfail = haproxyServers(b, sock)
	return r
}

// haproxyServers counts the servers UP and not UP, and their failed
// checks, from the stats socket.
func haproxyServers(b *testing.B, sock string) (up, down int, chkfail int64) {
	b.Helper()
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		b.Fatalf("haproxy stats socket: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "show stat\n"); err != nil {
		b.Fatal(err)
	}
	raw, err := io.ReadAll(c)
	if err != nil {
		b.Fatalf("haproxy show stat: %v", err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(raw, []byte("# "))))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		b.Fatalf("haproxy show stat: %v", err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, row := range rows[1:] {
		if len(row) <= col["chkfail"] || row[col["svname"]] == "BACKEND" {
			continue
		}
		if row[col["status"]] == "UP" {
			up++
		} else {
			down++
		}
		n, _ := strconv.ParseInt(row[col["chkfail"]], 10, 64)
		chkfail += n
	}
	return up, down, chkfail
}

// haproxyVersion is "HAProxy 2.6.12-1", from `haproxy -v`.
func haproxyVersion(haproxy string) string {
	out, err := exec.Command(haproxy, "-v").Output()
	if f := strings.Fields(string(out)); err == nil && len(f) >= 3 && f[1] == "version" {
		return f[0] + " " + f[2]
	}
	return "HAProxy (unknown version)"
}
