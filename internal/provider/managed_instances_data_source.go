package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

func newManagedInstancesDataSource() datasource.DataSource {
	return &readDataSource[managedInstancesModel]{typeName: "managed_instances", schema: managedInstancesSchema, read: readManagedInstances}
}

// managedInstancesModel is the Terraform data of lbhealth_managed_instances.
type managedInstancesModel struct {
	ID                   types.String `tfsdk:"id"`
	InstanceGroupManager types.String `tfsdk:"instance_group_manager"`
	Project              types.String `tfsdk:"project"`
	Zone                 types.String `tfsdk:"zone"`
	Region               types.String `tfsdk:"region"`
	TargetSize           types.Int64  `tfsdk:"target_size"`
	IsStable             types.Bool   `tfsdk:"is_stable"`
	RecreateLoop         types.String `tfsdk:"recreate_loop"`
	Instances            types.List   `tfsdk:"instances"`
}

// managedInstanceType is the element type of instances.
var managedInstanceType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"name": types.StringType, "instance": types.StringType, "instance_id": types.StringType,
	"instance_status": types.StringType, "current_action": types.StringType, "health_state": types.StringType,
}}

func managedInstancesSchema() schema.Schema {
	str := func(d string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d}
	}
	return schema.Schema{
		MarkdownDescription: "Reads the instances of a managed instance group (made by `google_compute_instance_group_manager` " +
			"or `google_compute_region_instance_group_manager` against the emulator) and what autohealing is doing to them " +
			"(`instanceGroupManagers.listManagedInstances`): each instance's status, current action (`RECREATING`, " +
			"`VERIFYING`, `NONE`) and the autohealing check's verdict, so that a `check` block or a postcondition can " +
			"assert on it. Terraform reads it at every plan: the values are those of that moment.",
		Attributes: map[string]schema.Attribute{
			"id": str("Id of the group: `projects/{project}/zones/{zone}/instanceGroupManagers/{name}` or " +
				"`projects/{project}/regions/{region}/instanceGroupManagers/{name}`."),
			"instance_group_manager": schema.StringAttribute{Required: true,
				MarkdownDescription: "The group: its `self_link`, its `id`, or its name with `zone` or `region`."},
			"project": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Project of the group when `instance_group_manager` does not say. Defaults to the provider's `project`."},
			"zone": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Zone of a zonal group named by its name."},
			"region": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Region of a regional group named by its name."},
			"target_size": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many instances the group keeps."},
			"is_stable": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "True when no instance is being recreated or verified."},
			"recreate_loop": str("Empty, or which instance autohealing keeps recreating before it could pass its first " +
				"check, and why (an initial delay shorter than the instance's start-up, usually)."),
			"instances": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The group's instances, in the group's order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":            str("Name of the instance."),
					"instance":        str("URL of the instance."),
					"instance_id":     str("Numeric id of the instance: a recreated instance has a new one."),
					"instance_status": str("`RUNNING`, or `STOPPING` while it is recreated."),
					"current_action":  str("`NONE`, `RECREATING` or `VERIFYING`."),
					"health_state": str("The autohealing check's verdict: `HEALTHY`, `UNHEALTHY` or `UNKNOWN`; " +
						"null without an autohealing policy."),
				}}},
		},
	}
}

// managedGroup is what the data source reads: the group and its instances.
type managedGroup struct {
	manager   *api.InstanceGroupManager
	instances *api.ListManagedInstancesResponse
}

var readManagedInstances = readHealth("instance_group_manager", "managed instance group", managedGroupScope,
	func(ctx context.Context, c *client.Client, scope client.Scope, name string, _ managedInstancesModel) (managedGroup, error) {
		m, err := c.GetInstanceGroupManager(ctx, scope, name)
		if err != nil {
			return managedGroup{}, err
		}
		list, err := c.ListManagedInstances(ctx, scope, name)
		return managedGroup{m, list}, err
	},
	flattenManagedInstances)

// managedGroupScope finds the group instance_group_manager names: its id
// or link says its zone or region; a name needs zone or region.
func managedGroupScope(m managedInstancesModel, data *providerData) (client.Scope, string, error) {
	rid, err := parseResourceID(m.InstanceGroupManager.ValueString(), api.CollectionInstanceGroupManagers)
	if err != nil {
		return client.Scope{}, "", fmt.Errorf("instance_group_manager %w", err)
	}
	scope := client.Scope{Project: rid.Project, Region: rid.Region, Zone: rid.Zone}
	if rid.Bare {
		scope.Zone, scope.Region = m.Zone.ValueString(), m.Region.ValueString()
	}
	switch {
	case rid.Bare && scope.Zone == "" && scope.Region == "":
		return scope, "", fmt.Errorf("instance_group_manager %q is a name: set zone (a zonal group) or region (a regional one), or give its id", rid.Name)
	case scope.Zone != "" && scope.Region != "":
		return scope, "", fmt.Errorf("zone and region are both set: a managed group is in one of them")
	}
	if p := m.Project.ValueString(); p != "" && rid.Project != "" && p != rid.Project {
		return scope, "", fmt.Errorf("instance_group_manager is in project %q, but project is %q: remove project, or make them agree", rid.Project, p)
	} else if scope.Project == "" {
		scope.Project = p
	}
	if scope.Project == "" {
		scope.Project = data.project
	}
	return scope, rid.Name, nil
}

func flattenManagedInstances(g managedGroup, scope client.Scope, name string, config managedInstancesModel) (managedInstancesModel, diag.Diagnostics) {
	m := config
	where := "zones/" + scope.Zone
	if scope.Zone == "" {
		where = "regions/" + scope.Region
	}
	m.ID = types.StringValue(fmt.Sprintf("projects/%s/%s/%s/%s", scope.Project, where, api.CollectionInstanceGroupManagers, name))
	m.Project, m.Zone, m.Region = types.StringValue(scope.Project), types.StringValue(scope.Zone), types.StringValue(scope.Region)
	m.TargetSize = types.Int64PointerValue(g.manager.TargetSize)
	m.IsStable = types.BoolValue(g.manager.Status == nil || g.manager.Status.IsStable)
	m.RecreateLoop = types.StringValue("")
	if g.manager.Status != nil {
		m.RecreateLoop = types.StringValue(g.manager.Status.RecreateLoop)
	}
	items := make([]attr.Value, 0, len(g.instances.ManagedInstances))
	var diags diag.Diagnostics
	for _, mi := range g.instances.ManagedInstances {
		health := types.StringNull()
		if len(mi.InstanceHealth) > 0 {
			health = types.StringValue(mi.InstanceHealth[0].DetailedHealthState)
		}
		obj, d := types.ObjectValue(managedInstanceType.AttrTypes, map[string]attr.Value{
			"name": types.StringValue(mi.Name), "instance": types.StringValue(mi.Instance), "instance_id": types.StringValue(mi.ID),
			"instance_status": types.StringValue(mi.InstanceStatus), "current_action": types.StringValue(mi.CurrentAction),
			"health_state": health,
		})
		diags.Append(d...)
		items = append(items, obj)
	}
	list, d := types.ListValue(managedInstanceType, items)
	diags.Append(d...)
	m.Instances = list
	return m, diags
}
