package compute

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// instanceTemplates is the global and regional instanceTemplates
// collection (the API's instanceTemplates and regionInstanceTemplates): kept as
// sent, with its network, subnetwork and images checked, for the managed
// groups that make instances of it.
func (s fleet) instanceTemplates() *core.Collection[api.InstanceTemplate, *api.InstanceTemplate] {
	c := core.NewCollection[api.InstanceTemplate, *api.InstanceTemplate](s.API, api.CollectionInstanceTemplates, rules.InstanceTemplate, nil)
	c.Resolve = s.resolveInstanceTemplate
	// No refs: the API does not count a template as a user of the network
	// and subnetwork it names (they can be deleted under it; a group then
	// fails to make instances from it), so a template blocks no delete.
	return c
}

// resolveInstanceTemplate checks what a template's instances will use: its
// network and subnetwork (a subnetwork by name is looked up in the region
// of each group's zone, when the group makes an instance) and the images of
// the disks it makes.
func (s fleet) resolveInstanceTemplate(ctx context.Context, t *api.InstanceTemplate, sc core.Scope) error {
	for i := range t.Properties.NetworkInterfaces {
		ni := &t.Properties.NetworkInterfaces[i]
		field := fmt.Sprintf("properties.networkInterfaces[%d]", i)
		if ni.Network != "" {
			k, err := s.Lookup(ctx, field+".network", ni.Network, sc, api.CollectionNetworks, new(api.Network))
			if err != nil {
				return err
			}
			ni.Network = s.Link(k.Path())
		}
		if ni.Subnetwork != "" && core.LastSegment(ni.Subnetwork) != ni.Subnetwork {
			k, err := s.Lookup(ctx, field+".subnetwork", ni.Subnetwork, sc, api.CollectionSubnetworks, new(api.Subnetwork))
			if err != nil {
				return err
			}
			ni.Subnetwork = s.Link(k.Path())
		}
	}
	for i, d := range t.Properties.Disks {
		if p := d.InitializeParams; p != nil && p.SourceImage != "" {
			if _, err := resolveImage(fmt.Sprintf("properties.disks[%d].initializeParams.sourceImage", i), p.SourceImage); err != nil {
				return err
			}
		}
	}
	return nil
}

// instanceGroupManagers is the zonal instanceGroupManagers collection: a
// managed group makes targetSize instances of its template, keeps them in
// the instance group of its own name (which backends name), and makes or
// deletes instances when targetSize changes (a patch, or resize). The
// instances' addresses come from the managed-instance range
// (Options.ManagedInstanceRange), so that local servers bound there answer
// for them.
func (s fleet) instanceGroupManagers() *core.Collection[api.InstanceGroupManager, *api.InstanceGroupManager] {
	c := core.NewCollection[api.InstanceGroupManager, *api.InstanceGroupManager](s.API, api.CollectionInstanceGroupManagers,
		rules.InstanceGroupManager, rules.ApplyInstanceGroupManagerDefaults)
	c.Resolve = s.resolveManager
	c.Fingerprint = func(m *api.InstanceGroupManager) *string { return &m.Fingerprint }
	c.FingerprintOptional = true
	c.Refs = func(m *api.InstanceGroupManager) []string {
		refs := []string{m.InstanceTemplate, m.InstanceGroup}
		for _, v := range m.Versions {
			refs = append(refs, v.InstanceTemplate)
		}
		for _, p := range m.AutoHealingPolicies {
			refs = append(refs, p.HealthCheck)
		}
		return refs
	}
	c.Outputs = func(m, prior *api.InstanceGroupManager) {
		m.InstanceGroup = s.Link(groupOf(m, core.ScopeOfKey(core.KeyOfPath(api.PathOf(m.SelfLink)))).Path())
		m.CurrentActions = &api.ManagerActions{None: *m.TargetSize}
		m.Status = api.NewManagerStatus(true, "")
	}
	c.InputOnly = func(doc core.Document) {
		// terraform-provider-google always sends this policy, empty when
		// the configuration has none; the API answers without it.
		if p, ok := doc["instanceFlexibilityPolicy"].(map[string]any); ok && len(p) == 0 {
			delete(doc, "instanceFlexibilityPolicy")
		}
	}
	c.Attach = s.reconcileManager
	c.Updated = s.reconcileManager
	c.Deletable = s.managerDeletable
	c.Release = s.releaseManager
	return c
}

// resolveManager checks the group's template and autohealing check, which
// must exist, and writes them as URLs.
func (s fleet) resolveManager(ctx context.Context, m *api.InstanceGroupManager, sc core.Scope) error {
	global := core.Scope{Project: sc.Project}
	template := func(field string, ref *string) error {
		if *ref == "" {
			return nil
		}
		k, err := s.Lookup(ctx, field, *ref, global, api.CollectionInstanceTemplates, new(api.InstanceTemplate))
		if err != nil {
			return err
		}
		region := sc.Region
		if sc.Zone != "" {
			region = rules.ZoneRegion(sc.Zone)
		}
		if k.Scope != "global" && k.Scope != "regions/"+region {
			return googleapi.Invalid("%s (%q) is in %s: a managed group takes a global instance template or one of its own region (%s).", field, *ref, k.Scope, region)
		}
		*ref = s.Link(k.Path())
		return nil
	}
	if err := template("instanceTemplate", &m.InstanceTemplate); err != nil {
		return err
	}
	for i := range m.Versions {
		if err := template(fmt.Sprintf("versions[%d].instanceTemplate", i), &m.Versions[i].InstanceTemplate); err != nil {
			return err
		}
	}
	for i := range m.AutoHealingPolicies {
		p := &m.AutoHealingPolicies[i]
		field := fmt.Sprintf("autoHealingPolicies[%d].healthCheck", i)
		k, err := core.ParseRef(field, p.HealthCheck, global, api.CollectionHealthChecks)
		if err != nil {
			return err
		}
		if r := core.RegionOfScope(k.Scope); r != "" && r != managerRegion(sc) {
			return googleapi.Invalid("%s (%q) is in region %s: a group in %s takes a global health check or one of its own region (%s).",
				field, p.HealthCheck, r, sc.Path(), managerRegion(sc))
		}
		if err := s.Load(ctx, field, p.HealthCheck, k, new(api.HealthCheck)); err != nil {
			return err
		}
		p.HealthCheck = s.Link(k.Path())
	}
	if m.DistributionPolicy != nil {
		for i, z := range m.DistributionPolicy.Zones {
			if zone := core.LastSegment(z.Zone); sc.Region == "" || rules.ZoneRegion(zone) != sc.Region {
				return googleapi.Invalid("distributionPolicy.zones[%d].zone (%q) must be a zone of the group's region (%s): a regional group spreads its instances over zones of its region.",
					i, z.Zone, managerRegion(sc))
			}
		}
	}
	return nil
}

// managerRegion is the region of a manager: its own, or its zone's.
func managerRegion(sc core.Scope) string {
	if sc.Region != "" {
		return sc.Region
	}
	return rules.ZoneRegion(sc.Zone)
}

// groupOf is the key of the instance group a manager keeps its instances in.
func groupOf(m *api.InstanceGroupManager, sc core.Scope) store.Key {
	return sc.Key(api.CollectionInstanceGroups, m.Name)
}

// reconcileManager makes the group match its manager, once the manager is
// stored: the instance group exists with the manager's named ports, and
// holds targetSize instances (new ones made from the template, the last
// ones deleted).
func (s fleet) reconcileManager(ctx context.Context, m *api.InstanceGroupManager, sc core.Scope) error {
	gk := groupOf(m, sc)
	var g api.InstanceGroup
	switch o, err := s.Store.Get(ctx, gk); {
	case errors.Is(err, store.ErrNotFound):
		g = api.InstanceGroup{Meta: api.Meta{Name: m.Name}}
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(o.Body, &g); err != nil {
			return err
		}
	}
	instances, removed, err := control.Reconcile(ctx, managedInstances{s.API, sc}, m, sc.Zone, sc.Region, g.Instances)
	if err != nil {
		return err
	}
	g.Instances = instances
	g.NamedPorts = m.NamedPorts
	if err := s.storeManagedGroup(ctx, gk, &g, sc); err != nil {
		return err
	}
	return s.syncManagerPools(ctx, m, sc, g.Instances, removed)
}

// syncManagerPools keeps the instances of a managed group in the target
// pools it names (targetPools), as the API does: those it has are added,
// those it removed are taken out. A pool that is gone is skipped.
func (s fleet) syncManagerPools(ctx context.Context, m *api.InstanceGroupManager, sc core.Scope, instances, removed []string) error {
	for i, ref := range m.TargetPools {
		k, err := core.ParseAnyRef(fmt.Sprintf("targetPools[%d]", i), ref, core.Scope{Project: sc.Project, Region: managerRegion(sc)}, api.CollectionTargetPools)
		if err != nil {
			continue
		}
		if _, err := s.UpdateLocked(ctx, k, func(doc map[string]any) bool {
			members, _ := doc["instances"].([]any)
			kept, changed := control.PoolMembers(members, instances, removed)
			doc["instances"] = kept
			return changed
		}); err != nil {
			return err
		}
	}
	return nil
}

// storeManagedGroup writes a manager's instance group.
func (s fleet) storeManagedGroup(ctx context.Context, k store.Key, g *api.InstanceGroup, sc core.Scope) error {
	groups := s.instanceGroups()
	prior := (*api.InstanceGroup)(nil)
	if o, err := s.Store.Get(ctx, k); err == nil {
		prior = new(api.InstanceGroup)
		if err := json.Unmarshal(o.Body, prior); err != nil {
			return err
		}
	}
	obj := cloneOf(g)
	obj.Fingerprint = ""
	doc := core.Document{}
	if err := groups.Prepare(ctx, obj, doc, sc, prior); err != nil {
		return err
	}
	body := groups.Stored(doc, obj)
	var err error
	if prior == nil {
		err = s.Store.Insert(ctx, store.Object{Key: k, Body: body})
	} else {
		err = s.Store.Update(ctx, store.Object{Key: k, Body: body})
	}
	if err != nil {
		return core.StoreError(k, err)
	}
	s.Written(ctx, k)
	return nil
}

// managedInstances makes and deletes the instances of managed groups in
// the scope sc (control.Instances).
type managedInstances struct {
	s  *core.API
	sc core.Scope
}

// Make makes the n-th instance of manager m in zone from its template and
// returns its URL.
func (mi managedInstances) Make(ctx context.Context, m *api.InstanceGroupManager, n int, zone string) (string, error) {
	s, sc := mi.s, mi.sc
	var t struct {
		Properties core.Document `json:"properties"`
	}
	tk := core.KeyOfPath(api.PathOf(m.Template()))
	if err := s.Load(ctx, "instanceTemplate", m.Template(), tk, &t); err != nil {
		return "", err
	}
	instances := fleet{s}.instances()
	sc = core.Scope{Project: sc.Project, Zone: zone}
	var name string
	for range 100 {
		var b [2]byte
		rand.Read(b[:])
		name = rules.ManagedInstanceName(m.BaseInstanceName, fmt.Sprintf("%04x", b[:]), n)
		if _, err := s.Store.Get(ctx, sc.Key(api.CollectionInstances, name)); errors.Is(err, store.ErrNotFound) {
			break
		}
	}
	doc := instanceOfProperties(t.Properties)
	doc["name"] = name
	in := new(api.Instance)
	if err := json.Unmarshal(core.MustJSON(doc), in); err != nil {
		return "", err
	}
	if err := instances.Prepare(ctx, in, doc, sc, nil); err != nil {
		// The client sent the template, not this body: the message names it.
		var ge *googleapi.Error
		if errors.As(err, &ge) {
			return "", googleapi.NewError(ge.Code, ge.Reason, fmt.Sprintf("Making instance %s of %s from instance template %s: %s", name, m.Name, api.PathOf(m.Template()), ge.Message))
		}
		return "", fmt.Errorf("making instance %s of %s from its template: %w", name, m.Name, err)
	}
	k := sc.Key(api.CollectionInstances, name)
	if len(in.NetworkInterfaces) > 0 {
		ip := &in.NetworkInterfaces[0].NetworkIP
		*ip = ""
		if err := s.AssignAddress(ctx, "networkInterfaces[0].networkIP", ip, s.ManagedPool, k.Path(), map[netip.Addr]bool{}); err != nil {
			return "", err
		}
	}
	if err := s.Store.Insert(ctx, store.Object{Key: k, Body: instances.Stored(doc, in)}); err != nil {
		return "", core.StoreError(k, err)
	}
	if err := instances.Attach(ctx, in, sc); err != nil {
		return "", err
	}
	s.Written(ctx, k)
	return s.Link(k.Path()), nil
}

// instanceOfProperties is an Instance body made from a template's
// properties. The two schemas are one but for resourceManagerTags, which
// an Instance holds under params (clients that write every map field, as
// Google's Node.js client does, send it empty).
func instanceOfProperties(props core.Document) core.Document {
	doc := maps.Clone(props)
	if doc == nil {
		doc = core.Document{}
	}
	if tags, ok := doc["resourceManagerTags"].(map[string]any); ok && len(tags) > 0 {
		doc["params"] = map[string]any{"resourceManagerTags": tags} // properties have no params
	}
	delete(doc, "resourceManagerTags")
	return doc
}

// Delete deletes an instance of a managed group, with its auto-delete
// disks.
func (mi managedInstances) Delete(ctx context.Context, link string) error {
	s, k := mi.s, core.KeyOfPath(api.PathOf(link))
	o, err := s.Store.Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted by hand meanwhile
	}
	if err != nil {
		return err
	}
	var in api.Instance
	if err := json.Unmarshal(o.Body, &in); err != nil {
		return err
	}
	if err := s.Store.Delete(ctx, k); err != nil {
		return err
	}
	if err := (fleet{s}).releaseDisks(ctx, &in, core.ScopeOfKey(k)); err != nil {
		return err
	}
	s.Written(ctx, k)
	return nil
}

// managerDeletable refuses to delete a manager whose instance group
// another resource (a backend service) still uses.
func (s fleet) managerDeletable(_ context.Context, m *api.InstanceGroupManager, sc core.Scope) error {
	gk := groupOf(m, sc)
	self := sc.Key(api.CollectionInstanceGroupManagers, m.Name).Path()
	for _, u := range s.Refs.UsersOf(gk.Path()) {
		if u != self {
			return core.InUse(gk, u)
		}
	}
	return nil
}

// releaseManager deletes a deleted manager's instances and instance group.
func (s fleet) releaseManager(ctx context.Context, m *api.InstanceGroupManager, sc core.Scope) error {
	gk := groupOf(m, sc)
	var g api.InstanceGroup
	if err := s.Load(ctx, "instanceGroup", gk.Path(), gk, &g); err != nil {
		return nil // already gone
	}
	for _, inst := range g.Instances {
		if err := (managedInstances{s.API, sc}).Delete(ctx, inst); err != nil {
			return err
		}
	}
	if err := s.Store.Delete(ctx, gk); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	s.Written(ctx, gk)
	return s.syncManagerPools(ctx, m, sc, nil, g.Instances)
}

// managerResize answers instanceGroupManagers.resize?size=N.
func (s fleet) managerResize(r *googleapi.Call) (any, error) {
	v := r.Query().Get("size")
	size, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return nil, googleapi.Invalid("size (%q) is required: the number of instances the group keeps, an integer.", v)
	}
	if v := rules.TargetSize("size", size); v != nil {
		return nil, googleapi.Invalid("%s", v.Error())
	}
	return s.instanceGroupManagers().Modify(r, "resize", func(stored *api.InstanceGroupManager) (*api.InstanceGroupManager, error) {
		m := cloneOf(stored)
		m.TargetSize = &size
		return m, nil
	})
}

// managerListInstances answers instanceGroupManagers.listManagedInstances.
func (s fleet) managerListInstances(r *googleapi.Call) (any, error) {
	m, sc, err := s.instanceGroupManagers().Load(r)
	if err != nil {
		return nil, err
	}
	var g api.InstanceGroup
	gk := groupOf(m, sc)
	if err := s.Load(r.Context(), "instanceGroup", gk.Path(), gk, &g); err != nil {
		return nil, err
	}
	out := api.ListManagedInstancesResponse{ManagedInstances: []api.ManagedInstance{}}
	verdicts := s.verdicts(sc.Key(api.CollectionInstanceGroupManagers, m.Name).Path())
	for _, inst := range g.Instances {
		var in api.Instance
		if o, err := s.Store.Get(r.Context(), core.KeyOfPath(api.PathOf(inst))); err != nil || json.Unmarshal(o.Body, &in) != nil {
			continue
		}
		path := api.PathOf(inst)
		mi := api.ManagedInstance{Instance: inst, ID: strconv.FormatUint(in.ID, 10), Name: in.Name, InstanceStatus: in.Status,
			CurrentAction: s.Action(path), Version: &api.ManagerVersion{InstanceTemplate: m.Template()}}
		for _, p := range m.AutoHealingPolicies {
			state := api.StateUnknown
			if v, ok := verdicts[api.Generation(path, in.ID)]; ok {
				state = v.State
			}
			mi.InstanceHealth = append(mi.InstanceHealth, api.ManagedInstanceHealth{HealthCheck: p.HealthCheck, DetailedHealthState: state})
		}
		out.ManagedInstances = append(out.ManagedInstances, mi)
	}
	return out, nil
}

// managerRecreateInstances answers instanceGroupManagers.recreateInstances:
// each instance listed is made again, with a new id and creation time.
func (s fleet) managerRecreateInstances(r *googleapi.Call) (any, error) {
	var req struct {
		Instances []string `json:"instances"`
	}
	if err := s.ReadJSON(r, "InstanceGroupManagersRecreateInstancesRequest", &req); err != nil {
		return nil, err
	}
	c := s.instanceGroupManagers()
	return c.Modify(r, "recreateInstances", func(m *api.InstanceGroupManager) (*api.InstanceGroupManager, error) {
		sc := core.ScopeOfKey(core.KeyOfPath(api.PathOf(m.SelfLink)))
		var g api.InstanceGroup
		gk := groupOf(m, sc)
		if err := s.Load(r.Context(), "instanceGroup", gk.Path(), gk, &g); err != nil {
			return nil, err
		}
		for i, ref := range req.Instances {
			k, err := core.ParseRef(fmt.Sprintf("instances[%d]", i), ref, sc, api.CollectionInstances)
			if err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(g.Instances, func(inst string) bool { return api.PathOf(inst) == k.Path() }) {
				return nil, googleapi.Invalid("instances[%d] (%q) is not an instance of managed group %s.", i, ref, m.Name)
			}
			if err := s.recreateInstance(r.Context(), k); err != nil {
				return nil, err
			}
		}
		return m, nil
	})
}

// recreateInstance makes instance k again: same name and address, a new id
// and creation time, running.
func (s fleet) recreateInstance(ctx context.Context, k store.Key) error {
	o, err := s.Store.Get(ctx, k)
	if err != nil {
		return core.StoreError(k, err)
	}
	doc, _ := core.ParseObject(o.Body) // our own JSON
	doc["id"] = strconv.FormatUint(core.NewID(), 10)
	doc["creationTimestamp"] = s.CreationTime()
	doc["status"] = api.InstanceRunning
	if err := s.Store.Update(ctx, store.Object{Key: k, Body: core.MustJSON(doc)}); err != nil {
		return err
	}
	s.Written(ctx, k)
	return nil
}
