package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// crud is the Create, Read, Update and Delete that every resource shares
// (read plan or state, call the client, flatten, set state), written once so
// that the resources cannot drift apart in how they report errors or treat
// an object deleted out of band. M is the Terraform model, A the API object
// pointer. What differs between resources is a hook here, set where the
// resource declares its driver, never a branch on the resource's kind.
type crud[M, A any] struct {
	noun    string // in diagnostics: "Error creating <noun>"
	scope   func(*M) client.Scope
	name    func(M) string
	expand  func(M) A
	flatten func(got A, scope client.Scope, prior M) (M, diag.Diagnostics)

	// The client comes first, before ctx, so that its methods fit as method
	// expressions: insert: (*client.Client).InsertHealthCheck.
	insert func(*client.Client, context.Context, client.Scope, A) (A, error)
	get    func(*client.Client, context.Context, client.Scope, string) (A, error)
	del    func(*client.Client, context.Context, client.Scope, string) error

	// Exactly one of put and patch is set. put replaces the whole object.
	put func(*client.Client, context.Context, client.Scope, A) (A, error)
	// patch is the update of the types with optimistic locking:
	// it sends only the mutable fields that changed, with the fingerprint
	// the prior state holds, so Update reads the state as well as the plan.
	patch          func(c *client.Client, ctx context.Context, scope client.Scope, name string, obj A, mask ...string) (A, error)
	mutable        []string
	setFingerprint func(obj A, state M)
}

// getter is a plan, a state or a configuration.
type getter interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// load reads the model M from a plan or a state; false (with diags) when it
// cannot.
func load[M any](ctx context.Context, from getter, diags *diag.Diagnostics) (M, bool) {
	var m M
	diags.Append(from.Get(ctx, &m)...)
	return m, !diags.HasError()
}

func (d crud[M, A]) create(ctx context.Context, data *providerData, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := load[M](ctx, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	got, err := d.insert(data.client, ctx, d.scope(&plan), d.expand(plan))
	if err != nil {
		addClientError(&resp.Diagnostics, "creating", d.noun, err)
		return
	}
	d.setState(ctx, got, d.scope(&plan), plan, &resp.State, &resp.Diagnostics)
}

func (d crud[M, A]) read(ctx context.Context, data *providerData, req resource.ReadRequest, resp *resource.ReadResponse) {
	prior, ok := load[M](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	got, err := d.get(data.client, ctx, d.scope(&prior), d.name(prior))
	if errors.Is(err, client.ErrNotFound) {
		resp.State.RemoveResource(ctx) // deleted out of band: plan to create it again
		return
	}
	if err != nil {
		addClientError(&resp.Diagnostics, "reading", d.noun, err)
		return
	}
	d.setState(ctx, got, d.scope(&prior), prior, &resp.State, &resp.Diagnostics)
}

func (d crud[M, A]) update(ctx context.Context, data *providerData, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if d.patch != nil {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	var got A
	var err error
	if d.patch != nil {
		got, err = d.patchUpdate(ctx, data.client, plan, state)
	} else {
		got, err = d.put(data.client, ctx, d.scope(&plan), d.expand(plan))
	}
	if err != nil {
		addClientError(&resp.Diagnostics, "updating", d.noun, err)
		return
	}
	d.setState(ctx, got, d.scope(&plan), plan, &resp.State, &resp.Diagnostics)
}

// patchUpdate computes the mask before the fingerprint is set, so that the
// fingerprint never counts as a changed field.
func (d crud[M, A]) patchUpdate(ctx context.Context, c *client.Client, plan, state M) (A, error) {
	obj, prior := d.expand(plan), d.expand(state)
	mask := updateMask(obj, prior, d.mutable...)
	d.setFingerprint(obj, state)
	return d.patch(c, ctx, d.scope(&plan), d.name(plan), obj, mask...)
}

func (d crud[M, A]) delete(ctx context.Context, data *providerData, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := load[M](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	err := d.del(data.client, ctx, d.scope(&state), d.name(state))
	if err != nil && !errors.Is(err, client.ErrNotFound) { // already gone is what we wanted
		addClientError(&resp.Diagnostics, "deleting", d.noun, err)
	}
}

// setState flattens what the API returned over prior (the plan, or the state
// on Read), which is how values the API does not echo survive, and stores it
// even when flatten has warned or failed, as the resources always have.
func (d crud[M, A]) setState(ctx context.Context, got A, scope client.Scope, prior M, state *tfsdk.State, diags *diag.Diagnostics) {
	m, flattenDiags := d.flatten(got, scope, prior)
	diags.Append(flattenDiags...)
	diags.Append(state.Set(ctx, m)...)
}

// ignoreSecond adapts an expand function to the driver: the second result
// (what the expander saw) serves plan-time validation, not the API call.
func ignoreSecond[M, A, X any](expand func(M) (A, X)) func(M) A {
	return func(m M) A {
		a, _ := expand(m)
		return a
	}
}

// noDiags adapts a flatten function that cannot fail to the driver.
func noDiags[M, A any](flatten func(A, client.Scope, M) M) func(A, client.Scope, M) (M, diag.Diagnostics) {
	return func(got A, scope client.Scope, prior M) (M, diag.Diagnostics) {
		return flatten(got, scope, prior), nil
	}
}

// noUpdate is the update of a resource whose every attribute replaces it
// when it changes: Terraform never calls it, and says so if it ever did.
func noUpdate[A any](noun string) func(*client.Client, context.Context, client.Scope, A) (A, error) {
	return func(*client.Client, context.Context, client.Scope, A) (A, error) {
		var zero A
		return zero, fmt.Errorf("a %s cannot change in place: every change replaces it", noun)
	}
}
