package compute

import (
	"encoding/json"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// networks is the global networks collection. The emulator routes no
// packets: a network is what subnetworks, instances, firewalls and
// addresses reference, and cannot be deleted while they do. An auto-mode
// network gets no subnetworks of its own (create them).
func (s networking) networks() *core.Collection[api.Network, *api.Network] {
	// No mtu default: a network made without an mtu has 1460 bytes, but
	// the API returns no mtu for it (terraform-provider-google reads 0,
	// which the public modules' default mtu = 0 relies on for an empty
	// plan). Its routing is always answered.
	c := core.NewCollection[api.Network, *api.Network](s.API, api.CollectionNetworks, rules.Network, rules.ApplyNetworkDefaults)
	c.Immutable = func(prior, n *api.Network) error {
		if api.IsTrue(prior.AutoCreateSubnetworks) != api.IsTrue(n.AutoCreateSubnetworks) {
			return googleapi.Invalid("autoCreateSubnetworks cannot be changed by a patch (it is %v): switching to custom mode is networks.switchToCustomMode, which the emulator does not have; create a new network.",
				api.IsTrue(prior.AutoCreateSubnetworks))
		}
		if prior.IPv4Range != n.IPv4Range {
			return googleapi.Invalid("IPv4Range cannot be changed (it is %q): create a new network.", prior.IPv4Range)
		}
		return nil
	}
	c.InputOnly = func(doc core.Document) {
		rc, _ := doc["routingConfig"].(map[string]any)
		if rc == nil {
			return
		}
		if rc["deleteBgpAlwaysCompareMed"] == true {
			delete(rc, "bgpAlwaysCompareMed")
		}
		delete(rc, "deleteBgpAlwaysCompareMed")
	}
	return c
}

// networkEffectiveFirewalls answers networks.getEffectiveFirewalls: the
// firewall rules of the network, as stored. The emulator has no firewall
// policies, so it lists none.
func (s networking) networkEffectiveFirewalls(r *googleapi.Call) (any, error) {
	n, sc, err := s.networks().Load(r)
	if err != nil {
		return nil, err
	}
	self := sc.Key(api.CollectionNetworks, n.Name).Path()
	stored, err := s.Store.List(r.Context(), store.ListOptions{Project: sc.Project, Scope: "global", Collection: api.CollectionFirewalls})
	if err != nil {
		return nil, err
	}
	firewalls := []json.RawMessage{}
	for _, o := range stored {
		var fw api.Firewall
		if err := json.Unmarshal(o.Body, &fw); err != nil {
			return nil, err
		}
		if api.PathOf(fw.Network) == self {
			firewalls = append(firewalls, json.RawMessage(o.Body))
		}
	}
	return map[string]any{"firewalls": firewalls}, nil
}
