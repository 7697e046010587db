package compute

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Provision gives the project the request names, the first time
// any request names it, what the cloud gives a new project: the auto-mode
// network default, its subnetworks and its firewall rules. They are stored
// like any resource (and can be deleted like one); a project provisioned
// once, even in an earlier run, is never provisioned again.
func (s *Service) Provision(r *Call) error {
	project := r.PathValue("project")
	if !s.defaultNetwork || project == "" || rules.Project("project", project) != nil || s.isProvisioned(project) {
		return nil
	}
	ctx := context.WithoutCancel(r.Context())
	s.core.Lock()
	defer s.core.Unlock()
	marker := store.Key{Project: project, Scope: "global", Collection: api.CollectionProvisionedProjects, Name: project}
	switch _, err := s.store.Get(ctx, marker); {
	case err == nil:
		s.provisioned.Store(project, true)
		return nil
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	created := networking{s}.createDefaultNetwork(ctx, scope{project: project})
	if err := s.store.Insert(ctx, store.Object{Key: marker, Body: []byte(`{"defaultNetwork":true}`)}); err != nil {
		return err
	}
	for _, k := range created {
		s.indexRefs(ctx, Change{Key: k, Unknown: true})
	}
	s.core.Changed(ctx, created)
	s.provisioned.Store(project, true)
	s.log.Info("project provisioned with the default network", "project", project, "resources", len(created))
	return nil
}

// isProvisioned tells whether this run has seen project provisioned.
func (s *Service) isProvisioned(project string) bool {
	_, ok := s.provisioned.Load(project)
	return ok
}

// createDefaultNetwork stores the default network of the project of sc,
// with its subnetworks and firewall rules, and returns their keys. One that
// cannot be made (in a project stored by an emulator that made none, whose
// own resources take the name or the range) is left out and logged, and
// nothing at all is made when the user has a network default of their
// own: what the user made wins, and the request goes on.
func (s networking) createDefaultNetwork(ctx context.Context, sc scope) []store.Key {
	var created []store.Key
	add := func(k store.Key, err error) bool {
		if err != nil {
			s.log.Warn("default network: left out", "resource", k.Path(), "reason", err.Error())
			return false
		}
		created = append(created, k)
		return true
	}
	network := sc.key(api.CollectionNetworks, api.DefaultNetwork)
	for i, r := range control.DefaultNetwork(s.link(network.Path())) {
		var k store.Key
		var err error
		switch r.Collection {
		case api.CollectionNetworks:
			k, err = createResource(ctx, s.networks(), sc, r.Body)
		case api.CollectionSubnetworks:
			k, err = createResource(ctx, s.subnetworks(), scope{project: sc.project, region: r.Region}, r.Body)
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
func createResource[T any, P ptr[T]](ctx context.Context, c *collection[T, P], sc scope, body string) (store.Key, error) {
	doc, err := ParseObject([]byte(body))
	if err != nil {
		return store.Key{}, err
	}
	obj := P(new(T))
	if err := json.Unmarshal([]byte(body), obj); err != nil {
		return store.Key{}, err
	}
	key := sc.key(c.def.Name, obj.GetMeta().Name)
	if err := c.prepare(ctx, obj, doc, sc, nil); err != nil {
		return key, err
	}
	return key, StoreError(key, c.s.store.Insert(ctx, store.Object{Key: key, Body: c.stored(doc, obj)}))
}
