package emulator

import (
	"context"
	"fmt"
	"time"
)

// What the API benchmarks need of this version of the emulator (kept apart
// so that the benchmarks can be run unchanged against an older one).

// benchReload makes the emulator read everything the store holds again.
func benchReload(e *Emulator) error { return e.sync(context.Background(), nil) }

// benchRetention sets the operation retention and names it.
func benchRetention(cfg *Config, ttl time.Duration, limit int) string {
	cfg.OperationsTTL, cfg.OperationsMax = ttl, limit
	if ttl == 0 {
		ttl = time.Hour
	}
	if limit == 0 {
		limit = 10000
	}
	return fmt.Sprintf("%s, at most %d", ttl, limit)
}
