package rules

import (
	"strings"
)

// intRange checks lo <= value <= hi.
func intRange(field string, value, lo, hi int64) *Violation {
	if value >= lo && value <= hi {
		return nil
	}
	v := violation(field, "%s (%d) must be between %d and %d.", f(field), value, lo, hi)
	return &v
}

// optionalRange checks a value that may be unset.
func optionalRange(field string, value *int64, lo, hi int64) *Violation {
	if value == nil {
		return nil
	}
	return intRange(field, *value, lo, hi)
}

// oneOf checks an enum; the empty string means unset and is accepted.
func oneOf(field, value string, allowed ...string) *Violation {
	if value == "" {
		return nil
	}
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	v := violation(field, "%s (%q) must be one of %s.", f(field), value, strings.Join(allowed, ", "))
	return &v
}

// MaxASCIILength is the longest request, response or gRPC service name.
const MaxASCIILength = 1024

// printableASCII checks that value has only bytes 0x20..0x7E and at most
// MaxASCIILength of them.
func printableASCII(field, value string) *Violation {
	if len(value) > MaxASCIILength {
		v := violation(field, "%s is %d characters long: it must be at most %d characters.", f(field), len(value), MaxASCIILength)
		return &v
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < 0x20 || c > 0x7e {
			v := violation(field, "%s (%q) has a character that is not printable ASCII at byte %d: only characters 0x20 to 0x7E are allowed.",
				f(field), value, i)
			return &v
		}
	}
	return nil
}

// MaxHostLength is the longest Host header value.
const MaxHostLength = 255

// host checks a Host header value: printable ASCII without spaces.
func host(field, value string) *Violation {
	if len(value) > MaxHostLength {
		v := violation(field, "%s is %d characters long: it must be at most %d characters.", f(field), len(value), MaxHostLength)
		return &v
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; c <= 0x20 || c > 0x7e {
			v := violation(field, "%s (%q) must be a host name or address without spaces or control characters.", f(field), value)
			return &v
		}
	}
	return nil
}

// requestPath checks an HTTP request path: it must start with "/" and use
// only characters RFC 3986 allows in a path and query. allowQuery is false
// for legacy checks, which take no query string.
func requestPath(field, value string, allowQuery bool) *Violation {
	if value == "" {
		return nil
	}
	if !strings.HasPrefix(value, "/") {
		v := violation(field, "%s (%q) must start with \"/\".", f(field), value)
		return &v
	}
	if !allowQuery && strings.Contains(value, "?") {
		v := violation(field, "%s (%q) must not contain a query string (\"?\"): legacy health checks request a plain path.", f(field), value)
		return &v
	}
	if i := badURIChar(value); i >= 0 {
		v := violation(field, "%s (%q) has a character RFC 3986 does not allow in a path at byte %d: percent-encode it.", f(field), value, i)
		return &v
	}
	return nil
}

// badURIChar returns the index of the first byte that is not allowed in an
// RFC 3986 path-and-query, or -1.
func badURIChar(s string) int {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?"
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return i
			}
			i += 2
			continue
		}
		if !strings.ContainsRune(allowed, rune(s[i])) {
			return i
		}
	}
	return -1
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
