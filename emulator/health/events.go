package health

import "sync"

// Events keeps the last transitions for the status page, and wakes those
// waiting for the next one. The zero value is not usable: NewEvents.
type Events struct {
	mu      sync.Mutex
	ring    []Transition
	next    int  // where the next transition goes
	full    bool // the ring has wrapped
	changed chan struct{}
}

// NewEvents keeps the last n transitions.
func NewEvents(n int) *Events {
	return &Events{ring: make([]Transition, n), changed: make(chan struct{})}
}

// Add records tr (its Since is when it happened) and wakes the waiters.
func (ev *Events) Add(tr Transition) {
	ev.mu.Lock()
	ev.ring[ev.next] = tr
	ev.next = (ev.next + 1) % len(ev.ring)
	ev.full = ev.full || ev.next == 0
	close(ev.changed)
	ev.changed = make(chan struct{})
	ev.mu.Unlock()
}

// Recent is the transitions kept, newest first.
func (ev *Events) Recent() []Transition {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	n := ev.next
	if ev.full {
		n = len(ev.ring)
	}
	out := make([]Transition, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, ev.ring[(ev.next-i+len(ev.ring))%len(ev.ring)])
	}
	return out
}

// Changed is closed by the next Add.
func (ev *Events) Changed() <-chan struct{} {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return ev.changed
}
