package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// Waiting for health: a health data source with a wait_for block reads
// again, every healthPoll, until what it reads is as the block asks, or
// its timeout passes (an error that says what it saw; client.Wait). Its
// first read right after an apply then sees the probes' verdicts, not
// their absence.

// DefaultHealthWait is how long a wait_for block waits unless it says.
const DefaultHealthWait = 2 * time.Minute

// healthPoll is how often a waiting data source reads again.
const healthPoll = 500 * time.Millisecond

// endpointsWaitModel is lbhealth_backend_health's wait_for block.
type endpointsWaitModel struct {
	MinHealthy   types.Int64  `tfsdk:"min_healthy"`
	MinUnhealthy types.Int64  `tfsdk:"min_unhealthy"`
	Timeout      types.String `tfsdk:"timeout"`
}

// ready is the test the block asks of what a read gives.
func (w *endpointsWaitModel) ready(statuses []api.HealthStatus) (bool, string) {
	if !w.MinUnhealthy.IsNull() {
		return client.EndpointsUnhealthy(statuses, w.MinUnhealthy.ValueInt64())
	}
	return client.EndpointsHealthy(statuses, w.MinHealthy.ValueInt64())
}

// healthyWaitModel is lbhealth_composite_health's wait_for block.
type healthyWaitModel struct {
	Timeout types.String `tfsdk:"timeout"`
}

// waitTimeoutAttribute is a wait_for block's timeout.
func waitTimeoutAttribute() schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: fmt.Sprintf(
		"How long to wait, as a Go duration (`30s`, `2m`). Default `%s`.", strings.TrimSuffix(DefaultHealthWait.String(), "0s"))}
}

// endpointsWaitBlock is lbhealth_backend_health's wait_for block.
func endpointsWaitBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Wait, reading again every half second, until the endpoints are healthy: at least " +
			"`min_healthy` of them `HEALTHY`, or, without it, every one (and at least one); or, with `min_unhealthy`, " +
			"until the probes see a break. Past `timeout` the read fails, saying what it saw. Without this block the " +
			"read shows health as it is at that moment.",
		Attributes: map[string]schema.Attribute{
			"min_healthy": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)},
				MarkdownDescription: "How many endpoints must be `HEALTHY`. Unset: every endpoint."},
			"min_unhealthy": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1),
				int64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("min_healthy"))},
				MarkdownDescription: "Wait instead until at least this many endpoints are `UNHEALTHY`: a break the " +
					"probes have seen, as a test that broke a backend waits for. Conflicts with `min_healthy`."},
			"timeout": waitTimeoutAttribute(),
		},
	}
}

// healthyWaitBlock is lbhealth_composite_health's wait_for block.
func healthyWaitBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Wait, reading again every half second, until the composite health check is `HEALTHY`. " +
			"Past `timeout` the read fails, saying what it saw. Without this block the read shows health as it is " +
			"at that moment.",
		Attributes: map[string]schema.Attribute{"timeout": waitTimeoutAttribute()},
	}
}

// waitTimeout is the timeout a wait_for block gives.
func waitTimeout(v types.String) (time.Duration, error) {
	if v.IsNull() || v.IsUnknown() {
		return DefaultHealthWait, nil
	}
	d, err := time.ParseDuration(v.ValueString())
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("wait_for.timeout (%q) must be a positive duration, such as 30s or 2m", v.ValueString())
	}
	return d, nil
}

// waitingGet is get, done again (client.Wait) until ready accepts its
// answer or timeout (a wait_for block's) passes.
func waitingGet[H any](ctx context.Context, timeout types.String, get func(context.Context) (H, error), ready func(H) (bool, string)) (H, error) {
	d, err := waitTimeout(timeout)
	if err != nil {
		var zero H
		return zero, err
	}
	got, _, err := client.Wait(ctx, d, healthPoll, get, ready)
	return got, err
}
