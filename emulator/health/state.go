package health

import "github.com/lbhealth/terraform-provider-lbhealth/internal/api"

// An endpoint's health states are the API's: api.StateUnknown,
// api.StateHealthy, api.StateUnhealthy.

// Reasons of endpoints that are not probed.
const (
	// ReasonStopped: the endpoint is STOPPED, and probers connect only to
	// running machines.
	ReasonStopped = "STOPPED"
	// ReasonNotProbed: no port to probe could be resolved, or the address
	// is outside the networks the emulator may probe.
	ReasonNotProbed = "NOT_PROBED"
	// ReasonFirewallBlocked: the network's firewall rules block every probe
	// of the cloud's probers (the emulator enforces them, --firewalls).
	ReasonFirewallBlocked = "FIREWALL_BLOCKED"
	// ReasonNoHealthCheck: the owner has no health check, so none of its
	// checks can fail: a target pool without one treats every instance as
	// HEALTHY, and nothing is probed.
	ReasonNoHealthCheck = "NO_HEALTH_CHECK"
)

// verdict is the per-endpoint state machine (UNKNOWN until a threshold is
// reached, then HEALTHY or UNHEALTHY), with the any-prober rule of
// independent probers: each prober keeps its own consecutive counts, and one
// prober reaching a threshold is enough to change the state.
type verdict struct {
	state string
	// counts are the consecutive results of each prober.
	counts []streak
}

// streak is one prober's consecutive successes and failures: one of the
// two is 0.
type streak struct {
	successes, failures int32
}

func newVerdict(probers int) verdict {
	return verdict{state: api.StateUnknown, counts: make([]streak, probers)}
}

// observe records one probe result of prober p and returns the new state.
// A result of the other kind resets that prober's count.
func (v *verdict) observe(p int, healthy bool, healthyThreshold, unhealthyThreshold int) string {
	c := &v.counts[p]
	if healthy {
		c.successes, c.failures = c.successes+1, 0
	} else {
		c.successes, c.failures = 0, c.failures+1
	}
	switch {
	case v.state == api.StateUnknown && healthy:
		// A new endpoint needs one success, not healthyThreshold of them.
		v.state = api.StateHealthy
	case v.state != api.StateUnhealthy && int(c.failures) >= unhealthyThreshold:
		v.state = api.StateUnhealthy
	case v.state == api.StateUnhealthy && int(c.successes) >= healthyThreshold:
		v.state = api.StateHealthy
	}
	return v.state
}
