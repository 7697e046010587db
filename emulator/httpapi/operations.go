package httpapi

import (
	"errors"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// How long, and how many, operations are kept unless Options says
// otherwise (core.Operations).
const (
	DefaultOperationsTTL = core.DefaultOperationsTTL
	DefaultOperationsMax = core.DefaultOperationsMax
)

// Close stops what the server does in the background, when it made the
// Compute API and its core: provisioning certificates, expiring
// operations. Call it before closing the store.
func (s *Server) Close() {
	if s.certs != nil {
		s.certs.Close()
	}
	if s.ownCore {
		s.core.Close()
	}
}

// durable finishes a request that may have written: called once its
// handler has returned (and so released the write lock), it waits until
// every write made so far is durable, so that the client gets its answer
// only then, while the writers of one moment share one commit. A write
// that cannot be saved fails the request with a storage error.
func (s *Server) durable(r *http.Request, err error) error {
	derr := s.store.WaitDurable(r.Context())
	if derr == nil && !errors.Is(err, store.ErrUnavailable) {
		return err
	}
	var ae *apiError
	if derr != nil && errors.As(err, &ae) && ae.Code < 500 {
		return err // the client's mistake: it changed nothing
	}
	if derr == nil {
		derr = err
	}
	s.log.Error("change not saved", "method", r.Method, "path", r.URL.Path, "error", derr)
	return googleapi.NewError(http.StatusInternalServerError, api.ReasonBackendError,
		"The emulator could not save this change to its database, and refuses every change until it is restarted: see its log.")
}
