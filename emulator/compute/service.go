package compute

import (
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/aggregate"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Service is the Compute API over the core: its collections with their
// rules and hooks, the reference index, the operations that answer writes.
// Its methods take a Call, whatever protocol brought it; the HTTP layer
// (package httpapi) serves them at the routes Routes gives.
//
// Handlers validate with package rules before anything is written, and
// every write happens under the core's write lock, so a call that fails
// has changed nothing and checks that span several objects (references,
// names) cannot race.
type Service struct {
	store   store.Store
	baseURL string // "http://127.0.0.1:8686/compute/v1/"
	log     *slog.Logger
	now     func() time.Time

	// core holds the write lock every mutation takes (check, then write,
	// atomically), the change feed each tells, and the operations kept.
	core *Core
	// lastCreated is the newest creation time given, under the write lock.
	lastCreated time.Time
	// holders are the collections whose objects reference others, and
	// refs who references what among their objects.
	holders    []holder
	refs       refIndex
	health     HealthReader
	aggregates AggregateReader
	// requests remembers the answers to mutations that carried a requestId.
	requests requestIDs

	// strictFields refuses fields the API does not define, instead of
	// ignoring them; unknownLogged are those already logged.
	strictFields  bool
	unknownMu     sync.Mutex
	unknownLogged map[string]bool

	// defaultNetwork gives every project the cloud's default network the
	// first time a call names it; provisioned holds the projects done
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
}

// ServiceOptions say how to build a Service. Only LinkRoot is required.
type ServiceOptions struct {
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
	// CertificateProvisioning is how long a managed certificate stays
	// PROVISIONING; zero means DefaultCertificateProvisioning.
	CertificateProvisioning time.Duration
	// Clock is what managed certificates' provisioning waits on; nil: the
	// wall clock.
	Clock control.Sleeper
	// Actions says what autohealing is doing with a managed instance (by
	// its path: RECREATING, VERIFYING, NONE); nil: nothing.
	Actions func(instance string) string
}

// NewService returns the Compute API over core, ready to serve: its
// reference index built and the provisioning of managed certificates
// resumed.
func NewService(core *Core, o ServiceOptions) *Service {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{
		store:          core.Store(),
		baseURL:        o.LinkRoot,
		log:            log,
		now:            core.Now,
		core:           core,
		health:         o.Health,
		aggregates:     o.Aggregates,
		strictFields:   o.StrictFields,
		defaultNetwork: o.DefaultNetwork,
		unknownLogged:  map[string]bool{},
		managedPool:    control.ManagedPool(o.ManagedInstanceRange),
		actions:        o.Actions,
	}
	s.certs = control.NewCertificates(o.CertificateProvisioning, s.update, o.Clock, log)
	for _, h := range s.collectionHandlers() {
		if hd, ok := h.verbs.holder(); ok && !s.holding(hd.collection) {
			s.holders = append(s.holders, hd)
		}
	}
	s.buildRefIndex()
	s.resumeProvisioning()
	return s
}

// Close stops what the service does in the background: provisioning
// certificates.
func (s *Service) Close() { s.certs.Close() }

// Core is the core the service writes through.
func (s *Service) Core() *Core { return s.core }

// changed finishes a successful mutation: it tells the engine and records
// the Operation that answers the client.
func (s *Service) changed(r *Call, sc scope, opType string, change Change, targetID uint64) (*api.Operation, error) {
	// The change is stored: what follows must happen even if the client
	// has gone away meanwhile (Ctrl-C in Terraform).
	r = r.WithoutCancel()
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

// AggregateReader is what the getHealth of health sources and composite
// checks reads: the Aggregator.
type AggregateReader interface {
	SourceHealth(path string) (aggregate.SourceReport, bool)
	CompositeHealth(path string) (aggregate.CompositeReport, bool)
	// States lists the last state of each, for the status page.
	States() []aggregate.AggregateState
}

// newID returns a random positive 63-bit id, like the Compute API's.
func newID() uint64 { return googleapi.NewID() }

// creationTime is the creationTimestamp of a new resource: now, or a
// millisecond after the last one given when that is not earlier, so that
// resources made within one millisecond still sort in the order they were
// made (orderBy "creationTimestamp desc"). Call it under the write lock.
func (s *Service) creationTime() string {
	t := s.now().Truncate(time.Millisecond)
	if !t.After(s.lastCreated) {
		t = s.lastCreated.Add(time.Millisecond)
	}
	s.lastCreated = t
	return timestamp(t)
}

// timestamp formats t the way the Compute API does.
func timestamp(t time.Time) string { return t.Format(OperationTimeLayout) }

// action is what autohealing is doing with the managed instance at path.
func (s *Service) action(path string) string {
	if s.actions == nil {
		return api.ActionNone
	}
	return s.actions(path)
}
