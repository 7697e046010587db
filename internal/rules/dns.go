package rules

import (
	"net/netip"
	"regexp"
	"strings"
)

// DNS checks: what the query asks, and what its answer must be.
const (
	// DefaultDNSQueryType is asked when queryType is unset.
	DefaultDNSQueryType = "A"
	// DefaultDNSRcode is expected when expectedRcode is unset.
	DefaultDNSRcode = "NOERROR"
	// MaxDNSNameLength is the longest name a query may ask (RFC 1035,
	// written without its final dot).
	MaxDNSNameLength = 253
)

// DNSQueryTypes are the record types a DNS check may ask for.
var DNSQueryTypes = []string{"A", "AAAA", "CNAME", "MX", "NS", "PTR", "SOA", "SRV", "TXT", "CAA", "DS", "DNSKEY", "HTTPS", "SVCB", "ANY"}

// DNSRcodes are the response codes a DNS check may expect (RFC 1035 and
// RFC 2136).
var DNSRcodes = []string{"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED", "YXDOMAIN", "YXRRSET", "NXRRSET", "NOTAUTH", "NOTZONE"}

// dnsLabel is one label of a name a probe may ask: letters, digits,
// hyphens and underscores (service labels such as _http), 1-63 of them,
// not starting or ending with a hyphen.
var dnsLabel = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$`)

// DefaultHeloDomain is the name SMTP checks greet with when heloDomain is
// unset.
const DefaultHeloDomain = "localhost"

// heloDomain checks the name an SMTP check greets the server with: a DNS
// name, or an address literal in brackets ("[127.0.0.1]", RFC 5321).
func heloDomain(field, value string) *Violation {
	if value == "" {
		return nil
	}
	if lit, ok := strings.CutPrefix(value, "["); ok && strings.HasSuffix(lit, "]") {
		if _, err := netip.ParseAddr(strings.TrimPrefix(strings.TrimSuffix(lit, "]"), "IPv6:")); err == nil {
			return nil
		}
	}
	if v := dnsName(field, value); v != nil || value == "." {
		v := violation(field, "%s (%q) must be a domain name or an address literal in brackets ([192.0.2.1]): what the check says in EHLO.", f(field), value)
		return &v
	}
	return nil
}

// dnsQueryName checks the name a DNS check asks about: required, "." (the
// root) or labels separated by dots, with or without the final dot.
func dnsQueryName(field, value string) *Violation {
	if value == "" {
		v := violation(field, "%s is required: the name the DNS check asks about (such as example.com).", f(field))
		return &v
	}
	if value == "." {
		return nil
	}
	return dnsName(field, value)
}

// dnsName checks a domain name: labels separated by dots, with or
// without the final dot.
func dnsName(field, value string) *Violation {
	name := strings.TrimSuffix(value, ".")
	if len(name) > MaxDNSNameLength {
		v := violation(field, "%s is %d characters long: a DNS name has at most %d.", f(field), len(name), MaxDNSNameLength)
		return &v
	}
	for _, label := range strings.Split(name, ".") {
		if !dnsLabel.MatchString(label) {
			v := violation(field, "%s (%q) is not a DNS name: each label between dots must be 1-63 letters, digits, hyphens or underscores, not starting or ending with a hyphen.",
				f(field), value)
			return &v
		}
	}
	return nil
}
