package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// legacyCheckCRUD is built per kind: the collection and the noun are what
// tell the HTTP and HTTPS resources apart.
func legacyCheckCRUD(k legacyKind) crud[legacyCheckModel, *api.LegacyHealthCheck] {
	return crud[legacyCheckModel, *api.LegacyHealthCheck]{
		noun:   k.noun(),
		scope:  (*legacyCheckModel).scope,
		name:   func(m legacyCheckModel) string { return m.Name.ValueString() },
		expand: ignoreSecond(expandLegacyCheck),
		flatten: func(got *api.LegacyHealthCheck, scope client.Scope, prior legacyCheckModel) (legacyCheckModel, diag.Diagnostics) {
			return flattenLegacyCheck(got, k.collection, scope, prior), nil
		},
		insert: func(c *client.Client, ctx context.Context, scope client.Scope, hc *api.LegacyHealthCheck) (*api.LegacyHealthCheck, error) {
			return c.InsertLegacyHealthCheck(ctx, scope, k.collection, hc)
		},
		get: func(c *client.Client, ctx context.Context, scope client.Scope, name string) (*api.LegacyHealthCheck, error) {
			return c.GetLegacyHealthCheck(ctx, scope, k.collection, name)
		},
		put: func(c *client.Client, ctx context.Context, scope client.Scope, hc *api.LegacyHealthCheck) (*api.LegacyHealthCheck, error) {
			return c.UpdateLegacyHealthCheck(ctx, scope, k.collection, hc)
		},
		del: func(c *client.Client, ctx context.Context, scope client.Scope, name string) error {
			return c.DeleteLegacyHealthCheck(ctx, scope, k.collection, name)
		},
	}
}

// legacyCheckKind is lbhealth_legacy_http_check or lbhealth_legacy_https_check,
// as k says: the two differ only in their collection and default port.
func legacyCheckKind(k legacyKind) *resourceKind[legacyCheckModel, *api.LegacyHealthCheck] {
	return &resourceKind[legacyCheckModel, *api.LegacyHealthCheck]{
		crud:       legacyCheckCRUD(k),
		typeName:   k.typeSuffix,
		collection: k.collection,
		imports:    importGlobal,
		schema:     k.schema,
		violations: legacyCheckConfigViolations,
		plan: func(s *planStep[legacyCheckModel]) {
			p := s.plan
			p.Project = s.project(s.config.Project, s.state.Project)
			p.ID = planID(p.Project, types.StringNull(), p.Name, k.collection) // always global
		},
	}
}

func newLegacyHTTPCheckResource() resource.Resource {
	return &managedResource[legacyCheckModel, *api.LegacyHealthCheck]{kind: legacyCheckKind(legacyHTTP)}
}

func newLegacyHTTPSCheckResource() resource.Resource {
	return &managedResource[legacyCheckModel, *api.LegacyHealthCheck]{kind: legacyCheckKind(legacyHTTPS)}
}

// descriptions are those of kind's resource; the timing ones not tied to
// source_regions are the regular checks' own.
func (k legacyKind) descriptions() map[string]string {
	hc := healthCheckDescriptions
	return map[string]string{
		"id": fmt.Sprintf("`projects/{project}/global/%s/{name}`. The `health_checks` of %s take it, or "+
			"`self_link`.", k.collection, k.usedBy),
		"name": "Name of the check, unique per project among " + k.noun() + "s: 1-63 characters, a lowercase " +
			"letter first, then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing " +
			"it replaces the check.",
		"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
		"project":     "Project of the check. Defaults to the provider's `project`. Changing it replaces the check.",
		"host":        "Host header of the probe request. Default: the address probed.",
		"port": fmt.Sprintf("Port probed, %d-%d. Default %d, and this attribute shows it. A target-pool instance "+
			"written `ip:port` is probed on its own port.", rules.MinPort, rules.MaxPort, k.defaultPort()),
		"request_path": "Path requested; it must start with `/` and follow RFC 3986, with no query string. Default `/`.",
		"check_interval_sec": fmt.Sprintf("Seconds from the start of one probe to the start of the next probe by "+
			"the same prober, %d-%d. Default %d.", rules.MinSeconds, rules.MaxSeconds, rules.DefaultCheckIntervalSec),
		"timeout_sec":         hc["timeout_sec"],
		"healthy_threshold":   hc["healthy_threshold"],
		"unhealthy_threshold": hc["unhealthy_threshold"],
		"self_link":           "URL of the check, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
		"creation_timestamp":  "When the check was created (RFC 3339).",
		"health_check_id":     "Numeric id the server assigned to the check, as a string.",
	}
}

// schema is the schema of kind's resource.
func (k legacyKind) schema() schema.Schema {
	d := k.descriptions()
	number := func(name string, def int64) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(def),
			MarkdownDescription: d[name]}
	}
	return schema.Schema{
		MarkdownDescription: fmt.Sprintf("A %s, always global, used only by %s; everything else takes an "+
			"`lbhealth_health_check`. Probes pass on status 200 only; every other status, redirects included, "+
			"fails. Only `port` chooses the port. Updates replace the whole object in place; changing `name` or "+
			"`project` replaces the check. A check in use cannot be deleted.", k.noun(), k.usedBy),
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"host": schema.StringAttribute{Optional: true, MarkdownDescription: d["host"]},
			// The default is planned, so a port the emulator fills in never
			// shows as (known after apply) nor as a diff.
			"port": number("port", k.defaultPort()),
			"request_path": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["request_path"],
				Default: stringdefault.StaticString(rules.DefaultRequestPath)},
			"check_interval_sec":  number("check_interval_sec", rules.DefaultCheckIntervalSec),
			"timeout_sec":         number("timeout_sec", rules.DefaultTimeoutSec),
			"healthy_threshold":   number("healthy_threshold", rules.DefaultHealthyThreshold),
			"unhealthy_threshold": number("unhealthy_threshold", rules.DefaultUnhealthyThreshold),
			"health_check_id":     computedString(d, "health_check_id"),
		}),
	}
}
