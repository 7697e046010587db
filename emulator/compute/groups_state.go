package compute

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// groupCollections are what autohealing and autoscaling read: the
// autoscalers, the managed groups, their instance groups and instances,
// and the backend services that set an instance's share of traffic.
var groupCollections = []string{api.CollectionAutoscalers, api.CollectionInstanceGroupManagers,
	api.CollectionInstanceGroups, api.CollectionInstances, api.CollectionBackendServices}

// groupState keeps the objects of groupCollections decoded, by key, from
// the core's change feed: a write decodes what it changed once (or hands
// its typed view), and a tick of autohealing or autoscaling reads them
// here instead of reading and decoding every one from the store. Its
// objects are shared, read only.
type groupState struct {
	store store.Store
	log   *slog.Logger

	mu      sync.RWMutex
	objects map[string]map[store.Key]any // collection → key → typed view
}

func newGroupState(st store.Store, log *slog.Logger) *groupState {
	return &groupState{store: st, log: log}
}

// follow is the feed's reader: nil changes (a start, a reset) read every
// object again.
func (g *groupState) follow(ctx context.Context, changes []core.Change) {
	if changes == nil {
		g.load(ctx)
		return
	}
	for _, ch := range changes {
		if !slices.Contains(groupCollections, ch.Key.Collection) {
			continue
		}
		obj := g.decode(ctx, ch)
		g.mu.Lock()
		if obj == nil {
			delete(g.objects[ch.Key.Collection], ch.Key)
		} else {
			g.objects[ch.Key.Collection][ch.Key] = obj
		}
		g.mu.Unlock()
	}
}

// load reads every object of groupCollections from the store.
func (g *groupState) load(ctx context.Context) {
	objects := map[string]map[store.Key]any{}
	for _, name := range groupCollections {
		objects[name] = map[store.Key]any{}
		all, err := g.store.All(ctx, name)
		if err != nil {
			g.log.Error("control loops: stored objects not read", "collection", name, "error", err)
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

// decode is the typed view of what ch left stored, or nil when nothing is.
func (g *groupState) decode(ctx context.Context, ch core.Change) any {
	if ch.Object != nil {
		return ch.Object
	}
	body := ch.Body
	if ch.Unknown {
		o, err := g.store.Get(ctx, ch.Key)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				g.log.Error("control loops: stored object not read", "resource", ch.Key.Path(), "error", err)
			}
			return nil
		}
		body = o.Body
	}
	if body == nil {
		return nil
	}
	return g.decodeBody(ch.Key, body)
}

func (g *groupState) decodeBody(k store.Key, body []byte) any {
	obj := api.MustCollection(k.Collection).New()
	if err := json.Unmarshal(body, obj); err != nil {
		// What is stored passed the API's decoding: this is a bug.
		g.log.Error("control loops: stored object not decoded", "resource", k.Path(), "error", err)
		return nil
	}
	return obj
}

// each calls f with every object of collection, in key order, under the
// read lock: f reads them, and what they reference through get, and
// changes nothing.
func each[T any](g *groupState, collection string, f func(k store.Key, obj *T, get func(k store.Key) any)) {
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
