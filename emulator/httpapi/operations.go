package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const operationsCollection = "operations"

// recordOperation stores the Operation that answers a mutation of target,
// so that clients can fetch (or wait on) it again by name.
func (s *Server) recordOperation(r *http.Request, sc scope, opType string, target store.Key, targetID uint64) (*api.Operation, error) {
	now := timestamp(s.now())
	name := fmt.Sprintf("operation-%d-%016x", s.now().UnixMilli(), newID())
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
	if err != nil {
		return nil, storeError(key, err)
	}
	return json.RawMessage(o.Body), nil
}
