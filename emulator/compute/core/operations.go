package core

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// OperationsCollection is the store collection of the operations that
// answer writes (not a catalogue collection).
const OperationsCollection = "operations"

// How long, and how many, operations are kept unless the Options say
// otherwise. The real API does not keep them forever either; a client
// reads an operation right after the call that returned it.
const (
	DefaultOperationsTTL = time.Hour
	DefaultOperationsMax = 10000
)

// OperationTimeLayout is how the API writes an operation's times.
const OperationTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Operations are the operations kept, oldest first, so that dropping the
// oldest (by age or by count) costs what it drops; a timer drops each when
// its time comes, so that expired operations cost no memory even when no
// write comes.
type Operations struct {
	store store.Store
	now   func() time.Time
	log   *slog.Logger

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

// Retention is how long operations are kept and how many at most.
func (o *Operations) Retention() (ttl time.Duration, limit int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return cmp.Or(o.ttl, DefaultOperationsTTL), cmp.Or(o.max, DefaultOperationsMax)
}

// SetRetention sets how long operations are kept and how many at most
// (zero or less: the default), and drops those that exceed either now.
func (o *Operations) SetRetention(ttl time.Duration, limit int) {
	o.mu.Lock()
	o.ttl, o.max = cmp.Or(max(ttl, 0), DefaultOperationsTTL), cmp.Or(max(limit, 0), DefaultOperationsMax)
	o.mu.Unlock()
	o.Expire()
}

// Close stops dropping expired operations. Call it before closing the
// store.
func (o *Operations) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
}

// Load reads the operations the store holds (at start), oldest first, and
// drops those already too old or too many.
func (o *Operations) Load() {
	objects, err := o.store.All(context.Background(), OperationsCollection)
	if err != nil {
		o.log.Error("operations not loaded: they will not expire", "error", err)
		return
	}
	o.mu.Lock()
	o.queue = o.queue[:0]
	for _, ob := range objects {
		var op struct {
			InsertTime string `json:"insertTime"`
		}
		json.Unmarshal(ob.Body, &op)
		made, _ := time.Parse(OperationTimeLayout, op.InsertTime) // unreadable: the oldest
		o.queue = append(o.queue, keptOperation{key: ob.Key, made: made})
	}
	slices.SortStableFunc(o.queue, func(a, b keptOperation) int { return a.made.Compare(b.made) })
	o.mu.Unlock()
	o.Expire()
}

// Expire deletes the oldest operations while they are older than the TTL
// or more than the maximum, and sets the timer for the next one to expire.
func (o *Operations) Expire() {
	o.mu.Lock()
	defer o.mu.Unlock()
	ttl, limit := cmp.Or(o.ttl, DefaultOperationsTTL), cmp.Or(o.max, DefaultOperationsMax)
	now := o.now()
	for len(o.queue) > 0 && (len(o.queue) > limit || !now.Before(o.queue[0].made.Add(ttl))) {
		k := o.queue[0].key
		o.queue[0] = keptOperation{}
		o.queue = o.queue[1:]
		if cap(o.queue) > 4*len(o.queue)+64 {
			// The array behind a queue popped from the front is only
			// dropped when append outgrows it; drop it when mostly
			// empty (amortised: the copy is a quarter of what was popped).
			o.queue = append([]keptOperation(nil), o.queue...)
		}
		// Nobody waits for this delete to be durable: an operation that
		// outlives a crash is dropped again at the next start.
		if err := o.store.Delete(context.Background(), k); err != nil && !errors.Is(err, store.ErrNotFound) {
			o.log.Warn("expired operation not deleted", "operation", k.Path(), "error", err)
			break
		}
	}
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	if len(o.queue) > 0 && !o.closed {
		o.timer = time.AfterFunc(o.queue[0].made.Add(ttl).Sub(now), o.Expire)
	}
}

// Keep adds an operation just stored to those kept.
func (o *Operations) Keep(k store.Key, made time.Time) {
	o.mu.Lock()
	o.queue = append(o.queue, keptOperation{key: k, made: made})
	full := len(o.queue) > cmp.Or(o.max, DefaultOperationsMax)
	armed := o.timer != nil
	o.mu.Unlock()
	if full || !armed {
		o.Expire()
	}
}

// Reset forgets every operation kept (the store was emptied).
func (o *Operations) Reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.queue = nil
}

// Pending reports whether the timer waits to expire an operation, and how
// many operations are kept.
func (o *Operations) Pending() (armed bool, kept int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.timer != nil, len(o.queue)
}
