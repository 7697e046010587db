package compute

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// statuses are the engine's verdicts on the endpoints of owner.
func (s backends) statuses(owner string) []health.Status {
	if s.Health == nil {
		return nil
	}
	return s.Health.Statuses(owner)
}

// healthStatus is one endpoint's status as getHealth reports it. The
// Compute API's HealthStatus.healthState is HEALTHY or UNHEALTHY only, and a
// backend with no verdict yet is not healthy: UNKNOWN is reported UNHEALTHY,
// the reason saying it is not known to be (api.ReasonNoVerdict).
func (s backends) healthStatus(st health.Status) api.HealthStatus {
	state, reason := st.State, st.Reason
	if state == api.StateUnknown {
		state, reason = api.StateUnhealthy, api.ReasonNoVerdict
	}
	hs := api.HealthStatus{
		IPAddress: st.Endpoint.IP, Port: int64(st.Endpoint.Port), Instance: st.Endpoint.Instance,
		HealthState: state, Reason: reason, Detail: st.Detail,
		HealthCheck: s.Link(st.Check), ProbedAt: st.ProbedAt, LoadBalancer: st.LoadBalancer, Firewall: st.Firewall,
	}
	if path := api.PathOf(st.Endpoint.Instance); path != "" {
		hs.Instance = s.Link(path) // a NEG's endpoint may name it by name
	}
	if st.Group != "" { // target-pool instances have no group
		hs.Group = s.Link(st.Group)
	}
	if !st.LastProbe.IsZero() {
		hs.LastProbeTime = core.Timestamp(st.LastProbe)
	}
	return hs
}
