package httpapi

import (
	"context"
	"encoding/json"
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

// provisioner turns managed certificates ACTIVE, each after the
// provisioning delay; pending are the timers not yet fired.
type provisioner struct {
	delay   time.Duration
	mu      sync.Mutex
	closed  bool
	pending map[*time.Timer]bool
}

// provision makes the managed certificate at k ACTIVE after the delay.
func (s *Server) provision(k store.Key) {
	p := &s.certs
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.pending == nil {
		p.pending = map[*time.Timer]bool{}
	}
	var t *time.Timer
	t = time.AfterFunc(p.delay, func() {
		p.mu.Lock()
		delete(p.pending, t)
		closed := p.closed
		p.mu.Unlock()
		if !closed {
			s.activate(k)
		}
	})
	p.pending[t] = true
}

// activate writes a managed certificate's status ACTIVE, and every
// domain's, under the write lock like any request. A certificate deleted
// meanwhile is left alone.
func (s *Server) activate(k store.Key) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	ctx := context.Background()
	o, err := s.store.Get(ctx, k)
	if err != nil {
		return
	}
	var doc map[string]any
	if json.Unmarshal(o.Body, &doc) != nil {
		return
	}
	managed, _ := doc["managed"].(map[string]any)
	if managed == nil || managed["status"] != api.CertificateProvisioning {
		return
	}
	managed["status"] = api.CertificateActive
	if ds, ok := managed["domainStatus"].(map[string]any); ok {
		for d := range ds {
			ds[d] = api.CertificateActive
		}
	}
	o.Body = mustJSON(doc)
	if err := s.store.Update(ctx, o); err != nil {
		s.log.Warn("managed certificate: could not store ACTIVE", "certificate", k.Path(), "err", err)
		return
	}
	s.log.Info("managed certificate ACTIVE", "certificate", k.Path())
}

// resumeProvisioning provisions, at start, the managed certificates a
// previous run left PROVISIONING.
func (s *Server) resumeProvisioning() {
	objects, err := s.store.All(context.Background(), api.CollectionSSLCertificates)
	if err != nil {
		return
	}
	for _, o := range objects {
		var c api.SSLCertificate
		if json.Unmarshal(o.Body, &c) == nil && c.Managed != nil && c.Managed.Status == api.CertificateProvisioning {
			s.provision(o.Key)
		}
	}
}

// stopProvisioning stops the timers not yet fired.
func (s *Server) stopProvisioning() {
	p := &s.certs
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for t := range p.pending {
		t.Stop()
	}
	p.pending = nil
}
