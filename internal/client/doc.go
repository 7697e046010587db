// Package client is a typed Go client of the lbhealth emulator's REST API.
//
// The API follows the Compute Engine REST API: collections under
// /compute/v1/projects/{project}/global/{collection} or
// /compute/v1/projects/{project}/regions/{region}/{collection}, mutations
// answered with an Operation, and Google-style error bodies. The generic
// helpers in collection.go do the HTTP work once; each collection adds only
// a few typed methods (see health_check.go). Errors from the API are
// *APIError values that match the sentinel errors (ErrNotFound, ...) with
// errors.Is, so callers never compare status codes.
package client
