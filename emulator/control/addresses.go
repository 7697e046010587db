package control

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Addresses the emulator gives out: an instance interface or an address
// without one of its own gets the next free address of its subnetwork, or,
// without a subnetwork, a loopback address (127.0.x.y), so that probes sent
// to it reach this machine. Managed instances get theirs from a range of
// their own, and IPv6 addresses from the documentation range.

// Pool is one range addresses are given out from.
type Pool struct {
	// Project, Scope and Prefix say where its records are kept: the
	// records of one pool share them.
	Project, Scope, Prefix string
	First, Last            netip.Addr
	Skip                   func(netip.Addr) bool // addresses never given out; nil: none
	Label                  string                // names the pool in messages
}

// LoopbackPool holds the addresses outside any subnetwork, for the whole
// emulator: instances without a subnetwork, external and global addresses.
// It gives out 127.0.1.1 to 127.0.255.254, leaving 127.0.0.0/24 (where
// the emulator and local test servers usually listen) alone.
var LoopbackPool = Pool{
	Project: "-", Scope: "global", Prefix: "loopback/",
	First: netip.MustParseAddr("127.0.1.1"), Last: netip.MustParseAddr("127.0.255.254"),
	Skip:  func(a netip.Addr) bool { b := a.As4(); return b[3] == 0 || b[3] == 255 },
	Label: "the loopback range 127.0.1.1-127.0.255.254",
}

// DefaultManagedInstanceRange is where managed instances get their
// addresses unless told otherwise: loopback addresses, apart from those
// the emulator gives instances without a subnetwork (127.0.0.0/16).
var DefaultManagedInstanceRange = netip.MustParsePrefix("127.1.0.0/16")

// ManagedPool holds the addresses of managed instances: the hosts of
// prefix (DefaultManagedInstanceRange when zero), its first and last
// address left out. prefix is IPv4, /30 or shorter.
func ManagedPool(prefix netip.Prefix) Pool {
	if !prefix.IsValid() {
		prefix = DefaultManagedInstanceRange
	}
	prefix = prefix.Masked()
	b := prefix.Addr().As4() // an IPv4 prefix of /30 or longer: the flag checks it
	end := binary.BigEndian.Uint32(b[:]) | (1<<(32-prefix.Bits()) - 1)
	binary.BigEndian.PutUint32(b[:], end-1)
	return Pool{Project: "-", Scope: "global", Prefix: "managed/", First: prefix.Addr().Next(), Last: netip.AddrFrom4(b),
		Label: "the managed-instance range " + prefix.String()}
}

// IPv6Pool holds the IPv6 addresses given out (addresses with ipVersion
// IPV6): 2001:db8:1b::/64, in the documentation range (RFC 3849), which
// no network routes, so an address copied from the emulator never sends
// traffic anywhere; --probe-networks leaves it unprobed unless asked.
var IPv6Pool = Pool{
	Project: "-", Scope: "global", Prefix: "ipv6/",
	First: netip.MustParseAddr("2001:db8:1b::1"), Last: netip.MustParseAddr("2001:db8:1b::ffff:ffff"),
	Label: "the IPv6 range 2001:db8:1b::/64",
}

// SubnetworkPool holds the addresses of subnetwork name (range cidr, valid),
// stored in project and scope.
func SubnetworkPool(project, scope, name, cidr string) Pool {
	p, _ := netip.ParsePrefix(cidr)
	first, last := rules.SubnetworkHosts(p)
	return Pool{Project: project, Scope: scope, Prefix: "subnetworks/" + name + "/", First: first, Last: last,
		Label: fmt.Sprintf("subnetwork %s (%s)", name, cidr)}
}

// Subnetwork6Pool holds the IPv6 addresses of a dual-stack subnetwork's
// range p (its ::1 and up).
func Subnetwork6Pool(project, scope, name string, p netip.Prefix) Pool {
	p = p.Masked()
	last := p.Addr().As16()
	for bit := p.Bits(); bit < 128; bit++ {
		last[bit/8] |= 0x80 >> (bit % 8)
	}
	return Pool{Project: project, Scope: scope, Prefix: "subnetworks6/" + name + "/",
		First: p.Addr().Next(), Last: netip.AddrFrom16(last).Prev(), Label: fmt.Sprintf("subnetwork %s (%s)", name, p)}
}

// AddressRecords is where the addresses given out are recorded.
type AddressRecords interface {
	// Holder is the path of the resource that holds addr in pool, "" when
	// it is free.
	Holder(ctx context.Context, pool Pool, addr netip.Addr) (string, error)
	// Claim records that user holds addr in pool.
	Claim(ctx context.Context, pool Pool, addr netip.Addr, user string) error
	// Cursor is where the pool's next search starts (zero: its first
	// address), and SetCursor moves it, so that giving out an address does
	// not rescan those given before.
	Cursor(ctx context.Context, pool Pool) (netip.Addr, error)
	SetCursor(ctx context.Context, pool Pool, next netip.Addr) error
}

// FullError says that a pool has no address left.
type FullError struct{ Pool string }

func (e *FullError) Error() string {
	return fmt.Sprintf("No address is free in %s: delete an address or an instance that uses one, or use another subnetwork.", e.Pool)
}

// Allocate gives user the next free address of pool, from its cursor on,
// skipping those taken (claimed earlier in the same request), and records
// it; a *FullError when there is none.
func Allocate(ctx context.Context, rec AddressRecords, pool Pool, user string, taken map[netip.Addr]bool) (netip.Addr, error) {
	start, err := rec.Cursor(ctx, pool)
	if err != nil {
		return netip.Addr{}, err
	}
	if !start.IsValid() || start.Less(pool.First) || pool.Last.Less(start) {
		start = pool.First
	}
	for addr := start; ; {
		if (pool.Skip == nil || !pool.Skip(addr)) && !taken[addr] {
			holder, err := rec.Holder(ctx, pool, addr)
			if err != nil {
				return netip.Addr{}, err
			}
			if holder == "" {
				if err := rec.Claim(ctx, pool, addr, user); err != nil {
					return netip.Addr{}, err
				}
				return addr, rec.SetCursor(ctx, pool, addr.Next())
			}
		}
		if addr = addr.Next(); pool.Last.Less(addr) {
			addr = pool.First
		}
		if addr == start {
			return netip.Addr{}, &FullError{Pool: pool.Label}
		}
	}
}
