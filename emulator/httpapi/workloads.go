package httpapi

import (
	"net/http"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// workloadsPath is where the instances' simulated workloads are listed,
// and, under it by instance path, broken and healed: an lbhealth
// extension, beside the Compute API.
const workloadsPath = "/_emulator/workloads"

// WorkloadControl is what the API reads and changes of the simulated
// workloads (control.Workloads).
type WorkloadControl interface {
	List() []control.Status
	Status(instance string) (control.Status, bool)
	SetMode(instance string, m targets.Mode) error
}

// workloadList is the answer of GET /_emulator/workloads.
type workloadList struct {
	Kind  string           `json:"kind"`
	Items []control.Status `json:"items"`
}

func (s *Server) listWorkloads(*googleapi.Call) (any, error) {
	if s.workloads == nil {
		return nil, workloadsOff()
	}
	return workloadList{Kind: "lbhealth#workloadList", Items: s.workloads.List()}, nil
}

// setWorkload breaks or heals one instance's workload: the body is
// {"mode": "status-500"}; "ok" heals it.
func (s *Server) setWorkload(r *googleapi.Call) (any, error) {
	if s.workloads == nil {
		return nil, workloadsOff()
	}
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	doc, err := core.ParseObject(body)
	if err != nil {
		return nil, err
	}
	mode, ok := doc["mode"].(string)
	if !ok || len(doc) != 1 {
		return nil, googleapi.Invalid("The body must be {\"mode\": \"...\"}: one of %s.", control.ModeNames())
	}
	if !slices.Contains(control.WorkloadModes, targets.Mode(mode)) {
		return nil, googleapi.Invalid("mode (%q) is not a workload mode: one of %s.", mode, control.ModeNames())
	}
	k := store.Key{Project: r.PathValue("project"), Scope: "zones/" + r.PathValue("zone"), Collection: api.CollectionInstances, Name: r.PathValue("name")}
	if _, err := s.store.Get(r.Context(), k); err != nil {
		return nil, core.StoreError(k, err)
	}
	if err := s.workloads.SetMode(k.Path(), targets.Mode(mode)); err != nil {
		return nil, googleapi.NewError(http.StatusNotFound, api.ReasonNotFound, err.Error())
	}
	st, _ := s.workloads.Status(k.Path())
	return st, nil
}

func workloadsOff() *apiError {
	return googleapi.NewError(http.StatusNotFound, api.ReasonNotFound,
		"Simulated workloads are off: start the emulator with --workloads on to run one at each instance's address.")
}
