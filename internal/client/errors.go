package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Sentinel errors, matched by an *APIError through errors.Is.
var (
	ErrNotFound        = errors.New("not found")
	ErrAlreadyExists   = errors.New("already exists")
	ErrInUse           = errors.New("resource in use by another resource")
	ErrConditionNotMet = errors.New("condition not met")
	ErrInvalid         = errors.New("invalid")
)

// APIError is an error answered by the emulator.
type APIError struct {
	Code    int    // HTTP status code
	Reason  string // errors[0].reason, such as "notFound"
	Message string // the emulator's message, verbatim
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s (HTTP %d %s)", e.Message, e.Code, e.Reason)
}

// Is matches the sentinel errors. The reason decides; the status code is the
// fallback for a body that names none (a proxy's error page, say).
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Reason == api.ReasonNotFound || (e.Reason == "" && e.Code == http.StatusNotFound)
	case ErrAlreadyExists:
		return e.Reason == api.ReasonAlreadyExists || (e.Reason == "" && e.Code == http.StatusConflict)
	case ErrInUse:
		return e.Reason == api.ReasonResourceInUse
	case ErrConditionNotMet:
		return e.Reason == api.ReasonConditionNotMet || (e.Reason == "" && e.Code == http.StatusPreconditionFailed)
	case ErrInvalid:
		return e.Reason == api.ReasonInvalid || e.Reason == api.ReasonParseError
	}
	return false
}

// UnreachableError is a transport failure: the emulator did not answer at
// all. Its message says where the client looked and how to fix it, because
// "connection refused" alone sends users hunting.
type UnreachableError struct {
	URL    string // the base URL tried
	Source string // what chose the endpoint, such as "the default"
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the lbhealth emulator at %s (set by %s): %s. "+
		`Start it with "lbhealth-emulator" (or "make emulator") or point the provider at it.`,
		e.URL, e.Source, shortCause(e.Err))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// shortCause reduces a transport error to its root ("connection refused")
// when there is one: the full chain repeats the URL already in the message.
func shortCause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.Error()
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return opErr.Err.Error()
	}
	return err.Error()
}
