package run

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
)

// DefaultRange is where Cloud Run's services serve unless told otherwise:
// an address of loopback each, apart from the addresses the emulator gives
// instances (127.1.0.0/16) and those a probe map moves a subnetwork to.
var DefaultRange = netip.MustParsePrefix("127.254.0.0/16")

// ViaHeader marks a request that a load balancer's serverless network
// endpoint group carried to a service, with the value Serving.Via gives:
// a service whose ingress admits load balancers only tells them from a
// direct request by it. It never reaches the workload.
const ViaHeader = "X-Lbhealth-Via"

// Ingress settings, as the v2 API names them.
const (
	IngressAll                  = "INGRESS_TRAFFIC_ALL"
	IngressInternalOnly         = "INGRESS_TRAFFIC_INTERNAL_ONLY"
	IngressInternalLoadBalancer = "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER"
	IngressNone                 = "INGRESS_TRAFFIC_NONE"
)

// ServingConfig says where services serve and how they start.
type ServingConfig struct {
	// Range is where each service gets its address (DefaultRange when
	// invalid).
	Range netip.Prefix
	// Boot is how long a service's first revision takes to start before
	// it answers.
	Boot time.Duration
	// AfterFunc runs f once the emulator's clock reads d from now (nil:
	// time.AfterFunc).
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Log receives services started and stopped; nil discards.
	Log *slog.Logger
	// OnChange is told whenever a service starts or stops serving (the
	// data plane's pools follow); nil: nobody.
	OnChange func()
	// OnState is told when a service's workload changes state (BOOTING,
	// SERVING, FAILED, STOPPED); nil: nobody.
	OnState func(service, addr, from, to string)
	// Commands runs a container's CommandEnv as the service's workload,
	// instead of the simulated one. Off by default: whoever can call the
	// API can then run commands on this machine.
	Commands bool
}

// CommandEnv is the environment variable of a service's container whose
// value, a shell command line, the emulator runs (with --workload-commands)
// as the service's workload, as an instance's lbhealth-workload-command
// metadata: it must listen at $LBHEALTH_ADDRESS on $PORT.
const CommandEnv = "LBHEALTH_WORKLOAD_COMMAND"

// Serving runs the simulated workload of every Cloud Run service: the
// service serves at an address of its own (on loopback, within the
// configured range) on its container's port, once its boot time has
// passed; each answer names the service and the revision that the
// service's traffic split chose. The ingress setting is honoured: a
// service for internal traffic or load balancers only refuses a direct
// request as Cloud Run does (404), and answers one a load balancer
// carried (ViaHeader).
type Serving struct {
	cfg ServingConfig
	// via are the values of ViaHeader that mark the requests of internal
	// and of external load balancers: random, so that no client can
	// forge them.
	viaInternal, viaExternal string

	mu       sync.Mutex
	services map[string]*served // by service name
	used     map[netip.Addr]string
	closed   bool
}

// Workload is what a service runs: its revisions, their share of
// traffic, and who may reach it.
type Workload struct {
	// Service is the service's name (projects/P/locations/L/services/S).
	Service string
	// Port is the container's port.
	Port int
	// Ingress is one of the Ingress constants.
	Ingress string
	// Revisions share the traffic by their percents.
	Revisions []Split
	// Tags name revisions: a serverless NEG with a tag reaches the
	// revision its tag names, whatever the split.
	Tags map[string]string
	// Generation changes whenever the service does.
	Generation int64
	// Command is the container's CommandEnv, and Env its other variables
	// (NAME=VALUE), which the command is given.
	Command string
	Env     []string
}

// Split is a revision's share of a service's traffic.
type Split struct {
	Revision string
	Percent  int64
}

// served is one running service.
type served struct {
	addr     netip.AddrPort
	workload atomic.Pointer[Workload]
	srv      *http.Server
	proc     *control.Process // a user's command, instead of srv
	stop     func() bool      // its boot's timer, until it serves
	serving  atomic.Bool
	err      string // why it does not serve
}

// NewServing returns Serving with nothing running.
func NewServing(cfg ServingConfig) *Serving {
	if !cfg.Range.IsValid() || !cfg.Range.Addr().Is4() {
		cfg.Range = DefaultRange
	}
	if cfg.AfterFunc == nil {
		cfg.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.OnChange == nil {
		cfg.OnChange = func() {}
	}
	if cfg.OnState == nil {
		cfg.OnState = func(string, string, string, string) {}
	}
	return &Serving{cfg: cfg, viaInternal: token(), viaExternal: token(), services: map[string]*served{}, used: map[netip.Addr]string{}}
}

func token() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Via is the value of ViaHeader a load balancer adds to the requests it
// carries to a service (external: an external Application Load
// Balancer's); a serverless NEG with a tag adds it after a space.
func (s *Serving) Via(external bool) string {
	if external {
		return s.viaExternal
	}
	return s.viaInternal
}

// Set runs w (nil: the service name is gone, and stops serving). A
// service already running keeps its address and takes w's revisions at
// once; a new one, or one whose port changed, boots first.
func (s *Serving) Set(name string, w *Workload) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	cur := s.services[name]
	if cur != nil && (w == nil || cur.workload.Load().Port != w.Port || s.runs(w) != (cur.proc != nil) ||
		cur.proc != nil && cur.workload.Load().Generation != w.Generation) {
		// A new container (another port, a command's new revision) boots
		// anew.
		s.stop(name, cur)
		cur = nil
	}
	if w == nil {
		return
	}
	if cur != nil {
		cur.workload.Store(w)
		return
	}
	addr, ok := s.allocate(name)
	if !ok {
		s.cfg.Log.Warn("Cloud Run service not served: no address left", "service", name, "range", s.cfg.Range.String())
		return
	}
	sv := &served{addr: netip.AddrPortFrom(addr, uint16(w.Port))}
	sv.workload.Store(w)
	s.services[name] = sv
	sv.stop = s.cfg.AfterFunc(s.cfg.Boot, func() { s.start(name, sv) })
}

// allocate gives name the first free address of the range. It runs under
// s.mu.
func (s *Serving) allocate(name string) (netip.Addr, bool) {
	for a := s.cfg.Range.Addr().Next(); s.cfg.Range.Contains(a); a = a.Next() {
		if _, taken := s.used[a]; !taken {
			s.used[a] = name
			return a, true
		}
	}
	return netip.Addr{}, false
}

// runs tells whether w runs its user's command.
func (s *Serving) runs(w *Workload) bool { return s.cfg.Commands && w.Command != "" }

// start listens for sv once booted (or runs its command), unless it was
// stopped meanwhile.
func (s *Serving) start(name string, sv *served) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.services[name] != sv {
		return
	}
	if w := sv.workload.Load(); s.runs(w) {
		sv.proc = control.StartProcess(w.Command, commandEnv(w, sv.addr), s.cfg.Log, "service", name, "addr", sv.addr.String())
		sv.serving.Store(true)
		s.cfg.OnState(name, sv.addr.String(), "BOOTING", "SERVING")
		go s.cfg.OnChange()
		return
	}
	ln, err := net.Listen("tcp", sv.addr.String())
	if err != nil {
		sv.err = err.Error()
		if errors.Is(err, fs.ErrPermission) {
			sv.err += " (ports below 1024 need root, CAP_NET_BIND_SERVICE or sysctl net.ipv4.ip_unprivileged_port_start)"
		}
		s.cfg.Log.Warn("Cloud Run service not served", "service", name, "addr", sv.addr.String(), "error", sv.err)
		s.cfg.OnState(name, sv.addr.String(), "BOOTING", "FAILED")
		return
	}
	sv.srv = &http.Server{Handler: s.handler(sv), ReadHeaderTimeout: 10 * time.Second}
	go sv.srv.Serve(ln) //nolint:errcheck // returns when the service stops
	sv.serving.Store(true)
	s.cfg.Log.Info("Cloud Run service serving", "service", name, "addr", sv.addr.String())
	s.cfg.OnState(name, sv.addr.String(), "BOOTING", "SERVING")
	go s.cfg.OnChange()
}

// stop ends sv and frees its address. It runs under s.mu.
func (s *Serving) stop(name string, sv *served) {
	if sv.stop != nil {
		sv.stop()
	}
	if sv.srv != nil {
		sv.srv.Close()
	}
	if sv.proc != nil {
		sv.proc.Stop()
	}
	delete(s.services, name)
	delete(s.used, sv.addr.Addr())
	from := "BOOTING"
	if sv.err != "" {
		from = "FAILED"
	}
	if sv.serving.Swap(false) {
		from = "SERVING"
		s.cfg.Log.Info("Cloud Run service stopped", "service", name, "addr", sv.addr.String())
		go s.cfg.OnChange()
	}
	s.cfg.OnState(name, sv.addr.String(), from, "STOPPED")
}

// commandEnv is what a service's command is told, as Cloud Run tells a
// container (PORT, K_SERVICE, K_REVISION), with where to listen
// (LBHEALTH_ADDRESS) and the container's own variables.
func commandEnv(w *Workload, addr netip.AddrPort) []string {
	rev := ""
	if len(w.Revisions) > 0 {
		rev = w.Revisions[0].Revision
	}
	return append([]string{"PORT=" + strconv.Itoa(int(addr.Port())), "LBHEALTH_ADDRESS=" + addr.Addr().String(),
		"K_SERVICE=" + shortName(w.Service), "K_REVISION=" + rev, "K_CONFIGURATION=" + shortName(w.Service)}, w.Env...)
}

// Endpoint is where service name answers, once it serves.
func (s *Serving) Endpoint(name string) (netip.AddrPort, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sv := s.services[name]
	if sv == nil || !sv.serving.Load() {
		return netip.AddrPort{}, false
	}
	return sv.addr, true
}

// Booted tells whether service name's workload has finished booting
// (serving, or failed to): what Cloud Run's Ready waits for. A service
// not run (none by that name) has nothing to wait for.
func (s *Serving) Booted(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sv := s.services[name]
	return sv == nil || sv.serving.Load() || sv.err != ""
}

// Status is what a service's workload is doing, for the status page.
type Status struct {
	Service string `json:"service"`
	Address string `json:"address"`
	State   string `json:"state"` // BOOTING, SERVING, EXITED (a command) or FAILED
	Ingress string `json:"ingress"`
	Error   string `json:"error,omitempty"`
	// Command is the user's command the service runs, CommandState
	// whether it runs ("running, pid N") or how it ended; Note says why a
	// container's command does not run.
	Command      string `json:"command,omitempty"`
	CommandState string `json:"commandState,omitempty"`
	Note         string `json:"note,omitempty"`
}

// List reports every service's workload, by name.
func (s *Serving) List() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Status, 0, len(s.services))
	for _, name := range slices.Sorted(maps.Keys(s.services)) {
		sv := s.services[name]
		w := sv.workload.Load()
		st := Status{Service: name, Address: sv.addr.String(), State: "BOOTING", Ingress: w.Ingress, Error: sv.err}
		if w.Command != "" && !s.cfg.Commands {
			st.Note = "the container's " + CommandEnv + " does not run: the emulator was started without --workload-commands"
		}
		switch {
		case sv.proc != nil:
			st.Command, st.CommandState, st.State = sv.proc.Line, sv.proc.State(), "SERVING"
			if sv.proc.Ended() {
				st.State = "EXITED"
			}
		case sv.serving.Load():
			st.State = "SERVING"
		case sv.err != "":
			st.State = "FAILED"
		}
		out = append(out, st)
	}
	return out
}

// Close stops every service, and waits for the commands to end.
func (s *Serving) Close() {
	s.mu.Lock()
	s.closed = true
	var ends []<-chan struct{}
	for name, sv := range s.services {
		if sv.proc != nil {
			ends = append(ends, sv.proc.Done())
		}
		s.stop(name, sv)
	}
	s.mu.Unlock()
	for _, done := range ends { // bounded: Stop kills after a while
		<-done
	}
}

// Sources of a request, as ingress settings tell them apart.
const (
	fromDirect   = "direct"
	fromInternal = "internal"
	fromExternal = "external"
)

// from is where a request with ViaHeader value via came from.
func (s *Serving) from(via string) string {
	switch {
	case via == "":
		return fromDirect
	case subtle.ConstantTimeCompare([]byte(via), []byte(s.viaInternal)) == 1:
		return fromInternal
	case subtle.ConstantTimeCompare([]byte(via), []byte(s.viaExternal)) == 1:
		return fromExternal
	}
	return fromDirect
}

// admits says whether ingress lets a request from src in. Internal
// traffic here is an internal Application Load Balancer's: the emulator
// has no VPC a direct request could come from.
func admits(ingress, src string) bool {
	switch ingress {
	case IngressAll, "":
		return true
	case IngressInternalOnly:
		return src == fromInternal
	case IngressInternalLoadBalancer:
		return src != fromDirect
	}
	return false
}

// notFoundPage is what Cloud Run answers a request its ingress setting
// refuses, or for a tag it does not have.
const notFoundPage = "<!DOCTYPE html>\n<title>Error 404 (Not Found)</title>\n<p><b>404.</b> <ins>That’s an error.</ins>\n" +
	"<p>The requested URL was not found on this server. <ins>That’s all we know.</ins>\n"

// handler answers sv's requests: the revision the traffic split picks
// names itself, as a container's own page would.
func (s *Serving) handler(sv *served) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, tag, _ := strings.Cut(r.Header.Get(ViaHeader), " ")
		src := s.from(token)
		r.Header.Del(ViaHeader)
		wl := sv.workload.Load()
		rev := wl.pick()
		if src != fromDirect && tag != "" {
			rev = wl.Tags[tag]
		}
		if !admits(wl.Ingress, src) || rev == "" {
			w.Header().Set("Content-Type", "text/html; charset=UTF-8")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, notFoundPage)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Cloud-Run-Revision", rev)
		fmt.Fprintf(w, "ok %s revision %s at %s\n", shortName(wl.Service), rev, net.JoinHostPort(sv.addr.Addr().String(), strconv.Itoa(int(sv.addr.Port()))))
	})
}

// pick chooses a revision by the traffic split.
func (w *Workload) pick() string {
	n := mathrand.Int64N(100)
	for _, sp := range w.Revisions {
		if n < sp.Percent {
			return sp.Revision
		}
		n -= sp.Percent
	}
	if len(w.Revisions) > 0 {
		return w.Revisions[len(w.Revisions)-1].Revision
	}
	return ""
}

// shortName is the last segment of a resource name.
func shortName(name string) string { return name[strings.LastIndex(name, "/")+1:] }
