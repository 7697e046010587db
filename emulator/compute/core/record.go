package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// operationsCollection holds the operations that answer writes.
const operationsCollection = OperationsCollection

// operationSeq numbers the operations made since the start.
var operationSeq atomic.Uint32

// ProjectChanged records the global Operation that answers a write to the
// project the call names itself (Shared VPC's methods): its target is the
// project.
func (s *API) ProjectChanged(r *googleapi.Call, opType string) (*api.Operation, error) {
	project := r.PathValue("project")
	id, _ := strconv.ParseUint(googleapi.ProjectNumber(project), 10, 64)
	return s.recordOperation(r.WithoutCancel(), Scope{Project: project}, opType, "projects/"+project, id)
}

// recordOperation stores the Operation that answers a mutation of the
// resource at targetPath, so that clients can fetch (or wait on) it again
// by name.
func (s *API) recordOperation(r *googleapi.Call, sc Scope, opType, targetPath string, targetID uint64) (*api.Operation, error) {
	made := s.core.Now()
	now := Timestamp(made)
	// Names sort in the order the operations were made (a list's order):
	// the sequence breaks ties within a millisecond.
	name := fmt.Sprintf("operation-%d-%08x%08x", made.UnixMilli(), operationSeq.Add(1), uint32(NewID()))
	key := sc.Key(operationsCollection, name)
	op := &api.Operation{
		Kind:          api.KindOperation,
		ID:            NewID(),
		Name:          name,
		OperationType: opType,
		TargetLink:    s.Link(targetPath),
		TargetID:      targetID,
		Status:        "DONE",
		Progress:      100,
		InsertTime:    now,
		StartTime:     now,
		EndTime:       now,
		Region:        s.regionLink(sc),
		Zone:          s.zoneLink(sc), // a waiter routes by it: zoneOperations
		SelfLink:      s.Link(key.Path()),
		User:          "emulator",
	}
	body, err := json.Marshal(op)
	if err != nil {
		return nil, err
	}
	if err := s.Store.Insert(r.Context(), store.Object{Key: key, Body: body}); err != nil {
		return nil, err
	}
	s.core.Operations().Keep(key, made)
	s.Log.Info("operation", "type", opType, "target", targetPath)
	return op, nil
}

// GetOperation answers GET (and POST .../wait) on an operation: every
// operation is DONE already, so waiting returns at once.
func (s *API) GetOperation(r *googleapi.Call) (any, error) {
	key, err := operationKey(r)
	if err != nil {
		return nil, err
	}
	o, err := s.Store.Get(r.Context(), key)
	if err != nil {
		return nil, s.operationError(key, err)
	}
	return json.RawMessage(o.Body), nil
}

// operationKey is the store key of the operation a call names.
func operationKey(r *googleapi.Call) (store.Key, error) {
	sc, err := ScopeOf(r)
	return sc.Key(operationsCollection, r.PathValue("name")), err
}

// operationError is the answer to a store error on operation key: a
// missing one may have been dropped, and the message says when they are.
func (s *API) operationError(key store.Key, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		ttl, limit := s.core.Operations().Retention()
		return googleapi.NewError(http.StatusNotFound, api.ReasonNotFound, fmt.Sprintf(
			"The resource '%s' was not found: the emulator keeps operations for %s and at most %d of them, dropping the oldest first, so it may have been dropped (see --operations-ttl and --operations-max).",
			key.Path(), ttl, limit))
	}
	return StoreError(key, err)
}

// ListOperations answers a list of the operations of the call's scope
// (globalOperations.list, regionOperations.list, zoneOperations.list),
// filtered, ordered and paged as any list is; name order is the order
// they were made in.
func (s *API) ListOperations(r *googleapi.Call) (any, error) {
	return s.list(r, operationsCollection, "compute#operationList", nil)
}

// AggregatedListOperations answers aggregated/operations: the project's
// operations of every scope, grouped by scope.
func (s *API) AggregatedListOperations(r *googleapi.Call) (any, error) {
	return s.aggregatedList(r, operationsCollection, "compute#operationAggregatedList")
}

// DeleteOperation forgets an operation (globalOperations.delete and the
// regional and zonal ones); the API answers an empty body.
func (s *API) DeleteOperation(r *googleapi.Call) (any, error) {
	key, err := operationKey(r)
	if err != nil {
		return nil, err
	}
	if err := s.Store.Delete(r.Context(), key); err != nil {
		return nil, s.operationError(key, err)
	}
	return struct{}{}, nil
}
