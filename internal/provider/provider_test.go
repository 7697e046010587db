package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// testAccProtoV6ProviderFactories runs the provider in the test process.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"lbhealth": providerserver.NewProtocol6WithError(New("test")()),
}

const (
	testProject = "test-project"
	testRegion  = "us-central1"
)

// testEmulator is one emulator started for one test.
type testEmulator struct {
	*emulator.Emulator
}

// newTestEmulator starts an in-memory emulator on a free port for this test
// alone, closed when the test ends: no daemon, no shared state. opts change
// its configuration.
func newTestEmulator(t *testing.T, opts ...func(*emulator.Config)) *testEmulator {
	t.Helper()
	// The provider's own tests start what they need: no traffic, no
	// workloads, unless opts ask.
	quiet := func(c *emulator.Config) { c.DataPlane, c.Workloads = false, false }
	return &testEmulator{lbhealthtest.Start(t, append([]func(*emulator.Config){quiet}, opts...)...).Emulator}
}

// config prefixes a configuration with the provider block pointing at e.
func (e *testEmulator) config(body string) string {
	return fmt.Sprintf(`
provider "lbhealth" {
  endpoint = %q
  project  = %q
  region   = %q
}
%s`, e.Addr(), testProject, testRegion, body)
}

// client is an API client of e, for changes made out of band.
func (e *testEmulator) client() *client.Client {
	return client.New(e.Addr(), testProject)
}

// errorRegexp matches msg in Terraform's output, which may wrap long lines.
func errorRegexp(msg string) *regexp.Regexp {
	words := strings.Fields(msg)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(strings.Join(words, `\s+`))
}

// summaryError matches a diagnostic with summary whose detail holds msg:
// it tells a refusal by the provider ("Invalid ...") from one by the
// emulator ("Error creating ...") when both say the same.
func summaryError(summary, msg string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)` + regexp.QuoteMeta(summary) + `.*` + errorRegexp(msg).String())
}
