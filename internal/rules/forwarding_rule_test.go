package rules

import "testing"

// TestForwardingRuleTarget: a target pool is regional, so only a regional
// rule may send traffic to one; the message names the field, in any naming.
func TestForwardingRuleTarget(t *testing.T) {
	if v := ForwardingRuleTarget("", false); v != nil {
		t.Errorf("no target: %v", v)
	}
	if v := ForwardingRuleTarget("pool", true); v != nil {
		t.Errorf("regional rule: %v", v)
	}
	v := ForwardingRuleTarget("pool", false)
	want := `target ("pool") must not be set on a global forwarding rule: target pools are regional; use a regional forwarding rule.`
	if v == nil || v.Field != "target" || v.Error() != want {
		t.Errorf("global rule: %v, want %q at target", v, want)
	}
}
