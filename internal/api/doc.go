// Package api holds the JSON shapes of the lbhealth emulator's REST API.
//
// The shapes follow the Compute Engine REST API (camelCase field names,
// string-encoded uint64 ids, Operation results, Google-style error bodies) so
// that an existing Compute client pointed at the emulator just works. Both the
// emulator and the provider's client use these types, so the wire format is
// defined in exactly one place.
//
// Optional input fields are pointers: nil means "not set", which the
// validation rules (package rules) and PATCH need to tell apart from a zero.
package api
