package rules

import (
	"maps"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Credentials of the checks that log in (FTP, FTPS): a user name sent as
// is, and a secret whose messages never show its value.

// FTPS TLS modes: AUTH TLS after the greeting (RFC 4217), or TLS from the
// first byte.
const (
	FTPSExplicit = "EXPLICIT"
	FTPSImplicit = "IMPLICIT"
	// DefaultFTPSMode is used when tlsMode is unset.
	DefaultFTPSMode = FTPSExplicit
)

// loginName checks a user name sent in a protocol command (USER): printable
// ASCII, at most MaxASCIILength characters, no spaces (a space would start a
// second argument).
func loginName(field, value string) *Violation {
	if v := printableASCII(field, value); v != nil {
		return v
	}
	for i := 0; i < len(value); i++ {
		if value[i] == ' ' {
			v := violation(field, "%s (%q) has a space at byte %d: a user name is one word.", f(field), value, i)
			return &v
		}
	}
	return nil
}

// secretText checks a password: printable ASCII, at most MaxASCIILength
// characters. Its messages name the field and the rule, never the value.
func secretText(field, value string) *Violation {
	if len(value) > MaxASCIILength {
		v := violation(field, "%s is %d characters long: it must be at most %d characters.", f(field), len(value), MaxASCIILength)
		return &v
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < 0x20 || c > 0x7e {
			v := violation(field, "%s has a character that is not printable ASCII at byte %d: only characters 0x20 to 0x7E are allowed (the value is a secret and is not shown).",
				f(field), i)
			return &v
		}
	}
	return nil
}

// needs are the string fields that mean nothing without another of the same
// block: a password without the user it belongs to.
var needs = map[string]string{"password": "username"}

// pairedText checks that every field of needs that is set in b has its
// partner set too.
func pairedText(b api.ProtocolBlock) Violations {
	var vs Violations
	for _, name := range slices.Sorted(maps.Keys(needs)) {
		value, partner := b.Text[name], b.Text[needs[name]]
		if value == nil || partner == nil || *value == "" || *partner != "" {
			continue
		}
		field := b.Field + "." + name
		vs = append(vs, violation(field, "%s is set but %s is not: a check logs in only with both.", f(field), f(b.Field+"."+needs[name])))
	}
	return vs
}
