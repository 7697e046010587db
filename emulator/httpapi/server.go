// Package httpapi serves the emulator's Compute-shaped REST API: the route
// table, one generic set of collection handlers, JSON decoding and errors.
//
// Handlers validate with package rules before anything is written, and every
// write happens under one mutex, so a request that fails has changed nothing
// and checks that span several objects (references, names) cannot race.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/aggregate"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/guard"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Server holds what the handlers share.
type Server struct {
	store   store.Store
	baseURL string // "http://127.0.0.1:8686/compute/v1/"
	log     *slog.Logger
	now     func() time.Time

	// core holds the write lock every mutation takes (check, then write,
	// atomically), the change feed each tells, and the operations kept;
	// ownCore: New made it, and Close closes it.
	core    *compute.Core
	ownCore bool
	// lastCreated is the newest creation time given, under the write lock.
	lastCreated time.Time
	mux         *http.ServeMux
	// holders are the collections whose objects reference others, and
	// refs who references what among their objects.
	holders    []holder
	refs       refIndex
	health     HealthReader
	aggregates AggregateReader
	workloads  WorkloadControl
	scenarios  ScenarioRunner
	forward    func(ctx context.Context, d time.Duration) int
	timeScale  string // the factor times run faster by, or ""
	metrics    http.Handler
	// requests remembers the answers to mutations that carried a requestId.
	requests requestIDs

	// strictFields refuses fields the API does not define, instead of
	// ignoring them; unknownLogged are those already logged.
	strictFields  bool
	unknownMu     sync.Mutex
	unknownLogged map[string]bool

	// defaultNetwork gives every project the cloud's default network the
	// first time a request names it; provisioned holds the projects done
	// in this run (the store holds them all).
	defaultNetwork bool
	provisioned    sync.Map // project name → true

	// managedPool is where the instances of managed groups get their
	// addresses; actions says what autohealing is doing with one (nil:
	// nothing).
	managedPool control.Pool
	actions     func(instance string) string
	// certs turns managed certificates ACTIVE.
	certs *control.Certificates

	// access checks every request before a handler runs (guard.go);
	// openPaths are those it lets read without the token.
	access    *guard.Guard
	openPaths map[string]bool
}

// changed finishes a successful mutation: it tells the engine and records
// the Operation that answers the client.
func (s *Server) changed(r *http.Request, sc scope, opType string, change compute.Change, targetID uint64) (*api.Operation, error) {
	// The change is stored: what follows must happen even if the client
	// has gone away meanwhile (Ctrl-C in Terraform).
	r = r.WithContext(context.WithoutCancel(r.Context()))
	s.indexRefs(r.Context(), change)
	if change.Unknown {
		s.core.Changed(r.Context(), []store.Key{change.Key})
	} else {
		s.core.Wrote(r.Context(), change)
	}
	return s.recordOperation(r, sc, opType, change.Key, targetID)
}

// HealthReader is what getHealth reads: the probe engine's verdicts.
type HealthReader interface {
	Statuses(owner string) []health.Status
}

// linkRoot is the root self links start with, ending with a slash.
func linkRoot(o Options) string {
	if o.LinkRoot != "" {
		return strings.TrimSuffix(o.LinkRoot, "/") + "/"
	}
	return strings.TrimSuffix(o.RootURL, "/") + "/compute/v1/"
}

// Options say how to build a Server. Only RootURL is required.
type Options struct {
	// RootURL is where the API is served: "http://127.0.0.1:8686".
	RootURL string
	// LinkRoot starts the self links and the references the API writes:
	// the Compute API's service root, "https://www.googleapis.com/compute/v1/",
	// which clients such as terraform-provider-google expect. Empty: the
	// API's own root, RootURL + "/compute/v1/". Every form is accepted on
	// input, whatever the root.
	LinkRoot string
	// Log receives the server's logs; nil discards them.
	Log *slog.Logger
	// Health is where getHealth reads endpoint health from, and
	// Aggregates where the getHealth of health sources and composite
	// checks reads; nil reports no verdicts yet.
	Health     HealthReader
	Aggregates AggregateReader
	// Scenarios runs chaos scenarios (/_emulator/scenarios); nil serves
	// none.
	Scenarios ScenarioRunner
	// FastForward moves the emulator d ahead (the probes due in the next
	// d run now, its clock skips d) and says how many probes ran
	// (POST /_emulator/fastForward); nil serves none.
	FastForward func(ctx context.Context, d time.Duration) int
	// Workloads are the instances' simulated workloads, which the API lists
	// and breaks or heals; nil when they are off.
	Workloads WorkloadControl
	// Metrics answers GET /metrics; nil answers 404.
	Metrics http.Handler
	// Core is the compute core the server writes through (its write lock,
	// its change feed), shared with the APIs beside Compute whose objects
	// Compute references; nil: a core of its own over the store, Now and
	// OnChange.
	Core *compute.Core
	// OnChange runs after every mutation (under the write lock, before the
	// answer is sent) with the keys it changed; nil keys mean that
	// everything may have changed (a reset). Only without Core.
	OnChange func(ctx context.Context, changes []compute.Change)
	// Access says who may use the API.
	Access Access
	// StrictFields refuses a body with a field the API does not define
	// (400 naming it), for users who want typos caught; by default such
	// fields are ignored, as the Compute API ignores them, and logged once.
	StrictFields bool
	// DefaultNetwork gives every project, the first time a request names
	// it, what the cloud gives a new project: the auto-mode network
	// default, its subnetworks and its default firewall rules.
	DefaultNetwork bool
	// ManagedInstanceRange is where the instances managed groups make get
	// their addresses (their first interface's networkIP), whatever their
	// subnetwork, so that local servers bound there answer their probes;
	// the zero value means DefaultManagedInstanceRange.
	ManagedInstanceRange netip.Prefix
	// OperationsTTL and OperationsMax bound how long and how many
	// operations are kept; zero means DefaultOperationsTTL and
	// DefaultOperationsMax. Only without Core (the core's own say).
	OperationsTTL time.Duration
	OperationsMax int
	// CertificateProvisioning is how long a managed certificate stays
	// PROVISIONING; zero means DefaultCertificateProvisioning.
	CertificateProvisioning time.Duration
	// Clock is the emulator's clock (package clock): what it stamps and
	// what managed certificates' provisioning waits on. nil: Now, and
	// the wall clock.
	Clock control.Sleeper
	// Now is the clock, when Clock is nil; nil means time.Now.
	Now func() time.Time
	// TimeScale, above 1, says the emulator runs its times that many times
	// faster: every answer says so (TimeScaleHeader). Provisioning times
	// are given scaled already.
	TimeScale health.TimeScale
	// Actions says what autohealing is doing with a managed instance (by
	// its path: RECREATING, VERIFYING, NONE); nil: nothing.
	Actions func(instance string) string
}

// TimeScaleHeader is on every answer of an emulator whose times run faster
// than real time: the factor.
const TimeScaleHeader = "X-Lbhealth-Time-Scale"

// New returns a Server over st, ready to serve: its routes registered, its
// reference index built and the stored operations loaded.
func New(st store.Store, o Options) *Server {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		store:      st,
		baseURL:    linkRoot(o),
		log:        log,
		now:        o.Now,
		mux:        http.NewServeMux(),
		health:     o.Health,
		aggregates: o.Aggregates,
		workloads:  o.Workloads,
		scenarios:  o.Scenarios,
		forward:    o.FastForward,

		metrics: o.Metrics,

		strictFields:   o.StrictFields,
		defaultNetwork: o.DefaultNetwork,
		unknownLogged:  map[string]bool{},
	}
	if s.now == nil && o.Clock != nil {
		s.now = o.Clock.Now
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.core = o.Core
	if s.core == nil {
		s.core, s.ownCore = compute.New(st, compute.Options{Now: s.now, OnChange: o.OnChange, Log: log,
			OperationsTTL: o.OperationsTTL, OperationsMax: o.OperationsMax}), true
	}
	s.managedPool = control.ManagedPool(o.ManagedInstanceRange)
	s.certs = control.NewCertificates(o.CertificateProvisioning, s.update, o.Clock, log)
	s.actions = o.Actions
	if o.TimeScale > 1 {
		s.timeScale = strconv.FormatFloat(float64(o.TimeScale), 'g', -1, 64)
	}
	s.setAccess(o.Access)
	s.routes()
	s.buildRefIndex()
	s.resumeProvisioning()
	return s
}

// ServeHTTP makes Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// A panic is a bug of ours; answer 500 rather than drop the
		// connection, and keep serving.
		if p := recover(); p != nil {
			s.log.Error("panic in handler", "method", r.Method, "path", r.URL.Path, "panic", p)
			s.writeError(w, r, googleapi.NewError(http.StatusInternalServerError, "backendError", "Internal error in the emulator."))
		}
	}()
	if s.timeScale != "" {
		w.Header().Set(TimeScaleHeader, s.timeScale)
	}
	if err := s.guard(r); err != nil {
		// Never the Authorization header: it may hold a token.
		s.log.Warn("request refused", "method", r.Method, "path", r.URL.Path, "host", r.Host,
			"origin", r.Header.Get("Origin"), "remote", r.RemoteAddr, "reason", err.Reason)
		if err.Code == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lbhealth-emulator"`)
		}
		s.writeError(w, r, err)
		return
	}
	if uncleanPath(r.URL.Path) {
		// net/http's mux would answer a redirect with an HTML body.
		s.writeError(w, r, googleapi.NewError(http.StatusNotFound, api.ReasonNotFound,
			"The emulator has no "+r.Method+" "+r.URL.Path+": a request path has no empty, \".\" or \"..\" segments."))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// uncleanPath reports whether path has an empty, "." or ".." segment.
func uncleanPath(path string) bool {
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return strings.Contains(path, "//")
}

// newID returns a random positive 63-bit id, like the Compute API's.
func newID() uint64 { return googleapi.NewID() }

// creationTime is the creationTimestamp of a new resource: now, or a
// millisecond after the last one given when that is not earlier, so that
// resources made within one millisecond still sort in the order they were
// made (orderBy "creationTimestamp desc"). Call it under the write lock.
func (s *Server) creationTime() string {
	t := s.now().Truncate(time.Millisecond)
	if !t.After(s.lastCreated) {
		t = s.lastCreated.Add(time.Millisecond)
	}
	s.lastCreated = t
	return timestamp(t)
}

// timestamp formats t the way the Compute API does.
func timestamp(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z07:00") }

// AggregateReader is what the getHealth of health sources and composite
// checks reads: the Aggregator.
type AggregateReader interface {
	SourceHealth(path string) (aggregate.SourceReport, bool)
	CompositeHealth(path string) (aggregate.CompositeReport, bool)
	// States lists the last state of each, for the status page.
	States() []aggregate.AggregateState
}

// action is what autohealing is doing with the managed instance at path.
func (s *Server) action(path string) string {
	if s.actions == nil {
		return api.ActionNone
	}
	return s.actions(path)
}
