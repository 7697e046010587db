package rules

import (
	"fmt"
	"strings"
	"unicode"
)

// mark delimits a field name inside a message template. It cannot occur in a
// rendered value because every user string is formatted with %q.
const mark = "\x00"

// Violation is one broken rule.
type Violation struct {
	// Field is the API path of the field at fault, such as
	// "httpHealthCheck.port"; empty when the rule is about the whole object.
	Field    string
	template string
}

// f marks a field name for a message template.
func f(path string) string { return mark + path + mark }

// violation builds a Violation at field with a message; field names in the
// message are written with f().
func violation(field, format string, args ...any) Violation {
	return Violation{Field: field, template: fmt.Sprintf(format, args...)}
}

// Message renders the message, spelling field names with naming.
func (v Violation) Message(naming func(string) string) string {
	parts := strings.Split(v.template, mark)
	for i := 1; i < len(parts); i += 2 {
		parts[i] = naming(parts[i])
	}
	return strings.Join(parts, "")
}

// Error renders the message with API field names, as the emulator does.
func (v Violation) Error() string { return v.Message(APIName) }

// Fields lists every field the message names: the fields the rule read.
func (v Violation) Fields() []string {
	parts := strings.Split(v.template, mark)
	var fields []string
	for i := 1; i < len(parts); i += 2 {
		fields = append(fields, parts[i])
	}
	return fields
}

// APIName spells a field path as the API does (the identity).
func APIName(path string) string { return path }

// TerraformName spells an API field path as a Terraform attribute path:
// "httpHealthCheck.requestPath" becomes "http_health_check.request_path".
func TerraformName(path string) string {
	var b strings.Builder
	for i, r := range path {
		if unicode.IsUpper(r) {
			if i > 0 && path[i-1] != '.' {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Violations is the result of checking one object.
type Violations []Violation

// Err returns nil when there is no violation, else the first one: the
// emulator reports one error at a time, like the Compute API.
func (vs Violations) Err() error {
	if len(vs) == 0 {
		return nil
	}
	return vs[0]
}

// add appends v when it is not nil.
func (vs *Violations) add(v *Violation) {
	if v != nil {
		*vs = append(*vs, *v)
	}
}

// ExplicitEmpty is for clients that tell an empty string from an unset field
// (Terraform does): the API reads "" as unset and stores the default, so an
// explicit "" would come back changed.
func ExplicitEmpty(field, def string) Violation {
	return violation(field, "%s (\"\") must not be empty: remove it to get the default %q.", f(field), def)
}
