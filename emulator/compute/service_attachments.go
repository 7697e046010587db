package compute

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// serviceAttachments is the regional serviceAttachments collection:
// Private Service Connect publications of internal load balancers,
// validated and stored, listing the consumers' endpoints (psc.go).
func (s frontends) serviceAttachments() *core.Collection[api.ServiceAttachment, *api.ServiceAttachment] {
	c := core.NewCollection[api.ServiceAttachment, *api.ServiceAttachment](s.API, api.CollectionServiceAttachments, rules.ServiceAttachment, nil)
	c.Resolve = s.resolveServiceAttachment
	c.Refs = func(a *api.ServiceAttachment) []string {
		return append([]string{a.TargetService, a.ProducerForwardingRule}, a.NatSubnets...)
	}
	c.Fingerprint = func(a *api.ServiceAttachment) *string { return &a.Fingerprint }
	c.FingerprintOptional = true
	c.Outputs = func(a, prior *api.ServiceAttachment) {
		a.PscServiceAttachmentID, a.ConnectedEndpoints = nil, nil
		if prior != nil {
			a.PscServiceAttachmentID = prior.PscServiceAttachmentID
			// The endpoints are the consumers'; the lists, as they are
			// now, move the ones they may.
			a.ConnectedEndpoints = slices.Clone(prior.ConnectedEndpoints)
			reconsider(a)
		}
		if a.PscServiceAttachmentID == nil {
			a.PscServiceAttachmentID = &api.Uint128{High: strconv.FormatUint(core.NewID()>>1, 10), Low: strconv.FormatUint(a.ID, 10)}
		}
	}
	c.Updated = s.updateEndpoints
	return c
}

// resolveServiceAttachment checks what an attachment names: its service, a
// forwarding rule of an internal load balancer in its region (or global,
// of a cross-region internal load balancer), and its NAT
// subnets, Private Service Connect subnetworks of its region.
func (s frontends) resolveServiceAttachment(ctx context.Context, a *api.ServiceAttachment, sc core.Scope) error {
	for _, ref := range []struct {
		field string
		value *string
	}{{"targetService", &a.TargetService}, {"producerForwardingRule", &a.ProducerForwardingRule}} {
		if *ref.value == "" {
			continue
		}
		var fr api.ForwardingRule
		k, err := s.Lookup(ctx, ref.field, *ref.value, sc, api.CollectionForwardingRules, &fr)
		if err != nil {
			return err
		}
		// A cross-region internal load balancer's rule is global, and any
		// region's attachment may publish it.
		crossRegion := k.Scope == "global" && fr.LoadBalancingScheme == api.SchemeInternalManaged
		switch {
		case k.Scope != sc.Path() && !crossRegion:
			return googleapi.Invalid("%s (%q) is in %s: an attachment publishes a forwarding rule of its own region (%s), or the global one of a cross-region internal load balancer (INTERNAL_MANAGED).", ref.field, *ref.value, k.Scope, sc.Region)
		case fr.LoadBalancingScheme != api.SchemeInternal && fr.LoadBalancingScheme != api.SchemeInternalManaged:
			return googleapi.Invalid("%s (%q) has loadBalancingScheme %s: Private Service Connect publishes the forwarding rule of an internal load balancer (INTERNAL or INTERNAL_MANAGED).", ref.field, *ref.value, fr.LoadBalancingScheme)
		}
		*ref.value = s.Link(k.Path())
	}
	for i, ref := range a.NatSubnets {
		field := fmt.Sprintf("natSubnets[%d]", i)
		var sn api.Subnetwork
		k, err := s.Lookup(ctx, field, ref, sc, api.CollectionSubnetworks, &sn)
		if err != nil {
			return err
		}
		switch {
		case k.Scope != sc.Path():
			return googleapi.Invalid("%s (%q) is in %s: an attachment's NAT subnets are of its own region (%s).", field, ref, k.Scope, sc.Region)
		case sn.Purpose != api.PurposePrivateServiceConnect:
			return googleapi.Invalid("%s (%q) has purpose %q: a NAT subnet of Private Service Connect has purpose PRIVATE_SERVICE_CONNECT.", field, ref, sn.Purpose)
		}
		a.NatSubnets[i] = s.Link(k.Path())
	}
	return nil
}
