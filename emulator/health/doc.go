// Package health turns probe results into endpoint health: one scheduler
// that runs every (owner, endpoint, prober) on its own start-to-start slots,
// the per-endpoint state machine (healthy after healthyThreshold passes in
// a row, unhealthy after unhealthyThreshold failures, no verdict before),
// and the metrics of both.
//
// The scheduler is one goroutine over a heap of probe series. With the
// real probers and clock on Linux it sleeps in a prober.Reactor's Poll, so
// the plain-TCP probes (TCP, HTTP, LEGACY_HTTP) start and finish on that
// one goroutine, as in an event-driven checker; probes over TLS run on a
// goroutine each. Tests inject a Clock and a prober.Func instead, and then
// every probe runs on a goroutine.
//
// The Engine is told the whole desired set of Targets at once (Update) and
// reconciles: new targets start probing, removed ones stop at once, changed
// ones take the new settings from their next probe. Probing itself belongs
// to package prober; what to probe (ports, endpoints) is resolved by
// package plan, and the health of services and regions (health sources,
// composite checks) by package aggregate.
package health
