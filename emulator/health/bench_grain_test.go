package health

import (
	"testing"
	"time"
)

// The benchmark's CPU figures rely on slots sharing grains (scheduler.go):
// offsets are whole grains, spread over all the grains of the interval,
// and a grain is a hundredth of the interval, from 10 ms to 50 ms.
func TestSlotGrain(t *testing.T) {
	for _, c := range []struct{ interval, grain time.Duration }{
		{time.Second, 10 * time.Millisecond},
		{2 * time.Second, 20 * time.Millisecond},
		{5 * time.Second, 50 * time.Millisecond},
		{300 * time.Second, 50 * time.Millisecond},
		{500 * time.Millisecond, 10 * time.Millisecond},
	} {
		used := map[time.Duration]bool{}
		for i := range 50000 {
			off := offset("projects/p/global/backendServices/b|g|10.0.0.1:"+time.Duration(i).String(), c.interval)
			if off%c.grain != 0 || off < 0 || off >= c.interval {
				t.Fatalf("interval %v, offset %v: want a whole number of %v in [0, %v)", c.interval, off, c.grain, c.interval)
			}
			used[off] = true
		}
		if want := int(c.interval / c.grain); len(used) != want {
			t.Errorf("interval %v: 50,000 series use %d grains, want all %d", c.interval, len(used), want)
		}
	}
	// An interval shorter than two grains keeps the fine offset.
	if off := offset("x", 15*time.Millisecond); off >= 15*time.Millisecond {
		t.Errorf("offset %v outside a 15ms interval", off)
	}
}
