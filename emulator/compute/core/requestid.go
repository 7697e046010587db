package core

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Request ids are remembered for as long as the Compute API documents (at
// least 60 minutes), and at most this many, oldest forgotten first.
const (
	requestIDTTL = time.Hour
	requestIDMax = 10000
)

// requestIDs remembers which Operation answered each requestId, so that a
// client retrying a mutation (after a timeout, say) gets the first answer
// instead of doing it twice: a retried insert is not a 409.
type requestIDs struct {
	mu       sync.Mutex
	ops      map[string]requestOp
	order    []string                 // oldest first
	inFlight map[string]chan struct{} // closed when the request ends
}

type requestOp struct {
	op store.Key
	at time.Time
}

// uuidPattern is what the API takes as a requestId: a UUID, not the zero one.
var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Idempotent wraps a handler so that a mutation carrying a requestId it has
// answered before gets that answer again (the Operation as stored now).
func (s *API) Idempotent(h googleapi.Handler) googleapi.Handler {
	return func(r *googleapi.Call) (any, error) {
		id := r.Query().Get("requestId")
		if id == "" || r.Method == http.MethodGet {
			return h(r)
		}
		if !uuidPattern.MatchString(id) || id == "00000000-0000-0000-0000-000000000000" {
			return nil, googleapi.Invalid("requestId (%q) must be a UUID other than the zero UUID, such as 3f6e1a0c-5b7d-4c2e-9a41-2d8f0b6c7e19.", id)
		}
		if op, ok := s.requests.begin(r, s, id); ok {
			return op, nil
		}
		var answered *api.Operation
		defer func() { s.requests.end(id, answered, s.core.Now()) }() // even on panic
		v, err := h(r)
		if op, ok := v.(*api.Operation); ok && err == nil {
			answered = op
		}
		return v, err
	}
}

// begin returns the answer already given to id, or marks id in flight. A
// retry sent while the first request is still running waits for it: one
// request per id at a time.
func (q *requestIDs) begin(r *googleapi.Call, s *API, id string) (json.RawMessage, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if op, ok := q.answer(r, s, id); ok {
			return op, true
		}
		wait, busy := q.inFlight[id]
		if !busy {
			break
		}
		q.mu.Unlock()
		<-wait
		q.mu.Lock()
	}
	if q.inFlight == nil {
		q.inFlight = map[string]chan struct{}{}
	}
	q.inFlight[id] = make(chan struct{})
	return nil, false
}

// end records the Operation that answered id (nil if it failed) and wakes
// the retries waiting for it.
func (q *requestIDs) end(id string, op *api.Operation, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if op != nil {
		q.remember(id, scopeOfOperation(op), op.Name, now)
	}
	close(q.inFlight[id])
	delete(q.inFlight, id)
}

// answer returns the stored Operation that answered id, if any.
func (q *requestIDs) answer(r *googleapi.Call, s *API, id string) (json.RawMessage, bool) {
	e, ok := q.ops[id]
	if !ok || s.core.Now().Sub(e.at) > requestIDTTL {
		return nil, false
	}
	o, err := s.Store.Get(r.Context(), e.op)
	if err != nil {
		return nil, false // the operation is gone: do the request again
	}
	return o.Body, true
}

func (q *requestIDs) remember(id string, sc Scope, opName string, now time.Time) {
	if q.ops == nil {
		q.ops = map[string]requestOp{}
	}
	q.ops[id] = requestOp{op: sc.Key(operationsCollection, opName), at: now}
	q.order = append(q.order, id)
	for len(q.order) > 0 && (len(q.order) > requestIDMax || now.Sub(q.ops[q.order[0]].at) > requestIDTTL) {
		delete(q.ops, q.order[0])
		q.order = q.order[1:]
	}
}

// scopeOfOperation is the scope an Operation was recorded in.
func scopeOfOperation(op *api.Operation) Scope {
	return ScopeOfKey(keyOfLink(op.SelfLink))
}

// keyOfLink is the store key of a self link.
func keyOfLink(link string) store.Key {
	k, _ := ParseAnyRef("selfLink", link, Scope{}, "")
	return k
}
