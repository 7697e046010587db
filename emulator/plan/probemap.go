package plan

import (
	"fmt"
	"net/netip"
	"strings"
)

// Mapping sends the addresses of From to those of To, prefix for prefix:
// with 10.0.0.0/8=127.0.0.0/8, 10.128.0.2 is probed at 127.128.0.2.
type Mapping struct {
	From, To netip.Prefix
}

// ProbeMap is where endpoints with a real configuration's addresses
// (private ranges of subnetworks) are probed on this machine; the first
// mapping whose From holds an address applies.
type ProbeMap []Mapping

// ParseProbeMap reads "10.0.0.0/8=127.0.0.0/8,192.168.0.0/16=127.2.0.0/16":
// pairs of prefixes of one family and one length.
func ParseProbeMap(s string) (ProbeMap, error) {
	var m ProbeMap
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		from, to, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want FROM=TO, such as 10.0.0.0/8=127.0.0.0/8", pair)
		}
		f, err := netip.ParsePrefix(strings.TrimSpace(from))
		if err != nil {
			return nil, fmt.Errorf("%q: %v", pair, err)
		}
		t, err := netip.ParsePrefix(strings.TrimSpace(to))
		if err != nil {
			return nil, fmt.Errorf("%q: %v", pair, err)
		}
		if f.Addr().Is4() != t.Addr().Is4() || f.Bits() != t.Bits() {
			return nil, fmt.Errorf("%q: both sides must be prefixes of one family and one length (%s is /%d, %s is /%d)", pair, f, f.Bits(), t, t.Bits())
		}
		m = append(m, Mapping{From: f.Masked(), To: t.Masked()})
	}
	return m, nil
}

// String writes the map as ParseProbeMap reads it.
func (m ProbeMap) String() string {
	parts := make([]string, len(m))
	for i, mp := range m {
		parts[i] = mp.From.String() + "=" + mp.To.String()
	}
	return strings.Join(parts, ",")
}

// Map returns where addr is probed, and whether a mapping moved it.
func (m ProbeMap) Map(addr netip.Addr) (netip.Addr, bool) {
	addr = addr.Unmap()
	for _, mp := range m {
		if !mp.From.Contains(addr) {
			continue
		}
		a, t := addr.AsSlice(), mp.To.Addr().AsSlice()
		bits := mp.From.Bits()
		for i := range a {
			keep := min(max(bits-8*i, 0), 8) // leading bits of this byte that come from To
			mask := byte(0xff << (8 - keep))
			if keep == 0 {
				mask = 0
			}
			a[i] = t[i]&mask | a[i]&^mask
		}
		out, _ := netip.AddrFromSlice(a)
		return out, true
	}
	return addr, false
}
