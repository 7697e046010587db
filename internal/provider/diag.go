package provider

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// addViolation reports a broken rule at the Terraform attribute it names,
// with the rule's message spelled in Terraform attribute names.
func addViolation(diags *diag.Diagnostics, v *rules.Violation, summary string) {
	addViolationNamed(diags, v, summary, rules.TerraformName)
}

// addViolationNamed is addViolation for a resource whose Terraform names are
// not all the snake_case of the API's: naming spells an API field path as
// the Terraform attribute path (see terraformNaming).
func addViolationNamed(diags *diag.Diagnostics, v *rules.Violation, summary string, naming func(string) string) {
	if v == nil {
		return
	}
	msg := v.Message(naming)
	if p, ok := attributePath(naming(v.Field)); ok {
		diags.AddAttributeError(p, summary, msg)
		return
	}
	diags.AddError(summary, msg)
}

// attributePath converts an API field path ("httpHealthCheck.port",
// "sourceRegions[1]") into a Terraform attribute path; false for "" (a rule
// about the whole object) or a path it cannot parse.
func attributePath(field string) (path.Path, bool) {
	if field == "" {
		return path.Empty(), false
	}
	var p path.Path
	for i, seg := range strings.Split(field, ".") {
		name, index, hasIndex := strings.Cut(seg, "[")
		if name == "" {
			return path.Empty(), false
		}
		name = rules.TerraformName(name)
		if i == 0 {
			p = path.Root(name)
		} else {
			p = p.AtName(name)
		}
		if hasIndex {
			n, err := strconv.Atoi(strings.TrimSuffix(index, "]"))
			if err != nil || !strings.HasSuffix(index, "]") {
				return path.Empty(), false
			}
			p = p.AtListIndex(n)
		}
	}
	return p, true
}

// addClientError reports a failed API call: the summary says what failed,
// the detail carries the emulator's message verbatim and, for the errors a
// user can act on, what to do.
func addClientError(diags *diag.Diagnostics, action, noun string, err error) {
	summary := fmt.Sprintf("Error %s %s", action, noun)
	detail := err.Error()
	switch {
	case errors.Is(err, client.ErrAlreadyExists):
		detail += fmt.Sprintf("\n\nA %s with this name already exists in this project and scope: "+
			"choose another name, or bring it under Terraform with \"terraform import\".", noun)
	case errors.Is(err, client.ErrInUse):
		detail += fmt.Sprintf("\n\nRemove the references to this %s first. Where a replacement is planned, "+
			"\"lifecycle { create_before_destroy = true }\" lets Terraform move the references before deleting.", noun)
	case errors.Is(err, client.ErrConditionNotMet):
		detail += fmt.Sprintf("\n\nThe %s was changed outside Terraform after Terraform last read it, so nothing was "+
			"changed. Run \"terraform apply\" again: it reads the %s afresh and plans the change against what is "+
			"there now (\"terraform plan -refresh-only\" shows what was changed outside Terraform).", noun, noun)
	}
	diags.AddError(summary, detail)
}

// providerDataFrom extracts what Configure handed over. It is nil until the
// provider is configured (the framework calls Configure of resources early,
// with nil data), which callers must tolerate.
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *providerData, got %T. This is a bug in the provider: please report it.", data))
		return nil
	}
	return pd
}
