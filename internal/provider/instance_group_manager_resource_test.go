package provider

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"reflect"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

func TestAccExamples_instanceGroupManager(t *testing.T) {
	e := newTestEmulator(t)
	files := []string{"resources/lbhealth_instance_group_manager/resource.tf"}
	steps := []resource.TestStep{{
		Config: exampleConfig(t, e, files...),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.lbhealth_managed_instances.web", tfjsonpath.New("instances"), knownvalue.ListSizeExact(2)),
			statecheck.ExpectKnownValue("lbhealth_instance_group_manager.web", tfjsonpath.New("instance_group"),
				knownvalue.StringRegexp(regexp.MustCompile(`/zones/us-central1-a/instanceGroups/web-mig$`))),
		},
	}}
	// Import reads references as URLs; the configuration wrote names and ids.
	steps = append(steps, importSteps(t, "resources/lbhealth_instance_template/import.sh", "network")...)
	steps = append(steps, importSteps(t, "resources/lbhealth_instance_group_manager/import.sh",
		"instance_template", "auto_healing_policies.0.health_check")...)
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// managerConfig is a one-instance managed group whose autohealing check
// probes port over HTTP every second, with initial delay delay and hook
// hook ("" for none), and the data source that reads its instances.
func managerConfig(e *testEmulator, port, delay int, hook string) string {
	hookLine := ""
	if hook != "" {
		hookLine = fmt.Sprintf("hook_url = %q", hook)
	}
	return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "hc" {
  name                = "hc"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  http_health_check {
    port = %d
  }
}
resource "lbhealth_instance_template" "web" {
  name = "web"
}
resource "lbhealth_instance_group_manager" "mig" {
  name               = "mig"
  zone               = "us-east1-b"
  base_instance_name = "web"
  instance_template  = lbhealth_instance_template.web.name
  target_size        = 1
  auto_healing_policies {
    health_check      = lbhealth_health_check.hc.id
    initial_delay_sec = %d
    %s
  }
}
data "lbhealth_managed_instances" "mig" {
  instance_group_manager = lbhealth_instance_group_manager.mig.id
}
`, port, delay, hookLine))
}

// managedInstance reads the one instance of the group mig of managerConfig.
func managedInstance(t *testing.T, e *testEmulator) (api.ManagedInstance, *api.InstanceGroupManager) {
	t.Helper()
	scope := client.Scope{Zone: "us-east1-b"}
	list, err := e.client().ListManagedInstances(context.Background(), scope, "mig")
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.client().GetInstanceGroupManager(context.Background(), scope, "mig")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.ManagedInstances) != 1 {
		t.Fatalf("managed instances %+v, want one", list)
	}
	return list.ManagedInstances[0], m
}

// waitFor polls cond until it holds. The deadline is a hang guard, not a
// measurement.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func verdict(mi api.ManagedInstance) string {
	if len(mi.InstanceHealth) == 0 {
		return ""
	}
	return mi.InstanceHealth[0].DetailedHealthState
}

// TestAccInstanceGroupManager_autohealsThroughTheSimulator: the target
// simulator answers for a managed instance made from Terraform; broken
// through its control API, the instance is found UNHEALTHY, recreated (a
// new id), mended by the group's hook (the simulator's recover endpoint)
// and verified HEALTHY again, which the data source then shows.
func TestAccInstanceGroupManager_autohealsThroughTheSimulator(t *testing.T) {
	const ip = "127.1.12.1"
	sim, err := targets.Start(context.Background(), targets.Config{Host: ip, HTTP: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	target := sim.Targets()[0]
	_, portText, _ := net.SplitHostPort(target.Addr())
	port, _ := strconv.Atoi(portText)
	hook := sim.ControlURL() + "/targets/" + target.Name + "/recover"
	e := newTestEmulator(t, func(c *emulator.Config) { c.ManagedInstanceRange = netip.MustParsePrefix(ip + "/30").Masked() })

	var first api.ManagedInstance
	const data = "data.lbhealth_managed_instances.mig"
	inst := func(attr string) tfjsonpath.Path { return tfjsonpath.New("instances").AtSliceIndex(0).AtMapKey(attr) }
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: managerConfig(e, port, 0, hook)},
			{
				PreConfig: func() {
					waitFor(t, "the instance HEALTHY", func() bool { mi, _ := managedInstance(t, e); return verdict(mi) == "HEALTHY" })
					first, _ = managedInstance(t, e)
					if err := sim.SetMode(target.Name, targets.ModeStatus500); err != nil {
						t.Fatal(err)
					}
					waitFor(t, "recreated, mended by the hook, verified HEALTHY", func() bool {
						mi, _ := managedInstance(t, e)
						return mi.ID != first.ID && mi.CurrentAction == api.ActionNone && verdict(mi) == "HEALTHY"
					})
					if m := sim.Targets()[0].Mode(); m != targets.ModeOK {
						t.Errorf("simulator target mode %s, want ok: the hook did not run", m)
					}
				},
				Config: managerConfig(e, port, 0, hook),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(data, inst("health_state"), knownvalue.StringExact("HEALTHY")),
					statecheck.ExpectKnownValue(data, inst("current_action"), knownvalue.StringExact("NONE")),
					statecheck.ExpectKnownValue(data, inst("instance_id"), knownvalue.StringFunc(func(id string) error {
						if id == first.ID {
							return fmt.Errorf("instance id %s is the first instance's: not recreated", id)
						}
						return nil
					})),
					statecheck.ExpectKnownValue(data, tfjsonpath.New("recreate_loop"), knownvalue.StringExact("")),
				},
			},
		},
	})
}

// TestAccInstanceGroupManager_recreateLoop: with nothing answering at the
// instance's address and no initial delay, autohealing recreates the
// instance again and again before it could pass its first check; the
// data source reports the loop.
func TestAccInstanceGroupManager_recreateLoop(t *testing.T) {
	const ip = "127.1.12.5"
	e := newTestEmulator(t, func(c *emulator.Config) { c.ManagedInstanceRange = netip.MustParsePrefix(ip + "/30").Masked() })
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now: the probes are refused
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: managerConfig(e, port, 0, "")},
			{
				PreConfig: func() {
					waitFor(t, "a recreate loop", func() bool {
						_, m := managedInstance(t, e)
						return m.Status != nil && m.Status.RecreateLoop != ""
					})
				},
				Config: managerConfig(e, port, 0, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.lbhealth_managed_instances.mig", tfjsonpath.New("recreate_loop"),
						knownvalue.StringRegexp(regexp.MustCompile(`^.*web-.*`))),
				},
			},
		},
	})
}

// TestAccInstanceGroupManager_updatesInPlace: the size, the named ports,
// autohealing and the template change in place (a PATCH), and the group
// makes the instances its new size asks for.
func TestAccInstanceGroupManager_updatesInPlace(t *testing.T) {
	e := newTestEmulator(t, func(c *emulator.Config) { c.ManagedInstanceRange = netip.MustParsePrefix("127.1.12.8/29") })
	config := func(template string, size int, port int, autohealing bool) string {
		policy := ""
		if autohealing {
			policy = "auto_healing_policies {\n    health_check = lbhealth_health_check.hc.self_link\n  }"
		}
		return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "hc" {
  name = "hc"
  tcp_health_check {
    port = 80
  }
}
resource "lbhealth_instance_template" "web" {
  name = %q
  lifecycle {
    create_before_destroy = true
  }
}
resource "lbhealth_instance_group_manager" "mig" {
  name               = "mig"
  base_instance_name = "web-##"
  instance_template  = lbhealth_instance_template.web.self_link
  target_size        = %d
  named_port {
    name = "http"
    port = %d
  }
  %s
}
data "lbhealth_managed_instances" "mig" {
  instance_group_manager = lbhealth_instance_group_manager.mig.id
}
`, template, size, port, policy))
	}
	const mig = "lbhealth_instance_group_manager.mig"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("web-1", 1, 8080, true),
				ConfigStateChecks: []statecheck.StateCheck{
					// Neither zone nor region: regional in the provider's region.
					statecheck.ExpectKnownValue(mig, tfjsonpath.New("region"), knownvalue.StringExact(testRegion)),
					statecheck.ExpectKnownValue(mig, tfjsonpath.New("zone"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.lbhealth_managed_instances.mig", tfjsonpath.New("instances").AtSliceIndex(0).AtMapKey("name"),
						knownvalue.StringExact("web-01")),
				},
			},
			{
				Config: config("web-1", 3, 8081, false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(mig, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(mig, tfjsonpath.New("target_size"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(mig, tfjsonpath.New("auto_healing_policies"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue(mig, tfjsonpath.New("named_port").AtSliceIndex(0).AtMapKey("port"), knownvalue.Int64Exact(8081)),
					statecheck.ExpectKnownValue("data.lbhealth_managed_instances.mig", tfjsonpath.New("instances"), knownvalue.ListSizeExact(3)),
				},
			},
			{
				Config: config("web-2", 3, 8081, false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(mig, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("lbhealth_instance_template.web", plancheck.ResourceActionCreateBeforeDestroy),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(mig, tfjsonpath.New("instance_template"),
						knownvalue.StringRegexp(regexp.MustCompile(`/global/instanceTemplates/web-2$`))),
				},
			},
			{ResourceName: mig, ImportState: true, ImportStateId: "mig", ImportStateVerify: true},
		},
	})
}

// TestAccExamples_migAutohealing applies examples/mig-autohealing as its
// walkthrough does, over a simulator target this test starts at the
// instance's address: the instance turns HEALTHY; broken through the
// simulator, it is recreated (a new id), mended by the hook and HEALTHY
// again, as the outputs show; with the target gone and no initial delay,
// the group reports a recreate loop.
func TestAccExamples_migAutohealing(t *testing.T) {
	const ip = "127.1.13.1"
	sim, err := targets.Start(context.Background(), targets.Config{Host: ip, HTTP: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	target := sim.Targets()[0]
	_, portText, _ := net.SplitHostPort(target.Addr())
	port, _ := strconv.Atoi(portText)
	e := newTestEmulator(t, func(c *emulator.Config) { c.ManagedInstanceRange = netip.MustParsePrefix("127.1.13.0/30") })
	vars := func(delay int) config.Variables {
		return config.Variables{
			"target_port":       config.IntegerVariable(port),
			"hook_url":          config.StringVariable(sim.ControlURL() + "/targets/" + target.Name + "/recover"),
			"initial_delay_sec": config.IntegerVariable(delay),
		}
	}
	const dir = "mig-autohealing"
	resources := exampleDirConfig(t, e, dir, "variables.tf", "main.tf")
	withOutputs := exampleDirConfig(t, e, dir, "variables.tf", "main.tf", "outputs.tf")
	zone := client.Scope{Project: "demo-project", Zone: "us-central1-a"}
	instance := func() (api.ManagedInstance, *api.InstanceGroupManager) {
		list, err := e.client().ListManagedInstances(context.Background(), zone, "web")
		if err != nil || len(list.ManagedInstances) != 1 {
			t.Fatalf("managed instances %+v, %v: want one", list, err)
		}
		m, err := e.client().GetInstanceGroupManager(context.Background(), zone, "web")
		if err != nil {
			t.Fatal(err)
		}
		return list.ManagedInstances[0], m
	}
	settled := func(mi api.ManagedInstance) bool {
		return mi.CurrentAction == api.ActionNone && verdict(mi) == "HEALTHY"
	}
	// shows checks the instances output against *mi, read when the check
	// runs (the step's PreConfig sets it).
	shows := func(mi *api.ManagedInstance) statecheck.StateCheck {
		return outputCheck{name: "instances", check: func(v any) error {
			want := map[string]any{mi.Name: "id " + mi.ID + ": NONE HEALTHY"}
			if !reflect.DeepEqual(v, want) {
				return fmt.Errorf("output instances is %v, want %v", v, want)
			}
			return nil
		}}
	}
	var first, healed api.ManagedInstance
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: resources, ConfigVariables: vars(1)},
			{
				PreConfig: func() {
					waitFor(t, "the instance HEALTHY", func() bool { mi, _ := instance(); return settled(mi) })
					first, _ = instance()
				},
				Config: withOutputs, ConfigVariables: vars(1),
				ConfigStateChecks: []statecheck.StateCheck{shows(&first),
					statecheck.ExpectKnownOutputValue("recreate_loop", knownvalue.StringExact(""))},
			},
			{
				PreConfig: func() {
					if err := sim.SetMode(target.Name, targets.ModeStatus500); err != nil {
						t.Fatal(err)
					}
					waitFor(t, "recreated, mended by the hook, HEALTHY", func() bool {
						mi, _ := instance()
						return mi.ID != first.ID && settled(mi)
					})
					healed, _ = instance()
					if healed.Name != first.Name {
						t.Errorf("recreated instance is %s, want the same name %s", healed.Name, first.Name)
					}
				},
				Config: withOutputs, ConfigVariables: vars(1),
				ConfigStateChecks: []statecheck.StateCheck{shows(&healed)},
			},
			{
				// The target gone, and no initial delay: a recreate loop.
				PreConfig: func() { sim.Close() },
				Config:    resources, ConfigVariables: vars(0),
			},
			{
				PreConfig: func() {
					waitFor(t, "a recreate loop", func() bool { _, m := instance(); return m.Status != nil && m.Status.RecreateLoop != "" })
				},
				Config: resources + `
data "lbhealth_managed_instances" "web" {
  instance_group_manager = lbhealth_instance_group_manager.web.id
}`,
				ConfigVariables: vars(0),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.lbhealth_managed_instances.web", tfjsonpath.New("recreate_loop"),
						knownvalue.StringRegexp(regexp.MustCompile(first.Name))),
				},
			},
		},
	})
}

// outputCheck checks the value of an output with a function, for values a
// step learns only when it runs.
type outputCheck struct {
	name  string
	check func(any) error
}

func (c outputCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.Outputs[c.name] == nil {
		resp.Error = fmt.Errorf("no output %s in the state", c.name)
		return
	}
	resp.Error = c.check(req.State.Values.Outputs[c.name].Value)
}
