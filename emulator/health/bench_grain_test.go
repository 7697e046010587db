package health

import (
	"testing"
	"time"
)

// The benchmark's CPU figures rely on slots sharing grains (scheduler.go):
// offsets are whole grains, spread over all the grains of the interval.
func TestSlotGrain(t *testing.T) {
	interval := time.Second
	used := map[time.Duration]bool{}
	for i := range 5000 {
		off := offset("projects/p/global/backendServices/b|g|10.0.0.1:"+time.Duration(i).String(), interval)
		if off%slotGrain != 0 || off < 0 || off >= interval {
			t.Fatalf("offset %v: want a whole number of %v in [0, %v)", off, slotGrain, interval)
		}
		used[off] = true
	}
	if want := int(interval / slotGrain); len(used) != want {
		t.Errorf("5,000 series use %d grains of the interval, want all %d", len(used), want)
	}
	// An interval shorter than two grains keeps the fine offset.
	if off := offset("x", 15*time.Millisecond); off >= 15*time.Millisecond {
		t.Errorf("offset %v outside a 15ms interval", off)
	}
}
