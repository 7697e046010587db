//go:build linux

package procstat

import (
	"os"
	"testing"
	"time"
)

// A thread that sleeps is switched out: the count of this process grows
// while one of its goroutines sleeps, and a process that does not exist
// is an error.
func TestContextSwitches(t *testing.T) {
	before, err := ContextSwitches(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		time.Sleep(time.Millisecond)
	}
	after, err := ContextSwitches(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after < before+20 {
		t.Errorf("context switches %d then %d across 20 sleeps: want at least 20 more", before, after)
	}
	if _, err := ContextSwitches(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
