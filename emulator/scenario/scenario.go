// Package scenario runs chaos on a schedule: a scenario is a list of steps,
// each at a time from the scenario's start, that sets how an instance's
// simulated workload, every instance of a zone, or a target of the target
// simulator behaves (break it, slow it, hang it, flap it, heal it). Each
// step is recorded on the timeline, beside the changes of health it causes,
// so that a failover or autohealing test is one file and one assertion.
package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// Limits of a scenario.
const (
	MaxSteps    = 1000
	MaxDuration = 24 * time.Hour // the latest a step may be
)

// Scenario is a named list of timed steps.
type Scenario struct {
	Name  string `json:"name"`
	Steps []Step `json:"steps"`
}

// Step sets the mode of one thing at a time from the start. It names one
// of Instance, Zone and Target.
type Step struct {
	// At is how long after the start the step runs, as Go writes a
	// duration ("0s", "1.5s", "2m").
	At string `json:"at"`
	// Instance is an instance's path (projects/p/zones/z/instances/name)
	// or self link: its simulated workload takes Mode.
	Instance string `json:"instance,omitempty"`
	// Zone is a zone's path (projects/p/zones/z) or self link: every
	// instance in it that runs a workload takes Mode.
	Zone string `json:"zone,omitempty"`
	// Target is a target of the target simulator, by the URL its control
	// API gives it (http://127.0.0.1:8687/targets/http-1), on this machine.
	Target string `json:"target,omitempty"`
	// Mode is what it does from then on: one of control.WorkloadModes
	// (ok heals) for an instance or a zone; a target takes the modes of
	// its kind (see the target simulator).
	Mode string `json:"mode"`

	at time.Duration
}

// When is the step's time from the start (valid after Parse).
func (s Step) When() time.Duration { return s.at }

// Parse reads a scenario written in YAML or JSON and checks it; a field
// it does not know is an error, as is any step that breaks a rule.
func Parse(doc []byte) (*Scenario, error) {
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("the scenario is neither YAML nor JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("reading the scenario: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

var (
	namePattern     = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
	instancePattern = regexp.MustCompile(`^projects/[^/]+/zones/[^/]+/instances/[^/]+$`)
	zonePattern     = regexp.MustCompile(`^projects/[^/]+/zones/[^/]+$`)
)

// check applies the rules of a scenario, and reads each step's time.
func (s *Scenario) check() error {
	var errs []error
	if !namePattern.MatchString(s.Name) {
		errs = append(errs, fmt.Errorf("name (%q) must be 1 to 63 lowercase letters, digits and dashes, starting with a letter", s.Name))
	}
	switch {
	case len(s.Steps) == 0:
		errs = append(errs, errors.New("steps is required: what to do, and when"))
	case len(s.Steps) > MaxSteps:
		errs = append(errs, fmt.Errorf("steps lists %d steps: a scenario has at most %d", len(s.Steps), MaxSteps))
	}
	for i := range s.Steps {
		if err := s.Steps[i].check(fmt.Sprintf("steps[%d]", i)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (st *Step) check(field string) error {
	var errs []error
	at, err := time.ParseDuration(st.At)
	switch {
	case st.At == "":
		errs = append(errs, fmt.Errorf("%s.at is required: how long after the start the step runs (\"0s\", \"1.5s\", \"2m\")", field))
	case err != nil:
		errs = append(errs, fmt.Errorf("%s.at (%q) is not a duration: write it as \"0s\", \"1.5s\" or \"2m\"", field, st.At))
	case at < 0 || at > MaxDuration:
		errs = append(errs, fmt.Errorf("%s.at (%q) must be from 0s to %s", field, st.At, MaxDuration))
	}
	st.at = at
	st.Instance, st.Zone = resourcePath(st.Instance), resourcePath(st.Zone)
	named := 0
	for _, v := range []string{st.Instance, st.Zone, st.Target} {
		if v != "" {
			named++
		}
	}
	switch {
	case named != 1:
		errs = append(errs, fmt.Errorf("%s names %d of instance, zone and target: a step names one", field, named))
	case st.Instance != "" && !instancePattern.MatchString(st.Instance):
		errs = append(errs, fmt.Errorf("%s.instance (%q) is not an instance: write projects/{project}/zones/{zone}/instances/{name}", field, st.Instance))
	case st.Zone != "" && !zonePattern.MatchString(st.Zone):
		errs = append(errs, fmt.Errorf("%s.zone (%q) is not a zone: write projects/{project}/zones/{zone}", field, st.Zone))
	case st.Target != "":
		if err := checkTarget(st.Target); err != nil {
			errs = append(errs, fmt.Errorf("%s.target (%q) %w", field, st.Target, err))
		}
	}
	switch {
	case st.Mode == "":
		errs = append(errs, fmt.Errorf("%s.mode is required: one of %s", field, control.ModeNames()))
	case st.Target == "" && !slices.Contains(control.WorkloadModes, targets.Mode(st.Mode)):
		errs = append(errs, fmt.Errorf("%s.mode (%q) is not a workload mode: one of %s", field, st.Mode, control.ModeNames()))
	}
	return errors.Join(errs...)
}

// resourcePath turns a self link into its path from projects/.
func resourcePath(ref string) string {
	if i := strings.Index(ref, "/projects/"); i >= 0 && strings.Contains(ref, "://") {
		return ref[i+1:]
	}
	return ref
}

// checkTarget accepts the control URL of a simulator target on this
// machine: the emulator calls it, and must not be made to call elsewhere.
func checkTarget(ref string) error {
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return errors.New("is not a target's control URL: write http://127.0.0.1:8687/targets/{name}")
	}
	if host := u.Hostname(); host != "localhost" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return errors.New("is not on this machine: the target simulator's control API listens on loopback")
		}
	}
	if !regexp.MustCompile(`^/targets/[^/]+$`).MatchString(u.Path) || u.RawQuery != "" {
		return errors.New("is not a target's control URL: write http://127.0.0.1:8687/targets/{name}")
	}
	return nil
}
