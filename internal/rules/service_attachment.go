package rules

import (
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// ServiceAttachment checks a service attachment as a client sent it: the
// service it publishes, its NAT subnets, its connection preference and its
// consumer lists. That the service is an internal forwarding rule of its
// region and the subnets are Private Service Connect subnets of its region
// is checked by the emulator.
func ServiceAttachment(a *api.ServiceAttachment) Violations {
	var vs Violations
	vs.add(Name("name", a.Name))
	vs.add(Description("description", a.Description))
	if a.TargetService == "" && a.ProducerForwardingRule == "" {
		vs = append(vs, violation("targetService", "%s is required: the forwarding rule of the internal load balancer the attachment publishes.", f("targetService")))
	}
	if len(a.NatSubnets) == 0 {
		vs = append(vs, violation("natSubnets", "%s is required: at least one subnetwork of purpose PRIVATE_SERVICE_CONNECT, whose addresses consumers' connections are translated to.", f("natSubnets")))
	}
	switch a.ConnectionPreference {
	case "", api.ConnectionPreferenceUnspecified:
		vs = append(vs, violation("connectionPreference", "%s is required: ACCEPT_AUTOMATIC (every consumer) or ACCEPT_MANUAL (those of consumerAcceptLists).", f("connectionPreference")))
	}
	kind := ""
	for i, c := range a.ConsumerAcceptLists {
		field := fmt.Sprintf("consumerAcceptLists[%d]", i)
		k := ""
		n := 0
		for _, v := range []struct{ name, value string }{{"projectIdOrNum", c.ProjectIDOrNum}, {"networkUrl", c.NetworkURL}, {"endpointUrl", c.EndpointURL}} {
			if v.value != "" {
				k, n = v.name, n+1
			}
		}
		switch {
		case n != 1:
			vs = append(vs, violation(field, "%s must name one consumer: a projectIdOrNum, a networkUrl or an endpointUrl.", f(field)))
		case kind != "" && k != kind:
			vs = append(vs, violation(field+"."+k, "%s is set, but %s named a %s: an attachment's consumers are all projects, all networks or all endpoints.", f(field+"."+k), f("consumerAcceptLists[0]"), kind))
		default:
			kind = k
		}
	}
	return vs
}
