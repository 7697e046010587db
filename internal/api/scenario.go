package api

import "time"

// States of a chaos scenario's run (GET /_emulator/scenarios, an lbhealth
// extension).
const (
	ScenarioRunning = "RUNNING"
	ScenarioDone    = "DONE"
	ScenarioStopped = "STOPPED"
)

// ScenarioStatus is what a run of a scenario has done.
type ScenarioStatus struct {
	Name      string    `json:"name"`
	State     string    `json:"state"`
	StartTime time.Time `json:"startTime"`
	Steps     int       `json:"steps"`
	StepsDone int       `json:"stepsDone"`
	// Errors are the steps that could not be carried out, and why.
	Errors []string `json:"errors,omitempty"`
}
