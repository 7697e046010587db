// Package store keeps the emulator's resources: one interface, sentinel
// errors, and two implementations (SQLite on disk and a map in memory) that
// pass the same test suite.
//
// The store knows nothing of resource shapes: it keeps JSON documents under
// a Key. Rules about them (validation, references) belong to the API layer,
// which serialises writes, so the store only has to be atomic per call.
//
// Both implementations serve every read from memory. The SQLite store
// applies a write to memory at once and commits it in the background,
// together with the writes made meanwhile (group commit: one fsync for
// many writers); WaitDurable is how a writer waits for its commit, after it
// has released whatever lock serialises writers, so that writers share
// commits instead of queueing for one each.
package store

import (
	"context"
	"errors"
	"strings"
)

// Sentinel errors; implementations wrap nothing else in them.
var (
	ErrNotFound      = errors.New("not found")
	ErrAlreadyExists = errors.New("already exists")
	// ErrUnavailable: the store takes no more writes, because it is closed
	// or because a commit failed (the wrapping error says which and why).
	ErrUnavailable = errors.New("the store takes no more writes")
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
// method that returns an error has changed nothing. A write is visible to
// reads as soon as its method returns; it is durable once WaitDurable,
// called after it, returns nil.
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
	// WaitDurable waits until every write made before the call is durable
	// (it survives kill -9 and a power cut, where the store is durable at
	// all). An error means that some of them may be lost: the store then
	// refuses further writes with ErrUnavailable rather than go on from a
	// state the disk does not have.
	WaitDurable(ctx context.Context) error
	// Close makes the writes made so far durable and releases the store.
	Close() error
}
