package core

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// DefaultCertificateProvisioning is how long a managed certificate stays
// PROVISIONING before it is ACTIVE (control.Certificates turns it so).
const DefaultCertificateProvisioning = control.DefaultCertificateProvisioning

// Update is the control plane's way to change what is stored
// (control.Updater): under the write lock, like any request.
func (s *API) Update(ctx context.Context, k store.Key, change func(doc map[string]any) bool) error {
	s.core.Lock()
	defer s.core.Unlock()
	_, err := s.UpdateLocked(ctx, k, change)
	return err
}

// UpdateLocked changes the stored object at k, under the write lock its
// caller holds: change gets its JSON document and says whether it changed
// it, and only then is it stored, and the feed told; the result says so.
// An object that is not there is left alone.
func (s *API) UpdateLocked(ctx context.Context, k store.Key, change func(doc map[string]any) bool) (bool, error) {
	o, err := s.Store.Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var doc map[string]any
	if err := json.Unmarshal(o.Body, &doc); err != nil {
		return false, err
	}
	if !change(doc) {
		return false, nil
	}
	o.Body = MustJSON(doc)
	if err := s.Store.Update(ctx, o); err != nil {
		return false, err
	}
	s.Written(ctx, k)
	return true, nil
}

// ProvisionWith gives managed certificates to certs, the loop that turns
// them ACTIVE (started where the emulator is assembled, over Update), and
// with them those a previous run left PROVISIONING. Call it once, before
// serving.
func (s *API) ProvisionWith(certs *control.Certificates) {
	s.Certs = certs
	s.resumeProvisioning()
}

// resumeProvisioning provisions, at start, the managed certificates a
// previous run left PROVISIONING.
func (s *API) resumeProvisioning() {
	objects, err := s.Store.All(context.Background(), api.CollectionSSLCertificates)
	if err != nil {
		return
	}
	for _, o := range objects {
		var c api.SSLCertificate
		if json.Unmarshal(o.Body, &c) == nil && c.Managed != nil && c.Managed.Status == api.CertificateProvisioning {
			s.Certs.Provision(o.Key)
		}
	}
}
