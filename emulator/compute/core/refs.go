package core

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/depindex"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// ParseRef reads a reference to a resource of collection: a URL, a path
// ("projects/p/global/healthChecks/x"), a path without the project
// ("regions/r/healthChecks/x") or a bare name, which is then in the scope of
// the referring resource. field names the reference in errors.
func ParseRef(field, ref string, from Scope, collection string) (store.Key, error) {
	k, err := ParseAnyRef(field, ref, from, collection)
	if err == nil && k.Collection != collection {
		return k, googleapi.Invalid("%s (%q) refers to a %s resource: it must refer to %s.", field, ref, k.Collection, collection)
	}
	return k, err
}

// ParseAnyRef is ParseRef for references that may point into several
// collections; a bare name is taken to be in defaultCollection.
func ParseAnyRef(field, ref string, from Scope, defaultCollection string) (store.Key, error) {
	k, err := ParseAnyRefOfAnyProject(field, ref, from, defaultCollection)
	if err == nil && from.Project != "" && k.Project != from.Project && !sharedAcrossProjects(k.Collection) {
		return k, googleapi.Invalid("%s (%q) is in project %q: a resource of project %q cannot use it (cross-project references are not allowed for %s); create it in %q.",
			field, ref, k.Project, from.Project, k.Collection, from.Project)
	}
	return k, err
}

// ParseAnyRefOfAnyProject is ParseAnyRef for a reference the API lets name
// a resource of another project (a URL map's backend services: the
// caller checks that the load balancer takes one).
func ParseAnyRefOfAnyProject(field, ref string, from Scope, defaultCollection string) (store.Key, error) {
	collection := defaultCollection
	if i := strings.IndexByte(ref, '?'); i >= 0 {
		ref = ref[:i] // self_link_unique: ".../instanceTemplates/t?uniqueId=123"
	}
	path := api.PathOf(ref)
	switch {
	case path != "":
	case strings.HasPrefix(ref, "global/") || strings.HasPrefix(ref, "regions/") || strings.HasPrefix(ref, "zones/"):
		path = "projects/" + from.Project + "/" + ref
	case ref != "" && !strings.Contains(ref, "/"):
		path = "projects/" + from.Project + "/" + from.Path() + "/" + collection + "/" + ref
	}
	var buf [7]string
	parts := pathSegments(path, buf[:0])
	var k store.Key
	switch {
	case len(parts) == 5 && parts[2] == "global":
		k = store.Key{Project: parts[1], Scope: "global", Collection: parts[3], Name: parts[4]}
	case len(parts) == 6 && (parts[2] == "regions" || parts[2] == "zones"):
		k = store.Key{Project: parts[1], Scope: parts[2] + "/" + parts[3], Collection: parts[4], Name: parts[5]}
	default:
		return k, googleapi.Invalid("%s (%q) is not a reference to a resource: use its selfLink, projects/{project}/global|regions/{region}/%s/{name}, or its name.", field, ref, collection)
	}
	return k, nil
}

// pathSegments appends to segs the "/"-separated segments of path, as
// strings.Split would, into segs' own room: a reference is read on every
// write, several times. A path of more segments than that room gets one
// more segment holding the rest (so that it is never mistaken for a shorter
// one).
func pathSegments(path string, segs []string) []string {
	for len(segs) < cap(segs)-1 {
		seg, rest, found := strings.Cut(path, "/")
		segs = append(segs, seg)
		if !found {
			return segs
		}
		path = rest
	}
	return append(segs, path)
}

// sharedAcrossProjects reports whether a resource of another project may
// reference the collection's, as in the Compute API: a Shared VPC's network
// and subnetworks belong to its host project.
func sharedAcrossProjects(collection string) bool {
	c, ok := api.CollectionNamed(collection)
	return ok && c.SharedAcrossProjects
}

// Lookup loads the resource a reference names into v; a missing one is 404
// notFound, as the Compute API answers, naming the field and what it named.
func (s *API) Lookup(ctx context.Context, field, ref string, from Scope, collection string, v any) (store.Key, error) {
	k, err := ParseRef(field, ref, from, collection)
	if err != nil {
		return k, err
	}
	o, err := s.LoadObject(ctx, field, ref, k, v)
	return o.Key, err
}

// Load reads the resource at k, which a reference named, into v.
func (s *API) Load(ctx context.Context, field, ref string, k store.Key, v any) error {
	_, err := s.LoadObject(ctx, field, ref, k, v)
	return err
}

// LoadObject is load that also returns the object: its key has the
// resource's name when the reference gave its id.
func (s *API) LoadObject(ctx context.Context, field, ref string, k store.Key, v any) (store.Object, error) {
	o, err := s.getByNameOrID(ctx, k)
	if err == store.ErrNotFound {
		return store.Object{Key: k}, googleapi.NewError(http.StatusNotFound, api.ReasonNotFound, fmt.Sprintf("%s (%q) refers to %s, which does not exist.", field, ref, k.Path()))
	}
	if err != nil {
		return store.Object{Key: k}, err
	}
	return o, json.Unmarshal(o.Body, v)
}

// Holder is a collection whose objects reference others.
type Holder struct {
	Collection string
	// Refs lists the references of a stored object: its typed view when
	// given (decoded), else body decoded.
	Refs func(body []byte, decoded any) []string
	// recheck runs the collection's reference rules again on one of its
	// stored objects.
	recheck func(ctx context.Context, o store.Object) error
}

// holderOf returns the holder of a collection, if it is one.
func (s *API) holderOf(collection string) (Holder, bool) {
	for _, h := range s.Holders {
		if h.Collection == collection {
			return h, true
		}
	}
	return Holder{}, false
}

// refIndex is the reverse reference index: which stored objects reference
// each path. It is kept beside the store (updated after every write, built
// once at start), so that a delete or an update finds the users of what it
// changes without reading every collection that holds references.
type refIndex struct {
	mu  sync.RWMutex
	idx depindex.Index
}

// set makes refs what user references now (nothing when it is deleted).
func (x *refIndex) set(user string, refs []string) {
	paths := make([]string, len(refs))
	for i, ref := range refs {
		paths[i] = api.PathOf(ref)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.idx.Set(user, paths)
}

// UsersOf returns the paths of the objects that reference target, in order.
func (x *refIndex) UsersOf(target string) []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.idx.Users(target)
}

// Reset forgets every reference (the store was reset).
func (x *refIndex) Reset() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.idx.Reset()
}

// buildRefIndex reads every object of every holder collection once: at
// start, after the route table has registered the holders.
func (s *API) buildRefIndex() {
	s.Refs.Reset()
	for _, h := range s.Holders {
		objects, err := s.Store.All(context.Background(), h.Collection)
		if err != nil {
			s.Log.Error("reference index not built", "collection", h.Collection, "error", err)
			continue
		}
		for _, o := range objects {
			s.Refs.set(o.Path(), h.Refs(o.Body, nil))
		}
	}
}

// IndexRefs brings the reference index up to date with the object stored
// at k (or its absence): every successful write calls it, through changed.
func (s *API) IndexRefs(ctx context.Context, change Change) {
	k := change.Key
	h, ok := s.holderOf(k.Collection)
	if !ok {
		return
	}
	body := change.Body
	if change.Unknown {
		o, err := s.Store.Get(ctx, k)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			s.Log.Error("reference index not updated", "resource", k.Path(), "error", err)
			return
		default:
			body = o.Body
		}
	}
	if body == nil {
		s.Refs.set(k.Path(), nil)
		return
	}
	s.Refs.set(k.Path(), h.Refs(body, change.Object))
}

// Written tells the reference index and the probe engine that k, which
// the emulator itself wrote, changed.
func (s *API) Written(ctx context.Context, keys ...store.Key) {
	for _, k := range keys {
		s.IndexRefs(ctx, Change{Key: k, Unknown: true})
	}
	s.core.Changed(ctx, keys)
}

// UsersIn returns the paths of the objects of collection that reference
// target, in order.
func (s *API) UsersIn(target, collection string) []string {
	var out []string
	for _, u := range s.Refs.UsersOf(target) {
		if KeyOfPath(u).Collection == collection {
			out = append(out, u)
		}
	}
	return out
}

// recheckUsers runs again the reference rules of every resource that uses
// k, after k has changed: a check given sourceRegions while a backend
// service uses it breaks a rule of the service's, and is refused. Users of
// users are rechecked too, since some rules look through a reference: a
// health source's rules read the endpoint types of its service's groups.
func (s *API) recheckUsers(ctx context.Context, k store.Key) error {
	type user struct{ path, via string }
	var queue []user
	for _, u := range s.Refs.UsersOf(k.Path()) {
		queue = append(queue, user{u, ""})
	}
	seen := map[string]bool{k.Path(): true}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u.path] {
			continue
		}
		seen[u.path] = true
		uk := KeyOfPath(u.path)
		h, ok := s.holderOf(uk.Collection)
		if !ok {
			continue
		}
		o, err := s.Store.Get(ctx, uk)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := h.recheck(ctx, o); err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				return err
			}
			if u.via != "" {
				return googleapi.Invalid("%s uses %s (through %s), and this change would break it: %s", u.path, k.Path(), u.via, ae.Message)
			}
			return googleapi.Invalid("%s uses %s, and this change would break it: %s", u.path, k.Path(), ae.Message)
		}
		for _, next := range s.Refs.UsersOf(u.path) {
			queue = append(queue, user{next, u.path})
		}
	}
	return nil
}

// KeyOfPath reads a stored object's path ("projects/p/global/c/n",
// "projects/p/regions/r/c/n"); a path it cannot read gives a zero Key.
func KeyOfPath(path string) store.Key {
	k, err := ParseAnyRef("", path, Scope{}, "")
	if err != nil {
		return store.Key{}
	}
	return k
}

// ScopeOfKey is the scope a stored object lives in.
func ScopeOfKey(k store.Key) Scope {
	sc := Scope{Project: k.Project}
	if r, ok := strings.CutPrefix(k.Scope, "regions/"); ok {
		sc.Region = r
	}
	if z, ok := strings.CutPrefix(k.Scope, "zones/"); ok {
		sc.Zone = z
	}
	return sc
}

// usedBy returns the path of one resource that references k, or "": a
// look-up in the reference index.
func (s *API) usedBy(_ context.Context, k store.Key) (string, error) {
	if users := s.Refs.UsersOf(k.Path()); len(users) > 0 {
		return users[0], nil
	}
	return "", nil
}

// InUse is the API's error for deleting k, which user references.
func InUse(k store.Key, user string) *apiError {
	return googleapi.NewError(http.StatusBadRequest, api.ReasonResourceInUse,
		fmt.Sprintf("The resource '%s' is already being used by '%s': remove that reference first (or delete '%s').", k.Path(), user, user))
}

// computeRoot is the start of a URL of the Compute API, in any version,
// on any host (Google's, or the emulator's own).
var computeRoot = regexp.MustCompile(`^https?://[^/]+(/[^/]+)*/compute/(v1|beta|alpha)/$`)

// ImageRoot starts the links of public images. They are Google's images,
// not the emulator's resources, so their canonical link is Google's (and
// terraform-provider-google recognises a disk's image by that form only).
const ImageRoot = "https://www.googleapis.com/compute/v1/"

// CanonicalRef is what the API answers for a reference it stores without
// following it (a machine type, a target proxy, a security policy): the
// full self link, whatever form the client wrote, a URL of any host and
// version, projects/{project}/..., or global/, regions/{r}/ or zones/{z}/...
// (then in project). A bare name, or a resource of another API, is kept as
// written. Public images keep Google's URL (ImageRoot).
func (s *API) CanonicalRef(ref, project string) string {
	var path string
	switch {
	case strings.HasPrefix(ref, "projects/"):
		path = ref
	case strings.HasPrefix(ref, "global/") || strings.HasPrefix(ref, "regions/") || strings.HasPrefix(ref, "zones/"):
		path = "projects/" + project + "/" + ref
	default:
		path = api.PathOf(ref)
		if path == "" || !computeRoot.MatchString(strings.TrimSuffix(ref, path)) {
			return ref
		}
	}
	var buf [7]string
	parts := pathSegments(path, buf[:0])
	switch {
	case len(parts) >= 5 && parts[2] == "global":
	case len(parts) >= 6 && (parts[2] == "regions" || parts[2] == "zones"):
	default:
		return ref
	}
	if parts[2] == "global" && parts[3] == "images" && strings.HasSuffix(parts[1], "-cloud") {
		return ImageRoot + path
	}
	return s.Link(path)
}

// getByNameOrID reads the object at k, whose name may also be the
// object's numeric id, as the Compute API takes it in a request path (a
// name starts with a letter, so a number is never a name):
// terraform-provider-google reads instance templates by id.
func (s *API) getByNameOrID(ctx context.Context, k store.Key) (store.Object, error) {
	o, err := s.Store.Get(ctx, k)
	if !errors.Is(err, store.ErrNotFound) || k.Name == "" || strings.Trim(k.Name, "0123456789") != "" {
		return o, err
	}
	objects, lerr := s.Store.List(ctx, store.ListOptions{Project: k.Project, Scope: k.Scope, Collection: k.Collection})
	if lerr != nil {
		return o, lerr
	}
	for _, obj := range objects {
		var m struct {
			ID uint64 `json:"id,string"`
		}
		if json.Unmarshal(obj.Body, &m) == nil && strconv.FormatUint(m.ID, 10) == k.Name {
			return obj, nil
		}
	}
	return o, err
}
