package compute

import (
	"context"
	"crypto/sha256"
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
	s   *Service
	def api.Collection // its entry in the catalogue
	// rule validates an object as the client sent it (defaults not yet
	// applied); check does, for rules that depend on the scope.
	rule  func(obj P) rules.Violations
	check func(obj P, sc scope) rules.Violations
	// defaults, if set, fills the unset fields of a valid object before it
	// is stored.
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
	// fingerprintOptional lets updates leave the fingerprint out (the real
	// API checks it only when sent on backend services and forwarding
	// rules); a stale one still gets 412.
	fingerprintOptional bool
	// outputs, if set, fills output fields that the server chooses (an
	// address), once id and creation time are set; prior is the object
	// replaced, or nil.
	outputs func(obj, prior P)
	// immutable, if set, refuses updates that change what cannot change.
	immutable func(prior, obj P) error
	// attach, if set, runs once insert has stored obj: it writes what obj
	// brings with it (the disks an instance is made with). If it fails, obj
	// is removed again.
	attach func(ctx context.Context, obj P, sc scope) error
	// release, if set, runs once delete has removed obj: it deletes or
	// frees what obj held (an instance's auto-delete disks).
	release func(ctx context.Context, obj P, sc scope) error
	// updated, if set, runs once an update (PUT, PATCH or a method) has
	// stored obj: it brings what obj manages in line (a managed group's
	// instances).
	updated func(ctx context.Context, obj P, sc scope) error
	// deletable, if set, refuses a delete that what obj manages forbids
	// (a managed group whose instance group a backend uses).
	deletable func(ctx context.Context, obj P, sc scope) error
	// computedType: the object's type is computed from its other fields
	// (a health check's, from its protocol block), so a patch or a method
	// that does not send it gets it anew; elsewhere a type is the
	// client's, kept as stored.
	computedType bool
	// whole are the fields the typed view holds entirely (every field of
	// their schema): what is stored of them is the view's, not laid over
	// the client's (the view may reorder a list: a policy's rules, by
	// priority).
	whole []string
	// kept, if set, copies from the stored object into an update (PUT or
	// PATCH) the output fields only a method sets (a backend service's
	// security policies), which a client's body never carries.
	kept func(prior, obj P)
	// inputOnly, if set, drops from what is stored the fields the API takes
	// but never returns (an instance's disks[].initializeParams).
	inputOnly func(doc document)
}

// newCollection is the collection of the catalogue named name, whose
// objects rule validates and defaults completes (either may be nil: a
// scope-dependent rule is set as check instead).
func newCollection[T any, P ptr[T]](s *Service, name string, rule func(P) rules.Violations, defaults func(P)) *collection[T, P] {
	return &collection[T, P]{s: s, def: api.MustCollection(name), rule: rule, defaults: defaults}
}

// holder returns the collection as a holder of references, or false.
func (c *collection[T, P]) holder() (holder, bool) {
	if c.refs == nil {
		return holder{}, false
	}
	return holder{collection: c.def.Name, refs: func(body []byte, decoded any) []string {
		obj, ok := decoded.(P)
		if !ok {
			obj = P(new(T))
			if json.Unmarshal(body, obj) != nil {
				return nil
			}
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

// decodeResource reads a resource from a request body: the body as the
// client sent it, checked against the API's schema (output-only fields
// dropped), and the emulator's typed view of it.
func (c *collection[T, P]) decodeResource(r *Call, body []byte) (P, document, error) {
	doc, err := ParseObject(body)
	if err != nil {
		return nil, nil, err
	}
	return c.decodeDocument(r, doc)
}

// decodeDocument is decodeResource for a body already parsed.
func (c *collection[T, P]) decodeDocument(r *Call, doc document) (P, document, error) {
	c.s.unknownFields(r, c.def.Schema(), doc)
	schema.DropUnsetValues(c.def.Schema(), doc)
	if err := checkSchema(c.def.Schema(), doc); err != nil {
		return nil, nil, err
	}
	// region and zone are output only, but a body may repeat the ones of
	// its path (prepare checks that they match).
	region, _ := doc["region"].(string)
	zone, _ := doc["zone"].(string)
	schema.StripOutputOnly(c.def.Schema(), doc)
	obj := P(new(T))
	if err := json.Unmarshal(mustJSON(doc), obj); err != nil {
		return nil, nil, decodeError(err)
	}
	obj.GetMeta().Region, obj.GetMeta().Zone = region, zone
	return obj, doc, nil
}

// prepare validates obj for scope sc and fills the output fields, keeping id
// and creation time from prior when it replaces a stored object.
func (c *collection[T, P]) prepare(ctx context.Context, obj P, doc document, sc scope, prior P) error {
	m := obj.GetMeta()
	if err := checkScopeFields(m, sc); err != nil {
		return err
	}
	if err := c.violations(obj, sc).Err(); err != nil {
		return invalid("%s", err.Error())
	}
	if err := checkEnums(c.def.Schema(), doc); err != nil {
		return err
	}
	if c.resolve != nil {
		if err := c.resolve(ctx, obj, sc); err != nil {
			return err
		}
	}
	if c.defaults != nil {
		c.defaults(obj)
	}
	m.Kind, m.Region, m.Zone = c.def.Kind, c.s.regionLink(sc), c.s.zoneLink(sc)
	m.SelfLink = c.s.link(sc.key(c.def.Name, m.Name).Path())
	if prior != nil {
		m.ID, m.CreationTimestamp = prior.GetMeta().ID, prior.GetMeta().CreationTimestamp
	} else {
		m.ID, m.CreationTimestamp = newID(), c.s.creationTime()
	}
	if c.outputs != nil {
		c.outputs(obj, prior)
	}
	if c.fingerprint != nil {
		fp := c.fingerprint(obj)
		*fp = ""
		sum := sha256.Sum256(strconv.AppendUint(mustJSON(obj), newID(), 10)) // a new id each write: no two fingerprints alike
		*fp = base64.StdEncoding.EncodeToString(sum[:8])                     // the API's fingerprints are base64 bytes
	}
	return nil
}

// stored is what is kept of a prepared object: every field the client sent
// (the API defines them all, even those the emulator does not act on) but
// nulls and empty objects, which the API does not return, its references written as
// full self links, with the emulator's typed view
// (defaults, resolved references, output fields) laid over it.
func (c *collection[T, P]) stored(doc document, obj P) []byte {
	project := keyOfPath(api.PathOf(obj.GetMeta().SelfLink)).Project
	schema.RewriteReferences(c.def.Schema(), doc, func(ref string) string { return c.s.canonicalRef(ref, project) })
	dropUnset(doc)
	for _, f := range c.whole {
		delete(doc, f)
	}
	merged := mergeTyped(doc, obj)
	if c.inputOnly != nil {
		c.inputOnly(merged)
	}
	if schema.Has(c.def.Schema(), "selfLinkWithId") {
		m := obj.GetMeta()
		merged["selfLinkWithId"] = strings.TrimSuffix(m.SelfLink, "/"+m.Name) + "/" + strconv.FormatUint(m.ID, 10)
	}
	return mustJSON(merged)
}

// checkUpdate refuses an update that sends a stale fingerprint or changes
// what cannot change.
func (c *collection[T, P]) checkUpdate(prior, obj P) error {
	if c.fingerprint != nil {
		sent, current := *c.fingerprint(obj), *c.fingerprint(prior)
		switch {
		case sent == "" && c.fingerprintOptional:
		case sent == "":
			// The Compute API answers a missing fingerprint as a stale one.
			return googleapi.NewError(http.StatusPreconditionFailed, api.ReasonConditionNotMet,
				fmt.Sprintf("fingerprint is required to update %s: GET it and send its fingerprint (%q) with the change.", prior.GetMeta().Name, current))
		case sent != current:
			return googleapi.NewError(http.StatusPreconditionFailed, api.ReasonConditionNotMet,
				fmt.Sprintf("fingerprint (%q) is stale: %s has changed since (its fingerprint is now %q); GET it again and re-apply the change.", sent, prior.GetMeta().Name, current))
		}
	}
	if c.immutable != nil {
		return c.immutable(prior, obj)
	}
	return nil
}

// violations are the rules' verdict on obj in scope sc.
func (c *collection[T, P]) violations(obj P, sc scope) rules.Violations {
	if c.check != nil {
		return c.check(obj, sc)
	}
	return c.rule(obj)
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

func (c *collection[T, P]) insert(r *Call) (any, error) {
	sc, err := scopeOf(r)
	if err != nil {
		return nil, err
	}
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	obj, doc, err := c.decodeResource(r, body)
	if err != nil {
		return nil, err
	}
	c.s.core.Lock()
	defer c.s.core.Unlock()
	if err := c.prepare(r.Context(), obj, doc, sc, nil); err != nil {
		return nil, err
	}
	key := sc.key(c.def.Name, obj.GetMeta().Name)
	kept := c.stored(doc, obj)
	if err := c.s.store.Insert(r.Context(), store.Object{Key: key, Body: kept}); err != nil {
		return nil, StoreError(key, err)
	}
	if c.attach != nil {
		if err := c.attach(r.Context(), obj, sc); err != nil {
			if derr := c.s.store.Delete(context.WithoutCancel(r.Context()), key); derr != nil {
				return nil, errors.Join(err, derr)
			}
			return nil, err
		}
	}
	// A hook may write the object again: then the feed reads what it holds.
	return c.s.changed(r, sc, "insert", Change{Key: key, Body: kept, Unknown: c.attach != nil, Object: obj}, obj.GetMeta().ID)
}

// load reads the stored object the request path names.
func (c *collection[T, P]) load(r *Call) (P, scope, error) {
	obj, _, sc, err := c.loadBody(r)
	return obj, sc, err
}

// loadBody is load that also returns the object as stored.
func (c *collection[T, P]) loadBody(r *Call) (P, []byte, scope, error) {
	sc, err := scopeOf(r)
	if err != nil {
		return nil, nil, sc, err
	}
	key := sc.key(c.def.Name, r.PathValue("name"))
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

func (c *collection[T, P]) get(r *Call) (any, error) {
	_, body, _, err := c.loadBody(r)
	return json.RawMessage(body), err
}

// pageParams reads maxResults and pageToken.
func pageParams(r *Call) (limit int, after string, err error) {
	limit = MaxResults
	if v := r.Query().Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxResults {
			return 0, "", invalid("maxResults (%q) must be an integer between 0 and %d.", v, MaxResults)
		}
		if n > 0 {
			limit = n
		}
	}
	if tok := r.Query().Get("pageToken"); tok != "" {
		name, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return 0, "", invalid("pageToken (%q) is not a token this API returned: pass nextPageToken from the previous page.", tok)
		}
		after = string(name)
	}
	return limit, after, nil
}

// update replaces the whole object (PUT).
func (c *collection[T, P]) update(r *Call) (any, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	return c.replace(r, "update", func(stored []byte) (P, document, error) {
		obj, doc, err := c.decodeResource(r, body)
		return c.keep(stored, obj), doc, err
	})
}

// patch merges the body into the stored object (RFC 7396) and then behaves
// like update. The computed type is recomputed unless the patch sets it, so
// that a patch can switch protocol blocks.
func (c *collection[T, P]) patch(r *Call) (any, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	if mask := r.Query().Get("updateMask"); mask != "" {
		if body, err = maskPatch(body, mask, c.def.Schema()); err != nil {
			return nil, err
		}
	}
	return c.replace(r, "patch", func(stored []byte) (P, document, error) {
		merged, err := mergePatch(c.withoutOutputFields(stored), body)
		if err != nil {
			return nil, nil, err
		}
		obj, doc, err := c.decodeDocument(r, merged)
		return c.keep(stored, obj), doc, err
	})
}

// keep is obj with the fields kept from the stored object.
func (c *collection[T, P]) keep(stored []byte, obj P) P {
	if c.kept == nil || obj == nil {
		return obj
	}
	prior := P(new(T))
	if json.Unmarshal(stored, prior) == nil {
		c.kept(prior, obj)
	}
	return obj
}

// withoutOutputFields is the stored object as a client would have to send
// it: output-only fields (and a computed type) dropped.
func (c *collection[T, P]) withoutOutputFields(stored []byte) document {
	doc, _ := ParseObject(stored) // our own JSON
	schema.StripOutputOnly(c.def.Schema(), doc)
	// A computed type goes, so that a patch can switch protocol blocks; the
	// fingerprint too: a patch must carry its own.
	for _, k := range []string{"region", "zone", "selfLinkWithId", "fingerprint"} {
		delete(doc, k)
	}
	if c.computedType {
		delete(doc, "type")
	}
	return doc
}

// replace stores, in place of the object the path names, the object build
// makes from it, once validated. Reading, building and writing happen under
// the write lock, so concurrent patches cannot lose each other's changes.
func (c *collection[T, P]) replace(r *Call, opType string, build func(stored []byte) (P, document, error)) (any, error) {
	c.s.core.Lock()
	defer c.s.core.Unlock()
	prior, priorBody, sc, err := c.loadBody(r)
	if err != nil {
		return nil, err
	}
	obj, doc, err := build(priorBody)
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
	if err := c.prepare(r.Context(), obj, doc, sc, prior); err != nil {
		return nil, err
	}
	key := sc.key(c.def.Name, name)
	kept := c.stored(doc, obj)
	if err := c.s.store.Update(r.Context(), store.Object{Key: key, Body: kept}); err != nil {
		return nil, StoreError(key, err)
	}
	// Rules that span objects (a service and its check, a health source and
	// its service) must still hold for the resources that use this one.
	if err := c.s.recheckUsers(r.Context(), key); err != nil {
		if rerr := c.s.store.Update(context.WithoutCancel(r.Context()), store.Object{Key: key, Body: priorBody}); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
		return nil, err
	}
	if c.updated != nil {
		if err := c.updated(context.WithoutCancel(r.Context()), obj, sc); err != nil {
			return nil, err
		}
	}
	return c.s.changed(r, sc, opType, Change{Key: key, Body: kept, Unknown: c.updated != nil, Object: c.typedView(opType, obj)}, obj.GetMeta().ID)
}

// typedView is obj for the change feed after a write of opType: an update
// or a patch builds it from the document it stores, as an insert does, so
// that it is what decoding the stored object gives; a method's change
// (modify) may leave it other than that (an empty list the JSON omits),
// so readers decode the stored object instead.
func (c *collection[T, P]) typedView(opType string, obj P) any {
	if opType == "update" || opType == "patch" {
		return obj
	}
	return nil
}

// modify stores, in place of the object the path names, what change makes
// of it: for methods (attachNetworkEndpoints, addInstance, setTarget ...)
// that edit fields the emulator models. The fields it does not model stay
// as stored.
func (c *collection[T, P]) modify(r *Call, opType string, change func(stored P) (P, error)) (any, error) {
	return c.replace(r, opType, func(stored []byte) (P, document, error) {
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
		for field := range jsonFields(reflect.TypeFor[T]()) {
			delete(doc, field)
		}
		return obj, doc, nil
	})
}

func (c *collection[T, P]) delete(r *Call) (any, error) {
	c.s.core.Lock()
	defer c.s.core.Unlock()
	obj, sc, err := c.load(r)
	if err != nil {
		return nil, err
	}
	key := sc.key(c.def.Name, obj.GetMeta().Name)
	user, err := c.s.usedBy(r.Context(), key)
	if err != nil {
		return nil, err
	}
	if user != "" {
		return nil, inUse(key, user)
	}
	if c.deletable != nil {
		if err := c.deletable(r.Context(), obj, sc); err != nil {
			return nil, err
		}
	}
	if err := c.s.store.Delete(r.Context(), key); err != nil {
		return nil, StoreError(key, err)
	}
	if c.release != nil {
		if err := c.release(context.WithoutCancel(r.Context()), obj, sc); err != nil {
			return nil, err
		}
	}
	return c.s.changed(r, sc, "delete", Change{Key: key, Unknown: c.release != nil}, obj.GetMeta().ID)
}

// mustJSON marshals values that always marshal (our own API types).
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// jsonFields lists the JSON names of a struct's fields, embedded ones too.
func jsonFields(t reflect.Type) map[string]bool {
	fields := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			for k := range jsonFields(sf.Type) {
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

// unchanged refuses a change of an immutable field; def is what unset means.
func unchanged(field, prior, now, def string) error {
	if now == "" {
		now = def
	}
	if now == "" || now == prior {
		return nil
	}
	return invalid("%s (%q) cannot be changed (it is %q): create a new resource instead (Terraform replaces it).", field, now, prior)
}
