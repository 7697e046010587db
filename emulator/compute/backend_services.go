package compute

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// backendServices is the global and regional backendServices collection.
func (s backends) backendServices() *core.Collection[api.BackendService, *api.BackendService] {
	c := core.NewCollection[api.BackendService, *api.BackendService](s.API, api.CollectionBackendServices, rules.BackendService, rules.ApplyBackendServiceDefaults)
	c.Resolve = s.resolveBackendService
	c.Fingerprint = func(bs *api.BackendService) *string { return &bs.Fingerprint }
	c.FingerprintOptional = true
	c.Refs = func(bs *api.BackendService) []string {
		refs := append([]string(nil), bs.HealthChecks...)
		for _, b := range bs.Backends {
			refs = append(refs, b.Group)
		}
		return append(refs, bs.SecurityPolicy, bs.EdgeSecurityPolicy)
	}
	c.InputOnly = func(doc core.Document) {
		// The API never returns IAP's OAuth client secret, only its
		// SHA-256.
		if iap, ok := doc["iap"].(map[string]any); ok {
			if secret, ok := iap["oauth2ClientSecret"].(string); ok {
				sum := sha256.Sum256([]byte(secret))
				iap["oauth2ClientSecretSha256"] = hex.EncodeToString(sum[:])
				delete(iap, "oauth2ClientSecret")
			}
		}
	}
	c.Kept = func(prior, bs *api.BackendService) {
		bs.SecurityPolicy, bs.EdgeSecurityPolicy = prior.SecurityPolicy, prior.EdgeSecurityPolicy
	}
	return c
}

// resolveBackendService checks the groups and the health check a service
// references and stores the references as URLs.
func (s backends) resolveBackendService(ctx context.Context, bs *api.BackendService, sc core.Scope) error {
	for i := range bs.Backends {
		k, err := s.backendGroup(ctx, fmt.Sprintf("backends[%d].group", i), bs.Backends[i].Group, sc)
		if err != nil {
			return err
		}
		bs.Backends[i].Group = s.Link(k.Path())
	}
	for i, ref := range bs.HealthChecks {
		k, err := s.resolveServiceCheck(ctx, fmt.Sprintf("healthChecks[%d]", i), ref, bs, sc)
		if err != nil {
			return err
		}
		bs.HealthChecks[i] = s.Link(k.Path())
	}
	return frontends{s.API}.resolveServicePolicies(ctx, bs, sc)
}

// backendGroup checks the group of a backend: a network endpoint group or
// an instance group, which must exist.
func (s backends) backendGroup(ctx context.Context, field, ref string, sc core.Scope) (store.Key, error) {
	k, err := core.ParseAnyRef(field, ref, sc, api.CollectionNetworkEndpointGroups)
	if err != nil {
		return k, err
	}
	if k.Collection != api.CollectionNetworkEndpointGroups && k.Collection != api.CollectionInstanceGroups {
		return k, googleapi.Invalid("%s (%q) refers to a %s resource: a backend is a network endpoint group or an instance group.", field, ref, k.Collection)
	}
	if k.Collection == api.CollectionInstanceGroups {
		_, err = core.Peek[api.InstanceGroup](ctx, s.API, field, ref, k)
	} else {
		_, err = core.Peek[api.NetworkEndpointGroup](ctx, s.API, field, ref, k)
	}
	return k, err
}

// resolveServiceCheck checks the health check of a backend service: a
// regular check, or a legacy one for EXTERNAL services.
func (s backends) resolveServiceCheck(ctx context.Context, field, ref string, bs *api.BackendService, sc core.Scope) (store.Key, error) {
	k, err := core.ParseAnyRef(field, ref, sc, api.CollectionHealthChecks)
	if err != nil {
		return k, err
	}
	switch k.Collection {
	case api.CollectionHealthChecks:
		hc, err := core.Peek[api.HealthCheck](ctx, s.API, field, ref, k)
		if err != nil {
			return k, err
		}
		if v := rules.BackendServiceHealthCheck(bs, sc.Region, hc, core.RegionOfScope(k.Scope)); v != nil {
			return k, googleapi.Invalid("%s", v.Error())
		}
	case api.CollectionHTTPHealthChecks, api.CollectionHTTPSHealthChecks:
		if v := rules.BackendServiceLegacyCheck(bs, sc.Region); v != nil {
			return k, googleapi.Invalid("%s", v.Error())
		}
		if _, err := core.Peek[api.LegacyHealthCheck](ctx, s.API, field, ref, k); err != nil {
			return k, err
		}
	default:
		v := rules.CheckKindMismatch(field, ref, k.Collection, api.CollectionHealthChecks)
		return k, googleapi.Invalid("%s", v.Error())
	}
	return k, nil
}

// backendServiceHealth answers backendServices.getHealth: the health of the
// endpoints of one group of the service (or of all its groups when the
// body names none, an lbhealth extension).
func (s backends) backendServiceHealth(r *googleapi.Call) (any, error) {
	c := s.backendServices()
	bs, sc, err := c.Load(r)
	if err != nil {
		return nil, err
	}
	group, err := s.groupFilter(r, bs, sc)
	if err != nil {
		return nil, err
	}
	out := api.BackendServiceGroupHealth{Kind: api.KindBackendServiceGroupHealth, HealthStatus: []api.HealthStatus{}}
	for _, st := range s.statuses(sc.Key(c.Def.Name, bs.Name).Path()) {
		if group == "" || st.Group == group {
			out.HealthStatus = append(out.HealthStatus, s.healthStatus(st))
		}
	}
	return out, nil
}

// groupFilter reads the optional {"group": ...} body: the path of one of
// the service's groups, or "" for all of them.
func (s backends) groupFilter(r *googleapi.Call, bs *api.BackendService, sc core.Scope) (string, error) {
	if !r.HasBody() {
		return "", nil
	}
	body, err := r.Body()
	if err != nil {
		return "", err
	}
	var ref api.ResourceGroupReference
	if err := s.DecodeBody(r, body, "ResourceGroupReference", &ref); err != nil || ref.Group == "" {
		return "", err
	}
	k, err := core.ParseAnyRef("group", ref.Group, sc, api.CollectionNetworkEndpointGroups)
	if err != nil {
		return "", err
	}
	for _, b := range bs.Backends {
		if api.PathOf(b.Group) == k.Path() {
			return k.Path(), nil
		}
	}
	return "", googleapi.Invalid("group (%q) is not a backend of %s.", ref.Group, bs.Name)
}
