// Package httpapi is the emulator's HTTP layer: it serves the Compute API
// (package compute) and the APIs mounted beside it, and nothing else. It
// registers their routes, turns each request into a call, answers in the
// shape the client asked for and in Google's error format, makes a change
// durable before it answers, and refuses what a web page or a stranger
// sends (the access guard) before any handler runs.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/guard"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Server serves the Compute API (package compute) and the APIs mounted
// beside it over HTTP: it routes, reads requests into calls, shapes and
// writes the answers, and guards the door.
type Server struct {
	compute *compute.Service
	store   store.Store
	log     *slog.Logger
	mux     *http.ServeMux

	// ownCore: New made the core, and Close closes it.
	core    *core.Core
	ownCore bool
	// certs provisions the managed certificates of a Compute API New made
	// (nil when it was given one); Close stops it.
	certs *control.Certificates

	workloads WorkloadControl
	scenarios ScenarioRunner
	forward   func(ctx context.Context, d time.Duration) int
	timeScale string // the factor times run faster by, or ""
	metrics   http.Handler

	// access checks every request before a handler runs (guard.go);
	// openPaths are those it lets read without the token.
	access    *guard.Guard
	openPaths map[string]bool
	// mediaPaths are the prefixes whose calls carry media (HandleMedia).
	mediaPaths []string
	// unrouted serve the reads no route takes (HandleUnrouted).
	unrouted []func(w http.ResponseWriter, r *http.Request) bool
	// resetters are the mounted services a reset forgets the state of.
	resetters []googleapi.Resetter
}

// HealthReader is what getHealth reads: the probe engine's verdicts.
type HealthReader = core.HealthReader

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
	// Compute is the Compute API to serve, over Core, as the emulator
	// assembles it (with its control loops). nil: one made over Core from
	// LinkRoot, Health, Aggregates, StrictFields, DefaultNetwork,
	// ManagedInstanceRange and Actions, its managed certificates
	// provisioned after CertificateProvisioning on Clock (read only then),
	// as tests build a server.
	Compute *compute.Service
	// Core is the compute core the server writes through (its write lock,
	// its change feed), shared with the APIs beside Compute whose objects
	// Compute references; nil: a core of its own over the store, Now and
	// OnChange.
	Core *core.Core
	// OnChange runs after every mutation (under the write lock, before the
	// answer is sent) with the keys it changed; nil keys mean that
	// everything may have changed (a reset). Only without Core.
	OnChange func(ctx context.Context, changes []core.Change)
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
	TimeScale float64
	// Actions says what autohealing is doing with a managed instance (by
	// its path: RECREATING, VERIFYING, NONE); nil: nothing.
	Actions func(instance string) string
}

// TimeScaleHeader is on every answer of an emulator whose times run faster
// than real time: the factor.
const TimeScaleHeader = "X-Lbhealth-Time-Scale"

// New returns a Server over st, ready to serve: the Compute API built over
// the core (its reference index, the stored operations) and its routes
// registered.
func New(st store.Store, o Options) *Server {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		store:     st,
		log:       log,
		mux:       http.NewServeMux(),
		workloads: o.Workloads,
		scenarios: o.Scenarios,
		forward:   o.FastForward,
		metrics:   o.Metrics,
	}
	s.core = o.Core
	if s.core == nil {
		now := o.Now
		if now == nil && o.Clock != nil {
			now = o.Clock.Now
		}
		s.core, s.ownCore = core.New(st, core.Options{Now: now, OnChange: o.OnChange, Log: log,
			OperationsTTL: o.OperationsTTL, OperationsMax: o.OperationsMax}), true
	}
	s.compute = o.Compute
	if s.compute == nil {
		s.compute = compute.NewService(s.core, compute.Options{
			LinkRoot: compute.LinkRoot(o.RootURL, o.LinkRoot), Log: log, Health: o.Health, Aggregates: o.Aggregates,
			StrictFields: o.StrictFields, DefaultNetwork: o.DefaultNetwork,
			ManagedInstanceRange: o.ManagedInstanceRange, Actions: o.Actions,
		})
		s.certs = control.NewCertificates(o.CertificateProvisioning, s.compute.Update, o.Clock, log)
		s.compute.ProvisionWith(s.certs)
	}
	if o.TimeScale > 1 {
		s.timeScale = strconv.FormatFloat(o.TimeScale, 'g', -1, 64)
	}
	s.setAccess(o.Access)
	s.routes()
	return s
}

// Compute is the Compute API the server serves.
func (s *Server) Compute() *compute.Service { return s.compute }

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

// AggregateReader is what the getHealth of health sources and composite
// checks reads: the Aggregator.
type AggregateReader = core.AggregateReader
