// Package core is the Compute API's core: what every API's writes go
// through, and what every collection of the Compute API is made of.
//
// Core owns the store, the one write lock, the clock resources are stamped
// with, the operations kept, and the change feed that tells the engine
// (probes, data plane, control loops) what changed. API is what the
// collections share over it (the reference index, lookups, operations,
// request ids), and Collection is one collection: its handlers (insert,
// get, list, update, patch, delete) written once, its rules and hooks
// given by the package that defines it (package compute). A handler takes
// a Call, whatever protocol brought it (package httpapi serves them over
// HTTP).
//
// Every write of every API (Compute's, and those beside it whose objects
// Compute references, such as Certificate Manager's maps) holds the write
// lock from its checks to its write, so that a check that spans several
// objects (a reference, a name) cannot race with the write that would
// break it, and tells the feed what it changed before it answers, so that
// the engine sees each change before the client does.
package core

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// Core is the store, the write lock, the clock, the change feed and the
// operations kept.
type Core struct {
	store    store.Store
	mu       sync.Mutex
	now      func() time.Time
	onChange func(ctx context.Context, changes []Change)
	// typed keeps the typed view of every stored object of the catalogue.
	typed *typedStore
	ops   *Operations
}

// Change is what a write did at one key: what the store holds there now,
// when the write knows it, so that the feed's readers need not read it
// back.
type Change struct {
	Key store.Key
	// Body is what the store holds at Key after the write (nil: nothing,
	// it was deleted), unless Unknown: then a reader that needs it reads
	// the store.
	Body    []byte
	Unknown bool
	// Object is Body as the API's typed view (of the type the catalogue's
	// New makes, equal to Body decoded), when the write has it; nil: a
	// reader that needs it decodes Body. OnChange gets the changes of the
	// catalogue with Body and Object filled in (tell). Readers keep it and
	// do not change it.
	Object any
}

// Options say how to build a Core.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnChange is the change feed: it runs after every write, under the
	// write lock, with what it changed; nil changes mean that everything
	// may have changed (a reset). nil: nothing listens.
	OnChange func(ctx context.Context, changes []Change)
	// OperationsTTL and OperationsMax bound how long and how many
	// operations are kept; zero means DefaultOperationsTTL and
	// DefaultOperationsMax.
	OperationsTTL time.Duration
	OperationsMax int
	// Log receives what goes wrong in the background (an expired
	// operation not deleted); nil discards it.
	Log *slog.Logger
}

// New returns the core over st, with the operations st holds loaded (and
// those beyond the retention dropped).
func New(st store.Store, o Options) *Core {
	c := &Core{store: st, now: o.Now, onChange: o.OnChange}
	if c.now == nil {
		c.now = time.Now
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c.ops = &Operations{store: st, now: c.now, log: log, ttl: o.OperationsTTL, max: o.OperationsMax}
	c.ops.SetRetention(o.OperationsTTL, o.OperationsMax)
	c.ops.Load()
	c.typed = newTypedStore(st, log)
	c.typed.load(context.Background())
	return c
}

// Operations are the operations kept.
func (c *Core) Operations() *Operations { return c.ops }

// Close stops what the core does in the background (expiring operations).
// Call it before closing the store.
func (c *Core) Close() { c.ops.Close() }

// Store is where resources are kept. Reads may happen at any time; a
// write holds the write lock (Lock).
func (c *Core) Store() store.Store { return c.store }

// Lock takes the write lock: hold it from a write's first check to its
// last write and its Changed.
func (c *Core) Lock() { c.mu.Lock() }

// Unlock releases the write lock.
func (c *Core) Unlock() { c.mu.Unlock() }

// Now is the time on the emulator's clock.
func (c *Core) Now() time.Time { return c.now() }

// Changed tells the feed that keys changed (nil: anything may have), under
// the write lock; readers read what they hold now from the store. The
// change is stored: what the feed does must happen even if the client
// that asked has gone away, so ctx's cancellation is not passed on.
func (c *Core) Changed(ctx context.Context, keys []store.Key) {
	var changes []Change
	if keys != nil {
		changes = make([]Change, len(keys))
		for i, k := range keys {
			changes[i] = Change{Key: k, Unknown: true}
		}
	}
	c.tell(ctx, changes)
}

// Wrote tells the feed what a write did (its Body known), under the write
// lock, as Changed does.
func (c *Core) Wrote(ctx context.Context, change Change) {
	c.tell(ctx, []Change{change})
}

// tell hands changes to the typed views the core keeps, then to the
// emulator's reader (Options.OnChange), those of the catalogue completed:
// each read from the store and decoded once, here, where the write did not
// carry its body and typed view.
func (c *Core) tell(ctx context.Context, changes []Change) {
	ctx = context.WithoutCancel(ctx)
	changes = c.typed.follow(ctx, changes)
	if c.onChange != nil {
		c.onChange(ctx, changes)
	}
}
