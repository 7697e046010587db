package control

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// freePort is a port free on ip now.
func freePort(t *testing.T, ip string) int {
	t.Helper()
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func newInstance(name, ip string, id uint64, meta ...string) *api.Instance {
	in := &api.Instance{Meta: api.Meta{Name: name, ID: id}, NetworkInterfaces: []api.NetworkInterface{{NetworkIP: ip}}}
	if len(meta) > 0 {
		in.Metadata = &api.Metadata{}
		for i := 0; i+1 < len(meta); i += 2 {
			v := meta[i+1]
			in.Metadata.Items = append(in.Metadata.Items, api.MetadataItem{Key: meta[i], Value: &v})
		}
	}
	return in
}

// probed is a target of owner bs probing instance path on port with
// protocol, served on serving (0: none).
func probed(path string, protocol string, port, serving int) health.Target {
	return health.Target{Owner: "projects/p/global/backendServices/bs", Endpoint: health.Endpoint{Instance: path, Port: serving},
		Check: health.Check{Port: port, Probe: prober.Spec{Protocol: protocol}}}
}

// get fetches http://addr/ and returns the status and body, or an error.
func get(addr string) (int, string, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get("http://" + addr + "/")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func refused(t *testing.T, addr string) {
	t.Helper()
	if _, _, err := get(addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("GET %s: %v, want the connection refused", addr, err)
	}
}

func state(t *testing.T, w *Workloads, path string) Status {
	t.Helper()
	for _, st := range w.List() {
		if st.Instance == path {
			return st
		}
	}
	t.Fatalf("%s not listed in %+v", path, w.List())
	return Status{}
}

// An instance boots before its workload answers; once booted it serves its
// check's port, with a page that names it; it can be stopped, broken and
// healed; a recreated instance (a new id) boots again, healed.
func TestWorkloads_BootServeBreakHeal(t *testing.T) {
	const ip, path = "127.1.201.2", "projects/p/zones/z/instances/web-1"
	port := freePort(t, ip)
	addr := net.JoinHostPort(ip, strconv.Itoa(port))
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	w := NewWorkloads(WorkloadConfig{Eligible: func(netip.Addr) bool { return true }, Boot: time.Hour, Now: clock.Now})
	t.Cleanup(w.Close)

	w.SetInstance(path, newInstance("web-1", ip, 1))
	w.SetOwner("projects/p/global/backendServices/bs", []health.Target{probed(path, "HTTP", port, port)})
	w.Reconcile()
	refused(t, addr)
	if st := state(t, w, path); st.State != "BOOTING" {
		t.Errorf("state %+v, want BOOTING", st)
	}

	clock.add(time.Hour)
	w.Reconcile()
	code, body, err := get(addr)
	if err != nil || code != 200 || !strings.Contains(body, "web-1") {
		t.Fatalf("after boot: %d %q %v, want 200 naming web-1", code, body, err)
	}
	if st := state(t, w, path); st.State != "SERVING" || len(st.Ports) != 1 || st.Ports[0].Port != port || st.Ports[0].Protocol != "HTTP" {
		t.Errorf("state %+v, want SERVING on port %d (HTTP)", st, port)
	}

	if err := w.SetMode(path, targets.ModeStatus500); err != nil {
		t.Fatal(err)
	}
	if code, _, err := get(addr); code != 500 {
		t.Errorf("broken with status-500: %d %v", code, err)
	}
	if err := w.SetMode(path, ModeStop); err != nil {
		t.Fatal(err)
	}
	refused(t, addr)
	if st := state(t, w, path); st.State != "STOPPED" {
		t.Errorf("state %+v, want STOPPED", st)
	}
	if err := w.SetMode(path, "sideways"); err == nil || !strings.Contains(err.Error(), `mode "sideways" is not a workload mode`) {
		t.Errorf("an unknown mode: %v", err)
	}

	// Recreated (a new id): it boots again, and its workload is healed.
	w.SetInstance(path, newInstance("web-1", ip, 2))
	w.Reconcile()
	refused(t, addr)
	clock.add(time.Hour)
	w.Reconcile()
	if code, _, err := get(addr); code != 200 {
		t.Fatalf("recreated and booted: %d %v, want 200", code, err)
	}

	// Gone: nothing listens.
	w.SetInstance(path, nil)
	w.Reconcile()
	refused(t, addr)
}

// What runs where: a check's protocol on its port (HTTPS here), HTTP on the
// port traffic is sent to; nothing for an instance whose metadata turns its
// workload off, or at an address that is not eligible; the metadata's boot
// time over the default.
func TestWorkloads_PortsProtocolsAndMetadata(t *testing.T) {
	const ip, offIP, userIP = "127.1.201.3", "127.1.201.4", "127.0.0.1"
	check, serving := freePort(t, ip), freePort(t, ip)
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	w := NewWorkloads(WorkloadConfig{Eligible: func(a netip.Addr) bool { return a != netip.MustParseAddr(userIP) }, Boot: time.Hour, Now: clock.Now})
	t.Cleanup(w.Close)
	const a, off, user = "projects/p/zones/z/instances/a", "projects/p/zones/z/instances/off", "projects/p/zones/z/instances/user"
	w.SetInstance(a, newInstance("a", ip, 1, api.MetadataBootSeconds, "0"))
	w.SetInstance(off, newInstance("off", offIP, 1, api.MetadataBootSeconds, "0", api.MetadataWorkload, "off"))
	w.SetInstance(user, newInstance("user", userIP, 1, api.MetadataBootSeconds, "0"))
	w.SetOwners([]health.Target{probed(a, "HTTPS", check, serving), probed(off, "HTTP", check, serving), probed(user, "HTTP", check, serving)})
	w.Reconcile()

	if code, body, err := get(net.JoinHostPort(ip, strconv.Itoa(serving))); code != 200 || !strings.Contains(body, "ok a ") {
		t.Errorf("the serving port: %d %q %v, want HTTP naming a", code, body, err)
	}
	if _, _, err := get(net.JoinHostPort(ip, strconv.Itoa(check))); err == nil {
		t.Error("the HTTPS check's port answered plain HTTP")
	}
	st := state(t, w, a)
	if st.State != "SERVING" || len(st.Ports) != 2 || st.Ports[0].Protocol == st.Ports[1].Protocol {
		t.Errorf("state %+v, want SERVING on an HTTPS port and an HTTP one", st)
	}
	if st := state(t, w, off); st.State != "OFF" || len(st.Ports) != 0 {
		t.Errorf("state %+v, want OFF with no port", st)
	}
	if st := state(t, w, user); st.State != "NOT_SERVED" || len(st.Ports) != 0 {
		t.Errorf("state %+v, want NOT_SERVED with no port", st)
	}
	refused(t, net.JoinHostPort(offIP, strconv.Itoa(serving)))
}

// A flapping workload serves for FlapPeriod, then is stopped for as long,
// from when the mode was set; a slow one answers after the checks' default
// timeout.
func TestWorkloads_FlapAndSlow(t *testing.T) {
	const ip, path = "127.1.201.5", "projects/p/zones/z/instances/web-5"
	port := freePort(t, ip)
	addr := net.JoinHostPort(ip, strconv.Itoa(port))
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	w := NewWorkloads(WorkloadConfig{Eligible: func(netip.Addr) bool { return true }, Now: clock.Now})
	t.Cleanup(w.Close)
	w.SetInstance(path, newInstance("web-5", ip, 1))
	w.SetOwner("projects/p/global/backendServices/bs", []health.Target{probed(path, "HTTP", port, port)})
	w.Reconcile()

	if err := w.SetMode(path, ModeFlap); err != nil {
		t.Fatal(err)
	}
	for i, serving := range []bool{true, false, true, false} {
		w.Reconcile()
		code, _, err := get(addr)
		if serving && code != 200 || !serving && !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("flap phase %d: %d %v, want serving %v", i, code, err, serving)
		}
		clock.add(FlapPeriod)
	}

	if err := w.SetMode(path, targets.ModeSlow); err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 50 * time.Millisecond}
	if resp, err := c.Get("http://" + addr + "/"); err == nil {
		resp.Body.Close()
		t.Errorf("slow: answered %s within 50ms, want no answer before %v", resp.Status, targets.SlowDelay)
	}
}

// An instance of a real configuration's private address is served where a
// probe map moves it (Check.Address), as its probes and traffic go there.
func TestWorkloads_AtTheProbeMapsAddress(t *testing.T) {
	const mapped, path = "127.128.0.2", "projects/p/zones/z/instances/vm-1"
	port := freePort(t, mapped)
	w := NewWorkloads(WorkloadConfig{Eligible: func(a netip.Addr) bool { return a.IsLoopback() }})
	t.Cleanup(w.Close)
	w.SetInstance(path, newInstance("vm-1", "10.128.0.2", 1))
	target := probed(path, "HTTP", port, port)
	target.Check.Address = mapped
	w.SetOwner("projects/p/global/backendServices/bs", []health.Target{target})
	w.Reconcile()
	if code, body, err := get(net.JoinHostPort(mapped, strconv.Itoa(port))); code != 200 || !strings.Contains(body, "vm-1") {
		t.Errorf("at the mapped address: %d %q %v, want the instance's page", code, body, err)
	}
	if st := state(t, w, path); st.State != "SERVING" {
		t.Errorf("status %+v, want SERVING", st)
	}
}
