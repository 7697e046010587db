package core

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// typedStore keeps the typed view of every stored object of the catalogue
// (api.Catalogue), by key, from the change feed: a write decodes what it
// changed once (or hands its typed view), and what reads many objects
// (a tick of autohealing or autoscaling) or the objects a write references
// reads them here instead of reading and decoding each from the store.
// Every write of a catalogue collection tells the feed, so it is complete.
// Its objects are shared, read only.
type typedStore struct {
	store store.Store
	log   *slog.Logger

	mu      sync.RWMutex
	objects map[string]map[store.Key]any // collection → key → typed view
}

func newTypedStore(st store.Store, log *slog.Logger) *typedStore {
	return &typedStore{store: st, log: log}
}

// follow is the feed's first reader: it keeps the typed views, and
// returns the changes of the catalogue completed — read from the store
// and decoded here, once, where the write did not carry them — so that
// the readers after it need neither. nil changes (a start, a reset) read
// every object again.
func (g *typedStore) follow(ctx context.Context, changes []Change) []Change {
	if changes == nil {
		g.load(ctx)
		return nil
	}
	for i, ch := range changes {
		if _, ok := api.CollectionNamed(ch.Key.Collection); !ok {
			continue // beside the catalogue (other APIs')
		}
		ch = g.complete(ctx, ch)
		g.set(ch.Key, ch.Object)
		changes[i] = ch
	}
	return changes
}

// load reads every object of the catalogue from the store.
func (g *typedStore) load(ctx context.Context) {
	objects := map[string]map[store.Key]any{}
	for _, c := range api.Catalogue {
		name := c.Name
		objects[name] = map[store.Key]any{}
		all, err := g.store.All(ctx, name)
		if err != nil {
			g.log.Error("typed views: stored objects not read", "collection", name, "error", err)
		}
		for _, o := range all {
			if obj := g.decodeBody(o.Key, o.Body); obj != nil {
				objects[name][o.Key] = obj
			}
		}
	}
	g.mu.Lock()
	g.objects = objects
	g.mu.Unlock()
}

// complete is ch with what it left stored and its typed view (nil Body
// and Object: nothing is). A change the store cannot be read for stays
// Unknown, with no typed view, for the readers after to fail on.
func (g *typedStore) complete(ctx context.Context, ch Change) Change {
	if ch.Unknown {
		o, err := g.store.Get(ctx, ch.Key)
		switch {
		case errors.Is(err, store.ErrNotFound):
			ch.Body = nil
		case err != nil:
			g.log.Error("typed views: stored object not read", "resource", ch.Key.Path(), "error", err)
			ch.Object = nil
			return ch
		default:
			ch.Body = o.Body
		}
		ch.Unknown = false
	}
	if ch.Body == nil {
		ch.Object = nil
	} else if ch.Object == nil {
		ch.Object = g.decodeBody(ch.Key, ch.Body)
	}
	return ch
}

func (g *typedStore) decodeBody(k store.Key, body []byte) any {
	obj := api.MustCollection(k.Collection).New()
	if err := json.Unmarshal(body, obj); err != nil {
		// What is stored passed the API's decoding: this is a bug.
		g.log.Error("typed views: stored object not decoded", "resource", k.Path(), "error", err)
		return nil
	}
	return obj
}

// set keeps obj as the typed view of what is stored at k (nil: nothing
// is), ahead of the feed: a write's own hooks and checks read what it
// stored before the feed is told, and a write that fails puts back what
// was there. Under the write lock.
func (g *typedStore) set(k store.Key, obj any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	of, ok := g.objects[k.Collection]
	switch {
	case !ok:
	case obj == nil:
		delete(of, k)
	default:
		of[k] = obj
	}
}

// get is the typed view of the object stored at k, if the feed has told
// of one.
func (g *typedStore) get(k store.Key) (any, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	obj, ok := g.objects[k.Collection][k]
	return obj, ok
}

// Each calls f with the typed view of every stored object of collection,
// as *T, in key order, under the read lock: f reads them, and what they
// reference through get, and changes nothing.
func Each[T any](c *Core, collection string, f func(k store.Key, obj *T, get func(k store.Key) any)) {
	g := c.typed
	g.mu.RLock()
	defer g.mu.RUnlock()
	of := g.objects[collection]
	keys := slices.SortedFunc(maps.Keys(of), func(a, b store.Key) int { // in a fixed order, without a string per key
		return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(a.Scope, b.Scope), cmp.Compare(a.Name, b.Name))
	})
	get := func(k store.Key) any { return g.objects[k.Collection][k] }
	for _, k := range keys {
		if obj, ok := of[k].(*T); ok {
			f(k, obj, get)
		}
	}
}

// Peek is the typed view of the stored object k, which ref (in field)
// names, shared and read only: the one the feed keeps, or, for a reference
// by id, the object read and decoded; an error names the reference as
// Load's do.
func Peek[T any](ctx context.Context, s *API, field, ref string, k store.Key) (*T, error) {
	if obj, ok := s.core.typed.get(k); ok {
		if t, ok := obj.(*T); ok {
			return t, nil
		}
	}
	t := new(T)
	if err := s.Load(ctx, field, ref, k, t); err != nil {
		return nil, err
	}
	return t, nil
}
