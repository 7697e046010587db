package clock

import (
	"context"
	"testing"
	"time"
)

// A skip moves Now ahead by what it skipped, and ends a sleep whose time
// it reaches; a sleep it does not reach goes on.
func TestClock_SkipMovesNowAndWakesSleepers(t *testing.T) {
	c := New(1)
	before := c.Now()
	target := before.Add(time.Hour)
	woke := make(chan bool, 1)
	go func() { woke <- c.SleepUntil(context.Background(), target) }()

	c.Skip(30 * time.Minute) // not there yet
	select {
	case <-woke:
		t.Fatal("a sleep of an hour ended after a skip of 30 minutes")
	case <-time.After(100 * time.Millisecond): // a chance to end wrongly; passing does not depend on it
	}
	c.Skip(31 * time.Minute)
	select {
	case ok := <-woke:
		if !ok {
			t.Fatal("SleepUntil reported its context ended")
		}
	case <-time.After(30 * time.Second): // a hang guard, not a measure
		t.Fatal("a sleep whose time a skip reached did not end")
	}
	if got := c.Now().Sub(before); got < 61*time.Minute {
		t.Errorf("Now moved %s after skips of 61 minutes", got)
	}
	if at := time.Unix(0, 0); !c.At(at).Equal(at.Add(61 * time.Minute)) {
		t.Errorf("At(%s) = %s, want 61 minutes later", at, c.At(at))
	}
}

func TestClock_SleepEndsWithItsContext(t *testing.T) {
	c := New(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c.SleepUntil(ctx, c.Now().Add(time.Hour)) {
		t.Error("SleepUntil reported its time came, its context being done")
	}
}

func TestClock_ScaleDividesByTheTimeScale(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		want  time.Duration
	}{{0, 10 * time.Second}, {1, 10 * time.Second}, {10, time.Second}} {
		if got := New(tc.scale).Scale(10 * time.Second); got != tc.want {
			t.Errorf("scale %g: %s, want %s", tc.scale, got, tc.want)
		}
	}
}

// AfterFunc runs its function when a skip reaches its time, and never
// once stopped.
func TestClock_AfterFuncRunsOnASkipAndNotOnceStopped(t *testing.T) {
	c := New(1)
	ran := make(chan struct{})
	c.AfterFunc(time.Hour, func() { close(ran) })
	stop := c.AfterFunc(time.Hour, func() { t.Error("a stopped function ran") })
	if !stop() {
		t.Error("stop before the time reported it stopped nothing")
	}
	c.Skip(time.Hour)
	select {
	case <-ran:
	case <-time.After(30 * time.Second): // a hang guard, not a measure
		t.Fatal("a function whose time a skip reached did not run")
	}
	late := make(chan struct{})
	stopLate := c.AfterFunc(0, func() { close(late) })
	<-late
	if stopLate() {
		t.Error("stop after the function ran reported it stopped it")
	}
}
