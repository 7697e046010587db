// Package googleapi is what the emulator's Google APIs share: the error a
// handler returns, the handler each endpoint is, the mux a service mounts
// its routes on, and the reading of a request's JSON body.
//
// Each API beside Compute is a package of its own (iam, resourcemanager,
// iap, ...) with the same shape: a Service over the store, with typed
// methods, and Routes, which mounts its endpoints on a Mux. The HTTP
// server (package httpapi) implements Mux: it guards every request, turns
// a handler's value or error into the answer, and makes writes durable, so
// that no service writes a response or knows HTTP beyond its request.
package googleapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Error is an error the client caused (or a missing resource): the server
// answers it as a Google error body with its code and reason. The Compute
// API's reasons are words such as "invalid"; the APIs beside Compute give
// their status word ("NOT_FOUND") as the reason.
type Error struct {
	Code    int
	Reason  string
	Message string
}

func (e *Error) Error() string { return e.Message }

// NewError is an error of code with reason and message.
func NewError(code int, reason, message string) *Error {
	return &Error{Code: code, Reason: reason, Message: message}
}

// Errorf is an error of the APIs beside Compute: its HTTP code and status
// word ("NOT_FOUND"), which is also its reason.
func Errorf(code int, status, format string, args ...any) *Error {
	return &Error{Code: code, Reason: status, Message: fmt.Sprintf(format, args...)}
}

// Invalid is a 400 with the Compute API's reason.
func Invalid(format string, args ...any) *Error {
	return &Error{http.StatusBadRequest, api.ReasonInvalid, fmt.Sprintf(format, args...)}
}

// NotRouted is the answer to a path (or a method on it) that no API has.
func NotRouted(method, path string) *Error {
	return &Error{http.StatusNotFound, "notFound", "The emulator has no " + method + " " + path + ": see docs/guides/api.md for the API."}
}

// Handler is what every method of an API implements: a value to answer
// with, or an error (an *Error when the caller caused it).
type Handler func(r *Call) (any, error)

// Mux is where a service mounts its endpoints; pattern is net/http's
// ("POST /iam/v1/projects/{project}/serviceAccounts").
type Mux interface {
	Handle(pattern string, h Handler)
	// HandleHTTP mounts h, which writes its own answer (a page, a
	// stream), behind the same guard as the API.
	HandleHTTP(pattern string, h http.HandlerFunc)
	// HandleView mounts h as HandleHTTP does, open without the token for
	// GET and HEAD: a read-only view of health (the status page) that
	// changes nothing and shows names, addresses and states, never
	// settings. pattern is "GET /path" (or "GET /{$}" for the root).
	HandleView(pattern string, h http.HandlerFunc)
	// HandleMedia mounts h as HandleHTTP does, at a path prefix whose
	// calls carry media (an object's bytes): their bodies may be of any
	// type, not only JSON, from no web page of another site.
	HandleMedia(prefix string, h http.HandlerFunc)
	// HandleUnrouted gives h the GET and HEAD calls no route takes (paths
	// an API names freely: Cloud Storage's /BUCKET/OBJECT), behind the same
	// guard; h answers those it serves and says so, and the others get the
	// answer to a path the emulator does not have.
	HandleUnrouted(h func(w http.ResponseWriter, r *http.Request) bool)
	// WriteError answers err as the API answers a handler's error (an
	// *Error as it says; any other error as the emulator's own, logged).
	WriteError(w http.ResponseWriter, r *http.Request, err error)
}

// WriteJSON answers v, indented, with code.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		slog.Error("encode response", "error", err)
		code, body = http.StatusInternalServerError, []byte(`{"error":{"code":500,"message":"encode response"}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}

// Service is an API served beside Compute.
type Service interface {
	Routes(Mux)
}

// Resetter is a Service that keeps state of its own, outside the store
// (Cloud Storage's objects): POST /_emulator/reset forgets it with the
// rest.
type Resetter interface {
	Reset(ctx context.Context) error
}

// MaxBodyBytes is the largest request body accepted; larger ones get 413.
const MaxBodyBytes = 1 << 20

// ReadBody reads a request body, refusing oversized and empty ones.
func ReadBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, &Error{http.StatusRequestEntityTooLarge, api.ReasonRequestTooLarge,
			fmt.Sprintf("The request body is larger than %d bytes.", MaxBodyBytes)}
	}
	if err != nil {
		return nil, Invalid("Could not read the request body: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, Invalid("The request body is empty: send the resource as a JSON object.")
	}
	return body, nil
}

// ReadJSON reads the body of a call of the APIs beside Compute into v.
func ReadJSON(r *Call, v any) error {
	body, err := r.Body()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received: %s.", err.Error())
	}
	return nil
}

// NewID is a random positive 63-bit id, like the Compute API's.
func NewID() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.BigEndian.Uint64(b[:])>>1 | 1
}

// ProjectNumber is the number every API gives project: the same for an
// id every time.
func ProjectNumber(project string) string {
	h := fnv.New64a()
	h.Write([]byte(project))
	return strconv.FormatUint(100000000000+h.Sum64()%900000000000, 10)
}

// DefaultComputeAccount is the email of a project's Compute Engine default
// service account, which every project has.
func DefaultComputeAccount(project string) string {
	return ProjectNumber(project) + "-compute@developer.gserviceaccount.com"
}

// MergePatch applies patch to target as a JSON merge patch (RFC 7396):
// objects merge field by field, null deletes a field, anything else
// replaces it. target (nil: a new object) is changed in place and
// returned.
func MergePatch(target, patch map[string]any) map[string]any {
	if target == nil {
		target = map[string]any{}
	}
	for k, pv := range patch {
		switch pv := pv.(type) {
		case nil:
			delete(target, k)
		case map[string]any:
			tv, _ := target[k].(map[string]any)
			target[k] = MergePatch(tv, pv)
		default:
			target[k] = pv
		}
	}
	return target
}
