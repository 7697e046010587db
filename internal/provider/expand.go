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

// objects returns the attributes of each element of a list of blocks or
// objects, nil when the list is null or unknown. An unknown element is an
// empty map, its path recorded, so that the positions (and the count) stay
// right.
func (e *expander) objects(field string, v types.List) []map[string]attr.Value {
	if e.isUnknown(field, v) || v.IsNull() {
		return nil
	}
	out := make([]map[string]attr.Value, 0, len(v.Elements()))
	for i, el := range v.Elements() {
		obj, _ := el.(types.Object)
		attrs := e.object(fmt.Sprintf("%s[%d]", field, i), obj)
		if attrs == nil {
			attrs = map[string]attr.Value{}
		}
		out = append(out, attrs)
	}
	return out
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

// stringAttr and int64Attr read one attribute of an object expanded with
// expander.objects; a missing attribute reads as null.
func stringAttr(attrs map[string]attr.Value, name string) types.String {
	v, ok := attrs[name].(types.String)
	if !ok {
		return types.StringNull()
	}
	return v
}

func int64Attr(attrs map[string]attr.Value, name string) types.Int64 {
	v, ok := attrs[name].(types.Int64)
	if !ok {
		return types.Int64Null()
	}
	return v
}

// planDefault is the planned value of an Optional+Computed setting that
// takes a provider default (project, region): the configuration's value,
// else def. replace tells whether a default differs from the state's
// value: the resource must then be replaced, which RequiresReplaceIfConfigured
// cannot see because the configuration is null.
func planDefault(config, state types.String, def string) (plan types.String, replace bool) {
	if !config.IsNull() {
		return config, false
	}
	plan = types.StringValue(def)
	return plan, !state.IsNull() && !state.IsUnknown() && !state.Equal(plan)
}
