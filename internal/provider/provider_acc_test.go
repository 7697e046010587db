package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

const accToken = "acc-t0ken"

// tokenConfig is a health check on e, with the provider's token set to
// token ("" leaves the attribute out).
func tokenConfig(e *testEmulator, token string) string {
	attr := ""
	if token != "" {
		attr = fmt.Sprintf("token = %q", token)
	}
	return fmt.Sprintf(`
provider "lbhealth" {
  endpoint = %q
  %s
}
resource "lbhealth_health_check" "test" {
  name = "hc-token"
  tcp_health_check {}
}`, e.Addr(), attr)
}

func withToken(cfg *emulator.Config) { cfg.Token = accToken }

func TestAccProvider_tokenAttribute(t *testing.T) {
	t.Setenv(EnvToken, "")
	e := newTestEmulator(t, withToken)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: tokenConfig(e, accToken)},
			{Config: tokenConfig(e, accToken), ImportState: true, ResourceName: hcAddr, ImportStateVerify: true},
		},
	})
}

func TestAccProvider_tokenFromEnvironment(t *testing.T) {
	t.Setenv(EnvToken, accToken)
	e := newTestEmulator(t, withToken)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: tokenConfig(e, "")}},
	})
}

func TestAccProvider_tokenMissingOrWrong(t *testing.T) {
	t.Setenv(EnvToken, "")
	e := newTestEmulator(t, withToken)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: tokenConfig(e, ""), ExpectError: errorRegexp("This emulator requires a token")},
			{Config: tokenConfig(e, "not-the-token"), ExpectError: errorRegexp("The bearer token is not the one this emulator was started with")},
		},
	})
}
