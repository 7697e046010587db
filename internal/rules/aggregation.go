package rules

import "github.com/lbhealth/terraform-provider-lbhealth/internal/api"

// PolicyHolds tells whether healthy of total endpoints satisfy a policy:
// at least percent percent of them and at least min of them.
// Integer arithmetic keeps the boundaries exact: 3 of 5 is 60%.
func PolicyHolds(percent, min, healthy, total int64) bool {
	return healthy*100 >= percent*total && healthy >= min
}

// SourceState is the three-valued state of a health source:
// HEALTHY when the policy holds counting only healthy endpoints, UNHEALTHY
// when it fails even if every unknown endpoint turned healthy, otherwise
// UNKNOWN. No endpoints at all is UNHEALTHY.
func SourceState(percent, min, healthy, unknown, total int64) string {
	switch {
	case total == 0:
		return api.StateUnhealthy
	case PolicyHolds(percent, min, healthy, total):
		return api.StateHealthy
	case !PolicyHolds(percent, min, healthy+unknown, total):
		return api.StateUnhealthy
	}
	return api.StateUnknown
}

// CompositeState combines the states of a composite check's sources:
// HEALTHY when all are, UNHEALTHY when any is, else UNKNOWN.
func CompositeState(sources []string) string {
	state := api.StateHealthy
	for _, s := range sources {
		switch s {
		case api.StateUnhealthy:
			return api.StateUnhealthy
		case api.StateHealthy:
		default:
			state = api.StateUnknown
		}
	}
	if len(sources) == 0 {
		return api.StateUnknown
	}
	return state
}
