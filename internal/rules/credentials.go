package rules

import (
	"maps"
	"slices"

	"github.com/go-ldap/ldap/v3"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Credentials of the checks that log in (FTP, FTPS, LDAP, LDAPS): a user
// name or DN, and a secret whose messages never show its value; what LDAP
// checks search.

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

// needs are the string fields that mean nothing without another of the
// same block, with why: a password without the user it belongs to, a
// search filter without the entry it searches under.
var needs = map[string]struct{ partner, why string }{
	"password":     {"username", "a check logs in only with both"},
	"bindPassword": {"bindDn", "an anonymous bind has no password"},
	"filter":       {"baseDn", "the check searches only under a base DN"},
}

// pairedText checks that every field of needs that is set in b has its
// partner set too.
func pairedText(b api.ProtocolBlock) Violations {
	var vs Violations
	for _, name := range slices.Sorted(maps.Keys(needs)) {
		n := needs[name]
		value, partner := b.Text[name], b.Text[n.partner]
		if value == nil || partner == nil || *value == "" || *partner != "" {
			continue
		}
		field := b.Field + "." + name
		vs = append(vs, violation(field, "%s is set but %s is not: %s.", f(field), f(b.Field+"."+n.partner), n.why))
	}
	return vs
}

// DefaultLDAPFilter is the filter of an LDAP check's search when filter is
// unset: any entry.
const DefaultLDAPFilter = "(objectClass=*)"

// distinguishedName checks a DN (RFC 4514), such as
// "cn=monitor,dc=example,dc=com".
func distinguishedName(field, value string) *Violation {
	if value == "" {
		return nil
	}
	if _, err := ldap.ParseDN(value); err != nil {
		v := violation(field, "%s (%q) is not a distinguished name such as cn=monitor,dc=example,dc=com (RFC 4514): %s.", f(field), value, err.Error())
		return &v
	}
	return nil
}

// searchFilter checks an LDAP search filter (RFC 4515), such as
// "(objectClass=person)".
func searchFilter(field, value string) *Violation {
	if value == "" {
		return nil
	}
	if _, err := ldap.CompileFilter(value); err != nil {
		v := violation(field, "%s (%q) is not an LDAP search filter such as (objectClass=person) (RFC 4515): %s.", f(field), value, err.Error())
		return &v
	}
	return nil
}
