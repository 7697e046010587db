package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// expander converts Terraform values to API values. An unknown value becomes
// unset and its API field path is recorded, so that plan-time validation can
// drop the rules that read it (they will run again, on the real value, when
// the emulator receives it).
type expander struct {
	unknown []string
	// empty lists the fields set to "" explicitly: the API cannot tell ""
	// from unset, Terraform can (see rules.ExplicitEmpty).
	empty []string
}

func (e *expander) isUnknown(field string, v attr.Value) bool {
	if v.IsUnknown() {
		e.unknown = append(e.unknown, field)
		return true
	}
	return false
}

func (e *expander) str(field string, v types.String) string {
	if e.isUnknown(field, v) {
		return ""
	}
	if !v.IsNull() && v.ValueString() == "" {
		e.empty = append(e.empty, field)
	}
	return v.ValueString()
}

func (e *expander) int64(field string, v types.Int64) *int64 {
	if e.isUnknown(field, v) || v.IsNull() {
		return nil
	}
	return v.ValueInt64Pointer()
}

func (e *expander) bool(field string, v types.Bool) *bool {
	if e.isUnknown(field, v) || v.IsNull() {
		return nil
	}
	return v.ValueBoolPointer()
}

// object returns the attributes of a block or object, or nil when it is
// null or unknown.
func (e *expander) object(field string, v types.Object) map[string]attr.Value {
	if e.isUnknown(field, v) || v.IsNull() {
		return nil
	}
	return v.Attributes()
}

// strings expands a list of strings; an unknown element keeps its place as
// "" so that the positions (and the count) stay right.
func (e *expander) strings(field string, v types.List) []string {
	if e.isUnknown(field, v) || v.IsNull() {
		return nil
	}
	out := make([]string, 0, len(v.Elements()))
	for i, el := range v.Elements() {
		s, _ := el.(types.String)
		out = append(out, e.str(fmt.Sprintf("%s[%d]", field, i), s))
	}
	return out
}

// flattenString maps an API string to Terraform. The API omits empty
// strings, so "" becomes null, except where the prior value was a known ""
// (the user wrote `host = ""`): keeping it avoids an inconsistent result.
func flattenString(v string, prior types.String) types.String {
	if v == "" && (prior.IsNull() || prior.IsUnknown() || prior.ValueString() != "") {
		return types.StringNull()
	}
	return types.StringValue(v)
}

// flattenStrings maps an API list of strings, keeping a prior empty list
// (the API omits it) for the same reason as flattenString.
func flattenStrings(v []string, prior types.List) (types.List, error) {
	if len(v) == 0 && (prior.IsNull() || prior.IsUnknown() || len(prior.Elements()) > 0) {
		return types.ListNull(types.StringType), nil
	}
	elems := make([]attr.Value, len(v))
	for i, s := range v {
		elems[i] = types.StringValue(s)
	}
	l, diags := types.ListValue(types.StringType, elems)
	if diags.HasError() {
		return l, fmt.Errorf("building a list: %v", diags)
	}
	return l, nil
}
