package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// resource is what every stored object has: the shared fields.
type resource interface{ GetMeta() *api.Meta }

// ptr constrains P to be *T and a resource, so that generic code can both
// allocate a T and reach its Meta.
type ptr[T any] interface {
	*T
	resource
}

// collection describes one API collection. Its handlers (insert, get, list,
// update, patch, delete) are written once, below, for every collection.
type collection[T any, P ptr[T]] struct {
	s        *Server
	name     string // "healthChecks"
	kind     string // "compute#healthCheck"
	listKind string // "compute#healthCheckList"
	// check validates an object as the client sent it (defaults not yet
	// applied) in scope sc.
	check func(obj P, sc scope) rules.Violations
	// defaults fills the unset fields of a valid object before it is stored.
	defaults func(obj P)
	// resolve, if set, checks the objects obj references (they must exist
	// and fit) and rewrites the references as URLs. It runs under the write
	// lock, after check.
	resolve func(ctx context.Context, obj P, sc scope) error
	// refs, if set, lists the references of a stored object, so that what
	// it references cannot be deleted under it.
	refs func(obj P) []string
	// fingerprint, if set, points at the object's fingerprint: every write
	// sets a new one, and updates must send the current one (optimistic
	// locking: a stale one gets 412).
	fingerprint func(obj P) *string
	// immutable, if set, refuses updates that change what cannot change.
	immutable func(prior, obj P) error
}

// holder returns the collection as a holder of references, or false.
func (c *collection[T, P]) holder() (holder, bool) {
	if c.refs == nil {
		return holder{}, false
	}
	return holder{collection: c.name, refs: func(body []byte) []string {
		obj := P(new(T))
		if json.Unmarshal(body, obj) != nil {
			return nil
		}
		return c.refs(obj)
	}, recheck: func(ctx context.Context, o store.Object) error {
		obj := P(new(T))
		if err := json.Unmarshal(o.Body, obj); err != nil || c.resolve == nil {
			return err
		}
		return c.resolve(ctx, obj, scopeOfKey(o.Key))
	}}, true
}

// decodeResource reads a strict JSON object of type T from body.
func (c *collection[T, P]) decodeResource(body []byte) (P, error) {
	obj := P(new(T))
	if err := decodeStrict(body, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// prepare validates obj for scope sc and fills the output fields, keeping id
// and creation time from prior when it replaces a stored object.
func (c *collection[T, P]) prepare(ctx context.Context, obj P, sc scope, prior P) error {
	m := obj.GetMeta()
	if err := checkScopeFields(m, sc); err != nil {
		return err
	}
	if err := c.check(obj, sc).Err(); err != nil {
		return invalid("%s", err.Error())
	}
	if c.resolve != nil {
		if err := c.resolve(ctx, obj, sc); err != nil {
			return err
		}
	}
	c.defaults(obj)
	m.Kind, m.Region, m.Zone = c.kind, c.s.regionLink(sc), c.s.zoneLink(sc)
	m.SelfLink = c.s.link(sc.key(c.name, m.Name).Path())
	if prior != nil {
		m.ID, m.CreationTimestamp = prior.GetMeta().ID, prior.GetMeta().CreationTimestamp
	} else {
		m.ID, m.CreationTimestamp = newID(), timestamp(c.s.now())
	}
	if c.fingerprint != nil {
		fp := c.fingerprint(obj)
		*fp = ""
		sum := sha256.Sum256(append(mustJSON(obj), byte(newID())))
		*fp = base64.RawURLEncoding.EncodeToString(sum[:8])
	}
	return nil
}

// checkUpdate refuses an update that sends a stale fingerprint or changes
// what cannot change.
func (c *collection[T, P]) checkUpdate(prior, obj P) error {
	if c.fingerprint != nil {
		sent, current := *c.fingerprint(obj), *c.fingerprint(prior)
		switch {
		case sent == "":
			return invalid("fingerprint is required to update %s: GET it and send its fingerprint (%q) with the change.", prior.GetMeta().Name, current)
		case sent != current:
			return &apiError{http.StatusPreconditionFailed, api.ReasonConditionNotMet,
				fmt.Sprintf("fingerprint (%q) is stale: %s has changed since (its fingerprint is now %q); GET it again and re-apply the change.", sent, prior.GetMeta().Name, current)}
		}
	}
	if c.immutable != nil {
		return c.immutable(prior, obj)
	}
	return nil
}

// checkScopeFields: a body may repeat its region or zone (name or URL), but
// it must be the one of the path.
func checkScopeFields(m *api.Meta, sc scope) error {
	if err := checkScopeField("region", m.Region, sc.region); err != nil {
		return err
	}
	return checkScopeField("zone", m.Zone, sc.zone)
}

func checkScopeField(field, value, want string) error {
	switch {
	case value == "":
		return nil
	case want == "":
		return invalid("%s (%q) must not be set on this resource: its request path (global, or another scope) has no %s; use the %ss/{%s}/ path for a %s-scoped one.", field, value, field, field, field, field)
	case lastSegment(value) != want:
		return invalid("%s (%q) does not match the %s of the request path (%q).", field, value, field, want)
	}
	return nil
}

func (c *collection[T, P]) insert(r *http.Request) (any, error) {
	sc, err := scopeOf(r)
	if err != nil {
		return nil, err
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	obj, err := c.decodeResource(body)
	if err != nil {
		return nil, err
	}
	c.s.writeMu.Lock()
	defer c.s.writeMu.Unlock()
	if err := c.prepare(r.Context(), obj, sc, nil); err != nil {
		return nil, err
	}
	key := sc.key(c.name, obj.GetMeta().Name)
	if err := c.s.store.Insert(r.Context(), store.Object{Key: key, Body: mustJSON(obj)}); err != nil {
		return nil, storeError(key, err)
	}
	return c.s.changed(r, sc, "insert", key, obj.GetMeta().ID)
}

// load reads the stored object the request path names.
func (c *collection[T, P]) load(r *http.Request) (P, scope, error) {
	sc, err := scopeOf(r)
	if err != nil {
		return nil, sc, err
	}
	key := sc.key(c.name, r.PathValue("name"))
	o, err := c.s.store.Get(r.Context(), key)
	if err != nil {
		return nil, sc, storeError(key, err)
	}
	obj := P(new(T))
	if err := json.Unmarshal(o.Body, obj); err != nil {
		return nil, sc, err
	}
	return obj, sc, nil
}

func (c *collection[T, P]) get(r *http.Request) (any, error) {
	obj, _, err := c.load(r)
	return obj, err
}

// MaxResults is the largest page a list returns (and its default size).
const MaxResults = 500

func (c *collection[T, P]) list(r *http.Request) (any, error) {
	sc, err := scopeOf(r)
	if err != nil {
		return nil, err
	}
	limit, after, err := pageParams(r)
	if err != nil {
		return nil, err
	}
	objects, err := c.s.store.List(r.Context(), store.ListOptions{
		Project: sc.project, Scope: sc.path(), Collection: c.name, After: after, Limit: limit + 1,
	})
	if err != nil {
		return nil, err
	}
	page := api.List[json.RawMessage]{Kind: c.listKind, ID: sc.key(c.name, "").Path(), Items: []json.RawMessage{},
		SelfLink: c.s.link(sc.key(c.name, "").Path())}
	for i, o := range objects {
		if i == limit {
			page.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte(objects[i-1].Name))
			break
		}
		page.Items = append(page.Items, o.Body)
	}
	return page, nil
}

// pageParams reads maxResults and pageToken.
func pageParams(r *http.Request) (limit int, after string, err error) {
	limit = MaxResults
	if v := r.URL.Query().Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxResults {
			return 0, "", invalid("maxResults (%q) must be an integer between 0 and %d.", v, MaxResults)
		}
		if n > 0 {
			limit = n
		}
	}
	if tok := r.URL.Query().Get("pageToken"); tok != "" {
		name, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return 0, "", invalid("pageToken (%q) is not a token this API returned: pass nextPageToken from the previous page.", tok)
		}
		after = string(name)
	}
	return limit, after, nil
}

// update replaces the whole object (PUT).
func (c *collection[T, P]) update(r *http.Request) (any, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	return c.replace(r, "update", func(P) (P, error) { return c.decodeResource(body) })
}

// patch merges the body into the stored object (RFC 7396) and then behaves
// like update. The computed type is recomputed unless the patch sets it, so
// that a patch can switch protocol blocks.
func (c *collection[T, P]) patch(r *http.Request) (any, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if mask := r.URL.Query().Get("updateMask"); mask != "" {
		if body, err = maskPatch(body, mask, new(T)); err != nil {
			return nil, err
		}
	}
	return c.replace(r, "patch", func(stored P) (P, error) {
		merged, err := mergePatch(withoutOutputFields(stored), body)
		if err != nil {
			return nil, err
		}
		return c.decodeResource(merged)
	})
}

// withoutOutputFields is the stored object as a client would have to send
// it: output-only fields (and the computed type) dropped.
func withoutOutputFields(obj any) []byte {
	var m map[string]any
	json.Unmarshal(mustJSON(obj), &m)
	// The fingerprint goes too: a patch must carry its own.
	for _, k := range []string{"kind", "id", "selfLink", "creationTimestamp", "region", "zone", "type", "fingerprint"} {
		delete(m, k)
	}
	return mustJSON(m)
}

// replace stores, in place of the object the path names, the object build
// makes from it, once validated. Reading, building and writing happen under
// the write lock, so concurrent patches cannot lose each other's changes.
func (c *collection[T, P]) replace(r *http.Request, opType string, build func(stored P) (P, error)) (any, error) {
	c.s.writeMu.Lock()
	defer c.s.writeMu.Unlock()
	prior, sc, err := c.load(r)
	if err != nil {
		return nil, err
	}
	obj, err := build(prior)
	if err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	if n := obj.GetMeta().Name; n != "" && n != name {
		return nil, invalid("name (%q) does not match the name in the request path (%q): a resource cannot be renamed; create a new one.", n, name)
	}
	obj.GetMeta().Name = name
	if err := c.checkUpdate(prior, obj); err != nil {
		return nil, err
	}
	if err := c.prepare(r.Context(), obj, sc, prior); err != nil {
		return nil, err
	}
	key := sc.key(c.name, name)
	if err := c.s.store.Update(r.Context(), store.Object{Key: key, Body: mustJSON(obj)}); err != nil {
		return nil, storeError(key, err)
	}
	// Rules that span objects (a service and its check, a health source and
	// its service) must still hold for the resources that use this one.
	if err := c.s.recheckUsers(r.Context(), key); err != nil {
		if rerr := c.s.store.Update(context.WithoutCancel(r.Context()), store.Object{Key: key, Body: mustJSON(prior)}); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
		return nil, err
	}
	return c.s.changed(r, sc, opType, key, obj.GetMeta().ID)
}

func (c *collection[T, P]) delete(r *http.Request) (any, error) {
	c.s.writeMu.Lock()
	defer c.s.writeMu.Unlock()
	obj, sc, err := c.load(r)
	if err != nil {
		return nil, err
	}
	key := sc.key(c.name, obj.GetMeta().Name)
	user, err := c.s.usedBy(r.Context(), key)
	if err != nil {
		return nil, err
	}
	if user != "" {
		return nil, inUse(key, user)
	}
	if err := c.s.store.Delete(r.Context(), key); err != nil {
		return nil, storeError(key, err)
	}
	return c.s.changed(r, sc, "delete", key, obj.GetMeta().ID)
}

// mustJSON marshals values that always marshal (our own API types).
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
