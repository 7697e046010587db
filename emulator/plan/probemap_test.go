package plan

import (
	"net/netip"
	"testing"
)

func TestProbeMap(t *testing.T) {
	m, err := ParseProbeMap("10.0.0.0/8=127.0.0.0/8, 192.168.4.0/22=127.5.8.0/22, fd00::/8=::/8")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"10.128.0.2":    "127.128.0.2",
		"10.1.2.3":      "127.1.2.3",
		"192.168.7.200": "127.5.11.200",
		"192.168.8.1":   "", // outside every mapping
		"fd00::1":       "::1",
	} {
		got, ok := m.Map(netip.MustParseAddr(in))
		if want == "" {
			if ok {
				t.Errorf("%s mapped to %s, want no mapping", in, got)
			}
			continue
		}
		if !ok || got.String() != want {
			t.Errorf("%s -> %s (%v), want %s", in, got, ok, want)
		}
	}
	for _, bad := range []string{"10.0.0.0/8", "10.0.0.0/8=127.0.0.0/16", "10.0.0.0/8=::/8", "x=127.0.0.0/8"} {
		if _, err := ParseProbeMap(bad); err == nil {
			t.Errorf("ParseProbeMap(%q) accepted", bad)
		}
	}
}
