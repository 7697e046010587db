// Package emulator runs lbhealth-emulator: the REST API over a store. It is
// a library first, so that tests (the provider's acceptance tests among
// them) start an emulator in process, and the lbhealth-emulator command is a
// thin main around it.
package emulator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/aggregate"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/certificatemanager"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/dataplane"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/firewall"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/iam"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/iap"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/kms"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/plan"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/resourcemanager"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/run"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/scenario"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/statuspage"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/storage"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/vpcaccess"
)

// DefaultListen is where the emulator listens unless told otherwise:
// loopback, so that nothing outside the machine reaches it by accident.
const DefaultListen = "127.0.0.1:8686"

// DatabaseFile is the name of the database inside the data directory.
const DatabaseFile = "lbhealth.db"

// Config says how to start an emulator.
type Config struct {
	// Listen is host:port; "127.0.0.1:0" picks a free port. Empty means
	// DefaultListen.
	Listen string
	// DataDir holds the database; ignored when InMemory is set.
	DataDir string
	// InMemory keeps nothing across restarts.
	InMemory bool
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Probers is how many independent probers probe each endpoint; 0 means 1.
	Probers int
	// ProbeNetworks are the networks whose addresses may be probed; nil
	// means DefaultProbeNetworks (loopback).
	ProbeNetworks []netip.Prefix
	// ProbeMap probes the endpoints of a real configuration's addresses
	// (10.128.0.2 in a subnetwork's range) at local ones, prefix for prefix
	// (with 10.0.0.0/8=127.0.0.0/8, at 127.128.0.2), so that a real
	// configuration probes local servers unedited. The address probed must
	// be within ProbeNetworks.
	ProbeMap plan.ProbeMap
	// AllowedHosts are the names, besides IP addresses and localhost, that
	// API requests may carry in their Host header.
	AllowedHosts []string
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every API call; /healthz, /metrics and the status page stay open.
	Token string
	// Limits bound the API's connections; zero fields take DefaultLimits.
	Limits Limits
	// StrictFields refuses request bodies with fields the Compute API does
	// not define; by default they are ignored, as the API ignores them.
	StrictFields bool
	// NoDefaultNetwork leaves projects without the network the cloud gives
	// a new one (default, auto mode, with its subnetworks and firewall
	// rules); by default a project gets it the first time it is used.
	NoDefaultNetwork bool
	// ManagedInstanceRange is where the instances of managed instance
	// groups get their addresses, so that local servers bound there answer
	// for them; the zero value is core.DefaultManagedInstanceRange
	// (127.1.0.0/16). It must be IPv4, /30 or larger, and probed
	// (within ProbeNetworks).
	ManagedInstanceRange netip.Prefix
	// OperationsTTL and OperationsMax bound how long and how many
	// operations are kept (oldest dropped first); zero means
	// core.DefaultOperationsTTL (1h) and DefaultOperationsMax (10,000).
	OperationsTTL time.Duration
	OperationsMax int
	// CertificateProvisioning is how long a managed SSL certificate stays
	// PROVISIONING before it is ACTIVE; zero means
	// core.DefaultCertificateProvisioning (5s).
	CertificateProvisioning time.Duration
	// NodeID and NodeRole are who this emulator is among the nodes of a
	// cluster, as EXPRESSION checks see it (node.id, node.role); empty
	// means the host's name and MASTER. The role is MASTER or BACKUP.
	NodeID, NodeRole string
	// Firewalls says what the firewall rules of a backend's network do to
	// probing: plan.FirewallsOff (nothing), FirewallsWarn (the default:
	// getHealth and the status page say when the cloud's probers would be
	// blocked) or FirewallsEnforce (such a backend is UNHEALTHY with reason
	// FIREWALL_BLOCKED, as in the cloud).
	Firewalls plan.FirewallMode
	// Universe is the cloud whose probers' source ranges the rules are
	// checked against: firewall.GoogleCloud (the default) or firewall.S3NS.
	Universe firewall.Universe
	// ProbeMultiplicity probes each backend once per interval per prober
	// for every forwarding rule or target proxy that uses its service, as
	// the cloud does; by default once.
	ProbeMultiplicity bool
	// DataPlane carries traffic: every forwarding rule whose address is on
	// loopback (after ProbeMap) gets a listener that sends to HEALTHY
	// backends as its load balancer does (package dataplane). Off by
	// default here; the command turns it on (--data-plane).
	DataPlane bool
	// NoBackendHeader leaves the X-Lbhealth-Backend header out of the data
	// plane's answers.
	NoBackendHeader bool
	// BucketDir holds a directory per backend bucket, named as its
	// bucketName, whose files the data plane serves as its objects.
	BucketDir string
	// DataPlaneMaxConnections caps the client connections of every
	// data-plane listener together, DataPlaneMaxConnectionsPerListener
	// those of each; zero: dataplane.DefaultMaxConnections() and
	// dataplane.DefaultMaxConnectionsPerListener.
	DataPlaneMaxConnections, DataPlaneMaxConnectionsPerListener int
	// SelfLinkRoot starts the self links and references the API answers
	// with, as the Compute API's own service root does
	// (GoogleSelfLinkRoot); empty: the emulator's own URL
	// (http://127.0.0.1:8686/compute/v1/). The command gives Google's.
	SelfLinkRoot string
	// Workloads runs a simulated workload at the address of every instance
	// the emulator gave a loopback address (package control): a server on
	// each port its health checks probe and its load balancers send
	// traffic to, as the instance's own web server would. Off by default
	// here; the command turns it on (--workloads).
	Workloads bool
	// WorkloadBoot is how long an instance boots before its workload
	// answers, unless its metadata says otherwise
	// (api.MetadataBootSeconds); zero answers at once.
	WorkloadBoot time.Duration
	// TimeScale, above 1, runs the emulator's own times that many times
	// faster, for tests: health checks' intervals and timeouts (the probes
	// stay real), autohealing's initial delays and recreation, managed
	// certificates' provisioning, instances' boot, and the steps of
	// scenarios. 0 and 1 keep real time; at most MaxTimeScale.
	TimeScale float64
	// WorkloadCommands runs an instance's metadata
	// lbhealth-workload-command as its workload, instead of the simulated
	// servers. Off by default: whoever can call the API can then run
	// commands on this machine.
	WorkloadCommands bool
}

// MaxTimeScale is the fastest the emulator's times run (Config.TimeScale):
// a 1 s interval then still gives a probe 10 ms.
const MaxTimeScale = 100

// Node roles, as EXPRESSION checks see them.
const (
	RoleMaster = "MASTER"
	RoleBackup = "BACKUP"
)

// Validate checks every value of c as given, zero fields included (Start
// fills the zero fields with their defaults first, then checks). Its
// messages name the lbhealth-emulator flag that sets each field.
func (c Config) Validate() error {
	var errs []error
	if c.Probers < 1 || c.Probers > 16 {
		errs = append(errs, fmt.Errorf("--probers %d: want 1 to 16", c.Probers))
	}
	if c.DataPlaneMaxConnections < 0 {
		errs = append(errs, fmt.Errorf("--data-plane-max-connections %d: want at least 1 (0: the default)", c.DataPlaneMaxConnections))
	}
	if c.DataPlaneMaxConnectionsPerListener < 0 {
		errs = append(errs, fmt.Errorf("--data-plane-max-connections-per-listener %d: want at least 1 (0: the default)", c.DataPlaneMaxConnectionsPerListener))
	}
	if c.Limits.MaxConnections < 1 {
		errs = append(errs, fmt.Errorf("--max-connections %d: want at least 1", c.Limits.MaxConnections))
	}
	if c.SelfLinkRoot != "" {
		if u, err := url.Parse(c.SelfLinkRoot); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
			!strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/compute/v1") || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("--self-link-root %q: want an http(s) URL ending with /compute/v1/, such as %s", c.SelfLinkRoot, GoogleSelfLinkRoot))
		}
	}
	if c.TimeScale < 0 || c.TimeScale > MaxTimeScale || math.IsNaN(c.TimeScale) {
		errs = append(errs, fmt.Errorf("--time-scale %g: want 1 (real time) to %d (that many times faster)", c.TimeScale, MaxTimeScale))
	}
	if c.WorkloadBoot < 0 || c.WorkloadBoot > time.Hour {
		errs = append(errs, fmt.Errorf("--workload-boot %s: want 0 (at once) to 1h", c.WorkloadBoot))
	}
	if c.OperationsTTL < time.Second {
		errs = append(errs, fmt.Errorf("--operations-ttl %s: want at least 1s (clients read an operation right after the call that returned it)", c.OperationsTTL))
	}
	if c.OperationsMax < 1 {
		errs = append(errs, fmt.Errorf("--operations-max %d: want at least 1", c.OperationsMax))
	}
	for _, l := range []struct {
		name string
		d    time.Duration
	}{{"read-header timeout", c.Limits.ReadHeaderTimeout}, {"read timeout", c.Limits.ReadTimeout},
		{"write timeout", c.Limits.WriteTimeout}, {"idle timeout", c.Limits.IdleTimeout}} {
		if l.d < 0 {
			errs = append(errs, fmt.Errorf("Limits: the %s (%s) must not be negative", l.name, l.d))
		}
	}
	if r := c.ManagedInstanceRange; r.IsValid() && (!r.Addr().Is4() || r.Bits() > 30) {
		errs = append(errs, fmt.Errorf("--managed-instance-range %s: want an IPv4 range of /30 or larger, such as 127.1.0.0/16", r))
	} else if r.IsValid() && r.Overlaps(compute.RuleAddressRange) {
		errs = append(errs, fmt.Errorf("--managed-instance-range %s overlaps %s, where forwarding rules without an IPAddress get theirs: "+
			"choose a range outside it, such as 127.1.0.0/16", r, compute.RuleAddressRange))
	}
	if c.NodeRole != RoleMaster && c.NodeRole != RoleBackup {
		errs = append(errs, fmt.Errorf("--node-role %q: want %s or %s", c.NodeRole, RoleMaster, RoleBackup))
	}
	if _, err := plan.ParseFirewallMode(string(c.Firewalls)); err != nil {
		errs = append(errs, fmt.Errorf("--firewalls %w", err))
	}
	if c.Universe != firewall.GoogleCloud && c.Universe != firewall.S3NS {
		errs = append(errs, fmt.Errorf("--universe %q: want %s or %s", c.Universe, firewall.GoogleCloud, firewall.S3NS))
	}
	if !c.InMemory && c.DataDir == "" {
		errs = append(errs, errors.New("no data directory: set --data-dir, or --in-memory to keep nothing"))
	}
	return errors.Join(errs...)
}

// withDefaults fills the zero fields of c with their defaults.
func (c Config) withDefaults() Config {
	c.Listen = cmp.Or(c.Listen, DefaultListen)
	c.Probers = cmp.Or(c.Probers, 1)
	c.NodeRole = cmp.Or(c.NodeRole, RoleMaster)
	c.Firewalls = cmp.Or(c.Firewalls, plan.FirewallsWarn)
	c.Universe = cmp.Or(c.Universe, firewall.GoogleCloud)
	if c.NodeID == "" {
		c.NodeID, _ = os.Hostname()
	}
	c.Limits = c.Limits.withDefaults()
	c.OperationsTTL = cmp.Or(c.OperationsTTL, core.DefaultOperationsTTL)
	c.OperationsMax = cmp.Or(c.OperationsMax, core.DefaultOperationsMax)
	if c.ProbeNetworks == nil {
		c.ProbeNetworks = DefaultProbeNetworks
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Limits bound what clients of the API may hold: how long a request may
// take to arrive and its answer to leave, how long an idle connection is
// kept, and how many connections are open at once.
type Limits struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	MaxConnections    int
}

// DefaultLimits are generous for the emulator's clients (Terraform, test
// suites, curl) on loopback, whose requests are small (at most 1 MiB) and
// answered in milliseconds, and short enough that clients which open
// connections and stall (by accident or on purpose) cannot hold descriptors
// and memory for long: a request's headers must arrive in 10 s and all of
// it in 30 s; its answer must be written within 60 s of the headers
// arriving (no handler streams or waits for long); an idle keep-alive
// connection is closed after 2 minutes, longer than a Terraform run's
// pauses between calls (the provider drops its own after 90 s, first).
// At most 1,024 connections are open at once: a client that comes when all
// are taken gets the place of the one idle longest (idleFirstListener), and
// waits in the kernel's accept queue only while all are busy.
var DefaultLimits = Limits{
	ReadHeaderTimeout: 10 * time.Second,
	ReadTimeout:       30 * time.Second,
	WriteTimeout:      60 * time.Second,
	IdleTimeout:       120 * time.Second,
	MaxConnections:    1024,
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	return Limits{
		ReadHeaderTimeout: cmp.Or(l.ReadHeaderTimeout, d.ReadHeaderTimeout),
		ReadTimeout:       cmp.Or(l.ReadTimeout, d.ReadTimeout),
		WriteTimeout:      cmp.Or(l.WriteTimeout, d.WriteTimeout),
		IdleTimeout:       cmp.Or(l.IdleTimeout, d.IdleTimeout),
		MaxConnections:    cmp.Or(l.MaxConnections, d.MaxConnections),
	}
}

// Emulator is a running emulator.
type Emulator struct {
	listener   net.Listener
	http       *http.Server
	store      store.Store
	engine     *health.Engine
	aggregator *aggregate.Aggregator
	timeline   *timeline.Timeline
	// clock is the emulator's time, which fast-forwards move.
	clock *clock.Clock
	// core is what every API writes through.
	core *core.Core
	// healer, scaler and certs are autohealing, autoscaling and the
	// provisioning of managed certificates.
	healer *control.Autohealer
	scaler *control.Autoscaler
	certs  *control.Certificates
	// objects is Cloud Storage, beside the Compute API.
	objects *storage.Service
	// serving runs Cloud Run's services (nil without simulated
	// workloads).
	serving *run.Serving
	// views are the status page and the timeline's endpoints.
	views         *statuspage.Page
	scenarios     *scenario.Runner
	api           *httpapi.Server
	plane         *dataplane.Plane   // nil without a data plane
	workloads     *control.Workloads // nil without simulated workloads
	state         *syncState         // what sync keeps between writes
	probeNetworks []netip.Prefix
	probeMap      plan.ProbeMap
	firewalls     plan.FirewallMode
	universe      firewall.Universe
	multiplicity  bool
	dataPath      string
	served        chan error
	// stopHealing ends autohealing; healed is closed once it has.
	stopHealing context.CancelFunc
	healed      chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Start opens the store, listens and serves until Close. The zero fields of
// cfg take their defaults; a value Validate refuses is an error.
func Start(ctx context.Context, cfg Config) (*Emulator, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log, listen := cfg.Logger, cfg.Listen
	st, dataPath, err := openStore(cfg, log)
	if err != nil {
		return nil, err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listen)
	if err != nil {
		st.Close()
		hint := "want host:port, such as 127.0.0.1:8686"
		if errors.Is(err, syscall.EADDRINUSE) {
			hint = "is another emulator running? pick another address with --listen"
		}
		return nil, fmt.Errorf("listen on %s: %w (%s)", listen, err, hint)
	}
	if err := checkCommandsExposure(ln.Addr(), cfg); err != nil {
		ln.Close()
		st.Close()
		return nil, err
	}
	e := &Emulator{listener: ln, store: st, dataPath: dataPath, served: make(chan error, 1), probeNetworks: cfg.ProbeNetworks,
		probeMap: cfg.ProbeMap, firewalls: cfg.Firewalls, universe: cfg.Universe,
		multiplicity: cfg.ProbeMultiplicity}
	api, err := e.startEngine(ctx, cfg, log)
	if err != nil {
		ln.Close()
		st.Close()
		return nil, err
	}
	warnIfExposed(log, ln.Addr(), cfg.Token)
	limits := cfg.Limits
	e.http = &http.Server{
		Handler:           api,
		ReadHeaderTimeout: limits.ReadHeaderTimeout,
		ReadTimeout:       limits.ReadTimeout,
		WriteTimeout:      limits.WriteTimeout,
		IdleTimeout:       limits.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// The status page's and the timeline's streams never go idle:
	// Shutdown must end them.
	e.http.RegisterOnShutdown(e.views.StopStreams)
	limited := newIdleFirstListener(ln, limits.MaxConnections)
	e.http.ConnState = limited.track
	go func() { e.served <- e.http.Serve(limited) }()
	healCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e.stopHealing, e.healed = stop, make(chan struct{})
	go func() {
		defer close(e.healed)
		var wg sync.WaitGroup
		wg.Go(func() { e.scaler.Run(healCtx, e.clock.Scale(scaleTick)) })
		e.healer.Run(healCtx, healTick)
		wg.Wait()
	}()
	return e, nil
}

// groupRequests is what autoscalers measure of the data plane: nil
// without one.
func (e *Emulator) groupRequests() func(string) int64 {
	if e.plane == nil {
		return nil
	}
	return e.plane.GroupRequests
}

// traffic is what the status page reads of the data plane: nil without
// one (a nil *Plane in the interface would not be nil).
func (e *Emulator) traffic() statuspage.TrafficReader {
	if e.plane == nil {
		return nil
	}
	return e.plane
}

// GoogleSelfLinkRoot is the Compute API's service root in Google's
// default universe: how its self links begin.
const GoogleSelfLinkRoot = "https://www.googleapis.com/compute/v1/"

// workloadControl is how the API reads and changes workloads: nil without
// them.
func (e *Emulator) workloadControl() httpapi.WorkloadControl {
	if e.workloads == nil {
		return nil
	}
	return e.workloads
}

// cloudRunStatus is what the status page reads of Cloud Run's services
// (nil without simulated workloads).
func (e *Emulator) cloudRunStatus() interface{ List() []run.Status } {
	if e.serving == nil {
		return nil
	}
	return e.serving
}

// zoneWorkloads is what scenarios change of the workloads.
type zoneWorkloads struct{ w *control.Workloads }

func (z zoneWorkloads) SetMode(path, mode string) error { return z.w.SetMode(path, targets.Mode(mode)) }

func (z zoneWorkloads) InZone(zone string) []string {
	var out []string
	for _, st := range z.w.List() {
		if strings.HasPrefix(st.Instance, zone+"/instances/") {
			out = append(out, st.Instance)
		}
	}
	return out
}

// workloadEligible says which instance addresses get a simulated
// workload: IPv4 loopback ones, which the emulator gives out (127.0.1.1 and
// up for instances outside a subnetwork, the managed-instance range) or a
// probe map moves addresses to, never 127.0.0.0/24, where the emulator and
// the user's own servers listen.
func workloadEligible(a netip.Addr) bool {
	return a.Is4() && a.IsLoopback() && !userLoopback.Contains(a)
}

var userLoopback = netip.MustParsePrefix("127.0.0.0/24")

// statusEvents is how many transitions the status page can list.
const statusEvents = 200

// scaleTick is how often the autoscalers measure their groups' load (at
// time scale 1).
const scaleTick = time.Second

// healTick is how often autohealing looks at the managed groups.
const healTick = 250 * time.Millisecond

// warnIfExposed warns when the API listens beyond loopback with no token:
// anyone who can connect may then change every resource, and make the
// emulator probe whatever --probe-networks allows.
func warnIfExposed(log *slog.Logger, addr net.Addr, token string) {
	if token != "" || !beyondLoopback(addr) {
		return
	}
	log.Warn("the API listens beyond loopback with no token: anyone who can connect to it may create, change and "+
		"delete every resource and make the emulator send probes; set --token or LBHEALTH_TOKEN (the provider's "+
		"token attribute or LBHEALTH_TOKEN then sends it), or listen on 127.0.0.1",
		"listen", addr.String())
}

// beyondLoopback tells whether the API's listener at addr takes
// connections from beyond this machine.
func beyondLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && !tcp.IP.IsLoopback()
}

// checkCommandsExposure refuses workload commands on an API that anyone
// beyond this machine can call without a token: with them, the API runs
// shell commands (an instance's metadata) as this user, so an open API
// would be remote command execution. On loopback the API is for this
// machine's users (and its guard keeps web pages off); beyond it, the token
// is what stands between a stranger and a shell. When they may run, the
// log says so.
func checkCommandsExposure(addr net.Addr, cfg Config) error {
	if !cfg.WorkloadCommands {
		return nil
	}
	if beyondLoopback(addr) && cfg.Token == "" {
		return fmt.Errorf("--workload-commands: the API listens on %s, beyond loopback, with no token, and would run any "+
			"instance's lbhealth-workload-command as a shell command on this machine for whoever can connect: "+
			"set --token (or LBHEALTH_TOKEN), or listen on 127.0.0.1", addr)
	}
	cfg.Logger.Warn("workload commands are on: whoever can call the API can run shell commands on this machine as this "+
		"user (an instance's lbhealth-workload-command metadata)", "listen", addr.String(), "token", cfg.Token != "")
	return nil
}

// startEngine builds the probe engine and the API around it, and resumes
// probing whatever the store holds.
func (e *Emulator) startEngine(ctx context.Context, cfg Config, log *slog.Logger) (*httpapi.Server, error) {
	reg := prometheus.NewRegistry()
	events := health.NewEvents(statusEvents)
	e.clock = clock.New(cfg.TimeScale)
	e.timeline = timeline.New(timeline.Capacity)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Cloud Storage first: backend buckets serve its objects. IAM keeps
	// every API's IAM policies, its buckets' too.
	policies := iam.New(e.store)
	objects, err := storage.New(storage.Options{Dir: storageDir(cfg), RootURL: e.URL(), Store: e.store, Policies: policies, Now: e.clock.Now})
	if err != nil {
		return nil, err
	}
	e.objects = objects
	e.engine = health.New(health.Config{Probers: cfg.Probers, Log: log, Metrics: health.NewMetrics(reg), Scale: e.clock.Scale,
		Node: prober.Node{ID: cfg.NodeID, Role: cfg.NodeRole},
		OnTransition: func(tr health.Transition) {
			// The endpoint's change first, then what it moves.
			e.timeline.Add(timeline.Event{Time: e.clock.At(tr.Since), Kind: timeline.KindEndpoint, Resource: tr.Owner, Group: tr.Group,
				Endpoint: tr.Address(), Check: tr.Check, From: tr.From, To: tr.State, Reason: tr.Reason, Detail: tr.Detail,
				LatencyMs: float64(tr.Latency.Microseconds()) / 1000})
			e.aggregator.OnTransition(tr)
			if e.plane != nil {
				e.plane.OnTransition(tr)
			}
			events.Add(tr)
		}})
	if cfg.DataPlane {
		e.plane = dataplane.New(dataplane.Options{Health: e.engine, Log: log, Registerer: reg,
			Allowed: e.probeAllowed, MapAddr: e.mapAddr, NoBackendHeader: cfg.NoBackendHeader, BucketDir: cfg.BucketDir, Objects: bucketObjects{e.objects},
			MaxConnections: cfg.DataPlaneMaxConnections, MaxConnectionsPerListener: cfg.DataPlaneMaxConnectionsPerListener,
			Serverless: cloudRunServing{e}, Clock: e.clock, OnBan: func(b dataplane.Ban) {
				e.timeline.Add(timeline.Event{Time: b.Since, Kind: timeline.KindArmor, Resource: b.Policy, Endpoint: b.Key,
					From: "ALLOWED", To: "BANNED", Cause: b.Cause,
					Detail: fmt.Sprintf("rule %d bans until %s", b.Priority, b.Until.UTC().Format(time.RFC3339))})
			}})
	}
	if cfg.Workloads {
		// Cloud Run's services run as instances' workloads do, and a
		// serverless NEG's pool follows them.
		e.serving = run.NewServing(run.ServingConfig{Boot: e.clock.Scale(cfg.WorkloadBoot), AfterFunc: e.clock.AfterFunc, Log: log,
			Commands: cfg.WorkloadCommands,
			OnState: func(service, addr, from, to string) {
				e.timeline.Add(timeline.Event{Time: e.clock.Now(), Kind: timeline.KindCloudRun, Resource: service, Endpoint: addr, From: from, To: to})
			},
			OnChange: func() {
				if e.plane != nil {
					e.plane.ServerlessChanged()
				}
			}})
		e.workloads = control.NewWorkloads(control.WorkloadConfig{Eligible: workloadEligible, Boot: e.clock.Scale(cfg.WorkloadBoot), Now: e.clock.Now, Log: log,
			Commands: cfg.WorkloadCommands})
	}
	e.aggregator = aggregate.NewAggregator(e.engine, log, reg)
	e.aggregator.RecordTo(e.timeline, e.clock.Now)
	var workloads scenario.Workloads
	if e.workloads != nil {
		workloads = zoneWorkloads{e.workloads}
	}
	e.scenarios = scenario.NewRunner(workloads, e.timeline, e.clock)
	health.RegisterStateGauge(reg, e.engine)
	writes := core.New(e.store, core.Options{Now: e.clock.Now, Log: log, OperationsTTL: cfg.OperationsTTL, OperationsMax: cfg.OperationsMax,
		OnChange: func(ctx context.Context, changes []core.Change) {
			if err := e.sync(ctx, changes); err != nil {
				log.Error("probe engine not updated", "error", err)
			}
		}})
	e.core = writes
	// The Compute API over the core, and the HTTP layer that serves it.
	computeAPI := compute.NewService(writes, compute.Options{
		LinkRoot:             compute.LinkRoot(e.URL(), cfg.SelfLinkRoot),
		Log:                  log,
		Health:               e.engine,
		Aggregates:           e.aggregator,
		StrictFields:         cfg.StrictFields,
		DefaultNetwork:       !cfg.NoDefaultNetwork,
		ManagedInstanceRange: cfg.ManagedInstanceRange,
		Actions:              func(instance string) string { return e.healer.Action(instance) },
	})
	srv := httpapi.New(e.store, httpapi.Options{
		Core:        writes,
		Compute:     computeAPI,
		RootURL:     e.URL(),
		Log:         log,
		Scenarios:   e.scenarios,
		FastForward: e.FastForward,
		Workloads:   e.workloadControl(),
		Metrics:     promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		Access:      httpapi.Access{AllowedHosts: cfg.AllowedHosts, Token: cfg.Token},
		Clock:       e.clock,
		TimeScale:   e.clock.Factor(),
	})
	// What the cloud does by itself with managed groups: autohealing and
	// autoscaling, on the emulator's clock, through the API's rules.
	e.healer = control.NewAutohealer(computeAPI.ManagedGroups(), e.clock, log)
	e.healer.RecordTo(e.timeline)
	e.scaler = control.NewAutoscaler(computeAPI.ScaledGroups(), e.groupRequests(), e.clock, log)
	e.scaler.RecordTo(e.timeline)
	// And with managed certificates: ACTIVE after their provisioning time.
	e.certs = control.NewCertificates(e.clock.Scale(cfg.CertificateProvisioning), computeAPI.Update, e.clock, log)
	computeAPI.ProvisionWith(e.certs)
	// The APIs beside Compute, each a service of its own (googleapi.Service).
	cloudRun := run.New(e.store, policies, e.clock.Now)
	if e.serving != nil {
		if err := cloudRun.ServeWith(ctx, e.serving); err != nil {
			return nil, fmt.Errorf("resume Cloud Run's services: %w", err)
		}
	}
	srv.Mount(policies, resourcemanager.New(e.store, policies), iap.New(writes, policies), certificatemanager.New(writes), e.objects, kms.New(e.store, policies, e.clock.Now), cloudRun,
		vpcaccess.New(e.store))
	// The status page and the timeline, read-only views beside the APIs.
	e.views = statuspage.New(statuspage.Sources{Store: e.store, Health: e.engine, Aggregates: e.aggregator, Traffic: e.traffic(),
		Workloads: e.workloadControl(), CloudRun: e.cloudRunStatus(), Events: events, Timeline: e.timeline, TimeScale: e.clock.Factor(), Log: log, Now: e.clock.Now})
	srv.Mount(e.views)
	e.api = srv
	if err := e.sync(ctx, nil); err != nil {
		e.objects.Close()
		e.certs.Close()
		srv.Close()
		writes.Close()
		e.engine.Close()
		if e.dataPath != "" {
			// What is stored could not be read back: the file is damaged.
			return nil, databaseError(e.dataPath, fmt.Errorf("resume probing: %w", err))
		}
		return nil, fmt.Errorf("resume probing: %w", err)
	}
	return srv, nil
}

// bucketObjects is Cloud Storage as backend buckets read it
// (dataplane.Objects).
type bucketObjects struct{ s *storage.Service }

func (b bucketObjects) Bucket(ctx context.Context, bucket string) (dataplane.Website, bool) {
	main, notFound, ok := b.s.Website(ctx, bucket)
	return dataplane.Website{MainPageSuffix: main, NotFoundPage: notFound}, ok
}

func (b bucketObjects) Object(bucket, name string) (dataplane.StoredObject, bool) {
	o, ok := b.s.Read(bucket, name)
	return dataplane.StoredObject{Content: o.Content, ContentType: o.ContentType, CacheControl: o.CacheControl,
		ContentEncoding: o.ContentEncoding, ETag: o.ETag, Updated: o.Updated}, ok
}

// cloudRunServing is Cloud Run as serverless NEGs reach it
// (dataplane.Serverless).
type cloudRunServing struct{ e *Emulator }

func (c cloudRunServing) CloudRun(project, region, service string) (string, bool) {
	if c.e.serving == nil {
		return "", false
	}
	addr, ok := c.e.serving.Endpoint("projects/" + project + "/locations/" + region + "/services/" + service)
	return addr.String(), ok
}

func (c cloudRunServing) Via(external bool) (string, string) {
	if c.e.serving == nil {
		return run.ViaHeader, ""
	}
	return run.ViaHeader, c.e.serving.Via(external)
}

// storageDir is where Cloud Storage keeps buckets and objects: beside the
// database in cfg.DataDir, or "" (memory) with cfg.InMemory.
func storageDir(cfg Config) string {
	if cfg.InMemory {
		return ""
	}
	return filepath.Join(cfg.DataDir, "storage")
}

// openStore opens the SQLite file in cfg.DataDir, or a memory store.
func openStore(cfg Config, log *slog.Logger) (store.Store, string, error) {
	if cfg.InMemory {
		return store.NewMemory(), "", nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, "", fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(cfg.DataDir, DatabaseFile)
	// SQLite says "unable to open database file" whatever the reason:
	// trying the file first tells a matter of permissions apart.
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		f.Close()
	} else if errors.Is(err, fs.ErrPermission) {
		return nil, "", databaseError(path, fmt.Errorf("permission denied: the user running lbhealth-emulator must be able to read and write it"))
	}
	st, err := store.OpenSQLite(path, store.WithLogger(log))
	if err != nil {
		return nil, "", databaseError(path, err)
	}
	return st, path, nil
}

// databaseError says what to do about a database that cannot be opened or
// read: the store's own message ("database disk image is malformed") names
// neither the file nor a way out.
func databaseError(path string, err error) error {
	return fmt.Errorf("cannot use the database %s: %w.\n"+
		"If it is damaged or not an lbhealth database: restore it from a backup, or move it away "+
		"(mv %s %s.broken) to start with an empty one, or start with another --data-dir, or with --in-memory", path, err, path, path)
}

// Addr is the host:port the emulator listens on.
func (e *Emulator) Addr() string { return e.listener.Addr().String() }

// URL is the root URL of the emulator's API.
func (e *Emulator) URL() string { return "http://" + e.Addr() }

// FastForward moves the emulator d ahead, as if that much time had
// passed: it runs now, in order, the probes due in the next d, as real
// probes (health.Engine.FastForward), then moves the clock that
// autohealing, autoscaling, scenarios and the API's timestamps read, so
// that what waited for that time (an initial delay, a recreation, a
// scenario's later step, an instance's boot, a managed certificate's
// provisioning) comes at once. It returns how many probes ran.
func (e *Emulator) FastForward(ctx context.Context, d time.Duration) int {
	ran := e.engine.FastForward(ctx, d)
	e.clock.Skip(d)
	if e.workloads != nil {
		e.workloads.Reconcile() // boots that the skip ended
	}
	return ran
}

// Timeline is every change of state of endpoints, health sources,
// composite checks and managed instances since the emulator started.
func (e *Emulator) Timeline() *timeline.Timeline { return e.timeline }

// DataPath is the database file, or "" when the emulator keeps nothing.
func (e *Emulator) DataPath() string { return e.dataPath }

// shutdownGrace is how long Close lets requests in flight finish.
const shutdownGrace = 2 * time.Second

// Close stops serving (letting requests in flight finish for a few seconds)
// and closes the store. It is idempotent: later calls return the first
// call's result.
func (e *Emulator) Close() error {
	e.closeOnce.Do(func() { e.closeErr = e.close() })
	return e.closeErr
}

func (e *Emulator) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := e.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Requests still running after the grace period (or connections
		// that opened but never sent one, which Shutdown counts as busy
		// for 5 s) are cut: stopping must not hang on a client.
		err = e.http.Close()
	}
	if serr := <-e.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	e.stopHealing()
	<-e.healed
	e.scenarios.Close()
	e.certs.Close()
	e.api.Close()
	e.objects.Close()
	e.core.Close()
	if e.plane != nil {
		e.plane.Close()
	}
	if e.workloads != nil {
		e.workloads.Close()
	}
	if e.serving != nil {
		e.serving.Close()
	}
	e.engine.Close()
	return errors.Join(err, e.store.Close())
}
