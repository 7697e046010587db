package provider

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// The quickstart, applied as written but for its provider block and its
// ports (each endpoint a server of this test that answers "ok"), ends with
// its check block passing, the first probes' verdicts waited for, and no
// firewall finding on its endpoints: its rule lets the probers in.
func TestAccExamples_quickstartCheckPasses(t *testing.T) {
	e := newTestEmulator(t)
	body, err := os.ReadFile(filepath.Join(examplesDir, "quickstart/main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	var ports []string
	for range 3 {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
		t.Cleanup(s.Close)
		ports = append(ports, s.URL[strings.LastIndex(s.URL, ":")+1:])
	}
	// Its terraform and provider blocks name the installed provider and
	// the default emulator: the test's provider block replaces them. Its
	// output shows live health, which changes between plans.
	config := regexp.MustCompile(`(?s)terraform \{.*?\n\}\n|provider "lbhealth" \{.*?\n\}\n|output "web_endpoints" \{.*?\n\}\n`).
		ReplaceAllString(string(body), "")
	config = strings.Replace(config, "[9000, 9001, 9002]", "["+strings.Join(ports, ", ")+"]", 1)
	config = strings.Replace(config, `["9000-9002"]`, `["1-65535"]`, 1)
	if !strings.Contains(config, ports[0]) {
		t.Fatal("the quickstart's endpoints are no longer on ports [9000, 9001, 9002]: update this test")
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            e.config(config),
			ConfigStateChecks: []statecheck.StateCheck{checkPassed("check.web_healthy")},
			// A check block's data source is read anew at every plan, so
			// the plan after the apply is not empty; nothing else may be.
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks:   resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{onlyDataReads{}}},
			Check: func(*terraform.State) error {
				gh, err := e.client().GetBackendServiceHealth(context.Background(), client.Scope{Project: testProject}, "web", "")
				if err != nil {
					return err
				}
				if len(gh.HealthStatus) != 3 {
					return fmt.Errorf("%d endpoints, want the quickstart's 3", len(gh.HealthStatus))
				}
				for _, hs := range gh.HealthStatus {
					if hs.Firewall != "" {
						return fmt.Errorf("endpoint %s:%d has a firewall finding: %s", hs.IPAddress, hs.Port, hs.Firewall)
					}
				}
				return nil
			},
		}},
	})
}

// onlyDataReads is a plan check that the plan changes nothing but reads
// of data sources.
type onlyDataReads struct{}

func (onlyDataReads) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Change.Actions.NoOp() || rc.Mode == tfjson.DataResourceMode && rc.Change.Actions.Read() {
			continue
		}
		resp.Error = fmt.Errorf("the plan after the apply would %v %s", rc.Change.Actions, rc.Address)
		return
	}
}

// checkPassed is a state check that the check block at address passed.
type checkPassed string

func (c checkPassed) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil {
		resp.Error = fmt.Errorf("%s: no state", c)
		return
	}
	for _, r := range req.State.Checks {
		if r.Address.ToDisplay == string(c) {
			if r.Status != tfjson.CheckStatusPass {
				resp.Error = fmt.Errorf("%s: %s, want pass", c, r.Status)
			}
			return
		}
	}
	resp.Error = fmt.Errorf("%s: no result in the state", c)
}
