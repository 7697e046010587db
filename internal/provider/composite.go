package provider

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// What lbhealth_aggregation_policy, lbhealth_health_source and
// lbhealth_composite_check share: they are regional only, so their region,
// like their project, defaults to the provider's (planStep.region); and
// they are updated with PATCH, a fingerprint and an updateMask.

// planID is the id a resource will have, unknown while its project, region
// or name is; a null region makes it global.
func planID(project, region, name types.String, collection string) types.String {
	if project.IsUnknown() || region.IsUnknown() || name.IsUnknown() {
		return types.StringUnknown()
	}
	return types.StringValue(scopedID(project.ValueString(), region.ValueString(), collection, name.ValueString()))
}

// regionalRefs resolves the references a regional resource makes: a bare
// name is in the resource's own region, as the emulator reads it.
func regionalRefs(project, region types.String) refResolver {
	return refResolver{project: project.ValueString(), scopePath: "regions/" + region.ValueString()}
}

// updateMask lists the fields (of those a resource lets Terraform change in
// place) whose API values differ between the plan's object and the state's.
// Sending only those keeps a PATCH to what the user changed; a field in the
// mask that the plan leaves unset goes back to its default, as removing it
// from the configuration means. With no difference (an update that changes
// only how a reference is written) it names every mutable field: the PATCH
// then still checks the fingerprint and changes nothing.
func updateMask(plan, state any, mutable ...string) []string {
	p, s := jsonFields(plan), jsonFields(state)
	var mask []string
	for _, field := range mutable {
		if !reflect.DeepEqual(p[field], s[field]) {
			mask = append(mask, field)
		}
	}
	if len(mask) == 0 {
		return mutable
	}
	return mask
}

// jsonFields is an API object as its top-level JSON fields. Our API types
// always marshal, so errors cannot happen.
func jsonFields(obj any) map[string]any {
	b, _ := json.Marshal(obj)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// keepEquivalentRefList plans, for each reference of a list written in
// another form than the state's but naming the same resource, the state's
// form (see keepEquivalentRefs of backend services).
func keepEquivalentRefList(plan, state types.List, refs refResolver, collection string, diags *diag.Diagnostics) types.List {
	return keepEquivalentList(plan, state, types.StringType, func(p, s attr.Value) attr.Value {
		return keepEquivalent(refs, p, s, collection)
	}, diags)
}

// keepEquivalentRef is keepEquivalentRefList for one reference.
func keepEquivalentRef(plan, state types.String, refs refResolver, collection string) types.String {
	v, _ := keepEquivalent(refs, plan, state, collection).(types.String)
	return v
}

// sameScope tells whether a plan keeps the state's project and region: only
// then do references resolve alike in both.
func sameScope(planProject, planRegion, stateProject, stateRegion types.String) bool {
	return planProject.Equal(stateProject) && planRegion.Equal(stateRegion)
}

// planFingerprint plans the state's fingerprint when the plan changes
// nothing else, and an unknown one (every write changes it) otherwise. The
// framework marks it unknown as soon as the configuration differs from the
// state, even when ModifyPlan then finds the difference to be only how a
// reference is written: without this, such a plan would show an update.
func planFingerprint(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() {
		return // a create: unknown until the emulator answers
	}
	fp := path.Root("fingerprint")
	var prior types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, fp, &prior)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, fp, prior)...)
	if resp.Diagnostics.HasError() || resp.Plan.Raw.Equal(req.State.Raw) {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, fp, types.StringUnknown())...)
}
