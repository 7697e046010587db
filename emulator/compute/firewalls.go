package compute

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// firewalls is the global firewalls collection. The emulator filters no
// traffic: a firewall rule is stored, and keeps its network in use.
func (s networking) firewalls() *core.Collection[api.Firewall, *api.Firewall] {
	c := core.NewCollection[api.Firewall, *api.Firewall](s.API, api.CollectionFirewalls, rules.Firewall, rules.ApplyFirewallDefaults)
	c.Resolve = func(ctx context.Context, fw *api.Firewall, sc core.Scope) error {
		if fw.Network == "" {
			fw.Network = "global/networks/" + api.DefaultNetwork // as in the Compute API
		}
		k, err := s.Lookup(ctx, "network", fw.Network, core.Scope{Project: sc.Project}, api.CollectionNetworks, new(api.Network))
		if err != nil {
			return err
		}
		fw.Network = s.Link(k.Path())
		return nil
	}
	c.Refs = func(fw *api.Firewall) []string { return []string{fw.Network} }
	c.Immutable = func(prior, fw *api.Firewall) error {
		if fw.Network != "" && core.LastSegment(prior.Network) != core.LastSegment(fw.Network) {
			return googleapi.Invalid("network (%q) cannot be changed: the rule is in %s; create a new rule.", fw.Network, prior.Network)
		}
		return nil
	}
	return c
}
