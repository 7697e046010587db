package provider

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// targetPoolModel is the Terraform data of lbhealth_target_pool.
type targetPoolModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Description       types.String `tfsdk:"description"`
	Project           types.String `tfsdk:"project"`
	Region            types.String `tfsdk:"region"`
	Instances         types.List   `tfsdk:"instances"`
	HealthChecks      types.List   `tfsdk:"health_checks"`
	SelfLink          types.String `tfsdk:"self_link"`
	CreationTimestamp types.String `tfsdk:"creation_timestamp"`
	TargetPoolID      types.String `tfsdk:"target_pool_id"`
}

// scope is where the pool lives. Project and region must already be
// resolved (ModifyPlan or ImportState fill the provider's defaults).
func (m *targetPoolModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString()}
}

// checkRefs resolves the pool's check references. Legacy checks are global,
// so the emulator reads a bare name as a global legacy HTTP check, whatever
// the pool's region.
func (m *targetPoolModel) checkRefs() refResolver {
	return refResolver{project: m.Project.ValueString(), scopePath: "global"}
}

// expandTargetPool converts a plan or a configuration into the API object.
// The check reference is sent as written: the emulator resolves it.
func expandTargetPool(m targetPoolModel) (*api.TargetPool, *expander) {
	e := &expander{}
	return &api.TargetPool{
		Meta:         api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		Instances:    e.strings("instances", m.Instances),
		HealthChecks: e.strings("healthChecks", m.HealthChecks),
	}, e
}

// flattenTargetPool converts the API object into Terraform data. prior is
// the plan (Create, Update) or the state (Read): it keeps the empty values
// and the form of the check reference the user wrote.
func flattenTargetPool(tp *api.TargetPool, scope client.Scope, prior targetPoolModel) (targetPoolModel, diag.Diagnostics) {
	region := scope.Region
	if tp.Region != "" {
		region = lastPathSegment(tp.Region) // the API gives the region's URL
	}
	m := targetPoolModel{
		ID:                types.StringValue(scopedID(scope.Project, region, api.CollectionTargetPools, tp.Name)),
		Name:              types.StringValue(tp.Name),
		Description:       flattenString(tp.Description, prior.Description),
		Project:           types.StringValue(scope.Project),
		Region:            types.StringValue(region),
		SelfLink:          types.StringValue(tp.SelfLink),
		CreationTimestamp: types.StringValue(tp.CreationTimestamp),
		TargetPoolID:      types.StringValue(strconv.FormatUint(tp.ID, 10)),
	}
	var diags diag.Diagnostics
	var err error
	if m.Instances, err = flattenStrings(tp.Instances, prior.Instances); err != nil {
		diags.AddError("Cannot map instances", err.Error())
	}
	var d diag.Diagnostics
	m.HealthChecks, d = flattenRefList(tp.HealthChecks, prior.HealthChecks, m.checkRefs(), api.CollectionHTTPHealthChecks)
	diags.Append(d...)
	return m, diags
}

// keepEquivalentCheckRefs plans the state's form of a check reference the
// configuration writes in another form that names the same check (see
// keepEquivalentRefs). Checks are global, so only the project must match.
func keepEquivalentCheckRefs(plan *targetPoolModel, state targetPoolModel) diag.Diagnostics {
	if !plan.Project.Equal(state.Project) {
		return nil
	}
	refs := state.checkRefs()
	var diags diag.Diagnostics
	plan.HealthChecks = keepEquivalentRefList(plan.HealthChecks, state.HealthChecks, refs, api.CollectionHTTPHealthChecks, &diags)
	return diags
}

// targetPoolConfigViolations checks a raw configuration and keeps only the
// violations that do not depend on a value unknown at plan time.
func targetPoolConfigViolations(config targetPoolModel) rules.Violations {
	tp, e := expandTargetPool(config)
	vs := rules.TargetPool(tp)
	vs = append(vs, targetPoolCheckKind(tp, config.checkRefs())...)
	vs = append(vs, scopeViolations(config.Project, config.Region, types.StringNull())...)
	return knownViolations(vs, e.unknown)
}

// targetPoolCheckKind refuses, before any call, a check reference whose
// path shows another collection than httpHealthChecks (a legacy HTTPS or a
// regular check). A bare name could be anything: the emulator looks it up
// as a legacy HTTP check and says when there is none.
func targetPoolCheckKind(tp *api.TargetPool, refs refResolver) rules.Violations {
	if len(tp.HealthChecks) != 1 || tp.HealthChecks[0] == "" { // two: rules.TargetPool says so
		return nil
	}
	ref := tp.HealthChecks[0]
	collection := refs.collection(ref, api.CollectionHTTPHealthChecks)
	if collection == "" {
		return nil // not a reference at all: the emulator says how to write one
	}
	if v := rules.TargetPoolHealthCheck(ref, collection); v != nil {
		return rules.Violations{*v}
	}
	return nil
}
