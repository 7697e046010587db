package firewall

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const network = "projects/p/global/networks/default"

func rule(name string, priority int64, deny bool, sources []string, tags []string, ports ...string) *api.Firewall {
	fw := &api.Firewall{Meta: api.Meta{Name: name}, Network: "https://compute.googleapis.com/compute/v1/" + network,
		Priority: &priority, SourceRanges: sources, TargetTags: tags}
	entry := []api.FirewallRule{{IPProtocol: "tcp", Ports: ports}}
	if deny {
		fw.Denied = entry
	} else {
		fw.Allowed = entry
	}
	return fw
}

// TestEvaluate_EveryTypeAndUniverse: for every load-balancer type of each
// universe whose instance-group backends are probed from ranges, a rule
// allowing those ranges lets the probes in; no rule, a higher-priority
// deny, the wrong port or the wrong tag block them, and the message names
// the rule to add.
func TestEvaluate_EveryTypeAndUniverse(t *testing.T) {
	web := Target{Network: network, Tags: []string{"web"}, Protocol: "tcp", Port: 8080}
	seen := 0
	for _, u := range []Universe{GoogleCloud, S3NS} {
		for _, typ := range []Type{GlobalExternalALB, ClassicALB, GlobalExternalProxyNLB, ClassicProxyNLB, RegionalExternalALB,
			RegionalInternalALB, CrossRegionInternalALB, RegionalExternalProxyNLB, RegionalInternalProxyNLB,
			CrossRegionInternalProxyNLB, GlobalExternalPassthroughNLB, ExternalPassthroughNLB, InternalPassthroughNLB, CloudServiceMesh} {
			row, ok := Lookup(u, typ, InstanceGroup)
			if !ok {
				continue
			}
			seen++
			var ranges []string
			for _, p := range row.IPv4 {
				ranges = append(ranges, p.String())
			}
			name := string(u) + "/" + string(typ)
			allow := rule("allow-probers", 1000, false, ranges, []string{"web"}, "8080")
			if f := Evaluate([]*api.Firewall{allow}, web, row.IPv4); f.Verdict != Allowed {
				t.Errorf("%s allowed: %+v", name, f)
			}
			for _, tc := range []struct {
				what  string
				rules []*api.Firewall
				want  string
			}{
				{"no rule", nil, "every probe would be blocked: no ingress rule allows them (the implied deny); add a rule to allow tcp:8080 from " + ranges[0]},
				{"higher-priority deny", []*api.Firewall{allow, rule("deny-all", 900, true, []string{"0.0.0.0/0"}, nil)}, "firewall rule deny-all denies them"},
				{"wrong port", []*api.Firewall{rule("allow-80", 1000, false, ranges, []string{"web"}, "80")}, "the implied deny"},
				{"wrong tag", []*api.Firewall{rule("allow-db", 1000, false, ranges, []string{"db"}, "8080")}, "to tag web in network default"},
			} {
				f := Evaluate(tc.rules, web, row.IPv4)
				if f.Verdict != Blocked || !strings.Contains(f.Message, tc.want) {
					t.Errorf("%s %s: %+v, want BLOCKED with %q", name, tc.what, f, tc.want)
				}
			}
		}
	}
	// Google Cloud: 4 Google Front End types, 6 Envoy-based, 2 passthrough
	// and Cloud Service Mesh; S3NS: 4 Envoy-based and 3 passthrough.
	if seen != 20 {
		t.Errorf("%d (universe, type) pairs have instance-group rows, want 20", seen)
	}
}

// TestEvaluate_Partial: a rule for one of several ranges lets some probes
// in: the finding names the ranges left out.
func TestEvaluate_Partial(t *testing.T) {
	row, _ := Lookup(GoogleCloud, ExternalPassthroughNLB, InstanceGroup)
	f := Evaluate([]*api.Firewall{rule("allow-35", 1000, false, []string{"35.191.0.0/16"}, nil)},
		Target{Network: network, Protocol: "tcp", Port: 80}, row.IPv4)
	if f.Verdict != Partial || !strings.Contains(f.Message, "probes from 209.85.152.0/22, 209.85.204.0/22 would be blocked") {
		t.Errorf("%+v", f)
	}
}

// TestEvaluate_RuleSemantics: disabled, egress and other networks' rules
// do not count; sourceTags never match probers; a rule with no source
// matches every address; protocol numbers and "all" match.
func TestEvaluate_RuleSemantics(t *testing.T) {
	src := []netip.Prefix{netip.MustParsePrefix("35.191.0.0/16")}
	tgt := Target{Network: network, Protocol: "tcp", Port: 80}
	disabled := rule("off", 1000, false, []string{"0.0.0.0/0"}, nil)
	disabled.Disabled = true
	egress := rule("out", 1000, false, []string{"0.0.0.0/0"}, nil)
	egress.Direction = api.DirectionEgress
	other := rule("other", 1000, false, []string{"0.0.0.0/0"}, nil)
	other.Network = "projects/p/global/networks/other"
	tagged := rule("from-tag", 1000, false, nil, nil)
	tagged.SourceTags = []string{"lb"}
	for _, fw := range []*api.Firewall{disabled, egress, other, tagged} {
		if f := Evaluate([]*api.Firewall{fw}, tgt, src); f.Verdict != Blocked {
			t.Errorf("%s let probes in: %+v", fw.Name, f)
		}
	}
	anywhere := rule("any", 1000, false, nil, nil)
	number := &api.Firewall{Meta: api.Meta{Name: "six"}, Network: network, SourceRanges: []string{"35.191.0.0/16"}, Allowed: []api.FirewallRule{{IPProtocol: "6"}}}
	all := &api.Firewall{Meta: api.Meta{Name: "all"}, Network: network, SourceRanges: []string{"35.0.0.0/8"}, Allowed: []api.FirewallRule{{IPProtocol: "all"}}}
	ranged := rule("range", 1000, false, []string{"35.191.0.0/16"}, nil, "70-90")
	for _, fw := range []*api.Firewall{anywhere, number, all, ranged} {
		if f := Evaluate([]*api.Firewall{fw}, tgt, src); f.Verdict != Allowed {
			t.Errorf("%s did not let probes in: %+v", fw.Name, f)
		}
	}
	udp := tgt
	udp.Protocol = "udp"
	if f := Evaluate([]*api.Firewall{ranged}, udp, src); f.Verdict != Blocked {
		t.Errorf("a tcp rule let udp probes in: %+v", f)
	}
}

// TestLookup_SourcesOtherThanRanges: Envoy-based load balancers probe
// hybrid NEGs from the proxy-only subnet; internet, serverless and PSC
// backends of GFE load balancers are not probed; target pools have rows
// (their metadata-server probes are always allowed); S3NS has no Google
// Front End rows.
func TestLookup_SourcesOtherThanRanges(t *testing.T) {
	for _, tc := range []struct {
		u    Universe
		typ  Type
		b    Backend
		want Source
	}{
		{GoogleCloud, RegionalInternalALB, Hybrid, ProxyOnlySubnet},
		{S3NS, RegionalExternalALB, RegionalInternet, ProxyOnlySubnet},
		{GoogleCloud, GlobalExternalALB, Hybrid, Ranges},
		{GoogleCloud, GlobalExternalALB, ServerlessNEG, NotProbed},
		{GoogleCloud, CloudServiceMesh, Hybrid, SelfManagedEnvoy},
		{GoogleCloud, ExternalPassthroughNLB, TargetPoolInstance, Ranges},
		{S3NS, ExternalPassthroughNLB, TargetPoolInstance, Ranges},
	} {
		row, ok := Lookup(tc.u, tc.typ, tc.b)
		if !ok || row.Source != tc.want {
			t.Errorf("%s %s %s: %+v %v, want source %d", tc.u, tc.typ, tc.b, row, ok, tc.want)
		}
	}
	if _, ok := Lookup(S3NS, GlobalExternalALB, InstanceGroup); ok {
		t.Error("S3NS has a Google Front End row")
	}
	if MetadataServer.String() != "169.254.169.254/32" {
		t.Error(MetadataServer)
	}
}

// TestTypeOf: scheme, protocol and scope name the load balancer.
func TestTypeOf(t *testing.T) {
	for _, tc := range []struct {
		scheme, protocol string
		global           bool
		want             Type
	}{
		{"EXTERNAL_MANAGED", "HTTP", true, GlobalExternalALB},
		{"EXTERNAL", "HTTPS", true, ClassicALB},
		{"EXTERNAL", "TCP", true, ClassicProxyNLB},
		{"EXTERNAL_MANAGED", "TCP", true, GlobalExternalProxyNLB},
		{"EXTERNAL_MANAGED", "HTTP", false, RegionalExternalALB},
		{"INTERNAL_MANAGED", "HTTP", false, RegionalInternalALB},
		{"INTERNAL_MANAGED", "HTTP", true, CrossRegionInternalALB},
		{"INTERNAL_MANAGED", "TCP", false, RegionalInternalProxyNLB},
		{"INTERNAL_MANAGED", "TCP", true, CrossRegionInternalProxyNLB},
		{"EXTERNAL_MANAGED", "TCP", false, RegionalExternalProxyNLB},
		{"INTERNAL", "TCP", false, InternalPassthroughNLB},
		{"EXTERNAL", "UDP", false, ExternalPassthroughNLB},
		{"INTERNAL_SELF_MANAGED", "HTTP", true, CloudServiceMesh},
	} {
		if got, ok := TypeOf(tc.scheme, tc.protocol, tc.global); !ok || got != tc.want {
			t.Errorf("%s %s global=%v: %q, want %q", tc.scheme, tc.protocol, tc.global, got, tc.want)
		}
	}
}
