package emulator

import (
	"context"
	"encoding/json"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// DefaultProbeNetworks are the only addresses probed unless --probe-networks
// says otherwise: like the listen address, loopback by default, so that an
// example copied from the docs never sends traffic across a network.
var DefaultProbeNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// syncEngine hands the probe engine the targets the store asks for. It runs
// at start and after every mutation (under the API's write lock).
func (e *Emulator) syncEngine(ctx context.Context) error {
	var snap health.Snapshot
	var err error
	if snap.HealthChecks, err = loadAll[api.HealthCheck](ctx, e.store, "healthChecks"); err != nil {
		return err
	}
	if snap.LegacyHTTP, err = loadAll[api.LegacyHealthCheck](ctx, e.store, api.CollectionHTTPHealthChecks); err != nil {
		return err
	}
	if snap.LegacyHTTPS, err = loadAll[api.LegacyHealthCheck](ctx, e.store, api.CollectionHTTPSHealthChecks); err != nil {
		return err
	}
	if snap.Groups, err = loadAll[api.NetworkEndpointGroup](ctx, e.store, "networkEndpointGroups"); err != nil {
		return err
	}
	if snap.BackendServices, err = loadAll[api.BackendService](ctx, e.store, "backendServices"); err != nil {
		return err
	}
	if snap.TargetPools, err = loadAll[api.TargetPool](ctx, e.store, "targetPools"); err != nil {
		return err
	}
	e.engine.Update(health.Plan(snap, e.probeAllowed))
	return nil
}

func (e *Emulator) probeAllowed(addr netip.Addr) bool {
	for _, p := range e.probeNetworks {
		if p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}

// loadAll decodes every object of a collection, keyed by path.
func loadAll[T any](ctx context.Context, st store.Store, collection string) (map[string]*T, error) {
	objects, err := st.All(ctx, collection)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*T, len(objects))
	for _, o := range objects {
		v := new(T)
		if err := json.Unmarshal(o.Body, v); err != nil {
			return nil, err
		}
		out[o.Path()] = v
	}
	return out, nil
}
