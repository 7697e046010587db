package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// What the health data sources share (lbhealth_backend_health,
// lbhealth_target_pool_health): both map a getHealth answer, a list of
// api.HealthStatus, to a list of objects and four counts. Each names its
// list and says which attributes its objects have.

// healthStatusAttrTypes are every attribute an element may have; a data
// source takes the ones it needs (a target pool has no groups).
var healthStatusAttrTypes = map[string]attr.Type{
	"ip_address":      types.StringType,
	"port":            types.Int64Type,
	"instance":        types.StringType,
	"group":           types.StringType,
	"health_state":    types.StringType,
	"reason":          types.StringType,
	"detail":          types.StringType,
	"last_probe_time": types.StringType,
	"load_balancer":   types.StringType,
	"firewall":        types.StringType,
}

// healthStatusType is the element type of a list with the attributes names.
func healthStatusType(names ...string) types.ObjectType {
	ts := make(map[string]attr.Type, len(names))
	for _, n := range names {
		ts[n] = healthStatusAttrTypes[n]
	}
	return types.ObjectType{AttrTypes: ts}
}

// healthStatusDescriptions describe the attributes of an element; what
// "instance" means differs, so each data source says it.
var healthStatusDescriptions = map[string]string{
	"ip_address": "Address of the endpoint.",
	"port":       "Port of the endpoint; null for `GCE_VM_IP` endpoints.",
	"group":      "URL of the endpoint group of the endpoint.",
	"health_state": "`HEALTHY`, `UNHEALTHY` or `UNKNOWN` (no verdict yet: a new endpoint, or a new " +
		"or changed check).",
	"reason": "Why the endpoint is in its state, such as `BAD_STATUS`, `TIMEOUT`, `CONNECTION_REFUSED`, " +
		"`STOPPED` or `FIREWALL_BLOCKED`; null when there is nothing to say.",
	"detail":          "What the last probe saw, in words.",
	"last_probe_time": "When the endpoint was last probed (RFC 3339); null before the first probe.",
	"load_balancer": "The type of load balancer the endpoint is probed for, as the cloud's tables of prober ranges " +
		"name it, such as `global external Application LB` or `external passthrough Network LB`.",
	"firewall": "What the firewall rules of the endpoint's network do to the cloud's probes, when they keep some " +
		"or all of them out, with the rule to add; null when the probers get in (or the emulator runs with " +
		"`--firewalls off`). With `--firewalls enforce`, an endpoint no probe reaches is `UNHEALTHY` with reason " +
		"`FIREWALL_BLOCKED`.",
}

// healthStatusSchema is the schema of an element of type t; overrides
// replaces descriptions by attribute name.
func healthStatusSchema(t types.ObjectType, overrides map[string]string) schema.NestedAttributeObject {
	attrs := make(map[string]schema.Attribute, len(t.AttrTypes))
	for name, typ := range t.AttrTypes {
		desc, ok := overrides[name]
		if !ok {
			desc = healthStatusDescriptions[name]
		}
		if typ == types.Int64Type {
			attrs[name] = schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
		} else {
			attrs[name] = schema.StringAttribute{Computed: true, MarkdownDescription: desc}
		}
	}
	return schema.NestedAttributeObject{Attributes: attrs}
}

// withHealthCounts is attrs with the counts: members names what is
// counted ("endpoints"), whole what has them ("service").
func withHealthCounts(attrs map[string]schema.Attribute, members, whole string) map[string]schema.Attribute {
	count := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	one := members[:len(members)-1]
	attrs["healthy_count"] = count(fmt.Sprintf("Number of %s `HEALTHY`.", members))
	attrs["unhealthy_count"] = count(fmt.Sprintf("Number of %s `UNHEALTHY`.", members))
	attrs["unknown_count"] = count(fmt.Sprintf("Number of %s with no verdict yet.", members))
	attrs["all_healthy"] = schema.BoolAttribute{Computed: true, MarkdownDescription: fmt.Sprintf("True when the %s has at "+
		"least one %s and every one is `HEALTHY`. A %s with no %s serves nothing: false.", whole, one, whole, one)}
	return attrs
}

// healthSummary is a getHealth answer mapped: the list and its counts.
type healthSummary struct {
	List                                       types.List
	HealthyCount, UnhealthyCount, UnknownCount types.Int64
	AllHealthy                                 types.Bool
}

// summarizeHealth maps statuses, in the emulator's order, to elements of
// type t, and counts the states.
func summarizeHealth(statuses []api.HealthStatus, t types.ObjectType) (healthSummary, diag.Diagnostics) {
	var healthy, unhealthy int64
	elems := make([]attr.Value, 0, len(statuses))
	for _, hs := range statuses {
		switch hs.State() {
		case api.StateHealthy:
			healthy++
		case api.StateUnhealthy:
			unhealthy++
		}
		obj, diags := healthStatusValue(hs, t)
		if diags.HasError() {
			return healthSummary{List: types.ListNull(t)}, diags
		}
		elems = append(elems, obj)
	}
	total := int64(len(statuses))
	list, diags := types.ListValue(t, elems)
	return healthSummary{
		List:           list,
		HealthyCount:   types.Int64Value(healthy),
		UnhealthyCount: types.Int64Value(unhealthy),
		UnknownCount:   types.Int64Value(total - healthy - unhealthy),
		AllHealthy:     types.BoolValue(total > 0 && healthy == total),
	}, diags
}

// healthStatusValue maps one status to an element of type t. Empty strings
// and a missing port (GCE_VM_IP, or an instance written without one) are
// null.
func healthStatusValue(hs api.HealthStatus, t types.ObjectType) (types.Object, diag.Diagnostics) {
	// The emulator reports an endpoint with no verdict yet as UNHEALTHY
	// with reason UNKNOWN, the API's enum having no UNKNOWN: shown here as
	// the state it is.
	state, reason := hs.State(), hs.Reason
	if state == api.ReasonNoVerdict {
		reason = ""
	}
	port := types.Int64Null()
	if hs.Port != 0 {
		port = types.Int64Value(hs.Port)
	}
	str := func(s string) types.String { return flattenString(s, types.StringNull()) }
	all := map[string]attr.Value{
		"ip_address":      types.StringValue(hs.IPAddress),
		"port":            port,
		"instance":        str(hs.Instance),
		"group":           str(hs.Group),
		"health_state":    types.StringValue(state),
		"reason":          str(reason),
		"detail":          str(hs.Detail),
		"last_probe_time": str(hs.LastProbeTime),
		"load_balancer":   str(hs.LoadBalancer),
		"firewall":        str(hs.Firewall),
	}
	attrs := make(map[string]attr.Value, len(t.AttrTypes))
	for name := range t.AttrTypes {
		attrs[name] = all[name]
	}
	return types.ObjectValue(t.AttrTypes, attrs)
}

// referencedScope finds the resource of collection that ref (the data
// source's attribute attrName) names: its own project and region when it is
// a self link or an id, else project and region as configured, with
// defaultProject and defaultRegion ("" for global) when they are empty.
func referencedScope(attrName, ref, collection, project, region, defaultProject, defaultRegion string) (client.Scope, string, error) {
	rid, err := parseResourceID(ref, collection)
	if err != nil {
		return client.Scope{}, "", fmt.Errorf("%s %w", attrName, err)
	}
	if rid.Project != "" {
		if project != "" && project != rid.Project {
			return client.Scope{}, "", fmt.Errorf("%s is in project %q, but project is %q: remove project, or make them agree",
				attrName, rid.Project, project)
		}
		project = rid.Project
	}
	if !rid.Bare {
		if region != "" && region != rid.Region {
			return client.Scope{}, "", fmt.Errorf("%s is %s, but region is %q: remove region, or make them agree",
				attrName, scopeWords(rid.Region), region)
		}
		region = rid.Region
	} else if region == "" {
		region = defaultRegion
	}
	if project == "" {
		project = defaultProject
	}
	return client.Scope{Project: project, Region: region}, rid.Name, nil
}

func scopeWords(region string) string {
	if region == "" {
		return "global"
	}
	return fmt.Sprintf("in region %q", region)
}
