package compute

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Provision gives the project the request names, the first time
// any request names it, what the cloud gives a new project: the auto-mode
// network default, its subnetworks and its firewall rules. They are stored
// like any resource (and can be deleted like one); a project provisioned
// once, even in an earlier run, is never provisioned again.
func (s *Service) Provision(r *googleapi.Call) error {
	project := r.PathValue("project")
	if !s.DefaultNetwork || project == "" || rules.Project("project", project) != nil || s.isProvisioned(project) {
		return nil
	}
	ctx := context.WithoutCancel(r.Context())
	s.Core().Lock()
	defer s.Core().Unlock()
	marker := store.Key{Project: project, Scope: "global", Collection: api.CollectionProvisionedProjects, Name: project}
	switch _, err := s.Store.Get(ctx, marker); {
	case err == nil:
		s.Provisioned.Store(project, true)
		return nil
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	created := networking{s.API}.createDefaultNetwork(ctx, core.Scope{Project: project})
	if err := s.Store.Insert(ctx, store.Object{Key: marker, Body: []byte(`{"defaultNetwork":true}`)}); err != nil {
		return err
	}
	for _, k := range created {
		s.IndexRefs(ctx, core.Change{Key: k, Unknown: true})
	}
	s.Core().Changed(ctx, created)
	s.Provisioned.Store(project, true)
	s.Log.Info("project provisioned with the default network", "project", project, "resources", len(created))
	return nil
}

// isProvisioned tells whether this run has seen project provisioned.
func (s *Service) isProvisioned(project string) bool {
	_, ok := s.Provisioned.Load(project)
	return ok
}

// createDefaultNetwork stores the default network of the project of sc,
// with its subnetworks and firewall rules, and returns their keys. One that
// cannot be made (in a project stored by an emulator that made none, whose
// own resources take the name or the range) is left out and logged, and
// nothing at all is made when the user has a network default of their
// own: what the user made wins, and the request goes on.
func (s networking) createDefaultNetwork(ctx context.Context, sc core.Scope) []store.Key {
	var created []store.Key
	add := func(k store.Key, err error) bool {
		if err != nil {
			s.Log.Warn("default network: left out", "resource", k.Path(), "reason", err.Error())
			return false
		}
		created = append(created, k)
		return true
	}
	network := sc.Key(api.CollectionNetworks, api.DefaultNetwork)
	for i, r := range control.DefaultNetwork(s.Link(network.Path())) {
		var k store.Key
		var err error
		switch r.Collection {
		case api.CollectionNetworks:
			k, err = createResource(ctx, s.networks(), sc, r.Body)
		case api.CollectionSubnetworks:
			k, err = createResource(ctx, s.subnetworks(), core.Scope{Project: sc.Project, Region: r.Region}, r.Body)
		case api.CollectionFirewalls:
			k, err = createResource(ctx, s.firewalls(), sc, r.Body)
		}
		if !add(k, err) && i == 0 {
			return nil // a network default of the user's own: nothing is added to it
		}
	}
	return created
}

// createResource stores a resource the emulator makes itself, through the
// same rules, references, defaults and output fields as an insert. The
// caller holds the write lock.
func createResource[T any, P core.Ptr[T]](ctx context.Context, c *core.Collection[T, P], sc core.Scope, body string) (store.Key, error) {
	doc, err := core.ParseObject([]byte(body))
	if err != nil {
		return store.Key{}, err
	}
	obj := P(new(T))
	if err := json.Unmarshal([]byte(body), obj); err != nil {
		return store.Key{}, err
	}
	key := sc.Key(c.Def.Name, obj.GetMeta().Name)
	if err := c.Prepare(ctx, obj, doc, sc, nil); err != nil {
		return key, err
	}
	return key, core.StoreError(key, c.Store().Insert(ctx, store.Object{Key: key, Body: c.Stored(doc, obj)}))
}
