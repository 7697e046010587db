package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/aggregate"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/dataplane"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/plan"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// DefaultProbeNetworks are the only addresses probed unless --probe-networks
// says otherwise: like the listen address, loopback by default, so that an
// example copied from the docs never sends traffic across a network.
var DefaultProbeNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// syncState is what keeps the probe engine and the aggregator in step with
// the store: the planner and the aggregation inputs, which keep every
// object that decides them decoded and are updated per changed key, so
// that a write costs what it changes. It is used under the API's write
// lock (and at start, before serving), never concurrently.
type syncState struct {
	planner *plan.Planner
	inputs  *aggregate.Inputs
	// decoded counts the objects decoded, for tests of the cost of a write.
	decoded uint64
}

// syncedCollections are every collection sync reads: those of the
// catalogue whose resources decide probing or aggregation.
var syncedCollections = api.CollectionsWith(api.ProbeInput, api.ProbeOwner, api.Aggregated)

// sync hands the probe engine, the aggregator and the data plane what the
// changes did (nil: everything, as at start and after a reset). It runs
// under the write lock, after each mutation. A change that carries what
// was stored is not read back; an object is decoded once, for all of
// them.
func (e *Emulator) sync(ctx context.Context, changes []core.Change) error {
	if changes == nil || e.state == nil {
		return e.load(ctx)
	}
	y := e.state
	planeChanged, workloadsChanged := false, false
	for _, ch := range changes {
		k := ch.Key
		// Collections beside the catalogue (Certificate Manager's) are the
		// data plane's only.
		c, ok := api.CollectionNamed(k.Collection)
		synced := ok && c.Role != api.Stored
		toPlane := e.plane != nil && dataplane.Wants(k.Collection)
		if !toPlane && !synced {
			continue
		}
		body := ch.Body
		if ch.Unknown {
			var err error
			if body, err = read(ctx, e.store, k); err != nil {
				return err
			}
		}
		obj := ch.Object
		if synced {
			if obj == nil {
				var err error
				if obj, err = y.decodeBody(c, k.Path(), body); err != nil {
					return err
				}
			}
			y.set(c, k.Path(), obj)
			workloadsChanged = e.setInstance(c, k.Path(), obj) || workloadsChanged
		}
		if toPlane {
			e.plane.Set(k.Collection, k.Path(), body, obj)
			planeChanged = true
		}
	}
	if owners := y.planner.Flush(); len(owners) > 0 {
		if e.workloads != nil {
			for owner, ts := range owners {
				e.workloads.SetOwner(owner, ts)
			}
			workloadsChanged = true
		}
		e.engine.UpdateOwners(owners)
		e.aggregator.OwnersChanged(slices.Sorted(maps.Keys(owners)))
		planeChanged = true // the services' endpoints changed
	}
	if planeChanged && e.plane != nil {
		e.plane.Apply()
	}
	if sources, composites := y.inputs.Flush(); len(sources) > 0 || len(composites) > 0 {
		e.aggregator.Apply(sources, composites)
	}
	if workloadsChanged {
		e.workloads.Reconcile()
	}
	return nil
}

// setInstance hands the workloads an instance that changed (nil: gone),
// and reports whether it did.
func (e *Emulator) setInstance(c api.Collection, path string, obj any) bool {
	if e.workloads == nil || c.Name != api.CollectionInstances {
		return false
	}
	in, _ := obj.(*api.Instance)
	e.workloads.SetInstance(path, in)
	return true
}

// load reads everything anew: at start, and after a reset.
func (e *Emulator) load(ctx context.Context) error {
	y := &syncState{planner: plan.NewPlanner(e.probeAllowed), inputs: aggregate.NewInputs()}
	if e.workloads != nil {
		e.workloads.Forget()
	}
	y.planner.SetProbeMap(e.probeMap)
	y.planner.SetFirewalls(e.firewalls, e.universe)
	y.planner.SetProbeMultiplicity(e.multiplicity)
	// Each collection is read once: the data plane takes its own from the
	// same reads, and those it alone reads after them.
	collections := syncedCollections
	if e.plane != nil {
		e.plane.Forget()
		for _, name := range dataplane.Collections() {
			c, ok := api.CollectionNamed(name)
			switch {
			case ok && c.Role == api.Stored:
				collections = append(slices.Clip(collections), c)
			case !ok:
				// Beside the catalogue: the data plane's only.
				objects, err := e.store.All(ctx, name)
				if err != nil {
					return err
				}
				for _, o := range objects {
					e.plane.Set(name, o.Path(), o.Body, nil)
				}
			}
		}
	}
	for _, c := range collections {
		objects, err := e.store.All(ctx, c.Name)
		if err != nil {
			return err
		}
		toPlane := e.plane != nil && dataplane.Wants(c.Name)
		for _, o := range objects {
			var obj any
			if c.Role != api.Stored {
				var err error
				if obj, err = y.decode(c, o); err != nil {
					return err
				}
				y.set(c, o.Path(), obj)
				e.setInstance(c, o.Path(), obj)
			}
			if toPlane {
				e.plane.Set(c.Name, o.Path(), o.Body, obj)
			}
		}
	}
	e.state = y
	all := y.planner.All()
	if e.workloads != nil {
		e.workloads.SetOwners(all)
		e.workloads.Reconcile()
	}
	e.engine.Update(all)
	e.aggregator.Update(y.inputs.All())
	if e.plane != nil {
		e.plane.Apply()
	}
	return nil
}

// set hands one object (nil: deleted) to what acts on its collection's role.
func (y *syncState) set(c api.Collection, path string, obj any) {
	switch c.Role {
	case api.ProbeInput, api.ProbeOwner:
		y.planner.Set(path, obj)
	case api.Aggregated:
		y.inputs.Set(path, obj)
	}
}

// read returns the body stored at k, or nil when it is gone.
func read(ctx context.Context, st store.Store, k store.Key) ([]byte, error) {
	o, err := st.Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return o.Body, nil
}

// decode reads a stored object of collection c as its typed view.
func (y *syncState) decode(c api.Collection, o store.Object) (any, error) {
	return y.decodeBody(c, o.Path(), o.Body)
}

// decodeBody reads the body stored at path (nil: gone, and so is the
// object) as collection c's typed view.
func (y *syncState) decodeBody(c api.Collection, path string, body []byte) (any, error) {
	if body == nil {
		return nil, nil
	}
	v := c.New()
	y.decoded++
	if err := json.Unmarshal(body, v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return v, nil
}

// mapAddr is where an address of the configuration is on this machine,
// for the data plane: where the probe map sends it, as it sends a
// backend's.
func (e *Emulator) mapAddr(addr netip.Addr) netip.Addr {
	mapped, _ := e.probeMap.Map(addr)
	return mapped
}

func (e *Emulator) probeAllowed(addr netip.Addr) bool {
	for _, p := range e.probeNetworks {
		if p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}
