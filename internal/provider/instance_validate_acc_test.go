package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccInstanceGroups_validation proves that the rules of instances,
// instance groups, templates and managed groups fail terraform plan with
// the emulator's message in Terraform names, and that what only the
// emulator can know (where an instance is, whether a template exists)
// fails the apply with its message.
func TestAccInstanceGroups_validation(t *testing.T) {
	e := newTestEmulator(t)
	const manager = "resource \"lbhealth_instance_group_manager\" \"m\" {\n name = \"m\"\n zone = \"us-central1-a\"\n instance_template = \"t\"\n "
	tests := []struct {
		config string
		want   string
	}{
		{"resource \"lbhealth_instance\" \"i\" {\n name = \"i\"\n zone = \"us-central1-a\"\n network_ip = \"10.0.0.300\"\n}",
			`network_ip ("10.0.0.300") must be an IPv4 address.`},
		{"resource \"lbhealth_instance\" \"i\" {\n name = \"i\"\n zone = \"US\"\n}",
			`zone ("US") is not a valid name`},
		{"resource \"lbhealth_instance_group\" \"g\" {\n name = \"g\"\n zone = \"us-central1-a\"\n instances = [\"web-a\"]\n}",
			`instances ("web-a") must be the URL of an instance (zones/{zone}/instances/{name}).`},
		{"resource \"lbhealth_instance_group\" \"g\" {\n name = \"g\"\n zone = \"us-central1-a\"\n named_port {\n name = \"http\"\n port = 0\n }\n}",
			`named_port[0].port (0) must be between 1 and 65535.`},
		{"resource \"lbhealth_instance_group\" \"g\" {\n name = \"g\"\n zone = \"us-central1-a\"\n named_port {\n name = \"HTTP\"\n port = 80\n }\n}",
			`named_port[0].name ("HTTP") is not a valid name`},
		{manager + "base_instance_name = \"Web\"\n}",
			`base_instance_name ("Web") must be 1-58 characters, a lowercase letter first`},
		{manager + "base_instance_name = \"web\"\n target_size = 1001\n}",
			`target_size (1001) must be between 0 and 1000.`},
		{manager + "base_instance_name = \"web\"\n auto_healing_policies {\n health_check = \"hc\"\n }\n auto_healing_policies {\n health_check = \"hc2\"\n }\n}",
			`auto_healing_policies lists 2 policies: a managed instance group takes one.`},
		{manager + "base_instance_name = \"web\"\n auto_healing_policies {\n health_check = \"hc\"\n initial_delay_sec = 3601\n }\n}",
			`auto_healing_policies[0].initial_delay_sec (3601) must be between 0 and 3600.`},
		{manager + "base_instance_name = \"web\"\n auto_healing_policies {\n health_check = \"hc\"\n hook_url = \"http://example.com/restart\"\n }\n}",
			`auto_healing_policies[0].hook_url ("http://example.com/restart") must be an http or https URL of this machine`},
	}
	steps := make([]resource.TestStep, 0, len(tests)+2)
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{Config: e.config(tt.config), PlanOnly: true, ExpectError: errorRegexp(tt.want)})
	}
	steps = append(steps,
		resource.TestStep{
			Config: e.config(`
resource "lbhealth_instance" "b" {
  name = "b"
  zone = "us-central1-b"
}
resource "lbhealth_instance_group" "g" {
  name      = "g"
  zone      = "us-central1-a"
  instances = [lbhealth_instance.b.id]
}`),
			ExpectError: errorRegexp(`is in zones/us-central1-b: an instance group holds instances of its own zone (us-central1-a).`),
		},
		resource.TestStep{
			Config:      e.config(manager + "base_instance_name = \"web\"\n}"),
			ExpectError: errorRegexp(`instanceTemplate ("t") refers to projects/test-project/global/instanceTemplates/t, which does not exist.`),
		},
	)
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccInstance_importNeedsAZone: a bare name does not say an instance's
// zone; the import says which id to give.
func TestAccInstance_importNeedsAZone(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.config("resource \"lbhealth_instance\" \"i\" {\n name = \"i\"\n zone = \"us-central1-a\"\n}")},
			{ResourceName: "lbhealth_instance.i", ImportState: true, ImportStateId: "i",
				ExpectError: errorRegexp(`import id "i" names no zone, but instances are zonal: import by projects/{project}/zones/{zone}/instances/{name}`)},
		},
	})
}
