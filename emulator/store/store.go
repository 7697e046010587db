// Package store keeps the emulator's resources: one interface, sentinel
// errors, and two implementations (SQLite on disk and a map in memory) that
// pass the same test suite.
//
// The store knows nothing of resource shapes: it keeps JSON documents under
// a Key. Rules about them (validation, references) belong to the API layer,
// which serialises writes, so the store only has to be atomic per call.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors; implementations wrap nothing else in them.
var (
	ErrNotFound      = errors.New("not found")
	ErrAlreadyExists = errors.New("already exists")
)

// Key names one stored object.
type Key struct {
	Project string
	// Scope is "global", "regions/{region}" or "zones/{zone}".
	Scope      string
	Collection string
	Name       string
}

// Path is the key as the API writes it: projects/p/global/healthChecks/x.
func (k Key) Path() string {
	return strings.Join([]string{"projects", k.Project, k.Scope, k.Collection, k.Name}, "/")
}

// Object is one stored document.
type Object struct {
	Key
	Body []byte // the resource as JSON
}

// ListOptions selects a page of one collection in one project and scope.
type ListOptions struct {
	Project, Scope, Collection string
	// After is the name the previous page ended with; "" for the first page.
	After string
	// Limit is the most objects returned; 0 means no limit.
	Limit int
}

// Store keeps objects. Implementations are safe for concurrent use, and a
// method that returns an error has changed nothing.
type Store interface {
	Get(ctx context.Context, k Key) (Object, error)
	// List returns objects ordered by name.
	List(ctx context.Context, opts ListOptions) ([]Object, error)
	// All returns every object of a collection, in every project and scope.
	All(ctx context.Context, collection string) ([]Object, error)
	// Insert fails with ErrAlreadyExists when the key is taken.
	Insert(ctx context.Context, o Object) error
	// Update fails with ErrNotFound when the key is missing.
	Update(ctx context.Context, o Object) error
	// Delete fails with ErrNotFound when the key is missing.
	Delete(ctx context.Context, k Key) error
	// Reset deletes everything.
	Reset(ctx context.Context) error
	Close() error
}

// Decoded returns every object of a collection decoded as T, keyed by path.
func Decoded[T any](ctx context.Context, s Store, collection string) (map[string]*T, error) {
	objects, err := s.All(ctx, collection)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*T, len(objects))
	for _, o := range objects {
		v := new(T)
		if err := json.Unmarshal(o.Body, v); err != nil {
			return nil, fmt.Errorf("decode %s: %w", o.Path(), err)
		}
		out[o.Path()] = v
	}
	return out, nil
}
