package provider

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// managerMutable are the API fields an update may change; the rest
// replaces the group.
var managerMutable = []string{"instanceTemplate", "targetSize", "namedPorts", "autoHealingPolicies"}

// instanceGroupManagerModel is the Terraform data of
// lbhealth_instance_group_manager.
type instanceGroupManagerModel struct {
	ID                  types.String `tfsdk:"id"`
	Name                types.String `tfsdk:"name"`
	Description         types.String `tfsdk:"description"`
	Project             types.String `tfsdk:"project"`
	Zone                types.String `tfsdk:"zone"`
	Region              types.String `tfsdk:"region"`
	BaseInstanceName    types.String `tfsdk:"base_instance_name"`
	InstanceTemplate    types.String `tfsdk:"instance_template"`
	TargetSize          types.Int64  `tfsdk:"target_size"`
	NamedPorts          types.List   `tfsdk:"named_port"`
	AutoHealingPolicies types.List   `tfsdk:"auto_healing_policies"`
	InstanceGroup       types.String `tfsdk:"instance_group"`
	Fingerprint         types.String `tfsdk:"fingerprint"`
	SelfLink            types.String `tfsdk:"self_link"`
	CreationTimestamp   types.String `tfsdk:"creation_timestamp"`
	ManagerID           types.String `tfsdk:"manager_id"`
}

// scope is where the group lives: its zone, else its region.
func (m *instanceGroupManagerModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString(), Zone: m.Zone.ValueString()}
}

// refs resolves the group's references: a bare template name is global, a
// bare health check name global too (the API's default for a group).
func (m *instanceGroupManagerModel) refs() refResolver {
	return refResolver{project: m.Project.ValueString(), scopePath: "global"}
}

var (
	autoHealingAttrTypes = map[string]attr.Type{
		"health_check": types.StringType, "initial_delay_sec": types.Int64Type, "hook_url": types.StringType,
	}
	autoHealingType = types.ObjectType{AttrTypes: autoHealingAttrTypes}
)

// managerNaming spells the API's field paths in Terraform names.
var managerNaming = terraformNaming(map[string]string{"namedPorts": "named_port"})

// expandInstanceGroupManager converts a plan, a state or a configuration
// into the API object.
func expandInstanceGroupManager(m instanceGroupManagerModel) (*api.InstanceGroupManager, *expander) {
	e := &expander{}
	g := &api.InstanceGroupManager{
		Meta:             api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		BaseInstanceName: e.str("baseInstanceName", m.BaseInstanceName),
		InstanceTemplate: e.str("instanceTemplate", m.InstanceTemplate),
		TargetSize:       e.int64("targetSize", m.TargetSize),
		NamedPorts:       expandNamedPorts(e, "namedPorts", m.NamedPorts),
	}
	for i, attrs := range e.objects("autoHealingPolicies", m.AutoHealingPolicies) {
		field := fmt.Sprintf("autoHealingPolicies[%d]", i)
		g.AutoHealingPolicies = append(g.AutoHealingPolicies, api.AutoHealingPolicy{
			HealthCheck:     e.str(field+".healthCheck", stringAttr(attrs, "health_check")),
			InitialDelaySec: e.int64(field+".initialDelaySec", int64Attr(attrs, "initial_delay_sec")),
			HookURL:         e.str(field+".hookUrl", stringAttr(attrs, "hook_url")),
		})
	}
	return g, e
}

// flattenInstanceGroupManager converts the API object into Terraform data;
// prior keeps the form the user wrote references in.
func flattenInstanceGroupManager(g *api.InstanceGroupManager, scope client.Scope, prior instanceGroupManagerModel) (instanceGroupManagerModel, diag.Diagnostics) {
	zone, region, id := zonalOrRegional(scope, g.Zone, g.Region, api.CollectionInstanceGroupManagers, g.Name)
	m := instanceGroupManagerModel{
		ID:                types.StringValue(id),
		Name:              types.StringValue(g.Name),
		Description:       flattenString(g.Description, prior.Description),
		Project:           types.StringValue(scope.Project),
		Zone:              flattenString(zone, types.StringNull()),
		Region:            flattenString(region, types.StringNull()),
		BaseInstanceName:  types.StringValue(g.BaseInstanceName),
		TargetSize:        types.Int64PointerValue(g.TargetSize),
		InstanceGroup:     types.StringValue(g.InstanceGroup),
		Fingerprint:       types.StringValue(g.Fingerprint),
		SelfLink:          types.StringValue(g.SelfLink),
		CreationTimestamp: types.StringValue(g.CreationTimestamp),
		ManagerID:         types.StringValue(strconv.FormatUint(g.ID, 10)),
	}
	refs := m.refs()
	m.InstanceTemplate = refs.flatten(g.Template(), prior.InstanceTemplate, api.CollectionInstanceTemplates)
	var diags, d diag.Diagnostics
	m.NamedPorts, d = flattenNamedPorts(g.NamedPorts)
	diags.Append(d...)
	m.AutoHealingPolicies, d = flattenAutoHealing(g.AutoHealingPolicies, prior.AutoHealingPolicies, refs)
	diags.Append(d...)
	return m, diags
}

// flattenAutoHealing maps the autohealing policies, keeping the form of the
// health check reference (and the "" of a hook) the prior value has at the
// same position.
func flattenAutoHealing(policies []api.AutoHealingPolicy, prior types.List, refs refResolver) (types.List, diag.Diagnostics) {
	priorElems := listElements(prior)
	elems := make([]attr.Value, 0, len(policies))
	for i, p := range policies {
		priorCheck, priorHook := types.StringNull(), types.StringNull()
		if i < len(priorElems) {
			if obj, ok := priorElems[i].(types.Object); ok && !obj.IsNull() && !obj.IsUnknown() {
				priorCheck, priorHook = stringAttr(obj.Attributes(), "health_check"), stringAttr(obj.Attributes(), "hook_url")
			}
		}
		obj, diags := types.ObjectValue(autoHealingAttrTypes, map[string]attr.Value{
			"health_check":      refs.flatten(p.HealthCheck, priorCheck, api.CollectionHealthChecks),
			"initial_delay_sec": types.Int64PointerValue(p.InitialDelaySec),
			"hook_url":          flattenString(p.HookURL, priorHook),
		})
		if diags.HasError() {
			return types.ListNull(autoHealingType), diags
		}
		elems = append(elems, obj)
	}
	return types.ListValue(autoHealingType, elems)
}

// keepEquivalentManagerRefs plans the state's form of references the
// configuration writes in another form that names the same resources: no
// diff for a change that changes nothing.
func keepEquivalentManagerRefs(plan *instanceGroupManagerModel, state instanceGroupManagerModel) diag.Diagnostics {
	if !plan.Project.Equal(state.Project) {
		return nil
	}
	refs := state.refs()
	plan.InstanceTemplate = keepEquivalentRef(plan.InstanceTemplate, state.InstanceTemplate, refs, api.CollectionInstanceTemplates)
	var diags diag.Diagnostics
	plan.AutoHealingPolicies = keepEquivalentObjectRefs(plan.AutoHealingPolicies, state.AutoHealingPolicies, autoHealingType,
		"health_check", refs, api.CollectionHealthChecks, &diags)
	return diags
}

// instanceGroupManagerConfigViolations checks a raw configuration with the
// emulator's rules and keeps the violations that read no unknown value.
// That the template and the check exist needs them: the emulator checks
// it at apply.
func instanceGroupManagerConfigViolations(config instanceGroupManagerModel) rules.Violations {
	g, e := expandInstanceGroupManager(config)
	vs := rules.InstanceGroupManager(g)
	vs = append(vs, scopeViolations(config.Project, config.Region, config.Zone)...)
	return knownViolations(vs, e.unknown)
}
