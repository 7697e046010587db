package provider

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// References between resources (a backend service's groups and health
// check) may be written as a self link, an id ("projects/..."), a path from
// the scope ("zones/z/networkEndpointGroups/x") or a bare name; the emulator
// stores them as URLs. Terraform keeps what the user wrote, so the state
// must too: a planned value must come back unchanged after apply, and a
// refresh must not turn an id into a URL (a diff on every plan).

// refResolver resolves references made by one resource.
type refResolver struct {
	project   string // project of the referring resource
	scopePath string // its scope: "global" or "regions/{region}"
}

// path resolves ref to a "projects/..." path as the emulator does
// (httpapi.parseRef): a bare name lives in the scope of the referrer. It
// returns "" for what it cannot resolve, which then equals nothing.
func (r refResolver) path(ref, collection string) string {
	switch {
	case ref == "":
		return ""
	case api.PathOf(ref) != "":
		return api.PathOf(ref)
	case strings.HasPrefix(ref, "global/") || strings.HasPrefix(ref, "regions/") || strings.HasPrefix(ref, "zones/"):
		return "projects/" + r.project + "/" + ref
	case !strings.Contains(ref, "/"):
		return "projects/" + r.project + "/" + r.scopePath + "/" + collection + "/" + ref
	}
	return ""
}

// flatten maps a reference the API returns to Terraform: the prior value
// (plan or state) when it names the same resource, else the API's URL.
func (r refResolver) flatten(got string, prior types.String, collection string) types.String {
	if !prior.IsNull() && !prior.IsUnknown() {
		if p := r.path(prior.ValueString(), collection); p != "" && p == r.path(got, collection) {
			return prior
		}
	}
	return types.StringValue(got)
}

// collection is the collection ref points into, as the emulator reads it (a
// bare name is in defaultCollection); "" for what it cannot resolve. Plan-time
// checks use it to refuse a reference of the wrong kind before any call.
func (r refResolver) collection(ref, defaultCollection string) string {
	parts := strings.Split(r.path(ref, defaultCollection), "/")
	if len(parts) != 5 && len(parts) != 6 {
		return ""
	}
	return parts[len(parts)-2]
}

// flattenRefList maps a list of references (health_checks): null when the
// API has none, unless the prior value is a known empty list (the user
// wrote []); each element keeps the prior form at its position when it
// names the same resource. A bare name is in collection.
func flattenRefList(urls []string, prior types.List, refs refResolver, collection string) (types.List, diag.Diagnostics) {
	priorElems := listElements(prior)
	if len(urls) == 0 && (prior.IsNull() || prior.IsUnknown() || len(priorElems) > 0) {
		return types.ListNull(types.StringType), nil
	}
	elems := make([]attr.Value, len(urls))
	for i, u := range urls {
		priorRef := types.StringNull()
		if i < len(priorElems) {
			priorRef, _ = priorElems[i].(types.String)
		}
		elems[i] = refs.flatten(u, priorRef, collection)
	}
	return types.ListValue(types.StringType, elems)
}
