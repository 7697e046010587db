package core

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/query"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/schema"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// MaxResults is the largest page a list returns (and its default size).
const MaxResults = 500

// listQuery is what a list call asks for besides its page: filter and
// orderBy, as the Compute API reads them.
type listQuery struct {
	match query.Predicate
	order query.Order
	// plain is a query that keeps every item in name order: the store
	// pages it by name alone, without reading the whole collection.
	plain bool
}

func readListQuery(r *googleapi.Call) (listQuery, error) {
	q := r.Query()
	match, err := query.ParseFilter(q.Get("filter"))
	if err != nil {
		return listQuery{}, err
	}
	order, err := query.ParseOrderBy(q.Get("orderBy"))
	if err != nil {
		return listQuery{}, err
	}
	return listQuery{match: match, order: order, plain: q.Get("filter") == "" && order.ByName()}, nil
}

// select keeps the objects that match, in the order asked for.
func (q listQuery) selectFrom(objects []store.Object) []json.RawMessage {
	type item struct {
		body json.RawMessage
		doc  Document
	}
	var items []item
	for _, o := range objects {
		doc, err := ParseObject(o.Body)
		if err == nil && q.match(doc) {
			items = append(items, item{o.Body, doc})
		}
	}
	slices.SortStableFunc(items, func(a, b item) int { return q.order.Compare(a.doc, b.doc) })
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		out[i] = it.body
	}
	return out
}

// listRequest reads the scope and the query (filter, order) of a list or
// an aggregated list.
func listRequest(r *googleapi.Call) (Scope, listQuery, error) {
	sc, err := ScopeOf(r)
	if err != nil {
		return sc, listQuery{}, err
	}
	q, err := readListQuery(r)
	return sc, q, err
}

// List answers a page of the collection in the call's scope, filtered
// and ordered as the call asks.
func (c *Collection[T, P]) List(r *googleapi.Call) (any, error) {
	return c.s.list(r, c.Def.Name, c.Def.ListKind, c.plainPage)
}

// list answers a page of the store collection named collection in the
// call's scope, a list of kind; a query that keeps every item in name
// order goes to plain, when given.
func (s *API) list(r *googleapi.Call, collection, kind string, plain func(*googleapi.Call, Scope, api.List[json.RawMessage]) (any, error)) (any, error) {
	sc, q, err := listRequest(r)
	if err != nil {
		return nil, err
	}
	collectionPath := strings.TrimSuffix(sc.Key(collection, "").Path(), "/")
	page := api.List[json.RawMessage]{Kind: kind, ID: collectionPath, Items: []json.RawMessage{}, SelfLink: s.Link(collectionPath)}
	if q.plain && plain != nil {
		return plain(r, sc, page)
	}
	limit, offset, err := offsetParams(r)
	if err != nil {
		return nil, err
	}
	objects, err := s.Store.List(r.Context(), store.ListOptions{Project: sc.Project, Scope: sc.Path(), Collection: collection})
	if err != nil {
		return nil, err
	}
	page.Items, page.NextPageToken = pageOf(q.selectFrom(objects), limit, offset)
	return page, nil
}

// plainPage is a page of a list in name order, read from the store a page
// at a time: its token is the last name of the page before.
func (c *Collection[T, P]) plainPage(r *googleapi.Call, sc Scope, page api.List[json.RawMessage]) (any, error) {
	limit, after, err := PageParams(r)
	if err != nil {
		return nil, err
	}
	// Its tokens hold a resource name: anything else is not one of them.
	if after != "" && rules.Name("pageToken", after) != nil {
		return nil, googleapi.Invalid("pageToken (%q) is not a token of this list: pass nextPageToken from the previous page.", r.Query().Get("pageToken"))
	}
	objects, err := c.s.Store.List(r.Context(), store.ListOptions{
		Project: sc.Project, Scope: sc.Path(), Collection: c.Def.Name, After: after, Limit: limit + 1,
	})
	if err != nil {
		return nil, err
	}
	for i, o := range objects {
		if i == limit {
			page.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte(objects[i-1].Name))
			break
		}
		page.Items = append(page.Items, o.Body)
	}
	return page, nil
}

// offsetToken marks the page tokens of filtered or reordered lists, which
// count items; no name starts with it (RFC 1035 names start with a letter).
const offsetToken = "@"

// offsetParams reads maxResults and a pageToken that counts items.
func offsetParams(r *googleapi.Call) (limit, offset int, err error) {
	limit, after, err := PageParams(r)
	if err != nil || after == "" {
		return limit, 0, err
	}
	n, err := strconv.Atoi(strings.TrimPrefix(after, offsetToken))
	if !strings.HasPrefix(after, offsetToken) || err != nil || n < 0 {
		return 0, 0, googleapi.Invalid("pageToken (%q) is not a token of this list: pass nextPageToken from the previous page of the same list (same filter and orderBy).", r.Query().Get("pageToken"))
	}
	return limit, n, nil
}

// Page is the page of all, a list a handler builds itself, that the
// call's maxResults and pageToken ask for, and the token of the next.
func Page[E any](r *googleapi.Call, all []E) ([]E, string, error) {
	limit, offset, err := offsetParams(r)
	if err != nil {
		return nil, "", err
	}
	page, next := pageOf(all, limit, offset)
	return page, next, nil
}

// pageOf cuts the page at offset out of all, and the token of the next.
func pageOf[E any](all []E, limit, offset int) ([]E, string) {
	if offset > len(all) {
		offset = len(all)
	}
	end := min(offset+limit, len(all))
	next := ""
	if end < len(all) {
		next = base64.RawURLEncoding.EncodeToString([]byte(offsetToken + strconv.Itoa(end)))
	}
	return append(make([]E, 0, end-offset), all[offset:end]...), next
}

// AggregatedList answers aggregated/{collection}: the collection's
// resources of every scope of the project, grouped by scope ("global",
// "regions/r", "zones/z"), filtered and paged like a list.
func (c *Collection[T, P]) AggregatedList(r *googleapi.Call) (any, error) {
	return c.s.aggregatedList(r, c.Def.Name, schema.AggregatedKind(c.Def.Schema()))
}

// aggregatedList answers aggregated/{collection} of the store collection
// named collection, whose aggregated list is of kind.
func (s *API) aggregatedList(r *googleapi.Call, collection, kind string) (any, error) {
	sc, q, err := listRequest(r)
	if err != nil {
		return nil, err
	}
	limit, offset, err := offsetParams(r)
	if err != nil {
		return nil, err
	}
	objects, err := s.Store.All(r.Context(), collection)
	if err != nil {
		return nil, err
	}
	objects = slices.DeleteFunc(objects, func(o store.Object) bool { return o.Project != sc.Project })
	// Scope by scope, so that a page holds whole runs of one scope.
	slices.SortStableFunc(objects, func(a, b store.Object) int { return strings.Compare(a.Scope, b.Scope) })
	type scoped struct {
		scope string
		body  json.RawMessage
	}
	var all []scoped
	for start := 0; start < len(objects); {
		end := start
		for end < len(objects) && objects[end].Scope == objects[start].Scope {
			end++
		}
		for _, body := range q.selectFrom(objects[start:end]) {
			all = append(all, scoped{objects[start].Scope, body})
		}
		start = end
	}
	items, next := pageOf(all, limit, offset)
	grouped := map[string]map[string][]json.RawMessage{}
	for _, it := range items {
		if grouped[it.scope] == nil {
			grouped[it.scope] = map[string][]json.RawMessage{collection: {}}
		}
		grouped[it.scope][collection] = append(grouped[it.scope][collection], it.body)
	}
	path := "projects/" + sc.Project + "/aggregated/" + collection
	return map[string]any{
		"kind": kind, "id": path, "selfLink": s.Link(path),
		"items": grouped, "nextPageToken": next,
	}, nil
}
