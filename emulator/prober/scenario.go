package prober

import (
	"context"
	"strings"
	"sync"
)

// ScenarioSpec is the part of SCENARIO checks: the checks it combines,
// each resolved for the endpoint, and how.
type ScenarioSpec struct {
	Operator string // "AND" or "OR"
	Members  []Member
}

// Member is one check of a scenario, as it probes the endpoint.
type Member struct {
	Name string // the check's name, for details
	Spec Spec
	// Port is the port it probes; 0 with Unresolved saying why it cannot.
	Port       int
	Unresolved string
}

func (s Spec) scenario() *ScenarioSpec { return s.Scenario }

// NoPort tells whether a probe of s needs no port: ICMP, EXPRESSION and
// SCENARIO (whose members have their own), the check types the API's
// table marks NoPort.
func (s Spec) NoPort() bool {
	switch s.Protocol {
	case "ICMP", "EXPRESSION", "SCENARIO":
		return true
	}
	return false
}

// equalScenario tells whether two scenarios probe alike.
func equalScenario(a, b *ScenarioSpec) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Operator != b.Operator || len(a.Members) != len(b.Members) {
		return false
	}
	for i, m := range a.Members {
		o := b.Members[i]
		if m.Name != o.Name || m.Port != o.Port || m.Unresolved != o.Unresolved || !m.Spec.Equal(o.Spec) {
			return false
		}
	}
	return true
}

// probeMember is Probe, set at start: the registry, which holds
// probeScenario, cannot refer to itself while it is built.
var probeMember Func

func init() { probeMember = Probe }

// probeScenario probes the endpoint with every member at once, each its own
// way, within the scenario's deadline, and combines their results: with
// AND healthy when all are (else the first failure in the members' order,
// named), with OR when one is (else every failure, named).
func probeScenario(ctx context.Context, spec Spec, t Target) Result {
	sc := spec.scenario()
	if sc == nil || len(sc.Members) == 0 {
		return Result{Reason: ReasonProtocolError, Detail: "scenario with no health checks"}
	}
	results := make([]Result, len(sc.Members))
	var wg sync.WaitGroup
	for i, m := range sc.Members {
		if m.Unresolved != "" {
			results[i] = Result{Reason: ReasonUnreachable, Detail: m.Unresolved}
			continue
		}
		wg.Go(func() { results[i] = probeMember(ctx, m.Spec, Target{IP: t.IP, Port: m.Port}) })
	}
	wg.Wait()
	var failed []string
	first := -1
	for i, r := range results {
		if r.Healthy {
			if sc.Operator == "OR" {
				return healthy
			}
			continue
		}
		if first < 0 {
			first = i
		}
		failed = append(failed, sc.Members[i].Name+": "+r.Reason+" "+r.Detail)
	}
	if first < 0 {
		return healthy
	}
	if sc.Operator == "AND" {
		return Result{Reason: results[first].Reason, Detail: truncate(failed[0])}
	}
	return Result{Reason: results[first].Reason, Detail: truncate("none passed: " + strings.Join(failed, "; "))}
}
