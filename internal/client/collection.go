package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Scope says where a resource lives: a project, and a region for regional
// resources or a zone for zonal ones. An empty Project means the client's
// default project; with neither Region nor Zone the scope is global. Zone
// wins when both are set: the API has no resource that lives in both.
type Scope struct {
	Project string
	Region  string
	Zone    string
}

// Global is the global scope of the client's default project.
var Global = Scope{}

// IsRegional tells whether the scope is a region.
func (s Scope) IsRegional() bool { return s.Region != "" && s.Zone == "" }

// errNoName refuses a call that would address the collection instead of
// one of its resources.
var errNoName = errors.New("the resource has no name")

// listPageSize is the page size the client asks for when listing.
const listPageSize = 500

// collection is one API collection, such as "healthChecks", of resources of
// type T. A new collection needs only a collection value and thin typed
// methods that call these helpers.
type collection[T any] struct {
	c    *Client
	name string
}

// path is the URL path of the collection in scope, or of one resource in it
// when name is not empty.
func (col collection[T]) path(scope Scope, name string) string {
	project := scope.Project
	if project == "" {
		project = col.c.project
	}
	p := "/compute/v1/projects/" + url.PathEscape(project)
	switch {
	case scope.Zone != "":
		p += "/zones/" + url.PathEscape(scope.Zone)
	case scope.Region != "":
		p += "/regions/" + url.PathEscape(scope.Region)
	default:
		p += "/global"
	}
	p += "/" + col.name
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	return p
}

// mutate sends a mutation and checks the Operation it is answered with.
// query may be nil.
func (col collection[T]) mutate(ctx context.Context, method, path string, query url.Values, in any) error {
	if query == nil {
		query = url.Values{}
	}
	// One requestId for every try of this mutation: a retry after a lost
	// answer is then carried out once (the API's requestId contract).
	query.Set("requestId", newRequestID())
	var op api.Operation
	if err := col.c.do(ctx, method, path, query, in, &op); err != nil {
		return err
	}
	return operationError(&op)
}

// insert creates obj and reads it back, so the caller sees every default
// and output field the server filled.
func (col collection[T]) insert(ctx context.Context, scope Scope, name string, obj *T) (*T, error) {
	if name == "" {
		return nil, errNoName
	}
	if err := col.mutate(ctx, http.MethodPost, col.path(scope, ""), nil, obj); err != nil {
		return nil, err
	}
	return col.get(ctx, scope, name)
}

// get reads one resource.
func (col collection[T]) get(ctx context.Context, scope Scope, name string) (*T, error) {
	if name == "" {
		return nil, errNoName
	}
	var out T
	if err := col.c.do(ctx, http.MethodGet, col.path(scope, name), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// update replaces the whole resource (PUT) and reads it back.
func (col collection[T]) update(ctx context.Context, scope Scope, name string, obj *T) (*T, error) {
	if name == "" {
		return nil, errNoName
	}
	if err := col.mutate(ctx, http.MethodPut, col.path(scope, name), nil, obj); err != nil {
		return nil, err
	}
	return col.get(ctx, scope, name)
}

// patchMask merges patch (any JSON-encodable value, usually a partial T)
// into the resource and reads it back. With a mask, the fields it names take
// their value in patch, or go back to unset (their default) when patch
// leaves them out, and no other field changes.
func (col collection[T]) patchMask(ctx context.Context, scope Scope, name string, patch any, mask []string) (*T, error) {
	if name == "" {
		return nil, errNoName
	}
	query := url.Values{}
	if len(mask) > 0 {
		query.Set("updateMask", strings.Join(mask, ","))
	}
	if err := col.mutate(ctx, http.MethodPatch, col.path(scope, name), query, patch); err != nil {
		return nil, err
	}
	return col.get(ctx, scope, name)
}

// delete deletes one resource.
func (col collection[T]) delete(ctx context.Context, scope Scope, name string) error {
	if name == "" {
		return errNoName
	}
	return col.mutate(ctx, http.MethodDelete, col.path(scope, name), nil, nil)
}

// list reads every page of the collection in scope.
func (col collection[T]) list(ctx context.Context, scope Scope) ([]T, error) {
	var items []T
	token := ""
	for page := 0; ; page++ {
		q := url.Values{"maxResults": {strconv.Itoa(listPageSize)}}
		if token != "" {
			q.Set("pageToken", token)
		}
		var l api.List[T]
		if err := col.c.do(ctx, http.MethodGet, col.path(scope, ""), q, nil, &l); err != nil {
			return nil, err
		}
		items = append(items, l.Items...)
		if l.NextPageToken == "" {
			return items, nil
		}
		if l.NextPageToken == token || page > 100000 {
			return nil, fmt.Errorf("listing %s: the server repeats page token %q", col.name, token)
		}
		token = l.NextPageToken
	}
}
