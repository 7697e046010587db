package control

import (
	"context"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A managed certificate is made ACTIVE, its domains too, through the
// updater once its delay has passed; one already ACTIVE, or self-managed,
// is left alone.
func TestCertificates_ProvisionActivates(t *testing.T) {
	doc := map[string]any{"managed": map[string]any{"status": api.CertificateProvisioning,
		"domainStatus": map[string]any{"a.example.com": api.CertificateProvisioning}}}
	done := make(chan bool, 1)
	c := NewCertificates(time.Nanosecond, func(_ context.Context, k store.Key, change func(map[string]any) bool) error {
		if k.Name != "cert" {
			t.Errorf("updated %v, want the certificate", k)
		}
		done <- change(doc)
		return nil
	}, nil, nil)
	t.Cleanup(c.Close)
	c.Provision(store.Key{Project: "p", Scope: "global", Collection: api.CollectionSSLCertificates, Name: "cert"})
	select {
	case changed := <-done:
		m := doc["managed"].(map[string]any)
		if !changed || m["status"] != api.CertificateActive || m["domainStatus"].(map[string]any)["a.example.com"] != api.CertificateActive {
			t.Errorf("after provisioning: %v (changed %v), want ACTIVE with its domain", doc, changed)
		}
	case <-time.After(time.Minute): // a hang guard, not a measurement
		t.Fatal("never activated")
	}
	if Activate(doc) || Activate(map[string]any{"type": "SELF_MANAGED"}) {
		t.Error("Activate changed a certificate already ACTIVE, or a self-managed one")
	}
}
