package api

import "time"

// The timeline: every change of state of endpoints, health sources,
// composite health checks and managed instances, the steps of chaos
// scenarios, the bans of Cloud Armor's rate-based rules, the resizes of
// autoscalers and Cloud Run's services starting and stopping, as GET
// /_emulator/timeline answers it (an lbhealth extension).

// Kinds of timeline events.
const (
	TimelineEndpoint  = "endpoint"             // an endpoint of a backend service or target pool changed state
	TimelineSource    = "healthSource"         // a health source changed state
	TimelineComposite = "compositeHealthCheck" // a composite health check changed state
	TimelineInstance  = "instance"             // autohealing moved a managed instance (its currentAction)
	TimelineScenario  = "scenario"             // a scenario's step set the mode of an instance, a zone or a target
	TimelineArmor     = "securityPolicy"       // a Cloud Armor rate_based_ban rule banned a client (From ALLOWED, To BANNED)
	TimelineScaler    = "autoscaler"           // an autoscaler resized its group (From and To are sizes)
	TimelineCloudRun  = "cloudRunService"      // a Cloud Run service started or stopped serving (BOOTING, SERVING, FAILED, STOPPED)
)

// TimelineKinds are the kinds of timeline events.
var TimelineKinds = []string{TimelineEndpoint, TimelineSource, TimelineComposite, TimelineInstance, TimelineScenario, TimelineArmor, TimelineScaler,
	TimelineCloudRun}

// TimelineEvent is one change.
type TimelineEvent struct {
	// Seq numbers the events from 1, in the order they were recorded.
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	// Resource is the path of what changed: the backend service or target
	// pool of an endpoint, the source, the composite, the instance, the
	// security policy, the autoscaler, the Cloud Run service.
	Resource string `json:"resource"`
	// Group is an endpoint's endpoint group or instance group, or an
	// instance's or an autoscaler's managed group.
	Group string `json:"group,omitempty"`
	// Endpoint is the address probed (ip:port) and Check the health check
	// that probed it (a Cloud Run service's address); for a ban, Endpoint is the key banned (the client's
	// address for an IP key) and Detail the rule and how long.
	Endpoint string `json:"endpoint,omitempty"`
	Check    string `json:"check,omitempty"`
	From     string `json:"from"`
	To       string `json:"to"`
	// Reason, Detail and LatencyMs describe the probe that decided an
	// endpoint's change (TIMEOUT, the status code seen ...).
	Reason    string  `json:"reason,omitempty"`
	Detail    string  `json:"detail,omitempty"`
	LatencyMs float64 `json:"latencyMs,omitempty"`
	// Cause is what moved a source, a composite or an instance.
	Cause string `json:"cause,omitempty"`
}

// TimelinePage is a read of the timeline.
type TimelinePage struct {
	Events []TimelineEvent `json:"events"`
	// Next is the sequence number to read from next time (the last event
	// read, or the newest one when none matched).
	Next uint64 `json:"next"`
	// Truncated says that events after the one asked for were dropped
	// before this read (the emulator keeps the last 100,000).
	Truncated bool `json:"truncated,omitempty"`
}
