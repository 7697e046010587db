package control

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// DefaultCertificateProvisioning is how long a managed certificate stays
// PROVISIONING before it is ACTIVE. In the cloud it takes minutes, once
// the domains point at the load balancer; the emulator has no DNS to
// wait for.
const DefaultCertificateProvisioning = 5 * time.Second

// Updater changes the stored object at k, as the API would under its write
// lock: change gets the object's JSON document and says whether it changed
// it, and only then is it stored. An object gone meanwhile is no error.
type Updater func(ctx context.Context, k store.Key, change func(doc map[string]any) bool) error

// Clock is the time the control loops decide by: the emulator's (package
// clock), which fast-forwards move and whose time scale runs the
// durations they wait faster.
type Clock interface {
	Now() time.Time
	// Scale is a duration of the loops' own (an initial delay, a window) as
	// the emulator runs it.
	Scale(d time.Duration) time.Duration
}

// Sleeper is the clock provisioning waits on: the emulator's (package
// clock), whose fast-forwards end a wait early.
type Sleeper interface {
	Now() time.Time
	// SleepUntil waits until the clock reads t; false when ctx ends first.
	SleepUntil(ctx context.Context, t time.Time) bool
}

// Certificates turns managed SSL certificates ACTIVE, each after the
// provisioning delay, as the cloud does once their domains resolve.
type Certificates struct {
	delay  time.Duration
	update Updater
	log    *slog.Logger
	clock  Sleeper
	// ctx ends with Close, and the waits with it; waits counts them.
	ctx    context.Context
	cancel context.CancelFunc
	waits  sync.WaitGroup
}

// NewCertificates provisions through update, each after delay (zero:
// DefaultCertificateProvisioning) on clock (nil: the wall clock).
func NewCertificates(delay time.Duration, update Updater, clk Sleeper, log *slog.Logger) *Certificates {
	if delay == 0 {
		delay = DefaultCertificateProvisioning
	}
	if clk == nil {
		clk = clock.New(1)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Certificates{delay: delay, update: update, log: log, clock: clk, ctx: ctx, cancel: cancel}
}

// Provision makes the managed certificate at k ACTIVE after the delay.
func (c *Certificates) Provision(k store.Key) {
	if c.ctx.Err() != nil {
		return
	}
	due := c.clock.Now().Add(c.delay)
	c.waits.Go(func() {
		if c.clock.SleepUntil(c.ctx, due) {
			c.activate(k)
		}
	})
}

// activate writes the certificate's status ACTIVE, and every domain's. A
// certificate deleted meanwhile, or no longer PROVISIONING, is left alone.
func (c *Certificates) activate(k store.Key) {
	changed := false
	err := c.update(context.Background(), k, func(doc map[string]any) bool {
		changed = Activate(doc)
		return changed
	})
	switch {
	case err != nil:
		c.log.Warn("managed certificate: could not store ACTIVE", "certificate", k.Path(), "err", err)
	case changed:
		c.log.Info("managed certificate ACTIVE", "certificate", k.Path())
	}
}

// Activate makes a PROVISIONING managed certificate's document ACTIVE, its
// domains too, and reports whether it did.
func Activate(doc map[string]any) bool {
	managed, _ := doc["managed"].(map[string]any)
	if managed == nil || managed["status"] != api.CertificateProvisioning {
		return false
	}
	managed["status"] = api.CertificateActive
	if ds, ok := managed["domainStatus"].(map[string]any); ok {
		for d := range ds {
			ds[d] = api.CertificateActive
		}
	}
	return true
}

// Close ends the waits not yet over, and waits for an activation under
// way, so that nothing is written after it returns.
func (c *Certificates) Close() {
	c.cancel()
	c.waits.Wait()
}
