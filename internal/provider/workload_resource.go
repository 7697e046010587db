package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// lbhealth_workload sets the mode of an instance's simulated workload (the
// servers the emulator runs at an instance's address): it is not a Compute
// resource but the emulator's own control, so that a configuration, or a
// `terraform test` run, can break a backend and heal it. While it exists
// the workload is in its mode; destroying it heals the workload ("ok").

var (
	_ resource.Resource                = (*workloadResource)(nil)
	_ resource.ResourceWithConfigure   = (*workloadResource)(nil)
	_ resource.ResourceWithImportState = (*workloadResource)(nil)
)

const workloadNoun = "workload"

type workloadResource struct{ data *providerData }

func newWorkloadResource() resource.Resource { return &workloadResource{} }

// workloadModel is the Terraform data of lbhealth_workload.
type workloadModel struct {
	ID       types.String `tfsdk:"id"`
	Instance types.String `tfsdk:"instance"`
	Mode     types.String `tfsdk:"mode"`
	Address  types.String `tfsdk:"address"`
	State    types.String `tfsdk:"state"`
}

func (r *workloadResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workload"
}

func (r *workloadResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The mode of an instance's simulated workload: the servers the emulator runs at the " +
			"address of an instance it probes (with `--workloads on`, the default), which answer its health checks " +
			"and its load balancers' traffic. While this resource exists the workload is in `mode` (`status-500`, " +
			"`stop`, `hang` ...); destroying it heals the workload (`ok`). It is an lbhealth extension, the " +
			"emulator's own control (`POST /_emulator/workloads/...`), with no counterpart in Google Cloud: a " +
			"configuration or a `terraform test` run uses it to break a backend and watch the probes see it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The instance's path, " +
				"`projects/{project}/zones/{zone}/instances/{name}`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"instance": schema.StringAttribute{Required: true, MarkdownDescription: "The instance: its `id` or " +
				"`self_link`. Changing it replaces the resource (the former instance is healed).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{instancePathValidator{}}},
			"mode": schema.StringAttribute{Required: true, MarkdownDescription: "What the workload does: " +
				workloadModesList() + ". `ok` serves; `stop` refuses every port; `flap` serves 10 s, then is " +
				"stopped 10 s, and so on; the others fail each probe and request in their way (`slow` answers " +
				"HTTP after 6 s).",
				Validators: []validator.String{stringvalidator.OneOf(api.WorkloadModes...)}},
			"address": schema.StringAttribute{Computed: true, MarkdownDescription: "The address the workload serves at."},
			"state": schema.StringAttribute{Computed: true, MarkdownDescription: "The workload's state when last " +
				"read: `BOOTING`, `SERVING`, `STOPPED`, `OFF`, `NOT_SERVED` (its address is not one the emulator " +
				"serves at) or `IDLE` (nothing probes it yet)."},
		},
	}
}

// workloadModesList is the modes, for the schema's description.
func workloadModesList() string {
	out := ""
	for i, m := range api.WorkloadModes {
		if i > 0 {
			out += ", "
		}
		out += "`" + m + "`"
	}
	return out
}

func (r *workloadResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *workloadResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.write(ctx, req.Plan, &resp.State, &resp.Diagnostics, "setting")
}

func (r *workloadResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state workloadModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	w, err := r.data.client.GetWorkload(ctx, state.Instance.ValueString())
	if errors.Is(err, client.ErrNotFound) {
		resp.State.RemoveResource(ctx) // the instance is gone, and its workload with it
		return
	}
	if err != nil {
		addClientError(&resp.Diagnostics, "reading", workloadNoun, err)
		return
	}
	flattenWorkload(w, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *workloadResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.write(ctx, req.Plan, &resp.State, &resp.Diagnostics, "updating")
}

// Delete heals the workload; an instance already gone has none to heal.
func (r *workloadResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state workloadModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	_, err := r.data.client.SetWorkloadMode(ctx, state.Instance.ValueString(), "ok")
	if err != nil && !errors.Is(err, client.ErrNotFound) {
		addClientError(&resp.Diagnostics, "healing", workloadNoun, err)
	}
}

// ImportState takes the instance's path: the workload keeps the mode it
// has, which the read that follows records.
func (r *workloadResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if msg := (instancePathValidator{}).check(req.ID); msg != "" {
		resp.Diagnostics.AddError("Invalid import id", msg)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("instance"), req.ID)...)
}

// write puts the workload of the planned instance in the planned mode,
// and records what the emulator says of it in state.
func (r *workloadResource) write(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics, action string) {
	var m workloadModel
	if diags.Append(plan.Get(ctx, &m)...); diags.HasError() {
		return
	}
	w, err := r.data.client.SetWorkloadMode(ctx, m.Instance.ValueString(), m.Mode.ValueString())
	if err != nil {
		addClientError(diags, action, workloadNoun, err)
		return
	}
	flattenWorkload(w, &m)
	diags.Append(state.Set(ctx, m)...)
}

// instancePathValidator accepts an instance's id or self link: a path
// projects/{project}/zones/{zone}/instances/{name}.
type instancePathValidator struct{}

func (instancePathValidator) Description(context.Context) string {
	return "an instance's id or self_link (projects/{project}/zones/{zone}/instances/{name})"
}

func (v instancePathValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v instancePathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := v.check(req.ConfigValue.ValueString()); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid instance", msg)
	}
}

// check says what is wrong with ref ("" when nothing is).
func (instancePathValidator) check(ref string) string {
	parts := strings.Split(api.PathOf(ref), "/")
	if len(parts) == 6 && parts[0] == "projects" && parts[2] == "zones" && parts[4] == api.CollectionInstances && parts[5] != "" {
		return ""
	}
	return fmt.Sprintf("instance (%q) must be an instance's id or self_link, "+
		"projects/{project}/zones/{zone}/instances/{name}: a workload runs at one instance.", ref)
}

// flattenWorkload records what the emulator says of a workload.
func flattenWorkload(w *client.Workload, m *workloadModel) {
	m.ID = types.StringValue(w.Instance)
	m.Mode = types.StringValue(w.Mode)
	m.Address = types.StringValue(w.Address)
	m.State = types.StringValue(w.State)
}
