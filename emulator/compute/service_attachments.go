package compute

import (
	"context"
	"fmt"
	"strconv"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// serviceAttachments is the regional serviceAttachments collection:
// Private Service Connect publications of internal load balancers,
// validated and stored (no consumer connects).
func (s frontends) serviceAttachments() *collection[api.ServiceAttachment, *api.ServiceAttachment] {
	c := newCollection[api.ServiceAttachment, *api.ServiceAttachment](s.Service, api.CollectionServiceAttachments, rules.ServiceAttachment, nil)
	c.resolve = s.resolveServiceAttachment
	c.refs = func(a *api.ServiceAttachment) []string {
		return append([]string{a.TargetService, a.ProducerForwardingRule}, a.NatSubnets...)
	}
	c.fingerprint = func(a *api.ServiceAttachment) *string { return &a.Fingerprint }
	c.fingerprintOptional = true
	c.outputs = func(a, prior *api.ServiceAttachment) {
		if prior != nil && prior.PscServiceAttachmentID != nil {
			a.PscServiceAttachmentID = prior.PscServiceAttachmentID
			return
		}
		a.PscServiceAttachmentID = &api.Uint128{High: strconv.FormatUint(newID()>>1, 10), Low: strconv.FormatUint(a.ID, 10)}
	}
	return c
}

// resolveServiceAttachment checks what an attachment names: its service, a
// forwarding rule of an internal load balancer in its region, and its NAT
// subnets, Private Service Connect subnetworks of its region.
func (s frontends) resolveServiceAttachment(ctx context.Context, a *api.ServiceAttachment, sc scope) error {
	for _, ref := range []struct {
		field string
		value *string
	}{{"targetService", &a.TargetService}, {"producerForwardingRule", &a.ProducerForwardingRule}} {
		if *ref.value == "" {
			continue
		}
		var fr api.ForwardingRule
		k, err := s.lookup(ctx, ref.field, *ref.value, sc, api.CollectionForwardingRules, &fr)
		if err != nil {
			return err
		}
		switch {
		case k.Scope != sc.path():
			return invalid("%s (%q) is in %s: an attachment publishes a forwarding rule of its own region (%s).", ref.field, *ref.value, k.Scope, sc.region)
		case fr.LoadBalancingScheme != api.SchemeInternal && fr.LoadBalancingScheme != api.SchemeInternalManaged:
			return invalid("%s (%q) has loadBalancingScheme %s: Private Service Connect publishes the forwarding rule of an internal load balancer (INTERNAL or INTERNAL_MANAGED).", ref.field, *ref.value, fr.LoadBalancingScheme)
		}
		*ref.value = s.link(k.Path())
	}
	for i, ref := range a.NatSubnets {
		field := fmt.Sprintf("natSubnets[%d]", i)
		var sn api.Subnetwork
		k, err := s.lookup(ctx, field, ref, sc, api.CollectionSubnetworks, &sn)
		if err != nil {
			return err
		}
		switch {
		case k.Scope != sc.path():
			return invalid("%s (%q) is in %s: an attachment's NAT subnets are of its own region (%s).", field, ref, k.Scope, sc.region)
		case sn.Purpose != api.PurposePrivateServiceConnect:
			return invalid("%s (%q) has purpose %q: a NAT subnet of Private Service Connect has purpose PRIVATE_SERVICE_CONNECT.", field, ref, sn.Purpose)
		}
		a.NatSubnets[i] = s.link(k.Path())
	}
	return nil
}
