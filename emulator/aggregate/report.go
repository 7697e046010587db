package aggregate

import (
	"fmt"
	"slices"
	"strings"
)

// AggregateState is the last evaluated state of a health source or a
// composite check.
type AggregateState struct {
	Path, Kind, State string
	// Inputs decide State: a health source's backend service and its
	// policy, a composite's health sources with their states.
	Inputs []string
}

// States lists the last state of every health source and composite check,
// ordered by path: what the status page shows.
func (a *Aggregator) States() []AggregateState {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]AggregateState, 0, len(a.states))
	for path, state := range a.states {
		st := AggregateState{Path: path, Kind: "composite health check", State: state}
		if src, ok := a.sources[path]; ok {
			st.Kind = "health source"
			st.Inputs = []string{fmt.Sprintf("%s (healthy at %d%% and at least %d endpoints)", src.Service, src.HealthyPercent, src.MinHealthy)}
		} else if c, ok := a.composites[path]; ok {
			for _, s := range c.Sources {
				state := a.states[s]
				if state == "" {
					state = "no state yet"
				}
				st.Inputs = append(st.Inputs, s+" "+state)
			}
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(x, y AggregateState) int { return strings.Compare(x.Path, y.Path) })
	return out
}
