package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

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
		`Is lbhealth-emulator running there? Start it with "lbhealth-emulator --listen %s" (or "make emulator"), `+
		"or point the provider at the address it prints (provider endpoint, or LBHEALTH_EMULATOR_HOST).",
		e.URL, e.Source, shortCause(e.Err), hostOf(e.URL))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// TimeoutError is an emulator that took the connection but did not answer
// in time.
type TimeoutError struct {
	URL, Source  string
	Method, Path string
	After        time.Duration // the client's timeout
	Err          error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the server at %s (set by %s) took the connection but did not answer %s %s within %v: "+
		"lbhealth-emulator answers in milliseconds, so it is stuck (stopped in a debugger, out of resources) "+
		"or another program that never answers listens at that address",
		e.URL, e.Source, e.Method, e.Path, e.After)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// notEmulatorBytes is how much of a foreign answer an error quotes.
const notEmulatorBytes = 32

// NotEmulatorError is an answer that is not the API's: not JSON, or an
// error that is not Google-style. Another web server listens at the address.
type NotEmulatorError struct {
	URL, Source  string
	Method, Path string
	Status       int
	ContentType  string
	Start        []byte // the first bytes of the body, at most notEmulatorBytes
}

func (e *NotEmulatorError) Error() string {
	ct := "no Content-Type"
	if e.ContentType != "" {
		ct = fmt.Sprintf("Content-Type %q", e.ContentType)
	}
	start := "an empty body"
	if len(e.Start) > 0 {
		start = fmt.Sprintf("a body starting %q", e.Start)
	}
	return fmt.Sprintf("the server at %s (set by %s) is not an lbhealth emulator: %s %s answered HTTP %d with %s and %s, "+
		"not the API's JSON. Point the provider at lbhealth-emulator (provider endpoint, or LBHEALTH_EMULATOR_HOST).",
		e.URL, e.Source, e.Method, e.Path, e.Status, ct, start)
}

// hostOf is the host:port of a base URL.
func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

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
