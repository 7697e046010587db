package core

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/schema"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Resource is what every stored object has: the shared fields.
type Resource interface{ GetMeta() *api.Meta }

// Ptr constrains P to be *T and a resource, so that generic code can both
// allocate a T and reach its Meta.
type Ptr[T any] interface {
	*T
	Resource
}

// Collection describes one API Collection. Its handlers (insert, get, list,
// update, patch, delete) are written once, below, for every Collection.
type Collection[T any, P Ptr[T]] struct {
	s   *API
	Def api.Collection // its entry in the catalogue
	// rule validates an object as the client sent it (defaults not yet
	// applied); check does, for rules that depend on the scope.
	rule  func(obj P) rules.Violations
	Check func(obj P, sc Scope) rules.Violations
	// defaults, if set, fills the unset fields of a valid object before it
	// is stored.
	defaults func(obj P)
	// Resolve, if set, checks the objects obj references (they must exist
	// and fit) and rewrites the references as URLs. It runs under the write
	// lock, after check.
	Resolve func(ctx context.Context, obj P, sc Scope) error
	// Refs, if set, lists the references of a stored object, so that what
	// it references cannot be deleted under it.
	Refs func(obj P) []string
	// Fingerprint, if set, points at the object's Fingerprint: every write
	// sets a new one, and updates must send the current one (optimistic
	// locking: a stale one gets 412).
	Fingerprint func(obj P) *string
	// FingerprintOptional lets updates leave the fingerprint out (the real
	// API checks it only when sent on backend services and forwarding
	// rules); a stale one still gets 412.
	FingerprintOptional bool
	// Outputs, if set, fills output fields that the server chooses (an
	// address), once id and creation time are set; prior is the object
	// replaced, or nil.
	Outputs func(obj, prior P)
	// Immutable, if set, refuses updates that change what cannot change.
	Immutable func(prior, obj P) error
	// Attach, if set, runs once insert has stored obj: it writes what obj
	// brings with it (the disks an instance is made with). If it fails, obj
	// is removed again.
	Attach func(ctx context.Context, obj P, sc Scope) error
	// Release, if set, runs once delete has removed obj: it deletes or
	// frees what obj held (an instance's auto-delete disks).
	Release func(ctx context.Context, obj P, sc Scope) error
	// Updated, if set, runs once an update (PUT, PATCH or a method) has
	// stored obj: it brings what obj manages in line (a managed group's
	// instances).
	Updated func(ctx context.Context, obj P, sc Scope) error
	// Deletable, if set, refuses a delete that what obj manages forbids
	// (a managed group whose instance group a backend uses).
	Deletable func(ctx context.Context, obj P, sc Scope) error
	// ComputedType: the object's type is computed from its other fields
	// (a health check's, from its protocol block), so a patch or a method
	// that does not send it gets it anew; elsewhere a type is the
	// client's, kept as stored.
	ComputedType bool
	// Whole are the fields the typed view holds entirely (every field of
	// their schema): what is stored of them is the view's, not laid over
	// the client's (the view may reorder a list: a policy's rules, by
	// priority).
	Whole []string
	// Kept, if set, copies from the stored object into an update (PUT or
	// PATCH) the output fields only a method sets (a backend service's
	// security policies), which a client's body never carries.
	Kept func(prior, obj P)
	// Source, if set, completes the body of an insert from what its query
	// names (an instance's sourceInstanceTemplate) before it is decoded.
	Source func(r *googleapi.Call, doc Document) (Document, error)
	// InputOnly, if set, drops from what is stored the fields the API takes
	// but never returns (an instance's disks[].initializeParams).
	InputOnly func(doc Document)
}

// NewCollection is the collection of the catalogue named name, whose
// objects rule validates and defaults completes (either may be nil: a
// scope-dependent rule is set as check instead).
func NewCollection[T any, P Ptr[T]](s *API, name string, rule func(P) rules.Violations, defaults func(P)) *Collection[T, P] {
	return &Collection[T, P]{s: s, Def: api.MustCollection(name), rule: rule, defaults: defaults}
}

// Holder returns the collection as a Holder of references, or false.
func (c *Collection[T, P]) Holder() (Holder, bool) {
	if c.Refs == nil {
		return Holder{}, false
	}
	return Holder{Collection: c.Def.Name, Refs: func(body []byte, decoded any) []string {
		obj, ok := decoded.(P)
		if !ok {
			obj = P(new(T))
			if json.Unmarshal(body, obj) != nil {
				return nil
			}
		}
		return c.Refs(obj)
	}, recheck: func(ctx context.Context, o store.Object) error {
		obj := P(new(T))
		if err := json.Unmarshal(o.Body, obj); err != nil || c.Resolve == nil {
			return err
		}
		return c.Resolve(ctx, obj, ScopeOfKey(o.Key))
	}}, true
}

// decodeResource reads a resource from a request body: the body as the
// client sent it, checked against the API's schema (output-only fields
// dropped), and the emulator's typed view of it.
func (c *Collection[T, P]) decodeResource(r *googleapi.Call, body []byte) (P, Document, error) {
	doc, err := ParseObject(body)
	if err != nil {
		return nil, nil, err
	}
	return c.decodeDocument(r, doc)
}

// decodeDocument is decodeResource for a body already parsed.
func (c *Collection[T, P]) decodeDocument(r *googleapi.Call, doc Document) (P, Document, error) {
	schema.NormalizeValues(c.Def.Schema(), doc) // first: it renames proto names
	c.s.unknownFields(r, c.Def.Schema(), doc)
	if err := checkSchema(c.Def.Schema(), doc); err != nil {
		return nil, nil, err
	}
	// region and zone are output only, but a body may repeat the ones of
	// its path (prepare checks that they match).
	region, _ := doc["region"].(string)
	zone, _ := doc["zone"].(string)
	schema.StripOutputOnly(c.Def.Schema(), doc)
	obj := P(new(T))
	if err := json.Unmarshal(encodeDocument(doc), obj); err != nil {
		return nil, nil, decodeError(err)
	}
	obj.GetMeta().Region, obj.GetMeta().Zone = region, zone
	return obj, doc, nil
}

// Prepare validates obj for scope sc and fills the output fields, keeping id
// and creation time from prior when it replaces a stored object.
func (c *Collection[T, P]) Prepare(ctx context.Context, obj P, doc Document, sc Scope, prior P) error {
	m := obj.GetMeta()
	if err := checkScopeFields(m, sc); err != nil {
		return err
	}
	if err := c.violations(obj, sc).Err(); err != nil {
		return googleapi.Invalid("%s", err.Error())
	}
	if err := checkEnums(c.Def.Schema(), doc); err != nil {
		return err
	}
	if c.Resolve != nil {
		if err := c.Resolve(ctx, obj, sc); err != nil {
			return err
		}
	}
	if c.defaults != nil {
		c.defaults(obj)
	}
	m.Kind, m.Region, m.Zone = c.Def.Kind, c.s.regionLink(sc), c.s.zoneLink(sc)
	m.SelfLink = c.s.Link(sc.Key(c.Def.Name, m.Name).Path())
	if prior != nil {
		m.ID, m.CreationTimestamp = prior.GetMeta().ID, prior.GetMeta().CreationTimestamp
	} else {
		m.ID, m.CreationTimestamp = NewID(), c.s.CreationTime()
	}
	if c.Outputs != nil {
		c.Outputs(obj, prior)
	}
	if c.Fingerprint != nil {
		*c.Fingerprint(obj) = NewFingerprint() // a new one each write
	}
	return nil
}

// Stored is what is kept of a prepared object: every field the client sent
// (the API defines them all, even those the emulator does not act on) but
// nulls and empty objects, which the API does not return, its references written as
// full self links, with the emulator's typed view
// (defaults, resolved references, output fields) laid over it.
func (c *Collection[T, P]) Stored(doc Document, obj P) []byte {
	project := KeyOfPath(api.PathOf(obj.GetMeta().SelfLink)).Project
	schema.RewriteReferences(c.Def.Schema(), doc, func(ref string) string { return c.s.CanonicalRef(ref, project) })
	dropUnset(doc)
	for _, f := range c.Whole {
		delete(doc, f)
	}
	merged := MergeTyped(doc, obj)
	if c.InputOnly != nil {
		c.InputOnly(merged)
	}
	if schema.Has(c.Def.Schema(), "selfLinkWithId") {
		m := obj.GetMeta()
		merged["selfLinkWithId"] = SelfLinkWithID(m.SelfLink, m.Name, m.ID)
	}
	return encodeDocument(merged)
}

// SelfLinkWithID is the link of a resource by its id: its selfLink with
// the id in place of its name.
func SelfLinkWithID(selfLink, name string, id uint64) string {
	return strings.TrimSuffix(selfLink, "/"+name) + "/" + strconv.FormatUint(id, 10)
}

// checkUpdate refuses an update that sends a stale fingerprint or, from a
// client, changes what cannot change.
func (c *Collection[T, P]) checkUpdate(prior, obj P, fromClient bool) error {
	if c.Fingerprint != nil {
		sent, current := *c.Fingerprint(obj), *c.Fingerprint(prior)
		switch {
		case sent == "" && c.FingerprintOptional:
		case sent == "":
			// The Compute API answers a missing fingerprint as a stale one.
			return googleapi.NewError(http.StatusPreconditionFailed, api.ReasonConditionNotMet,
				fmt.Sprintf("fingerprint is required to update %s: GET it and send its fingerprint (%q) with the change.", prior.GetMeta().Name, current))
		case sent != current:
			return googleapi.NewError(http.StatusPreconditionFailed, api.ReasonConditionNotMet,
				fmt.Sprintf("fingerprint (%q) is stale: %s has changed since (its fingerprint is now %q); GET it again and re-apply the change.", sent, prior.GetMeta().Name, current))
		}
	}
	if c.Immutable != nil && fromClient {
		return c.Immutable(prior, obj)
	}
	return nil
}

// violations are the rules' verdict on obj in scope sc.
func (c *Collection[T, P]) violations(obj P, sc Scope) rules.Violations {
	if c.Check != nil {
		return c.Check(obj, sc)
	}
	return c.rule(obj)
}

// checkScopeFields: a body may repeat its region or zone (name or URL), but
// it must be the one of the path.
func checkScopeFields(m *api.Meta, sc Scope) error {
	if err := checkScopeField("region", m.Region, sc.Region); err != nil {
		return err
	}
	return checkScopeField("zone", m.Zone, sc.Zone)
}

func checkScopeField(field, value, want string) error {
	switch {
	case value == "":
		return nil
	case want == "":
		return googleapi.Invalid("%s (%q) must not be set on this resource: its request path (global, or another scope) has no %s; use the %ss/{%s}/ path for a %s-scoped one.", field, value, field, field, field, field)
	case LastSegment(value) != want:
		return googleapi.Invalid("%s (%q) does not match the %s of the request path (%q).", field, value, field, want)
	}
	return nil
}

// Insert stores a new object (POST on the collection).
func (c *Collection[T, P]) Insert(r *googleapi.Call) (any, error) {
	sc, err := ScopeOf(r)
	if err != nil {
		return nil, err
	}
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	doc, err := ParseObject(body)
	if err != nil {
		return nil, err
	}
	if c.Source != nil {
		if doc, err = c.Source(r, doc); err != nil {
			return nil, err
		}
	}
	obj, doc, err := c.decodeDocument(r, doc)
	if err != nil {
		return nil, err
	}
	c.s.core.Lock()
	defer c.s.core.Unlock()
	if err := c.Prepare(r.Context(), obj, doc, sc, nil); err != nil {
		return nil, err
	}
	key := sc.Key(c.Def.Name, obj.GetMeta().Name)
	kept := c.Stored(doc, obj)
	if err := c.s.Store.Insert(r.Context(), store.Object{Key: key, Body: kept}); err != nil {
		return nil, StoreError(key, err)
	}
	c.s.core.typed.set(key, obj) // what the hooks and the feed's readers see
	if c.Attach != nil {
		if err := c.Attach(r.Context(), obj, sc); err != nil {
			c.s.core.typed.set(key, nil)
			if derr := c.s.Store.Delete(context.WithoutCancel(r.Context()), key); derr != nil {
				return nil, errors.Join(err, derr)
			}
			return nil, err
		}
	}
	// A hook may write the object again: then the feed reads what it holds.
	return c.s.changed(r, sc, "insert", Change{Key: key, Body: kept, Unknown: c.Attach != nil, Object: obj}, obj.GetMeta().ID)
}

// Load reads the stored object the request path names.
func (c *Collection[T, P]) Load(r *googleapi.Call) (P, Scope, error) {
	obj, _, sc, err := c.LoadBody(r)
	return obj, sc, err
}

// LoadBody is load that also returns the object as stored.
func (c *Collection[T, P]) LoadBody(r *googleapi.Call) (P, []byte, Scope, error) {
	sc, err := ScopeOf(r)
	if err != nil {
		return nil, nil, sc, err
	}
	key := sc.Key(c.Def.Name, r.PathValue("name"))
	o, err := c.s.getByNameOrID(r.Context(), key)
	if err != nil {
		return nil, nil, sc, StoreError(key, err)
	}
	obj := P(new(T))
	if err := json.Unmarshal(o.Body, obj); err != nil {
		return nil, nil, sc, err
	}
	return obj, o.Body, sc, nil
}

// Get answers the stored object the call names.
func (c *Collection[T, P]) Get(r *googleapi.Call) (any, error) {
	_, body, _, err := c.LoadBody(r)
	return json.RawMessage(body), err
}

// PageParams reads maxResults and pageToken.
func PageParams(r *googleapi.Call) (limit int, after string, err error) {
	limit = MaxResults
	if v := r.Query().Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxResults {
			return 0, "", googleapi.Invalid("maxResults (%q) must be an integer between 0 and %d.", v, MaxResults)
		}
		if n > 0 {
			limit = n
		}
	}
	if tok := r.Query().Get("pageToken"); tok != "" {
		name, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return 0, "", googleapi.Invalid("pageToken (%q) is not a token this API returned: pass nextPageToken from the previous page.", tok)
		}
		after = string(name)
	}
	return limit, after, nil
}

// Update replaces the whole object (PUT).
func (c *Collection[T, P]) Update(r *googleapi.Call) (any, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	return c.replace(r, "update", true, func(prior P, _ []byte) (P, Document, error) {
		obj, doc, err := c.decodeResource(r, body)
		return c.keep(prior, obj), doc, err
	})
}

// Patch merges the body into the stored object (RFC 7396) and then behaves
// like update. The computed type is recomputed unless the patch sets it, so
// that a patch can switch protocol blocks.
func (c *Collection[T, P]) Patch(r *googleapi.Call) (any, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	if mask := r.Query().Get("updateMask"); mask != "" {
		if body, err = maskPatch(body, mask, c.Def.Schema()); err != nil {
			return nil, err
		}
	}
	return c.replace(r, "patch", true, func(prior P, stored []byte) (P, Document, error) {
		merged, err := mergePatch(c.withoutOutputFields(stored), body)
		if err != nil {
			return nil, nil, err
		}
		obj, doc, err := c.decodeDocument(r, merged)
		return c.keep(prior, obj), doc, err
	})
}

// keep is obj with the fields kept from prior, the stored object.
func (c *Collection[T, P]) keep(prior, obj P) P {
	if c.Kept != nil && obj != nil {
		c.Kept(prior, obj)
	}
	return obj
}

// withoutOutputFields is the stored object as a client would have to send
// it: output-only fields (and a computed type) dropped.
func (c *Collection[T, P]) withoutOutputFields(stored []byte) Document {
	doc, _ := readOwn(stored, false) // what a write stored: an object
	schema.StripOutputOnly(c.Def.Schema(), doc)
	// A computed type goes, so that a patch can switch protocol blocks; the
	// fingerprint too: a patch must carry its own.
	for _, k := range []string{"region", "zone", "selfLinkWithId", "fingerprint"} {
		delete(doc, k)
	}
	if c.ComputedType {
		delete(doc, "type")
	}
	return doc
}

// replace stores, in place of the object the path names, the object build
// makes from it, once validated; fromClient says the client wrote the new
// object (an update, a patch), which may then not change what is
// Immutable; a method's change may (a subnetwork's expandIpCidrRange).
// Reading, building and writing happen under the write lock, so
// concurrent patches cannot lose each other's changes.
func (c *Collection[T, P]) replace(r *googleapi.Call, opType string, fromClient bool, build func(prior P, stored []byte) (P, Document, error)) (any, error) {
	c.s.core.Lock()
	defer c.s.core.Unlock()
	prior, priorBody, sc, err := c.LoadBody(r)
	if err != nil {
		return nil, err
	}
	obj, doc, err := build(prior, priorBody)
	if err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	if n := obj.GetMeta().Name; n != "" && n != name {
		return nil, googleapi.Invalid("name (%q) does not match the name in the request path (%q): a resource cannot be renamed; create a new one.", n, name)
	}
	obj.GetMeta().Name = name
	if err := c.checkUpdate(prior, obj, fromClient); err != nil {
		return nil, err
	}
	if err := c.Prepare(r.Context(), obj, doc, sc, prior); err != nil {
		return nil, err
	}
	key := sc.Key(c.Def.Name, name)
	kept := c.Stored(doc, obj)
	if err := c.s.Store.Update(r.Context(), store.Object{Key: key, Body: kept}); err != nil {
		return nil, StoreError(key, err)
	}
	// Rules that span objects (a service and its check, a health source and
	// its service) must still hold for the resources that use this one:
	// they read the new one.
	c.s.core.typed.set(key, obj)
	if err := c.s.recheckUsers(r.Context(), key); err != nil {
		c.s.core.typed.set(key, prior)
		if rerr := c.s.Store.Update(context.WithoutCancel(r.Context()), store.Object{Key: key, Body: priorBody}); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
		return nil, err
	}
	if c.Updated != nil {
		if err := c.Updated(context.WithoutCancel(r.Context()), obj, sc); err != nil {
			return nil, err
		}
	}
	return c.s.changed(r, sc, opType, Change{Key: key, Body: kept, Unknown: c.Updated != nil, Object: c.typedView(opType, obj)}, obj.GetMeta().ID)
}

// typedView is obj for the change feed after a write of opType: an update
// or a patch builds it from the document it stores, as an insert does, so
// that it is what decoding the stored object gives; a method's change
// (modify) may leave it other than that (an empty list the JSON omits),
// so readers decode the stored object instead.
func (c *Collection[T, P]) typedView(opType string, obj P) any {
	if opType == "update" || opType == "patch" {
		return obj
	}
	return nil
}

// Modify stores, in place of the object the path names, what change makes
// of it: for methods (attachNetworkEndpoints, addInstance, setTarget ...)
// that edit fields the emulator models. The fields it does not model stay
// as stored.
func (c *Collection[T, P]) Modify(r *googleapi.Call, opType string, change func(stored P) (P, error)) (any, error) {
	return c.replace(r, opType, false, func(_ P, stored []byte) (P, Document, error) {
		// change may edit what it is given: a copy of its own, not the
		// prior object the update is checked against.
		prior := P(new(T))
		if err := json.Unmarshal(stored, prior); err != nil {
			return nil, nil, err
		}
		obj, err := change(prior)
		if err != nil {
			return nil, nil, err
		}
		doc := c.withoutOutputFields(stored)
		// A field the typed view models is the typed view's, even when the
		// change cleared it (and its JSON omits it).
		for field := range JsonFields(reflect.TypeFor[T]()) {
			delete(doc, field)
		}
		return obj, doc, nil
	})
}

// Delete removes the object the call names, unless another uses it.
func (c *Collection[T, P]) Delete(r *googleapi.Call) (any, error) {
	c.s.core.Lock()
	defer c.s.core.Unlock()
	obj, sc, err := c.Load(r)
	if err != nil {
		return nil, err
	}
	key := sc.Key(c.Def.Name, obj.GetMeta().Name)
	user, err := c.s.usedBy(r.Context(), key)
	if err != nil {
		return nil, err
	}
	if user != "" {
		return nil, InUse(key, user)
	}
	if c.Deletable != nil {
		if err := c.Deletable(r.Context(), obj, sc); err != nil {
			return nil, err
		}
	}
	if err := c.s.Store.Delete(r.Context(), key); err != nil {
		return nil, StoreError(key, err)
	}
	c.s.core.typed.set(key, nil)
	if c.Release != nil {
		if err := c.Release(context.WithoutCancel(r.Context()), obj, sc); err != nil {
			return nil, err
		}
	}
	return c.s.changed(r, sc, "delete", Change{Key: key, Unknown: c.Release != nil}, obj.GetMeta().ID)
}

// MustJSON marshals values that always marshal (our own API types).
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// JsonFields lists the JSON names of a struct's fields, embedded ones too.
func JsonFields(t reflect.Type) map[string]bool {
	fields := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			for k := range JsonFields(sf.Type) {
				fields[k] = true
			}
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = true
		}
	}
	return fields
}

// Unchanged refuses a change of an immutable field; def is what unset means.
func Unchanged(field, prior, now, def string) error {
	if now == "" {
		now = def
	}
	if now == "" || now == prior {
		return nil
	}
	return googleapi.Invalid("%s (%q) cannot be changed (it is %q): create a new resource instead (Terraform replaces it).", field, now, prior)
}

// Store is where the collection's objects are kept.
func (c *Collection[T, P]) Store() store.Store { return c.s.Store }
