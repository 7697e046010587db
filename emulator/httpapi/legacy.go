package httpapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// legacyHealthChecks is the global httpHealthChecks or httpsHealthChecks
// collection (name says which).
func (s *Server) legacyHealthChecks(name string) *collection[api.LegacyHealthCheck, *api.LegacyHealthCheck] {
	return &collection[api.LegacyHealthCheck, *api.LegacyHealthCheck]{
		s:   s,
		def: api.MustCollection(name),
		check: func(hc *api.LegacyHealthCheck, _ scope) rules.Violations {
			return rules.LegacyHealthCheck(hc)
		},
		defaults: func(hc *api.LegacyHealthCheck) { rules.ApplyLegacyHealthCheckDefaults(hc, name) },
	}
}

// targetPools is the regional targetPools collection.
func (s *Server) targetPools() *collection[api.TargetPool, *api.TargetPool] {
	return &collection[api.TargetPool, *api.TargetPool]{
		s:   s,
		def: api.MustCollection(api.CollectionTargetPools),
		check: func(tp *api.TargetPool, _ scope) rules.Violations {
			return rules.TargetPool(tp)
		},
		defaults: func(*api.TargetPool) {},
		resolve:  s.resolveTargetPool,
		refs:     func(tp *api.TargetPool) []string { return tp.HealthChecks },
	}
}

// resolveTargetPool checks that the pool's check is a legacy HTTP check
// that exists, and that the instances its instance URLs name exist in its
// region, and stores the references as URLs.
func (s *Server) resolveTargetPool(ctx context.Context, tp *api.TargetPool, sc scope) error {
	for i, inst := range tp.Instances {
		project, zone, name, ok := rules.InstanceRef(inst)
		if !ok {
			continue // "ip[:port]", the lbhealth extension
		}
		if project == "" {
			project = sc.project
		}
		field := fmt.Sprintf("instances[%d]", i)
		k := store.Key{Project: project, Scope: "zones/" + zone, Collection: api.CollectionInstances, Name: name}
		if err := s.load(ctx, field, inst, k, new(api.Instance)); err != nil {
			return err
		}
		if r := rules.ZoneRegion(zone); r != "" && r != sc.region {
			return invalid("%s (%q) is in zone %s: a target pool takes instances of its own region (%s).", field, inst, zone, sc.region)
		}
		tp.Instances[i] = s.link(k.Path())
	}
	for i, ref := range tp.HealthChecks {
		field := fmt.Sprintf("healthChecks[%d]", i)
		k, err := parseAnyRef(field, ref, scope{project: sc.project}, api.CollectionHTTPHealthChecks)
		if err != nil {
			return err
		}
		if v := rules.TargetPoolHealthCheck(ref, k.Collection); v != nil {
			return invalid("%s", v.Error())
		}
		var hc api.LegacyHealthCheck
		if err := s.load(ctx, field, ref, k, &hc); err != nil {
			return err
		}
		tp.HealthChecks[i] = s.link(k.Path())
	}
	return nil
}

// targetPoolHealth answers targetPools.getHealth: the health of one
// instance (or of all, when the body names none: an lbhealth extension).
func (s *Server) targetPoolHealth(r *http.Request) (any, error) {
	c := s.targetPools()
	tp, sc, err := c.load(r)
	if err != nil {
		return nil, err
	}
	instance, err := s.instanceFilter(r, tp)
	if err != nil {
		return nil, err
	}
	out := api.TargetPoolInstanceHealth{Kind: api.KindTargetPoolInstanceHealth, HealthStatus: []api.HealthStatus{}}
	for _, st := range s.statuses(sc.key(c.def.Name, tp.Name).Path()) {
		if instance == "" || st.Endpoint.Instance == instance {
			out.HealthStatus = append(out.HealthStatus, s.healthStatus(st))
		}
	}
	return out, nil
}

// instanceFilter reads the optional {"instance": ...} body.
func (s *Server) instanceFilter(r *http.Request, tp *api.TargetPool) (string, error) {
	if r.ContentLength == 0 {
		return "", nil
	}
	body, err := readBody(r)
	if err != nil {
		return "", err
	}
	var ref api.InstanceReference
	if err := decodeBody(body, "InstanceReference", &ref); err != nil || ref.Instance == "" {
		return "", err
	}
	// Compared as the pool's rules compare instances: a URL under another
	// host, or a path, names the same instance.
	want, _ := rules.TargetPoolInstance("instance", ref.Instance)
	for _, inst := range tp.Instances {
		if k, _ := rules.TargetPoolInstance("instance", inst); inst == ref.Instance || (want != "" && k == want) {
			return inst, nil
		}
	}
	return "", invalid("instance (%q) is not an instance of target pool %s.", ref.Instance, tp.Name)
}

// forwardingRules is the global and regional forwardingRules collection.
func (s *Server) forwardingRules() *collection[api.ForwardingRule, *api.ForwardingRule] {
	return &collection[api.ForwardingRule, *api.ForwardingRule]{
		s:   s,
		def: api.MustCollection(api.CollectionForwardingRules),
		check: func(fr *api.ForwardingRule, _ scope) rules.Violations {
			return rules.ForwardingRule(fr)
		},
		defaults: rules.ApplyForwardingRuleDefaults,
		resolve:  s.resolveForwardingRule,
		refs: func(fr *api.ForwardingRule) []string {
			return []string{fr.BackendService, fr.Target}
		},
		fingerprint:         func(fr *api.ForwardingRule) *string { return &fr.Fingerprint },
		fingerprintOptional: true,
		outputs:             assignRuleAddress,
	}
}

// assignRuleAddress gives a rule without IPAddress one, as the API does
// (an ephemeral address). The emulator picks it in 127.1.0.0/16, where
// nothing is sent: forwarding rules are not probed.
func assignRuleAddress(fr *api.ForwardingRule, prior *api.ForwardingRule) {
	switch {
	case fr.IPAddress != "":
	case prior != nil && prior.IPAddress != "":
		fr.IPAddress = prior.IPAddress // an ephemeral address lasts as long as its rule
	default:
		id := fr.ID
		fr.IPAddress = fmt.Sprintf("127.1.%d.%d", id>>8&0xff, id&0xfe|1)
	}
}

// resolveRuleAddress turns an IPAddress that names an address resource
// into that address's number, as the API does ("when reading an IPAddress,
// the API always returns the IP address number").
func (s *Server) resolveRuleAddress(ctx context.Context, fr *api.ForwardingRule, sc scope) error {
	if fr.IPAddress == "" || rules.IsIPOrRange(fr.IPAddress) {
		return nil
	}
	var addr api.Address
	if _, err := s.lookup(ctx, "IPAddress", fr.IPAddress, sc, api.CollectionAddresses, &addr); err != nil {
		return err
	}
	fr.IPAddress = addr.Address
	return nil
}

// modelledTargets are the targets of forwarding rules that the emulator
// models, and so checks.
var modelledTargets = map[string]bool{api.CollectionTargetPools: true}

// resolveForwardingRule checks the backend service or target pool a rule
// sends traffic to: it must exist, in the rule's own scope.
func (s *Server) resolveForwardingRule(ctx context.Context, fr *api.ForwardingRule, sc scope) error {
	if err := s.resolveRuleAddress(ctx, fr, sc); err != nil {
		return err
	}
	if fr.BackendService != "" {
		var bs api.BackendService
		k, err := s.lookup(ctx, "backendService", fr.BackendService, sc, api.CollectionBackendServices, &bs)
		if err != nil {
			return err
		}
		if k.Scope != sc.path() {
			return invalid("backendService (%q) is in %s: a forwarding rule in %s takes a backend service of its own scope.", fr.BackendService, k.Scope, sc.path())
		}
		fr.BackendService = s.link(k.Path())
	}
	if fr.Target != "" {
		k, err := parseAnyRef("target", fr.Target, sc, api.CollectionTargetPools)
		if err != nil {
			return err
		}
		if !modelledTargets[k.Collection] {
			// Target proxies, instances, service attachments ... are not
			// modelled: the reference is kept as sent, and not followed.
			fr.Target = s.link(k.Path())
			return nil
		}
		if v := rules.ForwardingRuleTarget(fr.Target, sc.region != ""); v != nil {
			return invalid("%s", v.Error())
		}
		var tp api.TargetPool
		k, err = s.lookup(ctx, "target", fr.Target, sc, api.CollectionTargetPools, &tp)
		if err != nil {
			return err
		}
		if k.Scope != sc.path() {
			return invalid("target (%q) is in %s: a forwarding rule takes a target pool of its own region (%s).", fr.Target, k.Scope, sc.region)
		}
		fr.Target = s.link(k.Path())
	}
	return nil
}
