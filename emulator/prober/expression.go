package prober

import (
	"context"
	"fmt"
	"time"

	"github.com/blues/jsonata-go"
)

// ExpressionSpec is the part of EXPRESSION checks.
type ExpressionSpec struct {
	Expression string // JSONata, over Facts
}

func (s Spec) expression() ExpressionSpec {
	if s.Expression == nil {
		return ExpressionSpec{}
	}
	return *s.Expression
}

func expressionPart(s *Spec, text func(string) string) {
	s.Expression = &ExpressionSpec{Expression: text("expression")}
}

// NeedsFacts tells whether a probe of s reads the Facts of its context
// (WithFacts): the caller gathers them only then.
func (s Spec) NeedsFacts() bool {
	if s.Scenario != nil {
		for _, m := range s.Scenario.Members {
			if m.Spec.NeedsFacts() {
				return true
			}
		}
	}
	return s.Protocol == "EXPRESSION"
}

// Node is who the emulator is among the nodes of a cluster: an expression
// can make a backup node report its endpoints down.
type Node struct {
	ID   string
	Role string // "MASTER" or "BACKUP"
}

// Facts are what an expression sees besides the endpoint and the time:
// the node, and the endpoint's health so far.
type Facts struct {
	Node Node
	// State is the endpoint's state before this probe (HEALTHY,
	// UNHEALTHY, UNKNOWN); Successes and Failures its consecutive results.
	State               string
	Successes, Failures int
}

type factsKey struct{}

// WithFacts is ctx carrying facts for a probe that needs them.
func WithFacts(ctx context.Context, f Facts) context.Context {
	return context.WithValue(ctx, factsKey{}, f)
}

// probeExpression evaluates the check's JSONata expression over the facts
// (node, time, endpoint, health) and sends nothing: healthy when the
// result is true. False is RESPONSE_MISMATCH; a result that is not a
// boolean, or an evaluation error, PROTOCOL_ERROR with the error.
func probeExpression(ctx context.Context, spec Spec, t Target) Result {
	expr, err := jsonata.Compile(spec.expression().Expression)
	if err != nil {
		return result(ctx, failure(ReasonProtocolError, "expression: "+err.Error()))
	}
	f, _ := ctx.Value(factsKey{}).(Facts)
	now := time.Now().UTC()
	doc := map[string]any{
		"node": map[string]any{"id": f.Node.ID, "role": f.Node.Role},
		"time": map[string]any{"now": now.Format(time.RFC3339), "unix": now.Unix(), "hour": now.Hour(),
			"minute": now.Minute(), "weekday": now.Weekday().String()},
		"endpoint": map[string]any{"ip": t.IP, "port": t.Port},
		"health":   map[string]any{"state": f.State, "successes": f.Successes, "failures": f.Failures},
	}
	v, err := expr.Eval(doc)
	switch b, isBool := v.(bool); {
	case err != nil:
		return result(ctx, failure(ReasonProtocolError, "expression: "+err.Error()))
	case !isBool:
		return result(ctx, failure(ReasonProtocolError, fmt.Sprintf("expression: the result %v is not a boolean", v)))
	case !b:
		return result(ctx, failure(ReasonResponseMismatch, "expression is false"))
	}
	return result(ctx, ctx.Err())
}
