package rules

import (
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestForwardingRuleTarget: a target pool is regional, so only a regional
// rule may send traffic to one; the message names the field, in any naming.
func TestForwardingRuleTarget(t *testing.T) {
	if v := ForwardingRuleTarget("", false); v != nil {
		t.Errorf("no target: %v", v)
	}
	if v := ForwardingRuleTarget("pool", true); v != nil {
		t.Errorf("regional rule: %v", v)
	}
	v := ForwardingRuleTarget("pool", false)
	want := `target ("pool") must not be set on a global forwarding rule: target pools are regional; use a regional forwarding rule.`
	if v == nil || v.Field != "target" || v.Error() != want {
		t.Errorf("global rule: %v, want %q at target", v, want)
	}
}

// TestForwardingRule_Ports: up to five port numbers, each once, and never
// with portRange or allPorts, and each of the three only for the IP
// protocols that have ports, as the API documents them.
func TestForwardingRule_Ports(t *testing.T) {
	yes := true
	rule := func(change func(*api.ForwardingRule)) *api.ForwardingRule {
		fr := &api.ForwardingRule{Meta: api.Meta{Name: "fr"}, BackendService: "bs"}
		change(fr)
		return fr
	}
	for _, ok := range []*api.ForwardingRule{
		rule(func(fr *api.ForwardingRule) { fr.Ports = []string{"80", "443", "8080", "8443", "9000"} }),
		rule(func(fr *api.ForwardingRule) { fr.AllPorts = &yes }),
		rule(func(fr *api.ForwardingRule) { fr.PortRange = "80-90" }),
		rule(func(fr *api.ForwardingRule) { fr.PortRange, fr.IPProtocol = "53", "UDP" }),
		rule(func(fr *api.ForwardingRule) { fr.AllPorts, fr.IPProtocol = &yes, "L3_DEFAULT" }),
		rule(func(fr *api.ForwardingRule) { fr.IPProtocol = "ESP" }),
	} {
		if vs := ForwardingRule(ok); len(vs) > 0 {
			t.Errorf("%+v: %v, want it accepted", ok, vs)
		}
	}
	for _, tc := range []struct {
		fr   *api.ForwardingRule
		want string
	}{
		{rule(func(fr *api.ForwardingRule) { fr.Ports = []string{"../../etc/passwd", "0.0.0.0"} }), `ports[0] ("../../etc/passwd") must be a port number from 1 to 65535.`},
		{rule(func(fr *api.ForwardingRule) { fr.Ports = []string{"80", "0080"} }), `ports[1] ("0080") must be a port number`},
		{rule(func(fr *api.ForwardingRule) { fr.Ports = []string{"80", "80"} }), `ports[1] ("80") is listed twice`},
		{rule(func(fr *api.ForwardingRule) { fr.Ports = []string{"1", "2", "3", "4", "5", "6"} }), "ports lists 6 ports: a forwarding rule takes at most 5"},
		{rule(func(fr *api.ForwardingRule) { fr.Ports, fr.PortRange = []string{"80"}, "80" }), "ports, portRange and allPorts are exclusive"},
		{rule(func(fr *api.ForwardingRule) { fr.AllPorts, fr.PortRange = &yes, "80" }), "ports, portRange and allPorts are exclusive"},
		{rule(func(fr *api.ForwardingRule) { fr.Ports, fr.IPProtocol = []string{"80"}, "ICMP" }),
			"ports is set, but IPProtocol is ICMP: ports is for TCP, UDP, SCTP rules only."},
		{rule(func(fr *api.ForwardingRule) { fr.PortRange, fr.IPProtocol = "80", "L3_DEFAULT" }),
			"portRange is set, but IPProtocol is L3_DEFAULT: portRange is for TCP, UDP, SCTP rules only."},
		{rule(func(fr *api.ForwardingRule) { fr.AllPorts, fr.IPProtocol = &yes, "ESP" }),
			"allPorts is set, but IPProtocol is ESP: allPorts is for TCP, UDP, SCTP, L3_DEFAULT rules only."},
	} {
		if vs := ForwardingRule(tc.fr); len(vs) == 0 || !strings.Contains(vs.Err().Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.fr, vs, tc.want)
		}
	}
}
