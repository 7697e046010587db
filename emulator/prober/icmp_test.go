package prober

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// TestICMP: an echo request to a loopback address is answered.
func TestICMP(t *testing.T) {
	wantResult(t, probe(t, time.Second, Spec{Protocol: "ICMP"}, Target{IP: "127.0.0.1"}), true, "")
	wantResult(t, probe(t, time.Second, Spec{Protocol: "ICMP"}, Target{IP: "::1"}), true, "")
}

// TestICMPNoReply: a host that drops echo requests times out. It is a
// network namespace of the test's own, behind a veth pair, whose kernel
// ignores pings: making one needs root (CI runs as root).
func TestICMPNoReply(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a network namespace (CI runs as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("the ip command (Debian: apt-get install iproute2) is needed to create a network namespace")
	}
	ns := "lbh-icmp-" + strconv.Itoa(os.Getpid())
	host, peer := "lbhi"+strconv.Itoa(os.Getpid()%100000), "lbhp"+strconv.Itoa(os.Getpid()%100000)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v\n%s", args, err, out)
		}
	}
	run("netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() }) // takes the veth pair with it
	run("link", "add", host, "type", "veth", "peer", "name", peer)
	run("link", "set", peer, "netns", ns)
	run("addr", "add", "10.254.77.1/30", "dev", host)
	run("link", "set", host, "up")
	run("-n", ns, "addr", "add", "10.254.77.2/30", "dev", peer)
	run("-n", ns, "link", "set", peer, "up")
	wantResult(t, probe(t, time.Second, Spec{Protocol: "ICMP"}, Target{IP: "10.254.77.2"}), true, "")
	if out, err := exec.Command("ip", "netns", "exec", ns, "sysctl", "-w", "net.ipv4.icmp_echo_ignore_all=1").CombinedOutput(); err != nil {
		t.Fatalf("sysctl: %v\n%s", err, out)
	}
	wantResult(t, timedProbe(t, Spec{Protocol: "ICMP"}, Target{IP: "10.254.77.2"}, 300*time.Millisecond), false, ReasonTimeout)
}
