// Package clock is the emulator's time: the wall clock, moved ahead by
// every fast-forward, with the durations the emulator decides itself run
// faster by its time scale. The control loops (autohealing, autoscaling),
// the scenarios, the API's timestamps, the timeline and the data plane
// (outlier ejections, connection draining, Cloud Armor's rate limits and
// bans) read it and wait on it, so that a fast-forward carries them all; the probe scheduler moves its own slots
// by the same amount (health.Engine.FastForward), since its probes run on
// real sockets against real deadlines.
package clock

import (
	"context"
	"sync"
	"time"
)

// Clock is the emulator's time.
type Clock struct {
	scale float64

	mu      sync.Mutex
	skipped time.Duration
	// jumped is closed, and replaced, whenever time jumps ahead, so that
	// sleepers look at the time again.
	jumped chan struct{}
}

// New is a clock whose own durations run scale times faster (0 and 1:
// real time).
func New(scale float64) *Clock {
	return &Clock{scale: scale, jumped: make(chan struct{})}
}

// Now is the emulator's time: the wall clock plus what fast-forwards
// skipped.
func (c *Clock) Now() time.Time { return c.At(time.Now()) }

// At is the emulator's time at the wall-clock instant t.
func (c *Clock) At(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return t.Add(c.skipped)
}

// Scale is d as the emulator runs it: divided by the time scale.
func (c *Clock) Scale(d time.Duration) time.Duration {
	if c.scale > 1 {
		return time.Duration(float64(d) / c.scale)
	}
	return d
}

// Factor is how many times faster than real time the emulator's own
// durations run (0 and 1: real time), for the API's answers and the status
// page to say.
func (c *Clock) Factor() float64 { return c.scale }

// Skip moves the clock d ahead, at once, and wakes the sleepers.
func (c *Clock) Skip(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skipped += d
	close(c.jumped)
	c.jumped = make(chan struct{})
}

// SleepUntil waits until the clock reads t (a jump ahead may end the wait
// early); false when ctx ends first.
func (c *Clock) SleepUntil(ctx context.Context, t time.Time) bool {
	for {
		c.mu.Lock()
		wait, jumped := t.Sub(time.Now().Add(c.skipped)), c.jumped
		c.mu.Unlock()
		if wait <= 0 {
			return ctx.Err() == nil
		}
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-jumped:
			timer.Stop()
		case <-ctx.Done():
			timer.Stop()
			return false
		}
	}
}

// AfterFunc runs f in its own goroutine once the clock reads d from now
// (a jump ahead brings it sooner), unless stop is called first; stop
// reports whether it stopped f from running.
func (c *Clock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	at := c.Now().Add(d)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once // the first of f and stop
	go func() {
		if c.SleepUntil(ctx, at) {
			once.Do(f)
		}
	}()
	return func() bool {
		stopped := false
		once.Do(func() { stopped = true })
		cancel()
		return stopped
	}
}
