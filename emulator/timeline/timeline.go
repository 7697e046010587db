// Package timeline keeps what happened to the emulator's resources, in
// order: every change of state of an endpoint, a health source, a composite
// health check and a managed instance, with what caused it (the probe's
// reason, detail and latency for an endpoint; the change below it for a
// source or a composite). Tests read it back to assert on what happened and
// when, instead of polling and sleeping; the API serves it from a sequence
// number, and streams it.
//
// It holds the last Capacity events in memory; a reader that asks for
// events already dropped is told so (Page.Truncated).
package timeline

import (
	"strings"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Kinds of events.
const (
	KindEndpoint  = api.TimelineEndpoint
	KindSource    = api.TimelineSource
	KindComposite = api.TimelineComposite
	KindInstance  = api.TimelineInstance
	KindScenario  = api.TimelineScenario
	KindArmor     = api.TimelineArmor
	KindScaler    = api.TimelineScaler
	KindCloudRun  = api.TimelineCloudRun
)

// Event is one change; Page a read of the timeline.
type (
	Event = api.TimelineEvent
	Page  = api.TimelinePage
)

// Filter selects events; its zero value selects every one.
type Filter struct {
	Kind     string // one of the kinds, or "" for all
	Resource string // events whose Resource or Group contains it
}

func (f Filter) match(e *Event) bool {
	return (f.Kind == "" || e.Kind == f.Kind) &&
		(f.Resource == "" || strings.Contains(e.Resource, f.Resource) || strings.Contains(e.Group, f.Resource))
}

// Capacity is how many events a timeline keeps.
const Capacity = 100_000

// Timeline is a bounded, ordered record of events. A nil *Timeline
// records nothing.
type Timeline struct {
	mu       sync.Mutex
	capacity uint64
	ring     []Event // grows to capacity, then event n is at (n-1) % capacity
	last     uint64  // Seq of the newest event
	changed  chan struct{}
}

// New makes a timeline keeping the last capacity events.
func New(capacity int) *Timeline {
	return &Timeline{capacity: uint64(max(capacity, 1)), changed: make(chan struct{})}
}

// Add records e, numbering it, and wakes the readers that wait.
func (t *Timeline) Add(e Event) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.last++
	e.Seq = t.last
	if uint64(len(t.ring)) < t.capacity {
		t.ring = append(t.ring, e)
	} else {
		t.ring[(t.last-1)%t.capacity] = e
	}
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
}

// Read returns up to limit events (0: no limit) after sequence number
// since that filter selects, oldest first.
func (t *Timeline) Read(since uint64, filter Filter, limit int) Page {
	t.mu.Lock()
	defer t.mu.Unlock()
	oldest := uint64(1)
	if t.last > t.capacity {
		oldest = t.last - t.capacity + 1
	}
	page := Page{Events: []Event{}, Next: t.last, Truncated: since+1 < oldest}
	for seq := max(since+1, oldest); seq <= t.last; seq++ {
		e := &t.ring[(seq-1)%t.capacity]
		if !filter.match(e) {
			continue
		}
		page.Events = append(page.Events, *e)
		if limit > 0 && len(page.Events) == limit {
			page.Next = seq
			break
		}
	}
	return page
}

// After returns the events recorded after time at, oldest first: the tail
// of the ring, read from the newest back, so that a reader of the last
// minutes does not pay for the whole timeline.
func (t *Timeline) After(at time.Time) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	first := t.last + 1
	for first > t.last-uint64(len(t.ring))+1 && t.ring[(first-2)%t.capacity].Time.After(at) {
		first--
	}
	out := make([]Event, 0, t.last+1-first)
	for seq := first; seq <= t.last; seq++ {
		out = append(out, t.ring[(seq-1)%t.capacity])
	}
	return out
}

// Oldest is the time of the oldest event kept; false when there is none.
func (t *Timeline) Oldest() (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == 0 {
		return time.Time{}, false
	}
	oldest := uint64(1)
	if t.last > t.capacity {
		oldest = t.last - t.capacity + 1
	}
	return t.ring[(oldest-1)%t.capacity].Time, true
}

// Changed is closed by the next Add.
func (t *Timeline) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}
