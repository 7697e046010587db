package health

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	for live, want := range map[uint64]int{
		0:         GCPercent, // nothing read yet
		1 << 20:   800,       // bounded: the runtime's smallest goal grows with the percent
		5 << 20:   640,       // a few endpoints: MinHeadroom decides
		32 << 20:  100,
		64 << 20:  GCPercent,
		500 << 20: GCPercent,
	} {
		if got := gcPercentFor(live); got != want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", live>>20, got, want)
		}
	}
}

// TuneGC leaves a GOGC the environment chose alone; otherwise it sets the
// GC percent for the live heap, and again after each collection.
func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })

	t.Setenv("GOGC", "100")
	TuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100: TuneGC changed the GC percent to %d", got)
	}

	// Unset, TuneGC sets the percent, and again after each collection:
	// the 100 set here is replaced once one has run.
	t.Setenv("GOGC", "")
	TuneGC()
	debug.SetGCPercent(100)
	for range 200 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the cleanup runs on a goroutine of its own
		if got := debug.SetGCPercent(100); got != 100 {
			return
		}
	}
	t.Error("the GC percent was not set again after 200 collections")
}
