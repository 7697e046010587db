package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const operationsCollection = "operations"

// How long, and how many, operations are kept unless Options
// says otherwise. The real API does not keep them forever either; a client
// reads an operation right after the call that returned it.
const (
	DefaultOperationsTTL = time.Hour
	DefaultOperationsMax = 10000
)

// operationLog is the operations kept, oldest first, so that dropping the
// oldest (by age or by count) costs what it drops.
type operationLog struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	queue []keptOperation
	timer *time.Timer // expires the oldest when its time comes; nil when none waits
	// closed stops the timer for good: the store may be closed after.
	closed bool
}

type keptOperation struct {
	key  store.Key
	made time.Time
}

// setOperationRetention sets how long operations are kept and how many at
// most (zero or less: the default), and drops those that exceed either now.
func (s *Server) setOperationRetention(ttl time.Duration, limit int) {
	s.ops.mu.Lock()
	s.ops.ttl, s.ops.max = cmp.Or(max(ttl, 0), DefaultOperationsTTL), cmp.Or(max(limit, 0), DefaultOperationsMax)
	s.ops.mu.Unlock()
	s.expireOperations()
}

// Close stops dropping expired operations and provisioning certificates
// in the background. Call it
// before closing the store.
func (s *Server) Close() {
	s.certs.Close()
	s.ops.mu.Lock()
	defer s.ops.mu.Unlock()
	s.ops.closed = true
	if s.ops.timer != nil {
		s.ops.timer.Stop()
		s.ops.timer = nil
	}
}

// loadOperations reads the operations the store holds (at start), oldest
// first, and drops those already too old or too many.
func (s *Server) loadOperations() {
	objects, err := s.store.All(context.Background(), operationsCollection)
	if err != nil {
		s.log.Error("operations not loaded: they will not expire", "error", err)
		return
	}
	s.ops.mu.Lock()
	s.ops.queue = s.ops.queue[:0]
	for _, o := range objects {
		var op struct {
			InsertTime string `json:"insertTime"`
		}
		json.Unmarshal(o.Body, &op)
		made, _ := time.Parse(timeLayout, op.InsertTime) // unreadable: the oldest
		s.ops.queue = append(s.ops.queue, keptOperation{key: o.Key, made: made})
	}
	slices.SortStableFunc(s.ops.queue, func(a, b keptOperation) int { return a.made.Compare(b.made) })
	s.ops.mu.Unlock()
	s.expireOperations()
}

// expireOperations deletes the oldest operations while they are older than
// the TTL or more than the maximum, and sets the timer for the next one
// to expire, so that expired operations cost no memory even when no write
// comes.
func (s *Server) expireOperations() {
	s.ops.mu.Lock()
	defer s.ops.mu.Unlock()
	ttl, limit := cmp.Or(s.ops.ttl, DefaultOperationsTTL), cmp.Or(s.ops.max, DefaultOperationsMax)
	now := s.now()
	for len(s.ops.queue) > 0 && (len(s.ops.queue) > limit || !now.Before(s.ops.queue[0].made.Add(ttl))) {
		k := s.ops.queue[0].key
		s.ops.queue[0] = keptOperation{}
		s.ops.queue = s.ops.queue[1:]
		if cap(s.ops.queue) > 4*len(s.ops.queue)+64 {
			// The array behind a queue popped from the front is only
			// dropped when append outgrows it; drop it when mostly
			// empty (amortised: the copy is a quarter of what was popped).
			s.ops.queue = append([]keptOperation(nil), s.ops.queue...)
		}
		// Nobody waits for this delete to be durable: an operation that
		// outlives a crash is dropped again at the next start.
		if err := s.store.Delete(context.Background(), k); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.log.Warn("expired operation not deleted", "operation", k.Path(), "error", err)
			break
		}
	}
	if s.ops.timer != nil {
		s.ops.timer.Stop()
		s.ops.timer = nil
	}
	if len(s.ops.queue) > 0 && !s.ops.closed {
		s.ops.timer = time.AfterFunc(s.ops.queue[0].made.Add(ttl).Sub(now), s.expireOperations)
	}
}

// keepOperation adds an operation just stored to the log.
func (s *Server) keepOperation(k store.Key, made time.Time) {
	s.ops.mu.Lock()
	s.ops.queue = append(s.ops.queue, keptOperation{key: k, made: made})
	full := len(s.ops.queue) > cmp.Or(s.ops.max, DefaultOperationsMax)
	armed := s.ops.timer != nil
	s.ops.mu.Unlock()
	if full || !armed {
		s.expireOperations()
	}
}

func (s *Server) resetOperations() {
	s.ops.mu.Lock()
	defer s.ops.mu.Unlock()
	s.ops.queue = nil
}

// timeLayout is how the API writes times.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// recordOperation stores the Operation that answers a mutation of target,
// so that clients can fetch (or wait on) it again by name.
func (s *Server) recordOperation(r *http.Request, sc scope, opType string, target store.Key, targetID uint64) (*api.Operation, error) {
	made := s.now()
	now := timestamp(made)
	name := fmt.Sprintf("operation-%d-%016x", made.UnixMilli(), newID())
	key := sc.key(operationsCollection, name)
	op := &api.Operation{
		Kind:          api.KindOperation,
		ID:            newID(),
		Name:          name,
		OperationType: opType,
		TargetLink:    s.link(target.Path()),
		TargetID:      targetID,
		Status:        "DONE",
		Progress:      100,
		InsertTime:    now,
		StartTime:     now,
		EndTime:       now,
		Region:        s.regionLink(sc),
		Zone:          s.zoneLink(sc), // a waiter routes by it: zoneOperations
		SelfLink:      s.link(key.Path()),
		User:          "emulator",
	}
	body, err := json.Marshal(op)
	if err != nil {
		return nil, err
	}
	if err := s.store.Insert(r.Context(), store.Object{Key: key, Body: body}); err != nil {
		return nil, err
	}
	s.keepOperation(key, made)
	s.log.Info("operation", "type", opType, "target", target.Path())
	return op, nil
}

// getOperation answers GET (and POST .../wait) on an operation: every
// operation is DONE already, so waiting returns at once.
func (s *Server) getOperation(r *http.Request) (any, error) {
	sc, err := scopeOf(r)
	if err != nil {
		return nil, err
	}
	key := sc.key(operationsCollection, r.PathValue("name"))
	o, err := s.store.Get(r.Context(), key)
	if errors.Is(err, store.ErrNotFound) {
		s.ops.mu.Lock()
		ttl, limit := cmp.Or(s.ops.ttl, DefaultOperationsTTL), cmp.Or(s.ops.max, DefaultOperationsMax)
		s.ops.mu.Unlock()
		return nil, newAPIError(http.StatusNotFound, api.ReasonNotFound, fmt.Sprintf(
			"The resource '%s' was not found: the emulator keeps operations for %s and at most %d of them, dropping the oldest first, so it may have been dropped (see --operations-ttl and --operations-max).",
			key.Path(), ttl, limit))
	}
	if err != nil {
		return nil, storeError(key, err)
	}
	return json.RawMessage(o.Body), nil
}

// durable finishes a request that may have written: called once its
// handler has returned (and so released the write lock), it waits until
// every write made so far is durable, so that the client gets its answer
// only then, while the writers of one moment share one commit. A write
// that cannot be saved fails the request with a storage error.
func (s *Server) durable(r *http.Request, err error) error {
	derr := s.store.WaitDurable(r.Context())
	if derr == nil && !errors.Is(err, store.ErrUnavailable) {
		return err
	}
	var ae *apiError
	if derr != nil && errors.As(err, &ae) && ae.Code < 500 {
		return err // the client's mistake: it changed nothing
	}
	if derr == nil {
		derr = err
	}
	s.log.Error("change not saved", "method", r.Method, "path", r.URL.Path, "error", derr)
	return newAPIError(http.StatusInternalServerError, api.ReasonBackendError,
		"The emulator could not save this change to its database, and refuses every change until it is restarted: see its log.")
}
