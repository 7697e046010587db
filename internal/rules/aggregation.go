package rules

// Aggregated health states.
const (
	StateHealthy   = "HEALTHY"
	StateUnhealthy = "UNHEALTHY"
	StateUnknown   = "UNKNOWN"
)

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
		return StateUnhealthy
	case PolicyHolds(percent, min, healthy, total):
		return StateHealthy
	case !PolicyHolds(percent, min, healthy+unknown, total):
		return StateUnhealthy
	}
	return StateUnknown
}

// CompositeState combines the states of a composite check's sources:
// HEALTHY when all are, UNHEALTHY when any is, else UNKNOWN.
func CompositeState(sources []string) string {
	state := StateHealthy
	for _, s := range sources {
		switch s {
		case StateUnhealthy:
			return StateUnhealthy
		case StateHealthy:
		default:
			state = StateUnknown
		}
	}
	if len(sources) == 0 {
		return StateUnknown
	}
	return state
}
