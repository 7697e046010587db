package compute

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// networkEndpointGroups is the zonal and regional networkEndpointGroups
// collection.
func (s backends) networkEndpointGroups() *core.Collection[api.NetworkEndpointGroup, *api.NetworkEndpointGroup] {
	c := core.NewCollection[api.NetworkEndpointGroup, *api.NetworkEndpointGroup](s.API, api.CollectionNetworkEndpointGroups, rules.NetworkEndpointGroup, rules.ApplyNetworkEndpointGroupDefaults)
	// Endpoints named by instance alone get the instance's address.
	c.Resolve = s.resolveGroupEndpoints
	return c
}

// The methods of networkEndpointGroups beyond the collection's verbs:
// attachNetworkEndpoints, detachNetworkEndpoints and listNetworkEndpoints.
// Attached endpoints live in the group's endpoints list (the lbhealth
// inline-endpoints extension), which is what probing reads.

// resolveGroupEndpoints gives each endpoint of g named by instance alone
// the instance's address, as the Compute API does, and checks the group
// again now that those addresses are known.
func (s backends) resolveGroupEndpoints(ctx context.Context, g *api.NetworkEndpointGroup, sc core.Scope) error {
	filled := false
	for i := range g.Endpoints {
		if e := &g.Endpoints[i]; e.IPAddress == "" && e.Instance != "" {
			if _, err := s.endpointInstance(ctx, fmt.Sprintf("endpoints[%d]", i), e, g, sc); err != nil {
				return err
			}
			filled = true
		}
	}
	if err := rules.NetworkEndpointGroup(g).Err(); filled && err != nil {
		return googleapi.Invalid("%s", err.Error())
	}
	return nil
}

// endpointInstance loads the instance endpoint e (named field) names, in
// the group's zone (or, for a regional group, in a zone of its region),
// and fills in e's address from it when e has none: its primary networkIP,
// as in the Compute API, except in GCE_VM_IP_DEDICATED_BACKEND groups,
// whose endpoints are instances alone (the planner still probes them at
// the instance's address).
func (s backends) endpointInstance(ctx context.Context, field string, e *api.NetworkEndpoint, g *api.NetworkEndpointGroup, sc core.Scope) (*api.Instance, error) {
	if _, _, _, ok := rules.InstanceRef(e.Instance); sc.Zone == "" && !ok {
		return nil, googleapi.Invalid("%s.instance (%q) must be the instance's URL (zones/{zone}/instances/{name}): a regional group cannot tell its zone.", field, e.Instance)
	}
	var in api.Instance
	k, err := s.Lookup(ctx, field+".instance", e.Instance, sc, api.CollectionInstances, &in)
	if err != nil {
		return nil, err
	}
	zone := core.LastSegment(k.Scope)
	switch {
	case sc.Zone != "" && k.Scope != sc.Path():
		return nil, googleapi.Invalid("%s.instance (%q) is in zone %s: a group in zone %s takes instances of its own zone.", field, e.Instance, zone, sc.Zone)
	case sc.Region != "" && rules.ZoneRegion(zone) != "" && rules.ZoneRegion(zone) != sc.Region:
		return nil, googleapi.Invalid("%s.instance (%q) is in zone %s: a group in region %s takes instances of its own region.", field, e.Instance, zone, sc.Region)
	}
	if e.IPAddress == "" && g.NetworkEndpointType != api.GCEVMIPDedicated {
		if e.IPAddress = in.PrimaryIP(); e.IPAddress == "" {
			return nil, googleapi.Invalid("%s.instance (%q) has no networkIP to reach it at: give %s.ipAddress.", field, e.Instance, field)
		}
	}
	return &in, nil
}

// readEndpoints reads the body of attach and detach: at most
// api.MaxEndpointsPerCall endpoints. None is a no-op, as in the Compute API:
// clients that send endpoints in pages (terraform-provider-google, 500 at a
// time) send an empty last page when the count is a multiple of the page.
func (s backends) readEndpoints(r *googleapi.Call) ([]api.NetworkEndpoint, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	// A real client may send more fields (annotations, fqdn, ...): the
	// schema takes them, and the typed request holds what the emulator
	// acts on.
	var req api.NetworkEndpointGroupsAttachEndpointsRequest
	// Detach and the regional methods take the same shape.
	if err := s.DecodeBody(r, body, "NetworkEndpointGroupsAttachEndpointsRequest", &req); err != nil {
		return nil, err
	}
	if n := len(req.NetworkEndpoints); n > api.MaxEndpointsPerCall {
		return nil, googleapi.Invalid("networkEndpoints lists %d endpoints: one call takes at most %d; split them over several calls.", n, api.MaxEndpointsPerCall)
	}
	return req.NetworkEndpoints, nil
}

// attachNetworkEndpoints adds endpoints to a group. An endpoint the group
// already has (same address, port and instance) is left as it is, as the
// Compute API does; one whose address and port another instance's endpoint
// has is refused.
func (s backends) attachNetworkEndpoints(r *googleapi.Call) (any, error) {
	endpoints, err := s.readEndpoints(r)
	if err != nil {
		return nil, err
	}
	sc, err := core.ScopeOf(r)
	if err != nil {
		return nil, err
	}
	c := s.networkEndpointGroups()
	return c.Modify(r, "attachNetworkEndpoints", func(stored *api.NetworkEndpointGroup) (*api.NetworkEndpointGroup, error) {
		g := cloneOf(stored)
		for i, e := range endpoints {
			field := fmt.Sprintf("networkEndpoints[%d]", i)
			if err := rules.NetworkEndpoint(field, &e, g.NetworkEndpointType, g.DefaultPort != nil).Err(); err != nil {
				return nil, googleapi.Invalid("%s", err.Error())
			}
			if err := s.attachedEndpoint(r.Context(), field, &e, g, sc); err != nil {
				return nil, err
			}
			switch j := slices.IndexFunc(g.Endpoints, func(o api.NetworkEndpoint) bool { return sameEndpoint(o, e) }); {
			case j < 0:
				g.Endpoints = append(g.Endpoints, e)
			case core.LastSegment(g.Endpoints[j].Instance) != core.LastSegment(e.Instance):
				return nil, googleapi.Invalid("%s (%s) is already an endpoint of %s, with instance %q: an address and port is one endpoint of a group.",
					field, describeEndpoint(e), g.Name, g.Endpoints[j].Instance)
			}
		}
		return g, nil
	})
}

// attachedEndpoint completes an endpoint a client attaches: its instance
// must exist and own its address (or give it), and the group's default
// port applies.
func (s backends) attachedEndpoint(ctx context.Context, field string, e *api.NetworkEndpoint, g *api.NetworkEndpointGroup, sc core.Scope) error {
	if e.Instance != "" {
		ip := e.IPAddress
		in, err := s.endpointInstance(ctx, field, e, g, sc)
		if err != nil {
			return err
		}
		if ip != "" && !slices.ContainsFunc(in.NetworkInterfaces, func(ni api.NetworkInterface) bool { return sameAddr(ni.NetworkIP, ip) }) {
			return googleapi.Invalid("%s.ipAddress (%q) is not an address of instance %s (its networkIP is %q).", field, ip, in.Name, in.PrimaryIP())
		}
		if sc.Zone != "" {
			e.Instance = in.Name // as the Compute API lists it in a zonal group
		}
	}
	if e.Port == nil && g.DefaultPort != nil {
		p := *g.DefaultPort
		e.Port = &p
	}
	return nil
}

// detachNetworkEndpoints removes endpoints from a group, each named by what
// it gives of its address, instance, fqdn and port (a port alone when it
// names one endpoint). An endpoint the group does not have is 404
// notFound, as in the Compute API.
func (s backends) detachNetworkEndpoints(r *googleapi.Call) (any, error) {
	endpoints, err := s.readEndpoints(r)
	if err != nil {
		return nil, err
	}
	c := s.networkEndpointGroups()
	return c.Modify(r, "detachNetworkEndpoints", func(stored *api.NetworkEndpointGroup) (*api.NetworkEndpointGroup, error) {
		g := cloneOf(stored)
		for i, d := range endpoints {
			field := fmt.Sprintf("networkEndpoints[%d]", i)
			byPortAlone := d.IPAddress == "" && d.Instance == "" && d.FQDN == ""
			if byPortAlone && d.Port == nil {
				return nil, googleapi.Invalid("%s names no endpoint: give its ipAddress, its instance, its fqdn or its port.", field)
			}
			if d.Port == nil && g.DefaultPort != nil {
				d.Port = g.DefaultPort
			}
			j := slices.IndexFunc(g.Endpoints, func(e api.NetworkEndpoint) bool { return detachMatches(d, e) })
			if j < 0 {
				return nil, googleapi.NewError(http.StatusNotFound, api.ReasonNotFound,
					fmt.Sprintf("%s (%s) is not an endpoint of network endpoint group %s.", field, describeEndpoint(d), g.Name))
			}
			// By its port alone (terraform-provider-google sends ip_address,
			// a field the API does not know and drops): the port must name
			// one endpoint.
			if byPortAlone {
				if n := matching(g.Endpoints, d); n > 1 {
					return nil, googleapi.Invalid("%s (%s) matches %d endpoints of network endpoint group %s: give its ipAddress or its instance too.",
						field, describeEndpoint(d), n, g.Name)
				}
			}
			g.Endpoints = slices.Delete(g.Endpoints, j, j+1)
		}
		return g, nil
	})
}

// matching counts the endpoints that d, an endpoint a client detaches,
// names.
func matching(endpoints []api.NetworkEndpoint, d api.NetworkEndpoint) int {
	n := 0
	for _, e := range endpoints {
		if detachMatches(d, e) {
			n++
		}
	}
	return n
}

// sameEndpoint: one address (in any spelling) and one port.
func sameEndpoint(a, b api.NetworkEndpoint) bool {
	return sameAddr(a.IPAddress, b.IPAddress) && portOf(a) == portOf(b)
}

// detachMatches says whether d, an endpoint a client detaches, names the
// group's endpoint e: what d gives (address, instance, port) must match.
func detachMatches(d, e api.NetworkEndpoint) bool {
	return (d.IPAddress == "" || sameAddr(d.IPAddress, e.IPAddress)) &&
		(d.Instance == "" || core.LastSegment(d.Instance) == core.LastSegment(e.Instance)) &&
		(d.FQDN == "" || d.FQDN == e.FQDN) &&
		portOf(d) == portOf(e)
}

func sameAddr(a, b string) bool {
	x, errX := netip.ParseAddr(a)
	y, errY := netip.ParseAddr(b)
	return errX == nil && errY == nil && x == y
}

func portOf(e api.NetworkEndpoint) int64 {
	if e.Port == nil {
		return 0
	}
	return *e.Port
}

// describeEndpoint writes an endpoint for messages: "10.0.0.2, port 80,
// instance "vm"".
func describeEndpoint(e api.NetworkEndpoint) string {
	var parts []string
	if e.IPAddress != "" {
		parts = append(parts, e.IPAddress)
	}
	if e.Port != nil {
		parts = append(parts, fmt.Sprintf("port %d", *e.Port))
	}
	if e.Instance != "" {
		parts = append(parts, fmt.Sprintf("instance %q", e.Instance))
	}
	return strings.Join(parts, ", ")
}

// listNetworkEndpoints lists a group's endpoints, a page at a time
// (maxResults, pageToken), with their health per backend service when the
// body asks for it ({"healthStatus": "SHOW"}). The regional method of the
// Compute API takes no body; the emulator reads the same optional one.
func (s backends) listNetworkEndpoints(r *googleapi.Call) (any, error) {
	c := s.networkEndpointGroups()
	g, sc, err := c.Load(r)
	if err != nil {
		return nil, err
	}
	show, err := s.showHealth(r)
	if err != nil {
		return nil, err
	}
	limit, after, err := core.PageParams(r)
	if err != nil {
		return nil, err
	}
	offset := 0
	if after != "" {
		if offset, err = strconv.Atoi(after); err != nil || offset < 0 {
			return nil, googleapi.Invalid("pageToken (%q) is not a token this method returned: pass nextPageToken from the previous page.", r.Query().Get("pageToken"))
		}
	}
	path := sc.Key(c.Def.Name, g.Name).Path()
	out := api.NetworkEndpointGroupsListNetworkEndpoints{Kind: api.KindNetworkEndpointGroupsListNetworkEndpoints,
		ID: path, Items: []api.NetworkEndpointWithHealthStatus{}}
	var healths map[string][]api.HealthStatusForNetworkEndpoint
	if show {
		if healths, err = s.endpointHealths(r.Context(), path); err != nil {
			return nil, err
		}
	}
	for i := offset; i < len(g.Endpoints); i++ {
		if len(out.Items) == limit {
			out.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(i)))
			break
		}
		e := g.Endpoints[i]
		item := api.NetworkEndpointWithHealthStatus{NetworkEndpoint: api.ListedNetworkEndpoint{IPAddress: e.IPAddress, FQDN: e.FQDN, Port: e.Port, Instance: e.Instance}}
		if show {
			item.Healths = healths[endpointID(e.IPAddress, portOf(e))]
		}
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// showHealth reads the optional body of listNetworkEndpoints.
func (s backends) showHealth(r *googleapi.Call) (bool, error) {
	if !r.HasBody() {
		return false, nil
	}
	body, err := r.Body()
	if err != nil {
		return false, err
	}
	var req api.NetworkEndpointGroupsListEndpointsRequest
	if err := s.DecodeBody(r, body, "NetworkEndpointGroupsListEndpointsRequest", &req); err != nil {
		return false, err
	}
	switch req.HealthStatus {
	case "", api.HealthStatusSkip:
		return false, nil
	case api.HealthStatusShow:
		return true, nil
	}
	return false, googleapi.Invalid("healthStatus (%q) must be one of %s, %s.", req.HealthStatus, api.HealthStatusShow, api.HealthStatusSkip)
}

// endpointHealths is the health of each endpoint of the group at path, per
// backend service that has the group as a backend, keyed by endpointID.
// Its healthState, unlike getHealth's, may be UNKNOWN: the Compute API's
// HealthStatusForNetworkEndpoint has that value.
func (s backends) endpointHealths(ctx context.Context, path string) (map[string][]api.HealthStatusForNetworkEndpoint, error) {
	services, err := s.Store.All(ctx, api.CollectionBackendServices)
	if err != nil {
		return nil, err
	}
	out := map[string][]api.HealthStatusForNetworkEndpoint{}
	for _, o := range services {
		var bs api.BackendService
		if err := json.Unmarshal(o.Body, &bs); err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(bs.Backends, func(b api.Backend) bool { return api.PathOf(b.Group) == path }) {
			continue
		}
		for _, st := range s.statuses(o.Path()) {
			if st.Group != path {
				continue
			}
			id := endpointID(st.Endpoint.IP, int64(st.Endpoint.Port))
			out[id] = append(out[id], api.HealthStatusForNetworkEndpoint{
				HealthState:    st.State,
				BackendService: &api.BackendServiceReference{BackendService: s.Link(o.Path())},
				HealthCheck:    &api.HealthCheckReference{HealthCheck: s.Link(st.Check)},
			})
		}
	}
	return out, nil
}

// endpointID is an endpoint's address, in canonical form, and port.
func endpointID(ip string, port int64) string {
	if a, err := netip.ParseAddr(ip); err == nil {
		ip = a.String()
	}
	return ip + " " + strconv.FormatInt(port, 10)
}

// cloneOf returns a deep copy of a stored resource, to change while the
// original stays as the prior version.
func cloneOf[T any](v *T) *T {
	c := new(T)
	if err := json.Unmarshal(core.MustJSON(v), c); err != nil {
		panic(err) // our own JSON
	}
	return c
}
