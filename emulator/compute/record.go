package compute

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// operationsCollection holds the operations that answer writes.
const operationsCollection = OperationsCollection

// recordOperation stores the Operation that answers a mutation of target,
// so that clients can fetch (or wait on) it again by name.
func (s *Service) recordOperation(r *Call, sc scope, opType string, target store.Key, targetID uint64) (*api.Operation, error) {
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
func (s *Service) getOperation(r *Call) (any, error) {
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
		return nil, StoreError(key, err)
	}
	return json.RawMessage(o.Body), nil
}
