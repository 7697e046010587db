package control

import (
	"context"
	"log/slog"
	"sync"
	"time"

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

// Certificates turns managed SSL certificates ACTIVE, each after the
// provisioning delay, as the cloud does once their domains resolve.
type Certificates struct {
	delay   time.Duration
	update  Updater
	log     *slog.Logger
	mu      sync.Mutex
	closed  bool
	pending map[*time.Timer]bool // the timers not yet fired
}

// NewCertificates provisions through update, each after delay (zero:
// DefaultCertificateProvisioning).
func NewCertificates(delay time.Duration, update Updater, log *slog.Logger) *Certificates {
	if delay == 0 {
		delay = DefaultCertificateProvisioning
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Certificates{delay: delay, update: update, log: log, pending: map[*time.Timer]bool{}}
}

// Provision makes the managed certificate at k ACTIVE after the delay.
func (c *Certificates) Provision(k store.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(c.delay, func() {
		c.mu.Lock()
		delete(c.pending, t)
		closed := c.closed
		c.mu.Unlock()
		if !closed {
			c.activate(k)
		}
	})
	c.pending[t] = true
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

// Close stops the timers not yet fired.
func (c *Certificates) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for t := range c.pending {
		t.Stop()
	}
	clear(c.pending)
}
