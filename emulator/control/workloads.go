// Package control is what the cloud does by itself, beside answering the
// API: here, the simulated workload of each instance, which stands in for
// the web server an instance's startup script would start, so that a real
// configuration's backends answer their health checks and its load
// balancers' traffic.
package control

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// ModeStop is a workload mode of its own: the instance's workload is
// stopped, every port refuses connections (a crashed server). The other
// modes are the targets package's (ok, refuse, reset, hang, status-500 ...),
// applied to each port whose protocol has them; a port whose protocol does
// not (status-500 on a gRPC port) resets its connections instead.
const ModeStop targets.Mode = "stop"

// ModeFlap is the other mode of the workloads' own: the instance's workload
// serves for FlapPeriod, then is stopped for FlapPeriod, and so on, from
// when the mode was set (an instance whose checks pass and fail in turn).
const ModeFlap targets.Mode = "flap"

// FlapPeriod is how long a flapping workload serves, then stops.
const FlapPeriod = 10 * time.Second

// WorkloadModes are the modes SetMode takes, ModeOK first.
var WorkloadModes = func() []targets.Mode {
	out := make([]targets.Mode, len(api.WorkloadModes))
	for i, m := range api.WorkloadModes {
		out[i] = targets.Mode(m)
	}
	return out
}()

// ModeNames lists WorkloadModes for messages: "ok", "stop", ...
func ModeNames() string {
	names := make([]string, len(WorkloadModes))
	for i, m := range WorkloadModes {
		names[i] = strconv.Quote(string(m))
	}
	return strings.Join(names, ", ")
}

// WorkloadConfig says where workloads run and how instances boot.
type WorkloadConfig struct {
	// Eligible says whether an instance at addr gets a workload: addresses
	// the emulator gave out on loopback, never one a user's own server
	// listens at.
	Eligible func(addr netip.Addr) bool
	// Boot is how long an instance takes to boot before its workload
	// answers, unless its metadata says otherwise (api.MetadataBootSeconds).
	Boot time.Duration
	// Now is the clock boot times are read against; nil is the wall clock.
	Now func() time.Time
	// Log receives workloads started and stopped, and ports that could not
	// be listened on; nil discards.
	Log *slog.Logger
	// Commands runs the command line of an instance's metadata
	// api.MetadataWorkloadCommand as its workload (commands.go); without
	// it, such an instance runs the simulated servers, and its status says
	// why.
	Commands bool
}

// Workloads runs the simulated workloads. Sync hands it every instance
// (SetInstance) and every probe owner's targets (SetOwner), then
// Reconcile: each eligible, booted instance then serves, at its address
// (or where a probe map moves it),
// every port a health check probes it on (in the check's protocol) and the
// port its load balancers send traffic to (HTTP, unless a check probes
// that port in another protocol). A page served names the instance.
type Workloads struct {
	cfg WorkloadConfig

	mu       sync.Mutex
	owners   map[string][]health.Target // by owner path
	insts    map[string]*instance       // by instance path
	running  map[socket]*served
	failed   map[socket]failure  // ports that could not be listened on, each logged once
	commands map[string]*command // by instance path
	cert     *tls.Certificate
	timer    *time.Timer
	closed   bool
}

// instance is what a workload needs of one instance.
type instance struct {
	name, ip string
	id       uint64
	since    time.Time // when this generation appeared: its boot starts then
	boot     time.Duration
	off      bool
	command  string // a user's command line to run instead (metadata)
	mode     targets.Mode
	modeAt   time.Time // when mode was set: a flap's phases count from it
}

// stopped reports whether the instance's workload is stopped at now (ModeStop,
// or a flap's stopped phase), and when that next changes (zero: never).
func (in *instance) stopped(now time.Time) (bool, time.Time) {
	switch in.mode {
	case ModeStop:
		return true, time.Time{}
	case ModeFlap:
		phase := now.Sub(in.modeAt) / FlapPeriod
		return phase%2 == 1, in.modeAt.Add((phase + 1) * FlapPeriod)
	}
	return false, time.Time{}
}

// served is the mode the instance's ports run in: a flap serves as ok.
func (in *instance) served() targets.Mode {
	if in.mode == ModeFlap {
		return targets.ModeOK
	}
	return in.mode
}

func (in *instance) readyAt() time.Time { return in.since.Add(in.boot) }

// socket is one port at one address.
type socket struct {
	ip   string
	port int
	udp  bool
}

func (s socket) addr() string { return net.JoinHostPort(s.ip, strconv.Itoa(s.port)) }

// failure is a port of an instance's workload that could not be listened
// on, and why.
type failure struct{ instance, why string }

// served is a running port of an instance's workload.
type served struct {
	instance string
	kind     string
	target   *targets.Target
}

// NewWorkloads returns workloads with nothing running yet.
func NewWorkloads(cfg WorkloadConfig) *Workloads {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Eligible == nil {
		cfg.Eligible = func(netip.Addr) bool { return false }
	}
	return &Workloads{cfg: cfg, owners: map[string][]health.Target{}, insts: map[string]*instance{},
		running: map[socket]*served{}, failed: map[socket]failure{}, commands: map[string]*command{}}
}

// SetInstance records instance path as stored (nil: deleted). A new
// generation (a recreated instance, a new id) boots again, with its
// workload healed.
func (w *Workloads) SetInstance(path string, in *api.Instance) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if in == nil {
		delete(w.insts, path)
		return
	}
	prior := w.insts[path]
	cur := &instance{name: in.Name, ip: in.PrimaryIP(), id: in.ID, since: w.cfg.Now(), boot: w.cfg.Boot, mode: targets.ModeOK}
	if prior != nil && prior.id == in.ID {
		cur.since, cur.mode, cur.modeAt = prior.since, prior.mode, prior.modeAt
	}
	if v, ok := in.Metadata.Value(api.MetadataBootSeconds); ok {
		if boot, ok := rules.BootTime(v); ok {
			cur.boot = boot
		}
	}
	if v, ok := in.Metadata.Value(api.MetadataWorkload); ok && rules.WorkloadOff(v) {
		cur.off = true
	}
	if v, ok := in.Metadata.Value(api.MetadataWorkloadCommand); ok {
		cur.command = strings.TrimSpace(v)
	}
	w.insts[path] = cur
}

// SetOwner records what owner's probes reach, replacing what it reached
// before (none: the owner is gone).
func (w *Workloads) SetOwner(owner string, ts []health.Target) {
	ts = ofInstances(ts)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(ts) == 0 {
		delete(w.owners, owner)
		return
	}
	w.owners[owner] = ts
}

// ofInstances keeps the targets that are instances: an endpoint given by
// its address alone (most NEGs') has no workload, and keeping it would
// make every Reconcile walk it.
func ofInstances(ts []health.Target) []health.Target {
	return slices.DeleteFunc(slices.Clone(ts), func(t health.Target) bool { return api.PathOf(t.Endpoint.Instance) == "" })
}

// demand is what one socket should serve, and for which instance.
type demand struct {
	instance string
	kind     string
	fromHTTP bool // only the traffic port asks for it: a check's protocol wins
}

// Reconcile starts the ports that should run and stops the others, and
// wakes itself when the next instance finishes booting.
func (w *Workloads) Reconcile() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	now := w.cfg.Now()
	var next time.Time // when to reconcile again: a boot ends, a flap turns
	wake := func(at time.Time) {
		if !at.IsZero() && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	want := map[socket]demand{}
	commands := map[string][]int{} // the ports asked of each instance that runs a command
	add := func(s socket, d demand) {
		if cur, ok := want[s]; ok && !cur.fromHTTP {
			return // the first check's protocol stands
		}
		want[s] = d
	}
	for _, owner := range slices.Sorted(maps.Keys(w.owners)) {
		for _, t := range w.owners[owner] {
			path := api.PathOf(t.Endpoint.Instance)
			in, ok := w.insts[path]
			if !ok || in.off {
				continue
			}
			// Where the instance is reached: its address, or where a probe
			// map (--probe-map) moves it (Check.Address), as the data
			// plane's traffic is moved too.
			ip := in.ip
			if t.Check.Address != "" {
				ip = t.Check.Address
			}
			if !w.eligible(ip) {
				continue
			}
			if ready := in.readyAt(); now.Before(ready) {
				wake(ready)
				continue
			}
			stopped, turns := in.stopped(now)
			wake(turns)
			if stopped {
				continue
			}
			if in.command != "" && w.cfg.Commands {
				for _, p := range []int{t.Check.Port, t.Endpoint.Port} {
					if p != 0 {
						commands[path] = append(commands[path], p)
					}
				}
				continue
			}
			if kind, udp, ok := kindOf(t.Check.Probe.Protocol); ok && t.Check.Port != 0 {
				add(socket{ip, t.Check.Port, udp}, demand{instance: path, kind: kind})
			}
			if t.Endpoint.Port != 0 {
				add(socket{ip, t.Endpoint.Port, false}, demand{instance: path, kind: targets.KindHTTP, fromHTTP: true})
			}
		}
	}
	for s, r := range w.running {
		if d, ok := want[s]; !ok || d.instance != r.instance || d.kind != r.kind {
			r.target.Close()
			delete(w.running, s)
			w.cfg.Log.Info("workload port stopped", "instance", w.nameOf(r.instance), "addr", s.addr(), "kind", r.kind)
		}
	}
	for s := range w.failed {
		if _, ok := want[s]; !ok {
			delete(w.failed, s)
		}
	}
	for _, s := range slices.SortedFunc(maps.Keys(want), compareSockets) {
		if _, ok := w.running[s]; ok {
			w.applyMode(s)
			continue
		}
		w.start(s, want[s])
	}
	w.reconcileCommands(commands)
	w.wakeAt(next, now)
}

// start listens on s for d's instance.
func (w *Workloads) start(s socket, d demand) {
	in := w.insts[d.instance]
	kind := d.kind
	cert, err := w.certificate(kind)
	if err == nil {
		var t *targets.Target
		if t, err = targets.StartOne(context.Background(), in.name, kind, s.addr(), cert, w.cfg.Log); err == nil {
			w.running[s] = &served{instance: d.instance, kind: d.kind, target: t}
			delete(w.failed, s)
			w.cfg.Log.Info("workload port serving", "instance", in.name, "addr", s.addr(), "kind", kind)
			w.applyMode(s)
			return
		}
	}
	why := err.Error()
	if errors.Is(err, fs.ErrPermission) {
		why += " (ports below 1024 need root, CAP_NET_BIND_SERVICE or sysctl net.ipv4.ip_unprivileged_port_start)"
	}
	if w.failed[s].why != why {
		w.failed[s] = failure{instance: d.instance, why: why}
		w.cfg.Log.Warn("workload port not served", "instance", in.name, "addr", s.addr(), "kind", kind, "error", why)
	}
}

// applyMode gives the running port s its instance's mode.
func (w *Workloads) applyMode(s socket) {
	r := w.running[s]
	in := w.insts[r.instance]
	if in == nil || r.target.Mode() == in.served() {
		return
	}
	m := in.served()
	if !slices.Contains(r.target.Modes(), m) {
		m = targets.ModeReset
		if r.target.Mode() == m || !slices.Contains(r.target.Modes(), m) {
			return
		}
	}
	if err := r.target.SetMode(m); err != nil {
		w.cfg.Log.Warn("workload mode not applied", "instance", in.name, "addr", s.addr(), "mode", string(m), "error", err)
	}
}

// certificate is the one certificate of the TLS kinds, made at first use.
func (w *Workloads) certificate(kind string) (*tls.Certificate, error) {
	if !targets.NeedsCertificate(kind) {
		return nil, nil
	}
	if w.cert == nil {
		c, err := targets.SelfSigned("lbhealth instance workload", []string{"localhost"}, "")
		if err != nil {
			return nil, err
		}
		w.cert = &c
	}
	return w.cert, nil
}

// wakeAt sets the one timer to reconcile again at next (zero: none).
func (w *Workloads) wakeAt(next, now time.Time) {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if next.IsZero() {
		return
	}
	w.timer = time.AfterFunc(next.Sub(now), w.Reconcile)
}

func (w *Workloads) eligible(ip string) bool {
	a, err := netip.ParseAddr(ip)
	return err == nil && w.cfg.Eligible(a.Unmap())
}

func (w *Workloads) nameOf(path string) string {
	if in, ok := w.insts[path]; ok {
		return in.name
	}
	return path[strings.LastIndex(path, "/")+1:]
}

// SetMode breaks or heals the workload of instance path (ModeOK heals).
// A recreated instance starts healed.
func (w *Workloads) SetMode(path string, m targets.Mode) error {
	if !slices.Contains(WorkloadModes, m) {
		return fmt.Errorf("mode %q is not a workload mode: one of %s", m, ModeNames())
	}
	w.mu.Lock()
	in, ok := w.insts[path]
	if ok {
		in.mode, in.modeAt = m, w.cfg.Now()
	}
	w.mu.Unlock()
	if !ok {
		return fmt.Errorf("no instance %s", path)
	}
	w.cfg.Log.Info("workload mode set", "instance", in.name, "mode", string(m))
	w.Reconcile()
	return nil
}

// Status is what a workload is doing, for the API and the status page.
type Status struct {
	Instance string       `json:"instance"` // its path
	Name     string       `json:"name"`
	Address  string       `json:"address"`
	State    string       `json:"state"` // BOOTING, SERVING, STOPPED, OFF (metadata), NOT_SERVED (address not eligible), IDLE (nothing asks for a port)
	Mode     targets.Mode `json:"mode"`
	Ports    []PortStatus `json:"ports,omitempty"`
	// Command is the user's command line the instance runs instead of the
	// simulated servers, and CommandState whether it runs ("running, pid
	// N") or how it ended; Note says why a command of the metadata does
	// not run.
	Command      string `json:"command,omitempty"`
	CommandState string `json:"commandState,omitempty"`
	Note         string `json:"note,omitempty"`
}

// PortStatus is one port of a workload.
type PortStatus struct {
	Port     int    `json:"port"`
	Protocol string `json:"protocol"`
	Error    string `json:"error,omitempty"` // why it is not listened on
}

// List reports every instance's workload, by path.
func (w *Workloads) List() []Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	now, ports := w.cfg.Now(), w.ports()
	out := make([]Status, 0, len(w.insts))
	for _, path := range slices.Sorted(maps.Keys(w.insts)) {
		out = append(out, w.statusOf(path, now, ports[path]))
	}
	return out
}

// Status reports the workload of instance path, if there is that instance.
func (w *Workloads) Status(path string) (Status, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.insts[path]; !ok {
		return Status{}, false
	}
	return w.statusOf(path, w.cfg.Now(), w.ports()[path]), true
}

// ports are the ports listened on (or that could not be), by instance.
// It runs under w.mu.
func (w *Workloads) ports() map[string][]PortStatus {
	ports := map[string][]PortStatus{}
	for s, r := range w.running {
		ports[r.instance] = append(ports[r.instance], PortStatus{Port: s.port, Protocol: r.kind})
	}
	for s, f := range w.failed {
		ports[f.instance] = append(ports[f.instance], PortStatus{Port: s.port, Error: f.why})
	}
	return ports
}

// statusOf is the status of instance path, whose simulated servers' ports
// are ports. It runs under w.mu.
func (w *Workloads) statusOf(path string, now time.Time, ports []PortStatus) Status {
	in := w.insts[path]
	st := Status{Instance: path, Name: in.name, Address: in.ip, Mode: in.mode, Ports: ports}
	c, runsCommand := w.commands[path]
	switch {
	case runsCommand:
		st.Command, st.CommandState = c.Line, c.State()
		for _, p := range c.ports {
			st.Ports = append(st.Ports, PortStatus{Port: p, Protocol: "command"})
		}
	case in.command != "" && !w.cfg.Commands:
		st.Note = "the metadata's " + api.MetadataWorkloadCommand + " does not run: the emulator was started without --workload-commands"
	}
	slices.SortFunc(st.Ports, func(a, b PortStatus) int { return a.Port - b.Port })
	switch {
	case in.off:
		st.State = "OFF"
	case !w.eligible(in.ip) && len(st.Ports) == 0:
		st.State = "NOT_SERVED"
	case in.mode == ModeStop || in.mode == ModeFlap && len(st.Ports) == 0:
		st.State = "STOPPED"
	case now.Before(in.readyAt()):
		st.State = "BOOTING"
	case runsCommand && c.Ended():
		st.State = "EXITED"
	case len(st.Ports) == 0:
		st.State = "IDLE"
	default:
		st.State = "SERVING"
	}
	return st
}

// Close stops every workload, and waits for the commands to end.
func (w *Workloads) Close() {
	w.mu.Lock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	for s, r := range w.running {
		r.target.Close()
		delete(w.running, s)
	}
	var ends []<-chan struct{}
	for path, c := range w.commands {
		ends = append(ends, c.Done())
		w.stopCommand(path, c)
	}
	w.mu.Unlock()
	for _, done := range ends { // bounded: stopCommand kills after commandStop
		<-done
	}
}

// kindOf is the kind of server that answers a check's protocol, and
// whether it is spoken over UDP; false for a protocol no workload speaks
// (GRPC_WITH_TLS, ICMP, the SQL and expression checks).
func kindOf(protocol string) (kind string, udp, ok bool) {
	switch protocol {
	case "HTTP", "LEGACY_HTTP", "TCP":
		return targets.KindHTTP, false, true
	case "HTTPS", "LEGACY_HTTPS", "SSL":
		return targets.KindHTTPS, false, true
	case "HTTP2":
		return targets.KindHTTP2, false, true
	case "GRPC":
		return targets.KindGRPC, false, true
	case "UDP":
		return targets.KindUDP, true, true
	case "DNS":
		return targets.KindDNS, true, true
	case "SMTP", "SMTPS", "FTP", "FTPS", "LDAP", "LDAPS":
		return protocol, false, true
	}
	return "", false, false
}

func compareSockets(a, b socket) int {
	if c := strings.Compare(a.ip, b.ip); c != 0 {
		return c
	}
	if a.port != b.port {
		return a.port - b.port
	}
	if a.udp == b.udp {
		return 0
	}
	if a.udp {
		return 1
	}
	return -1
}

// SetOwners replaces what every owner's probes reach with ts, grouped by
// their owners: at start, and after a reset.
func (w *Workloads) SetOwners(ts []health.Target) {
	by := map[string][]health.Target{}
	for _, t := range ofInstances(ts) {
		by[t.Owner] = append(by[t.Owner], t)
	}
	w.mu.Lock()
	w.owners = by
	w.mu.Unlock()
}

// Forget drops every instance and owner (the store is read anew); the
// next Reconcile stops what no longer runs.
func (w *Workloads) Forget() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.owners)
	clear(w.insts)
}
