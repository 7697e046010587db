// Package schema is the wire shape of the Compute resources the emulator
// models, taken from Google's own description of the API (the discovery
// document shipped with google.golang.org/api, trimmed by `go generate`
// into compute-v1.json), plus the emulator's documented extensions
// (extensions.go), listed in one place.
//
// Requests are checked against it: a field the real API defines is always
// accepted, even when the emulator does not act on it, and one it does not
// define is refused with its full name.
package schema

//go:generate go run ./internal/gen
