package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// operationsCollection holds the operations that answer writes.
const operationsCollection = compute.OperationsCollection

// How long, and how many, operations are kept unless Options says
// otherwise (compute.Operations).
const (
	DefaultOperationsTTL = compute.DefaultOperationsTTL
	DefaultOperationsMax = compute.DefaultOperationsMax
)

// Close stops what the server does in the background: provisioning
// certificates, and, with a core of its own, expiring operations. Call it
// before closing the store.
func (s *Server) Close() {
	s.certs.Close()
	if s.ownCore {
		s.core.Close()
	}
}

// recordOperation stores the Operation that answers a mutation of target,
// so that clients can fetch (or wait on) it again by name.
func (s *Server) recordOperation(r *http.Request, sc scope, opType string, target store.Key, targetID uint64) (*api.Operation, error) {
	made := s.now()
	now := timestamp(made)
	name := fmt.Sprintf("operation-%d-%016x", made.UnixMilli(), newID())
	key := sc.key(operationsCollection, name)
	op := &api.Operation{
		Kind:          api.KindOperation,
		ID:            newID(),
		Name:          name,
		OperationType: opType,
		TargetLink:    s.link(target.Path()),
		TargetID:      targetID,
		Status:        "DONE",
		Progress:      100,
		InsertTime:    now,
		StartTime:     now,
		EndTime:       now,
		Region:        s.regionLink(sc),
		Zone:          s.zoneLink(sc), // a waiter routes by it: zoneOperations
		SelfLink:      s.link(key.Path()),
		User:          "emulator",
	}
	body, err := json.Marshal(op)
	if err != nil {
		return nil, err
	}
	if err := s.store.Insert(r.Context(), store.Object{Key: key, Body: body}); err != nil {
		return nil, err
	}
	s.core.Operations().Keep(key, made)
	s.log.Info("operation", "type", opType, "target", target.Path())
	return op, nil
}

// getOperation answers GET (and POST .../wait) on an operation: every
// operation is DONE already, so waiting returns at once.
func (s *Server) getOperation(r *http.Request) (any, error) {
	sc, err := scopeOf(r)
	if err != nil {
		return nil, err
	}
	key := sc.key(operationsCollection, r.PathValue("name"))
	o, err := s.store.Get(r.Context(), key)
	if errors.Is(err, store.ErrNotFound) {
		ttl, limit := s.core.Operations().Retention()
		return nil, googleapi.NewError(http.StatusNotFound, api.ReasonNotFound, fmt.Sprintf(
			"The resource '%s' was not found: the emulator keeps operations for %s and at most %d of them, dropping the oldest first, so it may have been dropped (see --operations-ttl and --operations-max).",
			key.Path(), ttl, limit))
	}
	if err != nil {
		return nil, storeError(key, err)
	}
	return json.RawMessage(o.Body), nil
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
