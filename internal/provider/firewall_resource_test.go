package provider

import (
	"context"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

const fwAddr = "lbhealth_firewall.test"

func fwValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(fwAddr, tfjsonpath.New(attr), v)
}

// A rule with the defaults the cloud gives (the default network, INGRESS,
// priority 1000), changed in place, imported back with an empty plan.
func TestAccFirewall_basic(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_firewall" "test" {
  name          = "allow-probers"
  source_ranges = ["35.191.0.0/16", "130.211.0.0/22"]
  allow {
    protocol = "tcp"
    ports    = ["80"]
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					fwValue("id", knownvalue.StringExact("projects/test-project/global/firewalls/allow-probers")),
					fwValue("network", knownvalue.StringExact("default")),
					fwValue("direction", knownvalue.StringExact("INGRESS")),
					fwValue("priority", knownvalue.Int64Exact(1000)),
					fwValue("disabled", knownvalue.Bool(false)),
					fwValue("allow", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"protocol": knownvalue.StringExact("tcp"), "ports": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("80")})})})),
					fwValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/global/firewalls/allow-probers$`))),
					fwValue("firewall_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
				},
			},
			{
				Config: e.config(`
resource "lbhealth_firewall" "test" {
  name          = "allow-probers"
  priority      = 900
  source_ranges = ["35.191.0.0/16"]
  target_tags   = ["web"]
  allow {
    protocol = "tcp"
    ports    = ["80", "8080-8090"]
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					fwValue("priority", knownvalue.Int64Exact(900)),
					fwValue("target_tags", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("web")})),
				},
			},
			// Imported, the network is its URL, which names the same
			// network: the next plan is empty.
			{ResourceName: fwAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"network"}},
		},
	})
}

// A rule made out of band, imported with an import block into a
// configuration that names its network by name: the plan after the import
// is empty (the URL imported, kept in the state, names the same network).
func TestAccFirewall_importedPlansNoChange(t *testing.T) {
	e := newTestEmulator(t)
	prio := int64(1000)
	if _, err := e.client().InsertFirewall(context.Background(), client.Scope{Project: testProject}, &api.Firewall{
		Meta: api.Meta{Name: "made-elsewhere"}, Network: "global/networks/default", Priority: &prio,
		SourceRanges: []string{"35.191.0.0/16"}, Allowed: []api.FirewallRule{{IPProtocol: "tcp", Ports: []string{"80"}}},
	}); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{Config: e.config(`
import {
  to = lbhealth_firewall.test
  id = "projects/test-project/global/firewalls/made-elsewhere"
}
resource "lbhealth_firewall" "test" {
  name          = "made-elsewhere"
  network       = "default"
  source_ranges = ["35.191.0.0/16"]
  allow {
    protocol = "tcp"
    ports    = ["80"]
  }
}`), ConfigStateChecks: []statecheck.StateCheck{
			fwValue("network", knownvalue.StringRegexp(regexp.MustCompile(`/global/networks/default$`)))}}},
	})
}

// The emulator's rules run at plan time, with Terraform's names.
func TestAccFirewall_invalid(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_firewall" "test" {
  name          = "bad"
  source_ranges = ["35.191.0.0/33"]
  allow {
    protocol = "tcp"
  }
}`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`source_ranges\[0\] \("35.191.0.0/33"\) must be an IP range in CIDR form`),
			},
			{
				Config: e.config(`
resource "lbhealth_firewall" "test" {
  name = "both"
  allow {
    protocol = "tcp"
  }
  deny {
    protocol = "udp"
  }
}`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`allow and deny are both set`),
			},
		},
	})
}
