// Package depindex keeps who depends on what: for each path, the paths of
// the objects that use it, updated one user at a time, so that a change
// finds what it affects without a scan. The API's reference index and the
// probe planner both keep one.
package depindex

import (
	"iter"
	"maps"
	"slices"
)

// Index maps each used path to its users. The zero Index is empty and
// ready. It is not safe for concurrent use.
type Index struct {
	users map[string]map[string]struct{}
	uses  map[string][]string // what each user uses, to drop its entries when it changes
}

// Set makes deps what user uses now (none: it is gone); empty paths are
// skipped.
func (x *Index) Set(user string, deps []string) {
	if x.users == nil {
		x.users, x.uses = map[string]map[string]struct{}{}, map[string][]string{}
	}
	for _, d := range x.uses[user] {
		delete(x.users[d], user)
		if len(x.users[d]) == 0 {
			delete(x.users, d)
		}
	}
	delete(x.uses, user)
	for _, d := range deps {
		if d == "" {
			continue
		}
		if x.users[d] == nil {
			x.users[d] = map[string]struct{}{}
		}
		x.users[d][user] = struct{}{}
		x.uses[user] = append(x.uses[user], d)
	}
}

// Users returns the users of path, in order.
func (x *Index) Users(path string) []string {
	return slices.Sorted(maps.Keys(x.users[path]))
}

// EachUser is the users of path in no order, making nothing: for a
// caller to whom the order does not matter (marking them all). The index
// must not change while it is ranged over.
func (x *Index) EachUser(path string) iter.Seq[string] {
	return maps.Keys(x.users[path])
}

// Reset empties the index.
func (x *Index) Reset() { x.users, x.uses = nil, nil }
