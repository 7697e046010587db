package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// projectsCollection records, per project, that the emulator has given it
// its default network, so that a default network the user deletes stays
// deleted. It is not an API collection: no route serves it.
const projectsCollection = "lbhealthProjects"

// autoModeRanges are the subnetworks of an auto-mode network: the cloud's
// range in each region (a /20 per region, from 10.128.0.0/9). A region not
// listed gets none: create one there.
var autoModeRanges = map[string]string{
	"us-central1": "10.128.0.0/20", "europe-west1": "10.132.0.0/20", "us-west1": "10.138.0.0/20",
	"asia-east1": "10.140.0.0/20", "us-east1": "10.142.0.0/20", "asia-northeast1": "10.146.0.0/20",
	"asia-southeast1": "10.148.0.0/20", "us-east4": "10.150.0.0/20", "australia-southeast1": "10.152.0.0/20",
	"europe-west2": "10.154.0.0/20", "europe-west3": "10.156.0.0/20", "southamerica-east1": "10.158.0.0/20",
	"asia-south1": "10.160.0.0/20", "northamerica-northeast1": "10.162.0.0/20", "europe-west4": "10.164.0.0/20",
	"europe-north1": "10.166.0.0/20", "us-west2": "10.168.0.0/20", "asia-east2": "10.170.0.0/20",
	"europe-west6": "10.172.0.0/20", "asia-northeast2": "10.174.0.0/20", "asia-northeast3": "10.178.0.0/20",
	"us-west3": "10.180.0.0/20", "us-west4": "10.182.0.0/20", "asia-southeast2": "10.184.0.0/20",
	"europe-central2": "10.186.0.0/20", "northamerica-northeast2": "10.188.0.0/20", "asia-south2": "10.190.0.0/20",
	"australia-southeast2": "10.192.0.0/20", "southamerica-west1": "10.194.0.0/20",
}

// defaultFirewalls are the rules the cloud gives a project's default
// network: everything between its own addresses, and SSH, RDP and ICMP
// from anywhere.
var defaultFirewalls = []string{
	`{"name":"default-allow-internal","description":"Allow internal traffic on the default network","priority":65534,
	  "sourceRanges":["10.128.0.0/9"],"allowed":[{"IPProtocol":"tcp","ports":["0-65535"]},{"IPProtocol":"udp","ports":["0-65535"]},{"IPProtocol":"icmp"}]}`,
	`{"name":"default-allow-ssh","description":"Allow SSH from anywhere","priority":65534,
	  "sourceRanges":["0.0.0.0/0"],"allowed":[{"IPProtocol":"tcp","ports":["22"]}]}`,
	`{"name":"default-allow-rdp","description":"Allow RDP from anywhere","priority":65534,
	  "sourceRanges":["0.0.0.0/0"],"allowed":[{"IPProtocol":"tcp","ports":["3389"]}]}`,
	`{"name":"default-allow-icmp","description":"Allow ICMP from anywhere","priority":65534,
	  "sourceRanges":["0.0.0.0/0"],"allowed":[{"IPProtocol":"icmp"}]}`,
}

// provisionProject gives the project the request names, the first time
// any request names it, what the cloud gives a new project: the auto-mode
// network default, its subnetworks and its firewall rules. They are stored
// like any resource (and can be deleted like one); a project provisioned
// once, even in an earlier run, is never provisioned again.
func (s *Server) provisionProject(r *http.Request) error {
	project := r.PathValue("project")
	if !s.defaultNetwork || project == "" || rules.Project("project", project) != nil || s.isProvisioned(project) {
		return nil
	}
	ctx := context.WithoutCancel(r.Context())
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	marker := store.Key{Project: project, Scope: "global", Collection: projectsCollection, Name: project}
	switch _, err := s.store.Get(ctx, marker); {
	case err == nil:
		s.provisioned.Store(project, true)
		return nil
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	created := s.createDefaultNetwork(ctx, scope{project: project})
	if err := s.store.Insert(ctx, store.Object{Key: marker, Body: []byte(`{"defaultNetwork":true}`)}); err != nil {
		return err
	}
	for _, k := range created {
		s.indexRefs(ctx, k)
	}
	if s.onChange != nil {
		s.onChange(ctx, created)
	}
	s.provisioned.Store(project, true)
	s.log.Info("project provisioned with the default network", "project", project, "resources", len(created))
	return nil
}

// isProvisioned tells whether this run has seen project provisioned.
func (s *Server) isProvisioned(project string) bool {
	_, ok := s.provisioned.Load(project)
	return ok
}

// createDefaultNetwork stores the default network of the project of sc,
// with its subnetworks and firewall rules, and returns their keys. One that
// cannot be made (in a project stored by an emulator that made none, whose
// own resources take the name or the range) is left out and logged, and
// nothing at all is made when the user has a network default of their
// own: what the user made wins, and the request goes on.
func (s *Server) createDefaultNetwork(ctx context.Context, sc scope) []store.Key {
	var created []store.Key
	add := func(k store.Key, err error) bool {
		if err != nil {
			s.log.Warn("default network: left out", "resource", k.Path(), "reason", err.Error())
			return false
		}
		created = append(created, k)
		return true
	}
	network := fmt.Sprintf(`{"name":%q,"description":"Default network for the project","autoCreateSubnetworks":true}`, api.DefaultNetwork)
	if !add(createResource(ctx, s.networks(), sc, network)) {
		return nil // a network default of the user's own: nothing is added to it
	}
	link := s.link(sc.key(api.CollectionNetworks, api.DefaultNetwork).Path())
	for _, region := range slices.Sorted(maps.Keys(autoModeRanges)) {
		sn := fmt.Sprintf(`{"name":%q,"network":%q,"ipCidrRange":%q}`, api.DefaultNetwork, link, autoModeRanges[region])
		add(createResource(ctx, s.subnetworks(), scope{project: sc.project, region: region}, sn))
	}
	for _, fw := range defaultFirewalls {
		add(createResource(ctx, s.firewalls(), sc, fw))
	}
	return created
}

// createResource stores a resource the emulator makes itself, through the
// same rules, references, defaults and output fields as an insert. The
// caller holds the write lock.
func createResource[T any, P ptr[T]](ctx context.Context, c *collection[T, P], sc scope, body string) (store.Key, error) {
	doc, err := parseObject([]byte(body))
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
	return key, storeError(key, c.s.store.Insert(ctx, store.Object{Key: key, Body: c.stored(doc, obj)}))
}
