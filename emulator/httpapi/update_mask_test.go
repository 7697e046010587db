package httpapi_test

import (
	"fmt"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// An updateMask may name a field of a nested object, in camelCase or, as
// field masks allow and terraform-provider-google sends them, snake_case:
// that field changes (or, absent from the body, is cleared) and its
// siblings stay.
func TestPatch_UpdateMaskNestedAndSnakeCase(t *testing.T) {
	e := newEmu(t)
	policies := "/compute/v1/projects/p/global/securityPolicies"
	e.insert(policies, `{"name": "armor", "advancedOptionsConfig": {"jsonParsing": "STANDARD", "logLevel": "VERBOSE", "userIpRequestHeaders": ["x-a"]}}`)
	get := func() map[string]any {
		var p map[string]any
		e.ok("GET", policies+"/armor", "", &p)
		return p
	}
	fp := get()["fingerprint"].(string)
	e.ok("PATCH", policies+"/armor?updateMask=advanced_options_config.user_ip_request_headers",
		fmt.Sprintf(`{"fingerprint": %q, "advancedOptionsConfig": {"userIpRequestHeaders": ["x-b", "x-c"], "logLevel": "NORMAL"}}`, fp), nil)
	got := fmt.Sprint(get()["advancedOptionsConfig"])
	if want := fmt.Sprint(map[string]any{"jsonParsing": "STANDARD", "logLevel": "VERBOSE", "userIpRequestHeaders": []any{"x-b", "x-c"}}); got != want {
		t.Errorf("after a masked patch: %s, want %s (only the named field changes)", got, want)
	}
	fp = get()["fingerprint"].(string)
	e.ok("PATCH", policies+"/armor?updateMask=advancedOptionsConfig.userIpRequestHeaders", fmt.Sprintf(`{"fingerprint": %q}`, fp), nil)
	if got := fmt.Sprint(get()["advancedOptionsConfig"]); got != fmt.Sprint(map[string]any{"jsonParsing": "STANDARD", "logLevel": "VERBOSE"}) {
		t.Errorf("after a masked patch without the field: %s, want it cleared and the rest kept", got)
	}
	wantMessage(t, e.fail("PATCH", policies+"/armor?updateMask=advanced_options_config.no_such_field", `{}`, 400, api.ReasonInvalid),
		`updateMask names "advanced_options_config.no_such_field", which is not a field of this resource.`)
}
