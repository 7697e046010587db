package core

import (
	"log/slog"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/aggregate"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// API is what the Compute API's collections share over the core: the
// links it writes, the reference index and the lookups through it, the
// operations that answer writes, request ids, the address pools, the
// readers of health. Collections are made with NewCollection over it.
//
// Handlers validate with package rules before anything is written, and
// every write happens under the core's write lock, so a call that fails
// has changed nothing and checks that span several objects (references,
// names) cannot race.
type API struct {
	Store   store.Store
	baseURL string // "http://127.0.0.1:8686/compute/v1/"
	Log     *slog.Logger

	// core holds the write lock every mutation takes (check, then write,
	// atomically), the change feed each tells, and the operations kept.
	core *Core
	// lastCreated is the newest creation time given, under the write lock.
	lastCreated time.Time
	// Holders are the collections whose objects reference others, and
	// refs who references what among their objects.
	Holders    []Holder
	Refs       refIndex
	Health     HealthReader
	Aggregates AggregateReader
	// requests remembers the answers to mutations that carried a requestId.
	requests requestIDs

	// strictFields refuses fields the API does not define, instead of
	// ignoring them; unknownLogged are those already logged.
	strictFields  bool
	unknownMu     sync.Mutex
	unknownLogged map[string]bool

	// DefaultNetwork gives every project the cloud's default network the
	// first time a call names it; provisioned holds the projects done
	// in this run (the store holds them all).
	DefaultNetwork bool
	Provisioned    sync.Map // project name → true

	// ManagedPool is where the instances of managed groups get their
	// addresses; actions says what autohealing is doing with one (nil:
	// nothing).
	ManagedPool control.Pool
	actions     func(instance string) string
	// Certs turns managed certificates ACTIVE; nil (none given to
	// ProvisionWith): they stay PROVISIONING.
	Certs *control.Certificates
}

// APIOptions say how to build a Service. Only LinkRoot is required.
type APIOptions struct {
	// LinkRoot starts the self links and the references the API writes,
	// ending with a slash: "https://www.googleapis.com/compute/v1/", or the
	// API's own root. Every form is accepted on input, whatever the root.
	LinkRoot string
	// Log receives the service's logs; nil discards them.
	Log *slog.Logger
	// Health is where getHealth reads endpoint health from, and
	// Aggregates where the getHealth of health sources and composite
	// checks reads; nil reports no verdicts yet.
	Health     HealthReader
	Aggregates AggregateReader
	// StrictFields refuses a body with a field the API does not define
	// (400 naming it); by default such fields are ignored, as the Compute
	// API ignores them, and logged once.
	StrictFields bool
	// DefaultNetwork gives every project, the first time a call names it,
	// what the cloud gives a new project: the auto-mode network default,
	// its subnetworks and its default firewall rules.
	DefaultNetwork bool
	// ManagedInstanceRange is where the instances managed groups make get
	// their addresses; the zero value means DefaultManagedInstanceRange.
	ManagedInstanceRange netip.Prefix
	// Actions says what autohealing is doing with a managed instance (by
	// its path: RECREATING, VERIFYING, NONE); nil: nothing.
	Actions func(instance string) string
}

// NewAPI returns what the Compute API's collections share, over core;
// Start it once the collections are known.
func NewAPI(core *Core, o APIOptions) *API {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &API{
		Store:          core.Store(),
		baseURL:        o.LinkRoot,
		Log:            log,
		core:           core,
		Health:         o.Health,
		Aggregates:     o.Aggregates,
		strictFields:   o.StrictFields,
		DefaultNetwork: o.DefaultNetwork,
		unknownLogged:  map[string]bool{},
		ManagedPool:    control.ManagedPool(o.ManagedInstanceRange),
		actions:        o.Actions,
	}
	return s
}

// Start readies the API to serve the collections whose references
// holders list: the reference index built from what is stored.
func (s *API) Start(holders []Holder) {
	for _, h := range holders {
		if !slices.ContainsFunc(s.Holders, func(o Holder) bool { return o.Collection == h.Collection }) {
			s.Holders = append(s.Holders, h)
		}
	}
	s.buildRefIndex()
}

// Core is the core the service writes through.
func (s *API) Core() *Core { return s.core }

// changed finishes a successful mutation: it tells the engine and records
// the Operation that answers the client.
func (s *API) changed(r *googleapi.Call, sc Scope, opType string, change Change, targetID uint64) (*api.Operation, error) {
	// The change is stored: what follows must happen even if the client
	// has gone away meanwhile (Ctrl-C in Terraform).
	r = r.WithoutCancel()
	s.IndexRefs(r.Context(), change)
	if change.Unknown {
		s.core.Changed(r.Context(), []store.Key{change.Key})
	} else {
		s.core.Wrote(r.Context(), change)
	}
	return s.recordOperation(r, sc, opType, change.Key.Path(), targetID)
}

// HealthReader is what getHealth reads: the probe engine's verdicts.
type HealthReader interface {
	Statuses(owner string) []health.Status
}

// AggregateReader is what the getHealth of health sources and composite
// checks reads: the Aggregator.
type AggregateReader interface {
	SourceHealth(path string) (aggregate.SourceReport, bool)
	CompositeHealth(path string) (aggregate.CompositeReport, bool)
	// States lists the last state of each, for the status page.
	States() []aggregate.AggregateState
}

// NewID returns a random positive 63-bit id, like the Compute API's.
func NewID() uint64 { return googleapi.NewID() }

// CreationTime is the creationTimestamp of a new resource: now, or a
// millisecond after the last one given when that is not earlier, so that
// resources made within one millisecond still sort in the order they were
// made (orderBy "creationTimestamp desc"). Call it under the write lock.
func (s *API) CreationTime() string {
	t := s.core.Now().Truncate(time.Millisecond)
	if !t.After(s.lastCreated) {
		t = s.lastCreated.Add(time.Millisecond)
	}
	s.lastCreated = t
	return Timestamp(t)
}

// Timestamp formats t the way the Compute API does.
func Timestamp(t time.Time) string { return t.Format(OperationTimeLayout) }

// Action is what autohealing is doing with the managed instance at path.
func (s *API) Action(path string) string {
	if s.actions == nil {
		return api.ActionNone
	}
	return s.actions(path)
}
