package prober

import "time"

// The reactor runs plain-TCP probes (TCP, HTTP, LEGACY_HTTP) on one
// event loop instead of one goroutine each: non-blocking sockets on one
// epoll instance and one heap of deadlines, driven by its owner's Poll
// calls. The engine's scheduler sleeps in Poll between slots, so one
// thread starts probes and reads their answers, with no hand-off. At
// thousands of probes a second a goroutine per probe (park and wake on
// connect and on read, a timer for the deadline, a growing stack) cost
// more than half as much again as the kernel's own work for the probe,
// which an event-driven checker like HAProxy never pays (README.md,
// Performance). Protocols over TLS keep the blocking probers: crypto/tls
// needs a net.Conn.
//
// Both ways to probe judge the answer with the same verdicts (verdict.go),
// and the tests run every plain-TCP case through both.

// Done receives the result of a probe started on a Reactor.
type Done func(Result)

// plainPlan is a plain-TCP probe as the reactor runs it: the bytes to send
// once connected and the rule that judges the answer.
type plainPlan struct {
	out []byte // the PROXY line, then the request; may be empty
	// proxy: out starts with the PROXY line, so a failed write fails the
	// probe (a failed request write alone does not: see exchange).
	proxy bool
	// verdict judges the answer; nil when the probe is healthy once out is
	// sent (or, with nothing to send, once connected).
	verdict verdict
}

// planPlain returns the plan for spec, or false when spec's protocol needs
// TLS and so a blocking prober.
func planPlain(spec Spec, t Target) (plainPlan, bool, error) {
	var plan plainPlan
	switch spec.Protocol {
	case "TCP":
		plan.proxy = wantsProxy(spec)
		plan.out = appendProxy(nil, plan.proxy)
		plan.out = append(plan.out, spec.Request...)
		if spec.Response != "" {
			plan.verdict = &prefixVerdict{want: spec.Response}
		}
	case "HTTP", "LEGACY_HTTP":
		want, proxy := httpMode{legacy: spec.Protocol == "LEGACY_HTTP"}.rules(spec)
		plan.proxy = proxy
		out, err := appendRequest(appendProxy(make([]byte, 0, 128), proxy), spec, t, false)
		if err != nil {
			return plan, true, err
		}
		plan.out, plan.verdict = out, newHTTPVerdict(want)
	default:
		return plan, false, nil
	}
	return plan, true, nil
}

func appendProxy(dst []byte, proxy bool) []byte {
	if proxy {
		return append(dst, proxyV1Line...)
	}
	return dst
}

// compile-time check that both platforms offer the same API.
var _ interface {
	Start(Spec, Target, time.Time, Done) bool
	Poll(until time.Time)
	Interrupt()
	Close()
} = (*Reactor)(nil)
