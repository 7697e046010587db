package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// resourceID says where one resource of a scoped collection lives.
type resourceID struct {
	Project string // empty: the provider's project
	Region  string // empty: global (or, when Bare, not said)
	Zone    string // set for a zonal resource only
	Name    string
	// Bare is true when the id named no scope ("{project}/{name}" or
	// "{name}"): the resource may be global or in the provider's region.
	Bare bool
}

// scopedID is the Terraform id of a resource of collection:
// projects/{p}/global/{collection}/{name} or
// projects/{p}/regions/{r}/{collection}/{name}.
func scopedID(project, region, collection, name string) string {
	if region == "" {
		return fmt.Sprintf("projects/%s/global/%s/%s", project, collection, name)
	}
	return fmt.Sprintf("projects/%s/regions/%s/%s/%s", project, region, collection, name)
}

// zonalCollections are the collections whose resources may also live in a
// zone, and so have ids projects/{p}/zones/{z}/{collection}/{name}.
var zonalCollections = map[string]bool{
	api.CollectionNetworkEndpointGroups: true, api.CollectionInstanceGroupManagers: true,
	api.CollectionInstances: true, api.CollectionInstanceGroups: true,
}

// zonalID is the Terraform id of a zonal resource of collection.
func zonalID(project, zone, collection, name string) string {
	return fmt.Sprintf("projects/%s/zones/%s/%s/%s", project, zone, collection, name)
}

// zonalOrRegional is where a resource that is zonal or regional lives, and
// its id: the zone or region the API answers with (their URLs, zoneURL and
// regionURL), else those of scope.
func zonalOrRegional(scope client.Scope, zoneURL, regionURL, collection, name string) (zone, region, id string) {
	zone, region = scope.Zone, scope.Region
	if zoneURL != "" || regionURL != "" {
		zone, region = lastPathSegment(zoneURL), lastPathSegment(regionURL)
	}
	if zone != "" {
		return zone, region, zonalID(scope.Project, zone, collection, name)
	}
	return zone, region, scopedID(scope.Project, region, collection, name)
}

// parseImportID parses the import id of a resource of collection. It takes
// the scoped forms of scopedID (also inside a self link), the zonal form of
// zonalID for zonal collections, "{project}/{name}" and "{name}".
func parseImportID(id, collection string) (resourceID, error) {
	rid, err := parseResourceID(id, collection)
	if err != nil {
		return rid, fmt.Errorf("import id %w", err)
	}
	return rid, nil
}

// parseResourceID parses a reference to a resource of collection in the
// forms parseImportID takes.
func parseResourceID(id, collection string) (resourceID, error) {
	raw := id
	if i := strings.Index(id, "://"); i >= 0 { // a self link
		if j := strings.Index(id, "/projects/"); j > i {
			id = id[j+1:]
		}
	}
	parts := strings.Split(strings.Trim(id, "/"), "/")
	var rid resourceID
	switch {
	case len(parts) == 5 && parts[0] == "projects" && parts[2] == "global" && parts[3] == collection:
		rid = resourceID{Project: parts[1], Name: parts[4]}
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "regions" && parts[4] == collection:
		rid = resourceID{Project: parts[1], Region: parts[3], Name: parts[5]}
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "zones" && parts[4] == collection && zonalCollections[collection]:
		rid = resourceID{Project: parts[1], Zone: parts[3], Name: parts[5]}
	case len(parts) == 2 && parts[0] != "projects":
		rid = resourceID{Project: parts[0], Name: parts[1], Bare: true}
	case len(parts) == 1:
		rid = resourceID{Name: parts[0], Bare: true}
	default:
		zonal := ""
		if zonalCollections[collection] {
			zonal = fmt.Sprintf("projects/{project}/zones/{zone}/%s/{name}, ", collection)
		}
		return resourceID{}, fmt.Errorf("%q has none of the forms projects/{project}/global/%s/{name}, "+
			"projects/{project}/regions/{region}/%s/{name}, %s{project}/{name} or {name}", raw, collection, collection, zonal)
	}
	return rid, checkResourceID(rid)
}

func checkResourceID(rid resourceID) error {
	if v := rules.Name("name", rid.Name); v != nil {
		return v
	}
	if v := rules.Project("project", rid.Project); rid.Project != "" && v != nil {
		return v
	}
	if v := rules.Region("region", rid.Region); rid.Region != "" && v != nil {
		return v
	}
	if v := rules.Region("zone", rid.Zone); rid.Zone != "" && v != nil {
		return v
	}
	return nil
}

// lookupFunc reads a resource of one collection, returning an error that
// matches client.ErrNotFound when there is none.
type lookupFunc func(ctx context.Context, scope client.Scope, name string) error

// importState imports a resource of collection (a noun, in errors) from
// its id: a path (also inside a self link), "{project}/{name}" or "{name}".
// It sets id, project, name and, but for global-only collections, region
// (and zone for a zonal id); Read fills the rest, and fails the import when
// there is no such resource. Where a bare name lives depends on scopes:
//   - importGlobal: global, always; a regional id is refused.
//   - importRegional: the provider's region, since it cannot be global (a
//     global id is refused); zonal collections also take zonal ids.
//   - importAnyScope: global if lookup finds it there, else the provider's
//     region.
//   - importZonal: the zone the id names; an id without one is refused.
func importState(ctx context.Context, data *providerData, collection, noun string, scopes importScope, lookup lookupFunc,
	req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	rid, err := parseImportID(req.ID, collection)
	if err == nil {
		err = checkImportScope(req.ID, collection, scopes, rid)
	}
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id", err.Error())
		return
	}
	if data == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider must be configured before importing.")
		return
	}
	if rid.Project == "" {
		rid.Project = data.project
	}
	switch {
	case rid.Bare && scopes == importRegional:
		rid.Region = data.region
	case rid.Bare && scopes == importAnyScope:
		if rid.Region, err = findScope(ctx, data, rid, lookup); err != nil {
			addClientError(&resp.Diagnostics, "importing", noun, err)
			return
		}
	}
	id, region := scopedID(rid.Project, rid.Region, collection, rid.Name), types.StringNull()
	if rid.Region != "" {
		region = types.StringValue(rid.Region)
	}
	if rid.Zone != "" { // only zonal collections parse a zone; their schema has the attribute
		id = zonalID(rid.Project, rid.Zone, collection, rid.Name)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("zone"), rid.Zone)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project"), rid.Project)...)
	if scopes == importRegional || scopes == importAnyScope { // the others have no region attribute
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("region"), region)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), rid.Name)...)
}

// checkImportScope refuses an id of a scope the collection has none of.
func checkImportScope(id, collection string, scopes importScope, rid resourceID) error {
	switch {
	case scopes == importGlobal && rid.Region != "":
		return fmt.Errorf("import id %q is regional, but %s are always global: use "+
			"projects/{project}/global/%s/{name}, {project}/{name} or {name}", id, collection, collection)
	case scopes == importZonal && rid.Zone == "":
		return fmt.Errorf("import id %q names no zone, but %s are zonal: import by projects/{project}/zones/{zone}/%s/{name}",
			id, collection, collection)
	case scopes == importRegional && !rid.Bare && rid.Region == "" && rid.Zone == "":
		what, zonal := "regional only", ""
		if zonalCollections[collection] {
			what, zonal = "zonal or regional", fmt.Sprintf("projects/{project}/zones/{zone}/%s/{name}, ", collection)
		}
		return fmt.Errorf("import id %q is global, but %s are %s: import by %s"+
			"projects/{project}/regions/{region}/%s/{name}, {project}/{name} or {name} (in the provider's region)",
			id, collection, what, zonal, collection)
	}
	return nil
}

// findScope finds where a bare name lives: global first, then the
// provider's region. It returns the region ("" for global).
func findScope(ctx context.Context, data *providerData, rid resourceID, lookup lookupFunc) (string, error) {
	for _, region := range []string{"", data.region} {
		err := lookup(ctx, client.Scope{Project: rid.Project, Region: region}, rid.Name)
		if err == nil {
			return region, nil
		}
		if !errors.Is(err, client.ErrNotFound) {
			return "", err
		}
	}
	return "", fmt.Errorf("no resource named %q in project %q, neither global nor in region %q (the provider's region): "+
		"import it by its full id, projects/{project}/regions/{region}/.../{name}", rid.Name, rid.Project, data.region)
}
