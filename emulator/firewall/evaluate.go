package firewall

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"go4.org/netipx"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TypeOf is the type of load balancer a backend service serves, from its
// scheme, protocol and scope.
func TypeOf(scheme, protocol string, global bool) (Type, bool) {
	proxied := protocol == api.ProtocolHTTP || protocol == api.ProtocolHTTPS || protocol == api.ProtocolHTTP2 ||
		protocol == api.ProtocolH2C || protocol == api.ProtocolGRPC
	stream := protocol == api.ProtocolTCP || protocol == api.ProtocolSSL
	pick := func(app, proxy Type) (Type, bool) {
		switch {
		case proxied:
			return app, true
		case stream:
			return proxy, true
		}
		return "", false
	}
	switch {
	case scheme == api.SchemeInternalSelfManaged:
		return CloudServiceMesh, true
	case scheme == api.SchemeExternalManaged && global:
		return pick(GlobalExternalALB, GlobalExternalProxyNLB)
	case scheme == api.SchemeExternalManaged:
		return pick(RegionalExternalALB, RegionalExternalProxyNLB)
	case scheme == api.SchemeInternalManaged && global:
		return pick(CrossRegionInternalALB, CrossRegionInternalProxyNLB)
	case scheme == api.SchemeInternalManaged:
		return pick(RegionalInternalALB, RegionalInternalProxyNLB)
	case scheme == api.SchemeInternal && !global:
		return InternalPassthroughNLB, true
	case (scheme == api.SchemeExternal || scheme == "") && global:
		if proxied || stream {
			return pick(ClassicALB, ClassicProxyNLB)
		}
		return GlobalExternalPassthroughNLB, true
	case scheme == api.SchemeExternal || scheme == api.SchemeExternalPassthrough:
		return ExternalPassthroughNLB, true
	}
	return "", false
}

// Target is what a probe reaches: an instance's network, tags and service
// accounts, and the protocol and port probed.
type Target struct {
	Network         string // path of the network
	Tags            []string
	ServiceAccounts []string
	Protocol        string // "tcp", "udp" or "icmp"
	Port            int    // 0 for icmp
}

// Verdict is what the rules do to the probes of one backend.
type Verdict string

// Verdicts.
const (
	Allowed Verdict = "ALLOWED"
	// Partial: some prober ranges are let in, not all; probers may be
	// added in any range without notice.
	Partial Verdict = "PARTIAL"
	Blocked Verdict = "BLOCKED"
)

// Finding is the outcome of Evaluate.
type Finding struct {
	Verdict Verdict
	// Denied lists the prober ranges (or parts of them) not let in.
	Denied []netip.Prefix
	// DeniedBy names the deny rule that stops them, if one does; else the
	// implied deny does.
	DeniedBy string
	Message  string
	// Fix is the rule that would let the probes in, as an instruction:
	// "add a rule to allow tcp:80 from 35.191.0.0/16, ... to every
	// instance in network default".
	Fix string
}

// Evaluate applies a network's firewall rules to probes from sources, as
// the cloud does: enabled INGRESS rules of the target's network that apply
// to the target and match its protocol and port, lowest priority number
// first (a deny before an allow of the same priority), then the implied
// deny. sourceTags and sourceServiceAccounts never match probers.
func Evaluate(rules []*api.Firewall, t Target, sources []netip.Prefix) Finding {
	var remaining netipx.IPSetBuilder
	for _, p := range sources {
		remaining.AddPrefix(p)
	}
	applicable := make([]*api.Firewall, 0, len(rules))
	for _, fw := range rules {
		if fw.Disabled || cmp.Or(fw.Direction, api.DirectionIngress) != api.DirectionIngress ||
			api.PathOf(fw.Network) != t.Network || !appliesTo(fw, t) || !matchesTraffic(fw, t) {
			continue
		}
		applicable = append(applicable, fw)
	}
	slices.SortStableFunc(applicable, func(a, b *api.Firewall) int {
		return cmp.Or(cmp.Compare(priority(a), priority(b)), cmp.Compare(len(b.Denied), len(a.Denied)))
	})
	var allowed, denied netipx.IPSetBuilder
	deniedBy := ""
	for _, fw := range applicable {
		var from netipx.IPSetBuilder
		for _, r := range ruleSources(fw) {
			from.AddPrefix(r)
		}
		left, _ := remaining.IPSet()
		fromSet, _ := from.IPSet()
		var hit netipx.IPSetBuilder
		hit.AddSet(left)
		hit.Intersect(fromSet)
		hitSet, _ := hit.IPSet()
		if len(hitSet.Prefixes()) == 0 {
			continue
		}
		if len(fw.Denied) > 0 {
			denied.AddSet(hitSet)
			if deniedBy == "" {
				deniedBy = fw.Name
			}
		} else {
			allowed.AddSet(hitSet)
		}
		remaining.RemoveSet(hitSet)
	}
	rest, _ := remaining.IPSet()
	denied.AddSet(rest)
	deniedSet, _ := denied.IPSet()
	allowedSet, _ := allowed.IPSet()
	f := Finding{Denied: deniedSet.Prefixes()}
	switch {
	case len(f.Denied) == 0:
		f.Verdict = Allowed
		return f
	case len(allowedSet.Prefixes()) == 0:
		f.Verdict = Blocked
	default:
		f.Verdict = Partial
	}
	f.DeniedBy = deniedBy
	f.Fix = fix(t, sources)
	f.Message = message(f, t)
	return f
}

// message says what blocks the probes and the rule that would let them in
// (f.Fix).
func message(f Finding, t Target) string {
	var why string
	if f.DeniedBy != "" {
		why = fmt.Sprintf("firewall rule %s denies them", f.DeniedBy)
	} else {
		why = "no ingress rule allows them (the implied deny)"
	}
	what := "probes from " + join(f.Denied)
	if f.Verdict == Blocked {
		what = "every probe"
	}
	return fmt.Sprintf("%s would be blocked: %s; %s", what, why, f.Fix)
}

// fix is the rule that would let probes from sources reach t.
func fix(t Target, sources []netip.Prefix) string {
	to := "every instance"
	switch {
	case len(t.Tags) > 0:
		to = "tag " + t.Tags[0]
	case len(t.ServiceAccounts) > 0:
		to = "service account " + t.ServiceAccounts[0]
	}
	traffic := t.Protocol
	if t.Port != 0 {
		traffic += ":" + strconv.Itoa(t.Port)
	}
	network := t.Network[strings.LastIndexByte(t.Network, '/')+1:]
	return fmt.Sprintf("add a rule to allow %s from %s to %s in network %s", traffic, join(sources), to, network)
}

func join(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}

func priority(fw *api.Firewall) int64 {
	if fw.Priority == nil {
		return 1000
	}
	return *fw.Priority
}

// appliesTo: a rule with neither target tags nor target service accounts
// applies to every instance of its network.
func appliesTo(fw *api.Firewall, t Target) bool {
	switch {
	case len(fw.TargetTags) > 0:
		return slices.ContainsFunc(t.Tags, func(tag string) bool { return slices.Contains(fw.TargetTags, tag) })
	case len(fw.TargetServiceAccounts) > 0:
		return slices.ContainsFunc(t.ServiceAccounts, func(sa string) bool { return slices.Contains(fw.TargetServiceAccounts, sa) })
	}
	return true
}

// ruleSources are the source ranges a rule matches probers with: its
// sourceRanges, or every address when it names no source at all.
func ruleSources(fw *api.Firewall) []netip.Prefix {
	if len(fw.SourceRanges) == 0 && len(fw.SourceTags) == 0 && len(fw.SourceServiceAccounts) == 0 {
		return []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	}
	var out []netip.Prefix
	for _, r := range fw.SourceRanges {
		if p, err := netip.ParsePrefix(r); err == nil {
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(r); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}

// protocolNumbers are the IP protocol numbers of the names a probe uses.
var protocolNumbers = map[string]string{"tcp": "6", "udp": "17", "icmp": "1"}

// matchesTraffic: one of the rule's entries names the probe's protocol
// (or all) and, if it lists ports, the probe's port.
func matchesTraffic(fw *api.Firewall, t Target) bool {
	entries := fw.Allowed
	if len(fw.Denied) > 0 {
		entries = fw.Denied
	}
	for _, e := range entries {
		proto := strings.ToLower(e.IPProtocol)
		if proto != "all" && proto != t.Protocol && proto != protocolNumbers[t.Protocol] {
			continue
		}
		if len(e.Ports) == 0 || t.Port == 0 {
			return true
		}
		for _, p := range e.Ports {
			lo, hi, found := strings.Cut(p, "-")
			if !found {
				hi = lo
			}
			l, err1 := strconv.Atoi(lo)
			h, err2 := strconv.Atoi(hi)
			if err1 == nil && err2 == nil && t.Port >= l && t.Port <= h {
				return true
			}
		}
	}
	return false
}

// ProtocolOf is the firewall protocol of a health-check type's probes, or
// "" for the types that send none (expressions and scenarios).
func ProtocolOf(checkType string) string {
	switch checkType {
	case api.TypeUDP, api.TypeDNS:
		return "udp"
	case api.TypeICMP:
		return "icmp"
	case api.TypeExpression, api.TypeScenario:
		return ""
	}
	return "tcp"
}
