package health

import (
	"context"
	"slices"
	"sync"
	"time"
)

// fakeClock is a Clock that moves only when a test advances it.
type fakeClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []*sleeper
}

type sleeper struct {
	ctx   context.Context
	until time.Time
	wake  chan struct{}
}

// live tells whether the sleeper still waits: a sleep ended by a wake-up
// leaves the list on its own goroutine, a little later, and must not be
// counted or chosen meanwhile.
func (s *sleeper) live() bool { return s.ctx.Err() == nil }

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) SleepUntil(ctx context.Context, t time.Time) bool {
	c.mu.Lock()
	if !t.After(c.now) {
		c.mu.Unlock()
		return ctx.Err() == nil
	}
	s := &sleeper{ctx: ctx, until: t, wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.mu.Unlock()
	select {
	case <-s.wake:
		return true
	case <-ctx.Done():
		c.mu.Lock()
		c.sleepers = slices.DeleteFunc(c.sleepers, func(x *sleeper) bool { return x == s })
		c.mu.Unlock()
		return false
	}
}

// advance moves the clock by d and wakes every sleeper whose time came.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.wakeLocked()
}

// advanceToNext moves the clock to the earliest sleeper's time and wakes it.
func (c *fakeClock) advanceToNext() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next time.Time
	for _, s := range c.sleepers {
		if s.live() && (next.IsZero() || s.until.Before(next)) {
			next = s.until
		}
	}
	if next.After(c.now) {
		c.now = next
	}
	c.wakeLocked()
	return c.now
}

func (c *fakeClock) wakeLocked() {
	c.sleepers = slices.DeleteFunc(c.sleepers, func(s *sleeper) bool {
		if s.until.After(c.now) {
			return false
		}
		close(s.wake)
		return true
	})
}

// sleeping counts the goroutines asleep on the clock.
func (c *fakeClock) sleeping() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.sleepers {
		if s.live() {
			n++
		}
	}
	return n
}
