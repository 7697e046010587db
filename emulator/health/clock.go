package health

import (
	"context"
	"time"
)

// Clock is the scheduler's view of time, injected so that tests can drive
// it without sleeping.
type Clock interface {
	Now() time.Time
	// SleepUntil waits until t; false when ctx ends first.
	SleepUntil(ctx context.Context, t time.Time) bool
}

// TimeScale is how many times faster than real time the emulator runs the
// times it decides itself (checks' intervals and timeouts, autohealing's
// delays, draining ...): above 1, each is divided by it; 0 and 1 keep
// real time.
type TimeScale float64

// Of is d as the emulator runs it.
func (s TimeScale) Of(d time.Duration) time.Duration {
	if s > 1 {
		return time.Duration(float64(d) / float64(s))
	}
	return d
}

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) SleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
