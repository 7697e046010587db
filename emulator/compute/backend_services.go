package compute

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// backendServices is the global and regional backendServices collection.
func (s backends) backendServices() *collection[api.BackendService, *api.BackendService] {
	c := newCollection[api.BackendService, *api.BackendService](s.Service, api.CollectionBackendServices, rules.BackendService, rules.ApplyBackendServiceDefaults)
	c.resolve = s.resolveBackendService
	c.fingerprint = func(bs *api.BackendService) *string { return &bs.Fingerprint }
	c.fingerprintOptional = true
	c.refs = func(bs *api.BackendService) []string {
		refs := append([]string(nil), bs.HealthChecks...)
		for _, b := range bs.Backends {
			refs = append(refs, b.Group)
		}
		return append(refs, bs.SecurityPolicy, bs.EdgeSecurityPolicy)
	}
	c.inputOnly = func(doc document) {
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
	c.kept = func(prior, bs *api.BackendService) {
		bs.SecurityPolicy, bs.EdgeSecurityPolicy = prior.SecurityPolicy, prior.EdgeSecurityPolicy
	}
	return c
}

// resolveBackendService checks the groups and the health check a service
// references and stores the references as URLs.
func (s backends) resolveBackendService(ctx context.Context, bs *api.BackendService, sc scope) error {
	for i := range bs.Backends {
		k, err := s.backendGroup(ctx, fmt.Sprintf("backends[%d].group", i), bs.Backends[i].Group, sc)
		if err != nil {
			return err
		}
		bs.Backends[i].Group = s.link(k.Path())
	}
	for i, ref := range bs.HealthChecks {
		k, err := s.resolveServiceCheck(ctx, fmt.Sprintf("healthChecks[%d]", i), ref, bs, sc)
		if err != nil {
			return err
		}
		bs.HealthChecks[i] = s.link(k.Path())
	}
	return frontends{s.Service}.resolveServicePolicies(ctx, bs, sc)
}

// backendGroup checks the group of a backend: a network endpoint group or
// an instance group, which must exist.
func (s backends) backendGroup(ctx context.Context, field, ref string, sc scope) (store.Key, error) {
	k, err := parseAnyRef(field, ref, sc, api.CollectionNetworkEndpointGroups)
	if err != nil {
		return k, err
	}
	if k.Collection != api.CollectionNetworkEndpointGroups && k.Collection != api.CollectionInstanceGroups {
		return k, invalid("%s (%q) refers to a %s resource: a backend is a network endpoint group or an instance group.", field, ref, k.Collection)
	}
	var v json.RawMessage
	return k, s.load(ctx, field, ref, k, &v)
}

// resolveServiceCheck checks the health check of a backend service: a
// regular check, or a legacy one for EXTERNAL services.
func (s backends) resolveServiceCheck(ctx context.Context, field, ref string, bs *api.BackendService, sc scope) (store.Key, error) {
	k, err := parseAnyRef(field, ref, sc, api.CollectionHealthChecks)
	if err != nil {
		return k, err
	}
	switch k.Collection {
	case api.CollectionHealthChecks:
		var hc api.HealthCheck
		if err := s.load(ctx, field, ref, k, &hc); err != nil {
			return k, err
		}
		if v := rules.BackendServiceHealthCheck(bs, sc.region, &hc, regionOfScope(k.Scope)); v != nil {
			return k, invalid("%s", v.Error())
		}
	case api.CollectionHTTPHealthChecks, api.CollectionHTTPSHealthChecks:
		if v := rules.BackendServiceLegacyCheck(bs, sc.region); v != nil {
			return k, invalid("%s", v.Error())
		}
		var hc api.LegacyHealthCheck
		if err := s.load(ctx, field, ref, k, &hc); err != nil {
			return k, err
		}
	default:
		v := rules.CheckKindMismatch(field, ref, k.Collection, api.CollectionHealthChecks)
		return k, invalid("%s", v.Error())
	}
	return k, nil
}

// backendServiceHealth answers backendServices.getHealth: the health of the
// endpoints of one group of the service (or of all its groups when the
// body names none, an lbhealth extension).
func (s backends) backendServiceHealth(r *Call) (any, error) {
	c := s.backendServices()
	bs, sc, err := c.load(r)
	if err != nil {
		return nil, err
	}
	group, err := s.groupFilter(r, bs, sc)
	if err != nil {
		return nil, err
	}
	out := api.BackendServiceGroupHealth{Kind: api.KindBackendServiceGroupHealth, HealthStatus: []api.HealthStatus{}}
	for _, st := range s.statuses(sc.key(c.def.Name, bs.Name).Path()) {
		if group == "" || st.Group == group {
			out.HealthStatus = append(out.HealthStatus, s.healthStatus(st))
		}
	}
	return out, nil
}

// groupFilter reads the optional {"group": ...} body: the path of one of
// the service's groups, or "" for all of them.
func (s backends) groupFilter(r *Call, bs *api.BackendService, sc scope) (string, error) {
	if !r.HasBody() {
		return "", nil
	}
	body, err := r.Body()
	if err != nil {
		return "", err
	}
	var ref api.ResourceGroupReference
	if err := s.decodeBody(r, body, "ResourceGroupReference", &ref); err != nil || ref.Group == "" {
		return "", err
	}
	k, err := parseAnyRef("group", ref.Group, sc, api.CollectionNetworkEndpointGroups)
	if err != nil {
		return "", err
	}
	for _, b := range bs.Backends {
		if api.PathOf(b.Group) == k.Path() {
			return k.Path(), nil
		}
	}
	return "", invalid("group (%q) is not a backend of %s.", ref.Group, bs.Name)
}
