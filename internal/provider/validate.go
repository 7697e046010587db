package provider

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Plan-time validation, shared by every resource: each ValidateConfig
// expands its configuration with an expander (unknown values left unset and
// recorded), runs the rules of package rules on it, as the emulator does,
// and reports the violations that do not read an unknown value.

// knownViolations drops every violation that reads a field whose value is
// unknown: it may well hold once the value is known, and the emulator checks
// again then.
func knownViolations(vs rules.Violations, unknown []string) rules.Violations {
	var known rules.Violations
	for _, v := range vs {
		if !readsUnknown(v, unknown) {
			known = append(known, v)
		}
	}
	return known
}

func readsUnknown(v rules.Violation, unknown []string) bool {
	for _, field := range append(v.Fields(), v.Field) {
		for _, u := range unknown {
			if covers(u, field) || (isListElement(field) && covers(field, u)) {
				return true
			}
		}
	}
	return false
}

// covers tells whether the unknown API path u covers field: the field
// itself, or anything inside it ("httpHealthCheck" covers
// "httpHealthCheck.port", "sourceRegions" covers "sourceRegions[1]").
func covers(u, field string) bool {
	return field == u || strings.HasPrefix(field, u+".") || strings.HasPrefix(field, u+"[")
}

// isListElement tells whether field is one element of a list
// ("endpoints[1]"). A rule that names a whole element compares elements
// (a duplicate endpoint): it reads every value inside, so an unknown port
// of the element makes it unknown too. A rule that names a block
// ("httpHealthCheck") is about the block being there, not its contents.
func isListElement(field string) bool { return strings.HasSuffix(field, "]") }

// scopeViolations checks the project, region and zone a configuration sets.
// Null values take the provider's defaults, which Configure checked; unknown
// ones are checked by the emulator once known. Pass types.StringNull() for
// what a resource does not have.
func scopeViolations(project, region, zone types.String) rules.Violations {
	var vs rules.Violations
	for _, s := range []struct {
		field string
		value types.String
		check func(field, value string) *rules.Violation
	}{{"project", project, rules.Project}, {"region", region, rules.Region}, {"zone", zone, rules.Region}} {
		if s.value.IsNull() || s.value.IsUnknown() {
			continue
		}
		if v := s.check(s.field, s.value.ValueString()); v != nil {
			vs = append(vs, *v)
		}
	}
	return vs
}

// addViolations reports violations in Terraform names (see addViolationNamed).
func addViolations(diags *diag.Diagnostics, vs rules.Violations, summary string, naming func(string) string) {
	for _, v := range vs {
		addViolationNamed(diags, &v, summary, naming)
	}
}

// terraformNaming spells API field paths as Terraform attribute paths for a
// resource whose repeated blocks have singular names (the API's "endpoints"
// list is written as endpoint blocks, as Terraform configurations do):
// renames maps a top-level API field to its Terraform name; every other
// field is the snake_case of the API name.
func terraformNaming(renames map[string]string) func(string) string {
	return func(p string) string {
		for from, to := range renames {
			if p == from || strings.HasPrefix(p, from+"[") || strings.HasPrefix(p, from+".") {
				p = to + p[len(from):]
				break
			}
		}
		return rules.TerraformName(p)
	}
}

// explicitlyEmptyDefaults refuses "" in the fields (of those the expander
// saw set to "") where the emulator fills a default: the API reads "" as
// unset, so Terraform would see the default come back instead of the ""
// it planned. defaults maps the last name of such a field ("state" of
// "endpoints[0].state") to its default.
func explicitlyEmptyDefaults(empty []string, defaults map[string]string) rules.Violations {
	var vs rules.Violations
	for _, field := range empty {
		name := field[strings.LastIndex(field, ".")+1:]
		if def, ok := defaults[name]; ok {
			vs = append(vs, rules.ExplicitEmpty(field, def))
		}
	}
	return vs
}
