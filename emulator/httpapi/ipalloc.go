package httpapi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Addresses the emulator gives out: an instance interface or an address
// without one of its own gets the next free address of its subnetwork, or,
// without a subnetwork, a loopback address (127.0.x.y), so that probes sent
// to it reach this machine.
//
// Each address in use has a record in the store, in a collection no API
// path names (API collections have no hyphen), keyed by pool and address:
// taking or checking an address costs a few reads, whatever else is
// stored. A record names its user; it is stale, and the address free, once
// that user is gone or holds another address, so deletes need no hook and
// a failed write leaks nothing.
const allocations = "ip-allocations"

// ipPool is one range addresses are given out from.
type ipPool struct {
	project, scope string // where its records are stored
	prefix         string // of the records' names
	first, last    netip.Addr
	skip           func(netip.Addr) bool // addresses never given out
	label          string                // for messages
}

// loopbackPool holds the addresses outside any subnetwork, for the whole
// emulator: instances without a subnetwork, external and global addresses.
// It gives out 127.0.1.1 to 127.0.255.254, leaving 127.0.0.0/24 (where
// the emulator and local test servers usually listen) alone.
var loopbackPool = ipPool{
	project: "-", scope: "global", prefix: "loopback/",
	first: netip.MustParseAddr("127.0.1.1"), last: netip.MustParseAddr("127.0.255.254"),
	skip:  func(a netip.Addr) bool { b := a.As4(); return b[3] == 0 || b[3] == 255 },
	label: "the loopback range 127.0.1.1-127.0.255.254",
}

// DefaultManagedInstanceRange is where managed instances get their
// addresses unless told otherwise: loopback addresses, apart from those
// the emulator gives instances without a subnetwork (127.0.0.0/16).
var DefaultManagedInstanceRange = netip.MustParsePrefix("127.1.0.0/16")

// managedPool holds the addresses of managed instances: the hosts of
// prefix (DefaultManagedInstanceRange when zero), its first and last
// address left out. prefix is IPv4, /30 or shorter.
func managedPool(prefix netip.Prefix) ipPool {
	if !prefix.IsValid() {
		prefix = DefaultManagedInstanceRange
	}
	prefix = prefix.Masked()
	b := prefix.Addr().As4() // an IPv4 prefix of /30 or longer: the flag checks it
	end := binary.BigEndian.Uint32(b[:]) | (1<<(32-prefix.Bits()) - 1)
	binary.BigEndian.PutUint32(b[:], end-1)
	first, last := prefix.Addr().Next(), netip.AddrFrom4(b)
	return ipPool{project: "-", scope: "global", prefix: "managed/", first: first, last: last,
		skip: func(netip.Addr) bool { return false }, label: "the managed-instance range " + prefix.String()}
}

// ipv6Pool holds the IPv6 addresses given out (addresses with ipVersion
// IPV6): 2001:db8:1b::/64, in the documentation range (RFC 3849), which
// no network routes, so an address copied from the emulator never sends
// traffic anywhere; --probe-networks leaves it unprobed unless asked.
var ipv6Pool = ipPool{
	project: "-", scope: "global", prefix: "ipv6/",
	first: netip.MustParseAddr("2001:db8:1b::1"), last: netip.MustParseAddr("2001:db8:1b::ffff:ffff"),
	skip:  func(netip.Addr) bool { return false },
	label: "the IPv6 range 2001:db8:1b::/64",
}

// subnetworkPool is the pool of subnetwork sn stored at k.
func subnetworkPool(k store.Key, sn *api.Subnetwork) ipPool {
	p, _ := netip.ParsePrefix(sn.IPCIDRRange) // valid: checked on insert
	first, last := rules.SubnetworkHosts(p)
	return ipPool{project: k.Project, scope: k.Scope, prefix: "subnetworks/" + k.Name + "/",
		first: first, last: last, skip: func(netip.Addr) bool { return false },
		label: fmt.Sprintf("subnetwork %s (%s)", k.Name, sn.IPCIDRRange)}
}

// subnetwork6Pool holds the IPv6 addresses of a dual-stack subnetwork's
// range (its ::1 and up).
func subnetwork6Pool(k store.Key, sn *api.Subnetwork, p netip.Prefix) ipPool {
	p = p.Masked()
	last := p.Addr().As16()
	for bit := p.Bits(); bit < 128; bit++ {
		last[bit/8] |= 0x80 >> (bit % 8)
	}
	return ipPool{project: k.Project, scope: k.Scope, prefix: "subnetworks6/" + k.Name + "/",
		first: p.Addr().Next(), last: netip.AddrFrom16(last).Prev(), skip: func(netip.Addr) bool { return false },
		label: fmt.Sprintf("subnetwork %s (%s)", k.Name, sn.IPv6CIDRRange)}
}

func (p ipPool) key(name string) store.Key {
	return store.Key{Project: p.project, Scope: p.scope, Collection: allocations, Name: p.prefix + name}
}

// allocation is the body of an address record.
type allocation struct {
	User string `json:"user,omitempty"`
	// Next, in the pool's cursor record, is where the next search starts,
	// so that giving out an address does not rescan those given before.
	Next string `json:"next,omitempty"`
}

// addressUser returns the path of the resource that uses addr in pool, or
// "" when it is free.
func (s *Server) addressUser(ctx context.Context, pool ipPool, addr netip.Addr) (string, error) {
	var a allocation
	if ok, err := s.getJSON(ctx, pool.key(addr.String()), &a); !ok || err != nil {
		return "", err
	}
	k, err := parseAnyRef("user", a.User, scope{}, "")
	if err != nil {
		return "", nil // not a record of ours: free
	}
	var user struct {
		Address           string `json:"address"`
		NetworkInterfaces []struct {
			NetworkIP string `json:"networkIP"`
		} `json:"networkInterfaces"`
	}
	if ok, err := s.getJSON(ctx, k, &user); !ok || err != nil {
		return "", err
	}
	ips := []string{user.Address}
	for _, ni := range user.NetworkInterfaces {
		ips = append(ips, ni.NetworkIP)
	}
	for _, ip := range ips {
		if a, err := netip.ParseAddr(ip); err == nil && a == addr {
			return k.Path(), nil
		}
	}
	return "", nil
}

// getJSON decodes the object at k into v; false when there is none.
func (s *Server) getJSON(ctx context.Context, k store.Key, v any) (bool, error) {
	o, err := s.store.Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(o.Body, v)
}

// putJSON stores v at k, in place of what is there.
func (s *Server) putJSON(ctx context.Context, k store.Key, v any) error {
	o := store.Object{Key: k, Body: mustJSON(v)}
	err := s.store.Update(ctx, o)
	if errors.Is(err, store.ErrNotFound) {
		err = s.store.Insert(ctx, o)
	}
	return err
}

// claimAddress records that user uses addr in pool.
func (s *Server) claimAddress(ctx context.Context, pool ipPool, addr netip.Addr, user string) error {
	return s.putJSON(ctx, pool.key(addr.String()), allocation{User: user})
}

// allocateAddress gives user the next free address of pool, skipping those
// taken (claimed earlier in the same request).
func (s *Server) allocateAddress(ctx context.Context, pool ipPool, user string, taken map[netip.Addr]bool) (netip.Addr, error) {
	cursor := pool.key("next")
	var c allocation
	if _, err := s.getJSON(ctx, cursor, &c); err != nil {
		return netip.Addr{}, err
	}
	start, err := netip.ParseAddr(c.Next)
	if err != nil || start.Less(pool.first) || pool.last.Less(start) {
		start = pool.first
	}
	for addr := start; ; {
		if !pool.skip(addr) && !taken[addr] {
			holder, err := s.addressUser(ctx, pool, addr)
			if err != nil {
				return netip.Addr{}, err
			}
			if holder == "" {
				if err := s.claimAddress(ctx, pool, addr, user); err != nil {
					return netip.Addr{}, err
				}
				return addr, s.putJSON(ctx, cursor, allocation{Next: addr.Next().String()})
			}
		}
		if addr = addr.Next(); pool.last.Less(addr) {
			addr = pool.first
		}
		if addr == start {
			return netip.Addr{}, invalid("No address is free in %s: delete an address or an instance that uses one, or use another subnetwork.", pool.label)
		}
	}
}

// assignAddress gives user the address *ip in pool: the one it asks for,
// if free (or its own already), else the next free one, which it writes
// into *ip. field names the address in errors; taken holds the addresses
// the same request has claimed, and gets this one. An address a reserved
// address resource holds may be asked for: that is what reserving is for.
func (s *Server) assignAddress(ctx context.Context, field string, ip *string, pool ipPool, user string, taken map[netip.Addr]bool) error {
	if *ip == "" {
		addr, err := s.allocateAddress(ctx, pool, user, taken)
		if err != nil {
			return err
		}
		*ip, taken[addr] = addr.String(), true
		return nil
	}
	addr, err := netip.ParseAddr(*ip)
	if err != nil {
		return invalid("%s (%q) must be an IP address.", field, *ip)
	}
	if taken[addr] {
		return invalid("%s (%q) is given twice in this request: each interface or address needs its own.", field, *ip)
	}
	taken[addr] = true
	holder, err := s.addressUser(ctx, pool, addr)
	switch {
	case err != nil:
		return err
	case holder == user:
		return nil
	case holder == "":
		return s.claimAddress(ctx, pool, addr, user)
	}
	if k, err := parseAnyRef("user", holder, scope{}, ""); err == nil && k.Collection == api.CollectionAddresses &&
		parseAnyRefCollection(user) == api.CollectionInstances {
		return nil // the instance uses a reserved address; the record stays the address's
	}
	return invalid("%s (%q) is already used by %s in %s: choose another address, or leave %s out to be given a free one.",
		field, *ip, holder, pool.label, field)
}

// parseAnyRefCollection is the collection a resource path names, or "".
func parseAnyRefCollection(path string) string {
	k, err := parseAnyRef("", path, scope{}, "")
	if err != nil {
		return ""
	}
	return k.Collection
}
