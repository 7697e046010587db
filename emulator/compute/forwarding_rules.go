package compute

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// forwardingRules is the global and regional forwardingRules collection.
func (s frontends) forwardingRules() *core.Collection[api.ForwardingRule, *api.ForwardingRule] {
	c := core.NewCollection[api.ForwardingRule, *api.ForwardingRule](s.API, api.CollectionForwardingRules, rules.ForwardingRule, rules.ApplyForwardingRuleDefaults)
	c.Resolve = s.resolveForwardingRule
	c.Refs = func(fr *api.ForwardingRule) []string {
		return []string{fr.BackendService, fr.Target, fr.Network, fr.Subnetwork}
	}
	c.Fingerprint = func(fr *api.ForwardingRule) *string { return &fr.Fingerprint }
	c.FingerprintOptional = true
	c.Outputs = func(fr, prior *api.ForwardingRule) {
		assignRuleAddress(fr, prior)
		pscConnectionID(fr, prior)
	}
	c.Attach = s.connectEndpoint
	c.Release = s.disconnectEndpoint
	return c
}

// RuleAddressRange is where a forwarding rule without IPAddress gets its
// address: on loopback, where the data plane can listen, and apart from
// the default managed-instance range (127.1.0.0/16) and the addresses of
// instances without a subnetwork (127.0.0.0/16), so that a rule's
// listener never takes the address of a server that answers an
// instance's probes. The emulator refuses a managed-instance range that
// overlaps it.
var RuleAddressRange = netip.MustParsePrefix("127.2.0.0/16")

// assignRuleAddress gives a rule without IPAddress one, as the API does
// (an ephemeral address). The emulator picks it in RuleAddressRange, or
// for ipVersion IPV6 in 2001:db8:1b:1::/64 (the documentation range,
// routed nowhere), from the rule's id: forwarding rules are not probed.
func assignRuleAddress(fr *api.ForwardingRule, prior *api.ForwardingRule) {
	switch {
	case fr.IPAddress != "":
	case prior != nil && prior.IPAddress != "":
		fr.IPAddress = prior.IPAddress // an ephemeral address lasts as long as its rule
	case fr.IPVersion == api.IPv6:
		fr.IPAddress = fmt.Sprintf("2001:db8:1b:1::%x:%x", fr.ID>>16&0xffff, fr.ID&0xffff|1)
	default:
		id := fr.ID
		b := RuleAddressRange.Addr().As4()
		b[2], b[3] = byte(id>>8), byte(id)&0xfe|1
		fr.IPAddress = netip.AddrFrom4(b).String()
	}
}

// resolveRuleAddress turns an IPAddress that names an address resource
// into that address's number, as the API does ("when reading an IPAddress,
// the API always returns the IP address number").
func (s frontends) resolveRuleAddress(ctx context.Context, fr *api.ForwardingRule, sc core.Scope) error {
	if fr.IPAddress == "" || rules.IsIPOrRange(fr.IPAddress) {
		return nil
	}
	var addr api.Address
	if _, err := s.Lookup(ctx, "IPAddress", fr.IPAddress, sc, api.CollectionAddresses, &addr); err != nil {
		return err
	}
	fr.IPAddress = addr.Address
	return nil
}

// resolveRuleNetwork checks the network and subnetwork a rule names: they
// must exist, a subnetwork in the rule's region (a global rule names the
// region in the reference) and in the rule's network when both are set.
func (s frontends) resolveRuleNetwork(ctx context.Context, fr *api.ForwardingRule, sc core.Scope) error {
	network := fr.Network // as sent, for messages
	if fr.Network != "" {
		k, err := s.Lookup(ctx, "network", fr.Network, core.Scope{Project: sc.Project}, api.CollectionNetworks, new(api.Network))
		if err != nil {
			return err
		}
		fr.Network = s.Link(k.Path())
	}
	if fr.Subnetwork == "" {
		return nil
	}
	var sn api.Subnetwork
	k, err := s.Lookup(ctx, "subnetwork", fr.Subnetwork, sc, api.CollectionSubnetworks, &sn)
	if err != nil {
		return err
	}
	if sc.Region != "" && k.Scope != sc.Path() {
		return googleapi.Invalid("subnetwork (%q) is in %s: a forwarding rule in region %s takes a subnetwork of its own region.", fr.Subnetwork, k.Scope, sc.Region)
	}
	if fr.Network != "" && core.LastSegment(sn.Network) != core.LastSegment(fr.Network) {
		return googleapi.Invalid("subnetwork (%q) is a range of network %s, not of network (%q).", fr.Subnetwork, core.LastSegment(sn.Network), network)
	}
	fr.Subnetwork = s.Link(k.Path())
	return nil
}

// followedTargets are the targets of forwarding rules that the emulator
// models, and so follows: each must exist, and what scope it must be in.
var followedTargets = map[string]string{
	api.CollectionTargetPools:        "a target pool of its own region",
	api.CollectionTargetHTTPProxies:  "a target proxy of its own scope",
	api.CollectionTargetHTTPSProxies: "a target proxy of its own scope",
	api.CollectionTargetTCPProxies:   "a target proxy of its own scope",
	api.CollectionTargetSSLProxies:   "a target SSL proxy, which is global, so the rule must be global",
	api.CollectionTargetInstances:    "a target instance in a zone of its own region",
	api.CollectionTargetGrpcProxies:  "a target gRPC proxy, which is global, so the rule must be global",
}

// forwardingTargets are the other collections a forwarding rule's target
// may name, as the Compute API lists them; the emulator keeps such a
// reference as sent, and does not follow it.
var forwardingTargets = map[string]bool{"targetVpnGateways": true, "serviceAttachments": true}

// resolveForwardingRule checks the backend service or target pool a rule
// sends traffic to: it must exist, in the rule's own scope.
func (s frontends) resolveForwardingRule(ctx context.Context, fr *api.ForwardingRule, sc core.Scope) error {
	if err := s.resolveRuleAddress(ctx, fr, sc); err != nil {
		return err
	}
	if err := s.resolveRuleNetwork(ctx, fr, sc); err != nil {
		return err
	}
	if fr.BackendService != "" {
		var bs api.BackendService
		k, err := s.Lookup(ctx, "backendService", fr.BackendService, sc, api.CollectionBackendServices, &bs)
		if err != nil {
			return err
		}
		if k.Scope != sc.Path() {
			return googleapi.Invalid("backendService (%q) is in %s: a forwarding rule in %s takes a backend service of its own scope.", fr.BackendService, k.Scope, sc.Path())
		}
		fr.BackendService = s.Link(k.Path())
	}
	if fr.Target != "" {
		return s.resolveRuleTarget(ctx, fr, sc)
	}
	return nil
}

// resolveRuleTarget follows a rule's target: a target pool or a target
// instance of the rule's region, a target proxy of its scope.
func (s frontends) resolveRuleTarget(ctx context.Context, fr *api.ForwardingRule, sc core.Scope) error {
	if rules.GoogleAPIsBundles[fr.Target] {
		if sc.Region != "" {
			return googleapi.Invalid("target (%q) is a bundle of Google APIs, which only a global forwarding rule reaches (Private Service Connect); a regional rule's target is a target pool, a target instance, a target proxy or a service attachment.", fr.Target)
		}
		return nil // kept as sent: the API writes it so
	}
	k, err := core.ParseAnyRef("target", fr.Target, sc, api.CollectionTargetPools)
	if err != nil {
		return err
	}
	want, followed := followedTargets[k.Collection]
	if !followed && !forwardingTargets[k.Collection] {
		return googleapi.Invalid("target (%q) refers to a %s resource: a forwarding rule sends traffic to a target proxy (HTTP, HTTPS, TCP, SSL, gRPC), a target pool, a target instance, a target VPN gateway or a service attachment.",
			fr.Target, k.Collection)
	}
	if k.Collection == api.CollectionServiceAttachments {
		return s.resolvePscEndpoint(ctx, fr, sc, k)
	}
	if !followed {
		// VPN gateways are not followed: the reference is kept as sent.
		fr.Target = s.Link(k.Path())
		return nil
	}
	if v := rules.ForwardingRuleTarget(fr.Target, sc.Region != ""); v != nil && k.Collection == api.CollectionTargetPools {
		return googleapi.Invalid("%s", v.Error())
	}
	var body map[string]any
	o, err := s.LoadObject(ctx, "target", fr.Target, k, &body)
	if err != nil {
		return err
	}
	fits := o.Key.Scope == sc.Path()
	if k.Collection == api.CollectionTargetInstances {
		zone, _ := strings.CutPrefix(o.Key.Scope, "zones/")
		fits = sc.Region != "" && rules.ZoneRegion(zone) == sc.Region
	}
	if !fits {
		return googleapi.Invalid("target (%q) is in %s: a forwarding rule in %s takes %s.", fr.Target, o.Key.Scope, sc.Path(), want)
	}
	fr.Target = s.Link(o.Key.Path())
	return nil
}

// forwardingRuleSetTarget answers forwardingRules.setTarget and
// globalForwardingRules.setTarget: the rule's target changes, under the
// rule's own checks.
func (s frontends) forwardingRuleSetTarget(r *googleapi.Call) (any, error) {
	var req api.TargetReference
	if err := s.ReadJSON(r, "TargetReference", &req); err != nil {
		return nil, err
	}
	if req.Target == "" {
		return nil, googleapi.Invalid("target is required: the URL of the rule's new target.")
	}
	return s.forwardingRules().Modify(r, "setTarget", func(stored *api.ForwardingRule) (*api.ForwardingRule, error) {
		fr := cloneOf(stored)
		fr.Target = req.Target
		return fr, nil
	})
}
