package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// parseRef reads a reference to a resource of collection: a URL, a path
// ("projects/p/global/healthChecks/x"), a path without the project
// ("regions/r/healthChecks/x") or a bare name, which is then in the scope of
// the referring resource. field names the reference in errors.
func parseRef(field, ref string, from scope, collection string) (store.Key, error) {
	k, err := parseAnyRef(field, ref, from, collection)
	if err == nil && k.Collection != collection {
		return k, invalid("%s (%q) refers to a %s resource: it must refer to %s.", field, ref, k.Collection, collection)
	}
	return k, err
}

// parseAnyRef is parseRef for references that may point into several
// collections; a bare name is taken to be in defaultCollection.
func parseAnyRef(field, ref string, from scope, defaultCollection string) (store.Key, error) {
	collection := defaultCollection
	path := api.PathOf(ref)
	switch {
	case path != "":
	case strings.HasPrefix(ref, "global/") || strings.HasPrefix(ref, "regions/") || strings.HasPrefix(ref, "zones/"):
		path = "projects/" + from.project + "/" + ref
	case ref != "" && !strings.Contains(ref, "/"):
		path = "projects/" + from.project + "/" + from.path() + "/" + collection + "/" + ref
	}
	parts := strings.Split(path, "/")
	var k store.Key
	switch {
	case len(parts) == 5 && parts[2] == "global":
		k = store.Key{Project: parts[1], Scope: "global", Collection: parts[3], Name: parts[4]}
	case len(parts) == 6 && (parts[2] == "regions" || parts[2] == "zones"):
		k = store.Key{Project: parts[1], Scope: parts[2] + "/" + parts[3], Collection: parts[4], Name: parts[5]}
	default:
		return k, invalid("%s (%q) is not a reference to a resource: use its selfLink, projects/{project}/global|regions/{region}/%s/{name}, or its name.", field, ref, collection)
	}
	if from.project != "" && k.Project != from.project && !sharedAcrossProjects[k.Collection] {
		return k, invalid("%s (%q) is in project %q: a resource of project %q cannot use it (cross-project references are not allowed for %s); create it in %q.",
			field, ref, k.Project, from.project, k.Collection, from.project)
	}
	return k, nil
}

// sharedAcrossProjects are the collections a resource of another project
// may reference, as in the Compute API: a Shared VPC's network and
// subnetworks belong to its host project.
var sharedAcrossProjects = map[string]bool{"networks": true, "subnetworks": true}

// lookup loads the resource a reference names into v; a missing one is the
// client's mistake (400), not a missing request target (404).
func (s *Server) lookup(ctx context.Context, field, ref string, from scope, collection string, v any) (store.Key, error) {
	k, err := parseRef(field, ref, from, collection)
	if err != nil {
		return k, err
	}
	return k, s.load(ctx, field, ref, k, v)
}

// load reads the resource at k, which a reference named, into v.
func (s *Server) load(ctx context.Context, field, ref string, k store.Key, v any) error {
	o, err := s.store.Get(ctx, k)
	if err == store.ErrNotFound {
		return invalid("%s (%q) refers to %s, which does not exist.", field, ref, k.Path())
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(o.Body, v)
}

// holder is a collection whose objects reference others.
type holder struct {
	collection string
	refs       func(body []byte) []string
	// recheck runs the collection's reference rules again on one of its
	// stored objects.
	recheck func(ctx context.Context, o store.Object) error
}

// recheckUsers runs again the reference rules of every resource that uses
// k, after k has changed: a check given sourceRegions while a backend
// service uses it breaks a rule of the service's, and is refused.
func (s *Server) recheckUsers(ctx context.Context, k store.Key) error {
	for _, h := range s.holders {
		objects, err := s.store.All(ctx, h.collection)
		if err != nil {
			return err
		}
		for _, o := range objects {
			if !slices.ContainsFunc(h.refs(o.Body), func(ref string) bool { return api.PathOf(ref) == k.Path() }) {
				continue
			}
			if err := h.recheck(ctx, o); err != nil {
				var ae *apiError
				if errors.As(err, &ae) {
					return invalid("%s uses %s, and this change would break it: %s", o.Path(), k.Path(), ae.message)
				}
				return err
			}
		}
	}
	return nil
}

// scopeOfKey is the scope a stored object lives in.
func scopeOfKey(k store.Key) scope {
	sc := scope{project: k.Project}
	if r, ok := strings.CutPrefix(k.Scope, "regions/"); ok {
		sc.region = r
	}
	if z, ok := strings.CutPrefix(k.Scope, "zones/"); ok {
		sc.zone = z
	}
	return sc
}

// usedBy returns the path of one resource that references k, or "".
func (s *Server) usedBy(ctx context.Context, k store.Key) (string, error) {
	target := k.Path()
	for _, h := range s.holders {
		objects, err := s.store.All(ctx, h.collection)
		if err != nil {
			return "", err
		}
		for _, o := range objects {
			for _, ref := range h.refs(o.Body) {
				if api.PathOf(ref) == target {
					return o.Path(), nil
				}
			}
		}
	}
	return "", nil
}

func inUse(k store.Key, user string) *apiError {
	return &apiError{http.StatusBadRequest, api.ReasonResourceInUse,
		fmt.Sprintf("The resource '%s' is already being used by '%s': remove that reference first (or delete '%s').", k.Path(), user, user)}
}
