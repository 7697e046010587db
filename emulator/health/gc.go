package health

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// GCPercent is the GOGC the emulator runs the engine with, unless the
// environment sets one. The engine's heap is nearly all endpoint state,
// which lives as long as the endpoints do, while a probe leaves a few
// hundred bytes of garbage: the default headroom of 100% would double the
// memory of 100,000 endpoints to save a garbage collection every few
// seconds, each marking what a collection at 50% marks too.
const GCPercent = 50

// MinHeadroom is the least the heap may grow between two collections.
// With few endpoints the live heap is a few megabytes, and GCPercent
// alone would collect after every few hundred TLS handshakes (each leaves
// tens of kilobytes); a collection costs work on every P, so that cost
// grew with the core count (1,000 HTTPS endpoints: 1.76 times the CPU per
// probe at GOMAXPROCS 16 as at 2). Past 64 MB of live heap (about 100,000
// endpoints) GCPercent gives more headroom than this, and decides.
const MinHeadroom = 32 << 20

// maxGCPercent bounds gcPercentFor: the runtime's smallest heap goal is
// 4 MB times GOGC/100, so a larger percent over a live heap under 4 MB
// would let the heap grow far past MinHeadroom.
const maxGCPercent = 100 * MinHeadroom / (4 << 20)

// gcPercentFor is the GC percent for a live heap of live bytes: GCPercent,
// or more when that would leave less than MinHeadroom.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return GCPercent
	}
	return min(maxGCPercent, max(GCPercent, int((100*MinHeadroom+live-1)/live)))
}

// TuneGC sets the GC percent for the engine, unless GOGC is set, and
// sets it again after every collection as the live heap changes.
func TuneGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	gcTuner.Do(func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var retune func()
		retune = func() {
			metrics.Read(sample)
			live := uint64(0)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				live = sample[0].Value.Uint64()
			}
			if os.Getenv("GOGC") == "" { // set meanwhile: the user's choice
				debug.SetGCPercent(gcPercentFor(live)) // a lock and a sum: once a collection is nothing
			}
			afterNextGC(retune)
		}
		retune()
	})
}

var gcTuner sync.Once

// afterNextGC runs f once a garbage collection has run: the cleanup of
// an object nothing references runs after the collection that finds it
// unreachable.
func afterNextGC(f func()) {
	sentinel := new([64]byte) // past the tiny allocator, which batches small objects
	runtime.AddCleanup(sentinel, func(func()) { f() }, f)
}
