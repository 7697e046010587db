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
