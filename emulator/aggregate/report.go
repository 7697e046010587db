package aggregate

import (
	"slices"
	"strings"
)

// AggregateState is the last evaluated state of a health source or a
// composite check.
type AggregateState struct {
	Path, Kind, State string
}

// States lists the last state of every health source and composite check,
// ordered by path: what the status page shows.
func (a *Aggregator) States() []AggregateState {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]AggregateState, 0, len(a.states))
	for path, state := range a.states {
		kind := "composite health check"
		if _, ok := a.sources[path]; ok {
			kind = "health source"
		}
		out = append(out, AggregateState{Path: path, Kind: kind, State: state})
	}
	slices.SortFunc(out, func(x, y AggregateState) int { return strings.Compare(x.Path, y.Path) })
	return out
}
