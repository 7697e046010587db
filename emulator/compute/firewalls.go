package compute

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// firewalls is the global firewalls collection. The emulator filters no
// traffic: a firewall rule is stored, and keeps its network in use.
func (s networking) firewalls() *collection[api.Firewall, *api.Firewall] {
	c := newCollection[api.Firewall, *api.Firewall](s.Service, api.CollectionFirewalls, rules.Firewall, rules.ApplyFirewallDefaults)
	c.resolve = func(ctx context.Context, fw *api.Firewall, sc scope) error {
		if fw.Network == "" {
			fw.Network = "global/networks/" + api.DefaultNetwork // as in the Compute API
		}
		k, err := s.lookup(ctx, "network", fw.Network, scope{project: sc.project}, api.CollectionNetworks, new(api.Network))
		if err != nil {
			return err
		}
		fw.Network = s.link(k.Path())
		return nil
	}
	c.refs = func(fw *api.Firewall) []string { return []string{fw.Network} }
	c.immutable = func(prior, fw *api.Firewall) error {
		if fw.Network != "" && lastSegment(prior.Network) != lastSegment(fw.Network) {
			return invalid("network (%q) cannot be changed: the rule is in %s; create a new rule.", fw.Network, prior.Network)
		}
		return nil
	}
	return c
}
