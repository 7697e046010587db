package rules

import "regexp"

// rfc1035 is the shape of every resource name (and of region and zone names).
var rfc1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// MaxDescriptionLength is the longest description the API accepts.
const MaxDescriptionLength = 2048

// Name checks a resource name: RFC 1035, 1 to 63 characters.
func Name(field, name string) *Violation {
	return rfc1035Name(field, name, "a name")
}

// Region checks a region (or zone) name.
func Region(field, region string) *Violation {
	return rfc1035Name(field, region, "a region")
}

// Project checks a project id. Real project ids are stricter (6 to 30
// characters); an emulator accepts any RFC 1035 label so that short test
// project names work.
func Project(field, project string) *Violation {
	return rfc1035Name(field, project, "a project")
}

func rfc1035Name(field, value, what string) *Violation {
	if len(value) >= 1 && len(value) <= 63 && rfc1035.MatchString(value) {
		return nil
	}
	v := violation(field, "%s (%q) is not a valid name: %s must be 1-63 characters, start with a lowercase letter, "+
		"and contain only lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035).", f(field), value, what)
	return &v
}

// Description checks a description's length.
func Description(field, description string) *Violation {
	if len(description) <= MaxDescriptionLength {
		return nil
	}
	v := violation(field, "%s is %d characters long: it must be at most %d characters.", f(field), len(description), MaxDescriptionLength)
	return &v
}
