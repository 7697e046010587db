package prober

import (
	"strings"
	"time"
)

// The reactor runs plain-TCP probes (TCP, HTTP, LEGACY_HTTP) on one
// event loop instead of one goroutine each: non-blocking sockets on one
// epoll instance and one heap of deadlines, driven by its owner's Poll
// calls. The engine's scheduler sleeps in Poll between slots, so one
// thread starts probes and reads their answers, with no hand-off. At
// thousands of probes a second a goroutine per probe (park and wake on
// connect and on read, a timer for the deadline, a growing stack) cost
// more than half as much again as the kernel's own work for the probe,
// which an event-driven checker like HAProxy never pays
// (docs/guides/benchmarks.md).
//
// Probes over TLS that judge a plain answer (SSL, HTTPS, LEGACY_HTTPS)
// run on the reactor from the end of their handshake: crypto/tls has no
// handshake but a blocking one, so a goroutine connects and handshakes,
// sends the request, and hands the wait for the answer to the loop, which
// reads through the tls.Conn without ever blocking (tlsConn). A server
// that completes TLS and never answers then holds no goroutine, no stack
// and no read buffer. HTTP2 and the gRPC protocols keep the
// blocking probers: their clients read on goroutines of their own.
//
// Both ways to probe judge the answer with the same verdicts (verdict.go),
// and the tests run every case the reactor takes through both.

// Done receives the result of a probe started on a Reactor.
type Done func(Result)

// probePlan is a probe as the reactor runs it: the bytes to send once
// connected and the rule that judges the answer.
type probePlan struct {
	out []byte // the PROXY line, then the request; may be empty
	// proxy: the PROXY line goes first. Plain probes carry it in out, so
	// a failed write fails the probe (a failed request write alone does
	// not: see exchange); TLS probes send it before the handshake.
	proxy bool
	// tls: out and the answer go through TLS (SSL, HTTPS, LEGACY_HTTPS).
	tls bool
	// verdict judges the answer; nil when the probe is healthy once out is
	// sent (or, with nothing to send, once connected).
	verdict verdict
}

// planProbe returns the plan for spec, or false when the reactor does not
// run spec's protocol (its registry entry has no plan).
func planProbe(spec Spec, t Target) (probePlan, bool, error) {
	p, ok := registry[spec.Protocol]
	if !ok || p.plan == nil {
		return probePlan{}, false, nil
	}
	plan, err := p.plan(spec, t)
	return plan, true, err
}

// planTCP is the plan of TCP and SSL probes.
func planTCP(spec Spec, _ Target) (probePlan, error) {
	var plan probePlan
	plan.proxy, plan.tls = wantsProxy(spec), spec.Protocol == "SSL"
	if !plan.tls {
		plan.out = appendProxy(nil, plan.proxy)
	}
	tcp := spec.tcp()
	plan.out = append(plan.out, tcp.Request...)
	if tcp.Response != "" {
		plan.verdict = &prefixVerdict{want: tcp.Response}
	}
	return plan, nil
}

// planHTTP is the plan of HTTP/1.1 probes, plain or over TLS, legacy or not.
func planHTTP(spec Spec, t Target) (probePlan, error) {
	var plan probePlan
	m := httpMode{legacy: strings.HasPrefix(spec.Protocol, "LEGACY_"),
		tls: spec.Protocol == "HTTPS" || spec.Protocol == "LEGACY_HTTPS"}
	want, proxy := m.rules(spec)
	plan.proxy, plan.tls = proxy, m.tls
	out, err := appendRequest(appendProxy(make([]byte, 0, 128), proxy && !m.tls), spec, t, m.tls)
	if err != nil {
		return plan, err
	}
	plan.out, plan.verdict = out, newHTTPVerdict(want)
	return plan, nil
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
