package control

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// memRecords keeps address records in memory.
type memRecords struct {
	holders map[netip.Addr]string
	cursor  netip.Addr
}

func (m *memRecords) Holder(_ context.Context, _ Pool, a netip.Addr) (string, error) {
	return m.holders[a], nil
}

func (m *memRecords) Claim(_ context.Context, _ Pool, a netip.Addr, user string) error {
	m.holders[a] = user
	return nil
}

func (m *memRecords) Cursor(context.Context, Pool) (netip.Addr, error) { return m.cursor, nil }

func (m *memRecords) SetCursor(_ context.Context, _ Pool, next netip.Addr) error {
	m.cursor = next
	return nil
}

// Addresses are given in order from the cursor, skipping those held, those
// the request has taken and those the pool never gives; freed ones are
// found again once the search wraps; a full pool says so by name.
func TestAllocate(t *testing.T) {
	pool := SubnetworkPool("p", "regions/r", "sn", "10.0.0.0/29") // hosts .2 to .5: the cloud keeps .0, .1 and the last two
	rec := &memRecords{holders: map[netip.Addr]string{netip.MustParseAddr("10.0.0.3"): "other"}}
	ctx := context.Background()
	taken := map[netip.Addr]bool{netip.MustParseAddr("10.0.0.4"): true}
	var got []string
	for range 2 {
		a, err := Allocate(ctx, rec, pool, "me", taken)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.String())
	}
	if strings.Join(got, ",") != "10.0.0.2,10.0.0.5" {
		t.Fatalf("gave %v from %s-%s, want the first free ones, skipping 10.0.0.3 (held) and 10.0.0.4 (taken)", got, pool.First, pool.Last)
	}
	delete(rec.holders, netip.MustParseAddr("10.0.0.3"))
	a, err := Allocate(ctx, rec, pool, "me", taken)
	if err != nil {
		t.Fatal(err)
	}
	if got = append(got, a.String()); got[2] != "10.0.0.3" {
		t.Fatalf("gave %v, want the freed 10.0.0.3 once the search wrapped", got)
	}
	_, err = Allocate(ctx, rec, pool, "me", taken)
	var full *FullError
	if !errors.As(err, &full) || err.Error() != "No address is free in subnetwork sn (10.0.0.0/29): delete an address or an instance that uses one, or use another subnetwork." {
		t.Fatalf("a full pool: %v", err)
	}
}

// The loopback pool never gives .0 or .255; a managed range leaves out
// its first and last address.
func TestPools(t *testing.T) {
	rec := &memRecords{holders: map[netip.Addr]string{}, cursor: netip.MustParseAddr("127.0.1.254")}
	var got []string
	for range 2 {
		a, err := Allocate(context.Background(), rec, LoopbackPool, "me", nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.String())
	}
	if strings.Join(got, ",") != "127.0.1.254,127.0.2.1" {
		t.Errorf("loopback pool gave %v", got)
	}
	p := ManagedPool(netip.MustParsePrefix("127.2.0.0/24"))
	if p.First.String() != "127.2.0.1" || p.Last.String() != "127.2.0.254" {
		t.Errorf("managed pool %s-%s", p.First, p.Last)
	}
	if p := ManagedPool(netip.Prefix{}); !strings.Contains(p.Label, DefaultManagedInstanceRange.String()) {
		t.Errorf("default managed pool: %s", p.Label)
	}
	p6 := Subnetwork6Pool("p", "regions/r", "sn", netip.MustParsePrefix("2001:db8:1c::/64"))
	if p6.First.String() != "2001:db8:1c::1" || p6.Last.String() != "2001:db8:1c:0:ffff:ffff:ffff:fffe" {
		t.Errorf("IPv6 subnetwork pool %s-%s", p6.First, p6.Last)
	}
}
