package core

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Address allocation (control.Allocate and its pools) records each address
// in use in the store, in a collection no API path names (API collections
// have no hyphen), keyed by pool and address: taking or checking an
// address costs a few reads, whatever else is stored. A record names its
// user; it is stale, and the address free, once that user is gone or holds
// another address, so deletes need no hook and a failed write leaks
// nothing.
const allocations = "ip-allocations"

// DefaultManagedInstanceRange is where managed instances get their
// addresses unless told otherwise.
var DefaultManagedInstanceRange = control.DefaultManagedInstanceRange

// addressRecords keeps the records of the addresses given out in the
// store (control.AddressRecords).
type addressRecords struct{ s *API }

var _ control.AddressRecords = addressRecords{}

// recordKey is the key of the record name of pool.
func recordKey(pool control.Pool, name string) store.Key {
	return store.Key{Project: pool.Project, Scope: pool.Scope, Collection: allocations, Name: pool.Prefix + name}
}

// allocation is the body of an address record.
type allocation struct {
	User string `json:"user,omitempty"`
	// Next, in the pool's cursor record, is where the next search starts,
	// so that giving out an address does not rescan those given before.
	Next string `json:"next,omitempty"`
}

// Holder returns the path of the resource that uses addr in pool, or ""
// when it is free: no record, or a stale one.
func (r addressRecords) Holder(ctx context.Context, pool control.Pool, addr netip.Addr) (string, error) {
	s := r.s
	var a allocation
	if ok, err := s.getJSON(ctx, recordKey(pool, addr.String()), &a); !ok || err != nil {
		return "", err
	}
	k, err := ParseAnyRef("user", a.User, Scope{}, "")
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
func (s *API) getJSON(ctx context.Context, k store.Key, v any) (bool, error) {
	o, err := s.Store.Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(o.Body, v)
}

// putJSON stores v at k, in place of what is there.
func (s *API) putJSON(ctx context.Context, k store.Key, v any) error {
	o := store.Object{Key: k, Body: MustJSON(v)}
	err := s.Store.Update(ctx, o)
	if errors.Is(err, store.ErrNotFound) {
		err = s.Store.Insert(ctx, o)
	}
	return err
}

// Claim records that user uses addr in pool.
func (r addressRecords) Claim(ctx context.Context, pool control.Pool, addr netip.Addr, user string) error {
	return r.s.putJSON(ctx, recordKey(pool, addr.String()), allocation{User: user})
}

// Cursor is where the next search of pool starts; zero when not recorded.
func (r addressRecords) Cursor(ctx context.Context, pool control.Pool) (netip.Addr, error) {
	var c allocation
	if _, err := r.s.getJSON(ctx, recordKey(pool, "next"), &c); err != nil {
		return netip.Addr{}, err
	}
	next, _ := netip.ParseAddr(c.Next)
	return next, nil
}

// SetCursor records where the next search of pool starts.
func (r addressRecords) SetCursor(ctx context.Context, pool control.Pool, next netip.Addr) error {
	return r.s.putJSON(ctx, recordKey(pool, "next"), allocation{Next: next.String()})
}

// AssignAddress gives user the address *ip in pool: the one it asks for,
// if free (or its own already), else the next free one, which it writes
// into *ip. field names the address in errors; taken holds the addresses
// the same request has claimed, and gets this one. An address a reserved
// address resource holds may be asked for: that is what reserving is for.
func (s *API) AssignAddress(ctx context.Context, field string, ip *string, pool control.Pool, user string, taken map[netip.Addr]bool) error {
	rec := addressRecords{s}
	if *ip == "" {
		addr, err := control.Allocate(ctx, rec, pool, user, taken)
		var full *control.FullError
		if errors.As(err, &full) {
			return googleapi.Invalid("%s", full.Error())
		}
		if err != nil {
			return err
		}
		*ip, taken[addr] = addr.String(), true
		return nil
	}
	addr, err := netip.ParseAddr(*ip)
	if err != nil {
		return googleapi.Invalid("%s (%q) must be an IP address.", field, *ip)
	}
	if taken[addr] {
		return googleapi.Invalid("%s (%q) is given twice in this request: each interface or address needs its own.", field, *ip)
	}
	taken[addr] = true
	holder, err := rec.Holder(ctx, pool, addr)
	switch {
	case err != nil:
		return err
	case holder == user:
		return nil
	case holder == "":
		return rec.Claim(ctx, pool, addr, user)
	}
	if k, err := ParseAnyRef("user", holder, Scope{}, ""); err == nil && k.Collection == api.CollectionAddresses &&
		parseAnyRefCollection(user) == api.CollectionInstances {
		return nil // the instance uses a reserved address; the record stays the address's
	}
	return googleapi.Invalid("%s (%q) is already used by %s in %s: choose another address, or leave %s out to be given a free one.",
		field, *ip, holder, pool.Label, field)
}

// parseAnyRefCollection is the collection a resource path names, or "".
func parseAnyRefCollection(path string) string {
	k, err := ParseAnyRef("", path, Scope{}, "")
	if err != nil {
		return ""
	}
	return k.Collection
}
