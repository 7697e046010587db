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
