package httpapi

import (
	"errors"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/scenario"
)

// scenariosPath is where chaos scenarios are started, read and stopped: an
// lbhealth extension, beside the Compute API.
const scenariosPath = "/_emulator/scenarios"

// ScenarioRunner runs chaos scenarios (scenario.Runner).
type ScenarioRunner interface {
	Start(s *scenario.Scenario) (scenario.Status, error)
	List() []scenario.Status
	Stop(name string) (scenario.Status, bool)
}

type scenarioList struct {
	Kind  string            `json:"kind"`
	Items []scenario.Status `json:"items"`
}

// startScenario runs the scenario in the body (JSON, as the API takes it;
// the CLI reads YAML too) from now.
func (s *Server) startScenario(r *googleapi.Call) (any, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Parse(body)
	if err != nil {
		return nil, googleapi.Invalid("%v", err)
	}
	st, err := s.scenarios.Start(sc)
	switch {
	case errors.Is(err, scenario.ErrRunning):
		return nil, googleapi.NewError(http.StatusConflict, "alreadyExists", err.Error())
	case err != nil:
		return nil, googleapi.Invalid("%v", err)
	}
	return st, nil
}

func (s *Server) listScenarios(*googleapi.Call) (any, error) {
	return scenarioList{Kind: "lbhealth#scenarioList", Items: s.scenarios.List()}, nil
}

func (s *Server) getScenario(r *googleapi.Call) (any, error) {
	for _, st := range s.scenarios.List() {
		if st.Name == r.PathValue("name") {
			return st, nil
		}
	}
	return nil, noScenario(r.PathValue("name"))
}

// stopScenario stops a running scenario; what its steps changed stays as
// it is.
func (s *Server) stopScenario(r *googleapi.Call) (any, error) {
	st, ok := s.scenarios.Stop(r.PathValue("name"))
	if !ok {
		return nil, noScenario(r.PathValue("name"))
	}
	return st, nil
}

func noScenario(name string) *apiError {
	return googleapi.NewError(http.StatusNotFound, "notFound", "No scenario named '"+name+"' has run.")
}
