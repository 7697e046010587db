// Package health turns probe results into endpoint health: one scheduler
// that runs every (owner, endpoint, prober) on its own start-to-start slots,
// and the per-endpoint state machine of SPEC 3.3.
//
// The Engine is told the whole desired set of Targets at once (Update) and
// reconciles: new targets start probing, removed ones stop at once, changed
// ones take the new settings from their next probe. Probing itself belongs
// to package prober; what to probe (ports, endpoints) is resolved by Plan.
package health
