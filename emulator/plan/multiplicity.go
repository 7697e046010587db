package plan

import (
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Probe multiplicity, as the cloud has it: each prober probes a backend
// once per interval for every forwarding rule (passthrough load balancers,
// target pools) or target proxy (proxy load balancers) that uses its
// backend service, and a backend in several services is probed for each.
// The planner counts them when SetProbeMultiplicity turns it on; an owner
// no front end uses yet is probed once, so that checks work before the
// front end exists.

// SetProbeMultiplicity turns probe multiplicity on or off; it applies from
// the next plan.
func (p *Planner) SetProbeMultiplicity(on bool) { p.multiplicity = on }

// frontOwners are the owners whose multiplicity the front-end object at
// path counts in: a forwarding rule's backend service or target pool (a
// rule whose target is a proxy counts through the proxy), the services a
// target proxy leads to (through its URL map), a URL map's services.
func (s snapshot) frontOwners(path string) []string {
	if fr, ok := s.ForwardingRules[path]; ok {
		var out []string
		if fr.BackendService != "" {
			out = append(out, api.PathOf(fr.BackendService))
		}
		if target := api.PathOf(fr.Target); api.CollectionOf(target) == api.CollectionTargetPools {
			out = append(out, target)
		}
		return out
	}
	if px, ok := s.HTTPProxies[path]; ok {
		return s.frontOwners(api.PathOf(px.URLMap))
	}
	if px, ok := s.HTTPSProxies[path]; ok {
		return s.frontOwners(api.PathOf(px.URLMap))
	}
	if px, ok := s.TCPProxies[path]; ok {
		return []string{api.PathOf(px.Service)}
	}
	if px, ok := s.SSLProxies[path]; ok {
		return []string{api.PathOf(px.Service)}
	}
	if m, ok := s.URLMaps[path]; ok {
		var out []string
		for _, ref := range m.Services() {
			if p := api.PathOf(*ref.Value); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		return out
	}
	return nil
}

// multiplicityOf is how many forwarding rules and target proxies count in
// owner's multiplicity; at least 1.
func (s snapshot) multiplicityOf(owner string) int {
	n := users(s, s.ForwardingRules, owner) + users(s, s.HTTPProxies, owner) + users(s, s.HTTPSProxies, owner) +
		users(s, s.TCPProxies, owner) + users(s, s.SSLProxies, owner)
	return max(1, n)
}

// users counts the objects of m that count in owner's multiplicity.
func users[T any](s snapshot, m map[string]*T, owner string) int {
	n := 0
	for path := range m {
		if slices.Contains(s.frontOwners(path), owner) {
			n++
		}
	}
	return n
}
