package compute

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Shared VPC: a host project shares its networks with the service projects
// attached to it (projects.enableXpnHost, enableXpnResource and their
// reads). The emulator keeps who is a host and which host each service
// project is attached to; a host's networks and subnetworks are open to
// every project's references, as there is no IAM to ask.

// collectionSharedVpc holds one record per project in a Shared VPC, under
// the project's own key: {"host": true} for a host, {"hostProject": "h"}
// for a service project. It is not an API collection: no route serves it.
const collectionSharedVpc = "lbhealthSharedVpc"

// sharedVpc is a project's place in a Shared VPC.
type sharedVpc struct {
	Host        bool   `json:"host,omitempty"`
	HostProject string `json:"hostProject,omitempty"`
}

// The Compute API's words for a project's place, in projects.get.
const (
	xpnHost = "HOST"
	xpnNone = "UNSPECIFIED_XPN_PROJECT_STATUS"
)

func sharedVpcKey(project string) store.Key {
	return store.Key{Project: project, Scope: "global", Collection: collectionSharedVpc, Name: project}
}

// sharedVpcOf is project's place; the zero one when it is in none.
func (s *Service) sharedVpcOf(ctx context.Context, project string) (sharedVpc, error) {
	var v sharedVpc
	o, err := s.Store.Get(ctx, sharedVpcKey(project))
	if errors.Is(err, store.ErrNotFound) {
		return v, nil
	}
	if err != nil {
		return v, err
	}
	return v, json.Unmarshal(o.Body, &v)
}

// setSharedVpc stores project's place (the zero one: none).
func (s *Service) setSharedVpc(ctx context.Context, project string, v sharedVpc) error {
	k := sharedVpcKey(project)
	if v == (sharedVpc{}) {
		if err := s.Store.Delete(ctx, k); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return nil
	}
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := s.Store.Update(ctx, store.Object{Key: k, Body: body}); errors.Is(err, store.ErrNotFound) {
		return s.Store.Insert(ctx, store.Object{Key: k, Body: body})
	} else if err != nil {
		return err
	}
	return nil
}

// sharedVpcs are the places of every project in a Shared VPC, by project.
func (s *Service) sharedVpcs(ctx context.Context) (map[string]sharedVpc, error) {
	all, err := s.Store.All(ctx, collectionSharedVpc)
	if err != nil {
		return nil, err
	}
	out := make(map[string]sharedVpc, len(all))
	for _, o := range all {
		var v sharedVpc
		if err := json.Unmarshal(o.Body, &v); err != nil {
			return nil, err
		}
		out[o.Key.Project] = v
	}
	return out, nil
}

// projectOf is the project the call's path names, checked.
func projectOf(r *googleapi.Call) (string, error) {
	project := r.PathValue("project")
	if v := rules.Project("project", project); v != nil {
		return "", googleapi.Invalid("%s", v.Error())
	}
	return project, nil
}

// enableXpnHost answers projects.enableXpnHost: the project becomes a
// Shared VPC host, unless it is a service project of another host.
func (s *Service) enableXpnHost(r *googleapi.Call) (any, error) {
	return s.changeSharedVpc(r, "enableXpnHost", func(ctx context.Context, project string) error {
		v, err := s.sharedVpcOf(ctx, project)
		if err != nil {
			return err
		}
		if v.HostProject != "" {
			return googleapi.Invalid("project %q is a Shared VPC service project of %q: a service project cannot be a host; detach it first (disableXpnResource on %q).", project, v.HostProject, v.HostProject)
		}
		return s.setSharedVpc(ctx, project, sharedVpc{Host: true})
	})
}

// disableXpnHost answers projects.disableXpnHost: the project is a host no
// more, once no service project is attached to it.
func (s *Service) disableXpnHost(r *googleapi.Call) (any, error) {
	return s.changeSharedVpc(r, "disableXpnHost", func(ctx context.Context, project string) error {
		services, err := s.serviceProjectsOf(ctx, project)
		if err != nil {
			return err
		}
		if len(services) > 0 {
			return googleapi.NewError(http.StatusBadRequest, api.ReasonResourceInUse,
				"project "+project+" is the Shared VPC host of "+strings.Join(services, ", ")+": detach them first (disableXpnResource).")
		}
		if v, err := s.sharedVpcOf(ctx, project); err != nil || !v.Host {
			return err
		}
		return s.setSharedVpc(ctx, project, sharedVpc{})
	})
}

// enableXpnResource answers projects.enableXpnResource: the project named
// in the body becomes a service project of the host the path names.
func (s *Service) enableXpnResource(r *googleapi.Call) (any, error) {
	service, err := s.xpnResource(r, "ProjectsEnableXpnResourceRequest")
	if err != nil {
		return nil, err
	}
	return s.changeSharedVpc(r, "enableXpnResource", func(ctx context.Context, host string) error {
		hv, err := s.sharedVpcOf(ctx, host)
		if err != nil {
			return err
		}
		if !hv.Host {
			return googleapi.Invalid("project %q is not a Shared VPC host project: make it one first (enableXpnHost), then attach %q.", host, service)
		}
		if service == host {
			return googleapi.Invalid("xpnResource.id (%q) is the host project itself: a host cannot be its own service project.", service)
		}
		sv, err := s.sharedVpcOf(ctx, service)
		switch {
		case err != nil:
			return err
		case sv.Host:
			return googleapi.Invalid("xpnResource.id (%q) is a Shared VPC host project: a host cannot be a service project.", service)
		case sv.HostProject == host:
			return nil
		case sv.HostProject != "":
			return googleapi.Invalid("xpnResource.id (%q) is a service project of host %q already: a project is attached to one host; detach it there first.", service, sv.HostProject)
		}
		return s.setSharedVpc(ctx, service, sharedVpc{HostProject: host})
	})
}

// disableXpnResource answers projects.disableXpnResource: the project named
// in the body is a service project of the host the path names no more.
// One that is not is refused with invalidResourceUsage, as the API does
// (terraform-provider-google reads it as already detached).
func (s *Service) disableXpnResource(r *googleapi.Call) (any, error) {
	service, err := s.xpnResource(r, "ProjectsDisableXpnResourceRequest")
	if err != nil {
		return nil, err
	}
	return s.changeSharedVpc(r, "disableXpnResource", func(ctx context.Context, host string) error {
		sv, err := s.sharedVpcOf(ctx, service)
		if err != nil {
			return err
		}
		if sv.HostProject != host {
			return googleapi.NewError(http.StatusBadRequest, api.ReasonInvalidResourceUsage,
				"xpnResource.id ("+service+") is not a service project of "+host+": there is nothing to detach.")
		}
		return s.setSharedVpc(ctx, service, sharedVpc{})
	})
}

// xpnResource reads the service project a request body names. The API
// takes a project number too; the emulator knows the numbers of the
// projects it has seen.
func (s *Service) xpnResource(r *googleapi.Call, schema string) (string, error) {
	var req struct {
		XpnResource struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"xpnResource"`
	}
	if err := s.ReadJSON(r, schema, &req); err != nil {
		return "", err
	}
	id, typ := req.XpnResource.ID, req.XpnResource.Type
	if typ != "PROJECT" {
		return "", googleapi.Invalid("xpnResource.type (%q) must be PROJECT: a Shared VPC attaches projects.", typ)
	}
	if id != "" && strings.Trim(id, "0123456789") == "" {
		markers, err := s.Store.All(r.Context(), api.CollectionProvisionedProjects)
		if err != nil {
			return "", err
		}
		for _, m := range markers {
			if googleapi.ProjectNumber(m.Key.Project) == id {
				return m.Key.Project, nil
			}
		}
		return "", googleapi.Invalid("xpnResource.id (%q) is the number of no project the emulator has seen: name the project by its id.", id)
	}
	if v := rules.Project("xpnResource.id", id); v != nil {
		return "", googleapi.Invalid("%s", v.Error())
	}
	return id, nil
}

// changeSharedVpc carries out change for the project the path names under
// the write lock, and answers its Operation.
func (s *Service) changeSharedVpc(r *googleapi.Call, opType string, change func(ctx context.Context, project string) error) (any, error) {
	project, err := projectOf(r)
	if err != nil {
		return nil, err
	}
	s.Core().Lock()
	defer s.Core().Unlock()
	if err := change(r.Context(), project); err != nil {
		return nil, err
	}
	return s.ProjectChanged(r, opType)
}

// serviceProjectsOf are the service projects attached to host, sorted.
func (s *Service) serviceProjectsOf(ctx context.Context, host string) ([]string, error) {
	all, err := s.sharedVpcs(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for p, v := range all {
		if v.HostProject == host {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// getXpnHost answers projects.getXpnHost: the host the project is attached
// to, or an empty project when it is attached to none.
func (s *Service) getXpnHost(r *googleapi.Call) (any, error) {
	project, err := projectOf(r)
	if err != nil {
		return nil, err
	}
	v, err := s.sharedVpcOf(r.Context(), project)
	if err != nil || v.HostProject == "" {
		return map[string]any{}, err
	}
	return s.projectResource(v.HostProject, xpnHost), nil
}

// getXpnResources answers projects.getXpnResources: the service projects
// attached to the host, all in one page.
func (s *Service) getXpnResources(r *googleapi.Call) (any, error) {
	project, err := projectOf(r)
	if err != nil {
		return nil, err
	}
	services, err := s.serviceProjectsOf(r.Context(), project)
	if err != nil {
		return nil, err
	}
	resources := make([]map[string]string, len(services))
	for i, p := range services {
		resources[i] = map[string]string{"id": p, "type": "PROJECT"}
	}
	return map[string]any{"kind": "compute#projectsGetXpnResources", "resources": resources}, nil
}

// listXpnHosts answers projects.listXpnHosts: every host project, all in
// one page (the emulator has no organizations: the body's is not read).
func (s *Service) listXpnHosts(r *googleapi.Call) (any, error) {
	project, err := projectOf(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		Organization string `json:"organization"`
	}
	if err := s.ReadJSON(r, "ProjectsListXpnHostsRequest", &req); err != nil {
		return nil, err
	}
	all, err := s.sharedVpcs(r.Context())
	if err != nil {
		return nil, err
	}
	var hosts []string
	for p, v := range all {
		if v.Host {
			hosts = append(hosts, p)
		}
	}
	slices.Sort(hosts)
	items := []map[string]any{}
	for _, p := range hosts {
		items = append(items, s.projectResource(p, xpnHost))
	}
	return map[string]any{"kind": "compute#xpnHostList", "id": "projects/" + project + "/listXpnHosts",
		"selfLink": s.Link("projects/" + project + "/listXpnHosts"), "items": items}, nil
}

// usableFields are the fields of a subnetwork that
// subnetworks.listUsable answers of it (UsableSubnetwork).
var usableFields = []string{"network", "ipCidrRange", "secondaryIpRanges", "stackType", "ipv6AccessType",
	"purpose", "role", "externalIpv6Prefix", "internalIpv6Prefix"}

// listUsableSubnetworks answers subnetworks.listUsable: the subnetworks the
// project may put instances in, its own and, for a service project, its
// host's, in pages of maxResults. Without IAM every one of them is usable.
func (s *Service) listUsableSubnetworks(r *googleapi.Call) (any, error) {
	project, err := projectOf(r)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{"filter", "orderBy"} {
		if v := r.Query().Get(p); v != "" {
			return nil, googleapi.Invalid("%s (%q) is not one the emulator answers on listUsable: list all, then choose.", p, v)
		}
	}
	projects := map[string]bool{project: true}
	if v, err := s.sharedVpcOf(r.Context(), project); err != nil {
		return nil, err
	} else if v.HostProject != "" {
		projects[v.HostProject] = true
	}
	all, err := s.Store.All(r.Context(), api.CollectionSubnetworks)
	if err != nil {
		return nil, err
	}
	var items []map[string]any
	for _, o := range all {
		if !projects[o.Key.Project] {
			continue
		}
		var sn map[string]any
		if err := json.Unmarshal(o.Body, &sn); err != nil {
			return nil, err
		}
		item := map[string]any{"subnetwork": s.Link(o.Key.Path())}
		for _, f := range usableFields {
			if v, ok := sn[f]; ok {
				item[f] = v
			}
		}
		items = append(items, item)
	}
	slices.SortFunc(items, func(a, b map[string]any) int {
		return strings.Compare(a["subnetwork"].(string), b["subnetwork"].(string))
	})
	page, next, err := core.Page(r, items)
	if err != nil {
		return nil, err
	}
	self := "projects/" + project + "/aggregated/subnetworks/listUsable"
	out := map[string]any{"kind": "compute#usableSubnetworksAggregatedList", "id": self, "selfLink": s.Link(self), "items": page}
	if next != "" {
		out["nextPageToken"] = next
	}
	return out, nil
}
