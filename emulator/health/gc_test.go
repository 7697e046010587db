package health

import (
	"runtime/debug"
	"testing"
)

// TuneGC sets the engine's GOGC, unless the environment chose one.
func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })

	t.Setenv("GOGC", "")
	TuneGC()
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("GOGC unset: the GC percent is %d after TuneGC, want %d", got, GCPercent)
	}
	t.Setenv("GOGC", "100")
	TuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100: TuneGC changed the GC percent to %d", got)
	}
}
