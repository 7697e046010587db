package provider

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// legacyKind is all that tells lbhealth_legacy_http_check from
// lbhealth_legacy_https_check: the collection, and what follows from it.
// Both resources are one implementation parameterised by it.
type legacyKind struct {
	typeSuffix string // Terraform type name after "lbhealth_"
	collection string // api.CollectionHTTPHealthChecks or api.CollectionHTTPSHealthChecks
	protocol   string // "HTTP" or "HTTPS", for words
	usedBy     string // who may use such a check, for words
}

var (
	legacyHTTP = legacyKind{"legacy_http_check", api.CollectionHTTPHealthChecks, "HTTP",
		"target pools (network load balancers) and `EXTERNAL` or `EXTERNAL_MANAGED` global backend services"}
	legacyHTTPS = legacyKind{"legacy_https_check", api.CollectionHTTPSHealthChecks, "HTTPS",
		"`EXTERNAL` or `EXTERNAL_MANAGED` global backend services (target pools take legacy HTTP checks only)"}
)

// noun names the kind in messages: "legacy HTTP health check".
func (k legacyKind) noun() string { return "legacy " + k.protocol + " health check" }

// defaultPort is the port the emulator fills in when none is set.
func (k legacyKind) defaultPort() int64 { return rules.LegacyDefaultPort(k.collection) }

// legacyCheckModel is the Terraform data of both legacy check resources.
type legacyCheckModel struct {
	ID                 types.String `tfsdk:"id"`
	Name               types.String `tfsdk:"name"`
	Description        types.String `tfsdk:"description"`
	Project            types.String `tfsdk:"project"`
	Host               types.String `tfsdk:"host"`
	Port               types.Int64  `tfsdk:"port"`
	RequestPath        types.String `tfsdk:"request_path"`
	CheckIntervalSec   types.Int64  `tfsdk:"check_interval_sec"`
	TimeoutSec         types.Int64  `tfsdk:"timeout_sec"`
	HealthyThreshold   types.Int64  `tfsdk:"healthy_threshold"`
	UnhealthyThreshold types.Int64  `tfsdk:"unhealthy_threshold"`
	SelfLink           types.String `tfsdk:"self_link"`
	CreationTimestamp  types.String `tfsdk:"creation_timestamp"`
	HealthCheckID      types.String `tfsdk:"health_check_id"`
}

// scope is where the check lives: always global. Project must already be
// resolved (ModifyPlan or ImportState fill the provider's default).
func (m *legacyCheckModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString()}
}

// expandLegacyCheck converts a plan or a configuration into the API object.
func expandLegacyCheck(m legacyCheckModel) (*api.LegacyHealthCheck, *expander) {
	e := &expander{}
	return &api.LegacyHealthCheck{
		Meta:               api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		Host:               e.str("host", m.Host),
		RequestPath:        e.str("requestPath", m.RequestPath),
		Port:               e.int64("port", m.Port),
		CheckIntervalSec:   e.int64("checkIntervalSec", m.CheckIntervalSec),
		TimeoutSec:         e.int64("timeoutSec", m.TimeoutSec),
		HealthyThreshold:   e.int64("healthyThreshold", m.HealthyThreshold),
		UnhealthyThreshold: e.int64("unhealthyThreshold", m.UnhealthyThreshold),
	}, e
}

// flattenLegacyCheck converts the API object of collection into Terraform
// data. prior is the plan (Create, Update) or the state (Read): it keeps the
// empty strings the user wrote, which the API omits.
func flattenLegacyCheck(hc *api.LegacyHealthCheck, collection string, scope client.Scope, prior legacyCheckModel) legacyCheckModel {
	return legacyCheckModel{
		ID:                 types.StringValue(scopedID(scope.Project, "", collection, hc.Name)),
		Name:               types.StringValue(hc.Name),
		Description:        flattenString(hc.Description, prior.Description),
		Project:            types.StringValue(scope.Project),
		Host:               flattenString(hc.Host, prior.Host),
		Port:               types.Int64PointerValue(hc.Port),
		RequestPath:        types.StringValue(hc.RequestPath),
		CheckIntervalSec:   types.Int64PointerValue(hc.CheckIntervalSec),
		TimeoutSec:         types.Int64PointerValue(hc.TimeoutSec),
		HealthyThreshold:   types.Int64PointerValue(hc.HealthyThreshold),
		UnhealthyThreshold: types.Int64PointerValue(hc.UnhealthyThreshold),
		SelfLink:           types.StringValue(hc.SelfLink),
		CreationTimestamp:  types.StringValue(hc.CreationTimestamp),
		HealthCheckID:      types.StringValue(strconv.FormatUint(hc.ID, 10)),
	}
}

// legacyCheckConfigViolations checks a raw configuration (no defaults
// applied, as the rules expect) and keeps only the violations that do not
// depend on a value unknown at plan time.
func legacyCheckConfigViolations(config legacyCheckModel) rules.Violations {
	hc, e := expandLegacyCheck(config)
	vs := rules.LegacyHealthCheck(hc)
	vs = append(vs, explicitlyEmptyDefaults(e.empty, map[string]string{"requestPath": rules.DefaultRequestPath})...)
	vs = append(vs, scopeViolations(config.Project, types.StringNull(), types.StringNull())...)
	return knownViolations(vs, e.unknown)
}
