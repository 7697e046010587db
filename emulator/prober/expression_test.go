package prober

import (
	"context"
	"testing"
	"time"
)

func expressionSpec(expr string) Spec {
	return NewSpec("EXPRESSION", "", func(field string) string { return map[string]string{"expression": expr}[field] })
}

// TestExpression: an expression over the node, the time, the endpoint and
// its health decides the verdict with no network at all (the endpoint is a
// closed port): true is healthy, false RESPONSE_MISMATCH, a result that is
// not a boolean or an evaluation error PROTOCOL_ERROR.
func TestExpression(t *testing.T) {
	tg := closedPort(t)
	facts := Facts{Node: Node{ID: "lb-2", Role: "BACKUP"}, State: "HEALTHY", Successes: 3}
	ctx := func() context.Context { return WithFacts(probeCtx(t, time.Second), facts) }
	for _, c := range []struct {
		expr    string
		healthy bool
		reason  string
	}{
		{`node.role = "BACKUP" and node.id = "lb-2"`, true, ""},
		{`node.role = "MASTER"`, false, ReasonResponseMismatch},
		{`endpoint.ip = "127.0.0.1" and endpoint.port > 0`, true, ""},
		{`time.hour >= 0 and time.hour < 24 and $length(time.now) > 0`, true, ""},
		{`health.state = "HEALTHY" and health.successes >= 3 and health.failures = 0`, true, ""},
		{`node.role`, false, ReasonProtocolError},
		{`$number("not a number") > 1`, false, ReasonProtocolError},
	} {
		res := probeExpression(ctx(), expressionSpec(c.expr), tg)
		if res.Healthy != c.healthy || res.Reason != c.reason {
			t.Errorf("%s: %+v, want healthy=%v reason=%q", c.expr, res, c.healthy, c.reason)
		}
	}
	// Without facts (a caller that gives none) the node is empty.
	wantResult(t, probe(t, time.Second, expressionSpec(`node.role = "BACKUP"`), tg), false, ReasonResponseMismatch)
	if !expressionSpec("true").NeedsFacts() || (Spec{Protocol: "TCP"}).NeedsFacts() {
		t.Error("NeedsFacts: want true for EXPRESSION only")
	}
}

// TestScenarioCombines: AND passes when every member does and reports the
// first failure by name; OR passes when one does and names every failure;
// a member whose port could not be resolved fails without a probe.
func TestScenarioCombines(t *testing.T) {
	tg := closedPort(t)
	yes, no := Member{Name: "yes", Spec: expressionSpec("true")}, Member{Name: "no", Spec: expressionSpec("false")}
	lost := Member{Name: "lost", Spec: Spec{Protocol: "TCP"}, Unresolved: "no named port \"http\""}
	scenario := func(op string, members ...Member) Spec {
		return Spec{Protocol: "SCENARIO", Scenario: &ScenarioSpec{Operator: op, Members: members}}
	}
	for _, c := range []struct {
		spec    Spec
		healthy bool
		detail  string
	}{
		{scenario("AND", yes, yes), true, ""},
		{scenario("AND", yes, no, lost), false, "no: RESPONSE_MISMATCH expression is false"},
		{scenario("OR", no, yes), true, ""},
		{scenario("OR", no, lost), false, `none passed: no: RESPONSE_MISMATCH expression is false; lost: UNREACHABLE no named port "http"`},
	} {
		res := probe(t, time.Second, c.spec, tg)
		if res.Healthy != c.healthy || res.Detail != c.detail {
			t.Errorf("%+v: %+v, want healthy=%v detail %q", c.spec.Scenario, res, c.healthy, c.detail)
		}
	}
	if !scenario("OR", yes).Equal(scenario("OR", yes)) || scenario("OR", yes).Equal(scenario("AND", yes)) ||
		scenario("OR", yes).Equal(scenario("OR", no)) {
		t.Error("Spec.Equal does not compare scenarios by what they hold")
	}
}
