//go:build linux

package health

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/procstat"
)

// benchTargets is a running benchtarget process: the HTTP backends both
// checkers probe, and the connection counter they are measured by.
type benchTargets struct {
	addrs []string // "127.1.0.1:port", ...
	ip    []string
	ports []int // of each address: each process of targets has its own
	// protocol is what they speak (benchtarget -protocol): HTTP, HTTPS,
	// SSL, HTTP2, GRPC or GRPC_WITH_TLS.
	protocol string
	procs    []*benchTargetProc
}

// benchTargetProc is one benchtarget process: one question on stdin, one
// answer on stdout.
type benchTargetProc struct {
	mu  sync.Mutex
	in  io.WriteCloser
	out *bufio.Reader
}

// perTargetProc is how many addresses one benchtarget process listens on:
// a listener is a descriptor, and a process may hold at most
// RLIMIT_NOFILE of them (20,000 on some machines, which an unprivileged
// process cannot raise), so larger sizes start several.
const perTargetProc = 15000

// buildBenchTarget compiles emulator/internal/benchtarget into a temporary
// directory, or returns LBHEALTH_BENCH_TARGET, one built beforehand. The
// targets must not share this process: their CPU would be charged to the
// engine.
func buildBenchTarget(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv("LBHEALTH_BENCH_TARGET"); bin != "" {
		return bin
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Skipf("the go command is needed to build the targets: %v", err)
	}
	bin := filepath.Join(b.TempDir(), "benchtarget")
	cmd := exec.Command(goBin, "build", "-o", bin, "../internal/benchtarget")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build benchtarget: %v\n%s", err, out)
	}
	return bin
}

// startBenchTargets starts bin with n listeners speaking protocol (a
// health check type benchtarget serves), in as many processes as perTargetProc asks, and waits until
// they are all open.
func startBenchTargets(b *testing.B, bin string, n int, protocol string) *benchTargets {
	b.Helper()
	t := &benchTargets{protocol: protocol}
	first := netip.MustParseAddr("127.1.0.1")
	for left := n; left > 0; left -= perTargetProc {
		count := min(left, perTargetProc)
		t.start(b, bin, count, first)
		first = netip.MustParseAddr(t.ip[len(t.ip)-1]).Next()
	}
	if len(t.addrs) != n {
		b.Fatalf("benchtarget listens on %d addresses, want %d", len(t.addrs), n)
	}
	return t
}

// start runs one benchtarget process of n listeners from address first.
func (t *benchTargets) start(b *testing.B, bin string, n int, first netip.Addr) {
	b.Helper()
	args := []string{"-n", strconv.Itoa(n), "-first", first.String(), "-protocol", t.protocol}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start benchtarget: %v", err)
	}
	b.Cleanup(func() {
		in.Close() // benchtarget exits when its stdin closes
		if err := cmd.Wait(); err != nil {
			b.Errorf("benchtarget: %v\n%s", err, stderr.Bytes())
		}
	})
	p := &benchTargetProc{in: in, out: bufio.NewReader(stdout)}
	t.procs = append(t.procs, p)
	for {
		line, err := p.out.ReadString('\n')
		if err != nil {
			b.Fatalf("benchtarget did not get ready: %v\n%s", err, stderr.Bytes())
		}
		line = strings.TrimSpace(line)
		if line == "ready" {
			return
		}
		addr, ok := strings.CutPrefix(line, "listen ")
		if !ok {
			b.Fatalf("benchtarget: unexpected line %q", line)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			b.Fatalf("benchtarget: %q: %v", line, err)
		}
		pn, _ := strconv.Atoi(port)
		t.addrs, t.ip, t.ports = append(t.addrs, addr), append(t.ip, host), append(t.ports, pn)
	}
}

// answered is how many connections the targets have answered with 200.
func (t *benchTargets) answered(b *testing.B) int64 {
	b.Helper()
	var total int64
	for _, p := range t.procs {
		total += p.answered(b)
	}
	return total
}

func (p *benchTargetProc) answered(b *testing.B) int64 {
	b.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := io.WriteString(p.in, "count\n"); err != nil {
		b.Fatalf("ask benchtarget: %v", err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		b.Fatalf("read benchtarget: %v", err)
	}
	var accepted, answered int64
	if _, err := fmt.Sscan(line, &accepted, &answered); err != nil {
		b.Fatalf("benchtarget answered %q: %v", line, err)
	}
	return answered
}

// cpuSelf is the CPU (user + system) this process has used so far.
func cpuSelf(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuOf is the CPU process pid has used so far (procstat.CPU).
func cpuOf(b *testing.B, pid int) time.Duration {
	b.Helper()
	d, err := procstat.CPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// memOf returns VmRSS and VmHWM of /proc/<pid>/status ("self" for this
// process), in bytes.
func memOf(b *testing.B, pid string) (rss, hwm int64) {
	b.Helper()
	raw, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		name, value, _ := strings.Cut(line, ":")
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch {
		case err != nil:
		case name == "VmRSS":
			rss = kb << 10
		case name == "VmHWM":
			hwm = kb << 10
		}
	}
	return rss, hwm
}
