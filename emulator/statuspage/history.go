package statuspage

import (
	"fmt"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// The status page's history: for each backend service, target pool or
// managed group, a strip per endpoint showing its state over the last
// historyWindow, drawn from the timeline, with the steps of chaos
// scenarios marked across it.

const (
	// historyWindow is the longest stretch of time drawn; a younger
	// timeline is drawn over the first of historySteps that holds it.
	historyWindow = 5 * time.Minute
	// historyRows bounds the endpoints drawn per owner.
	historyRows = 20
	// historyWidth is the strips' horizontal scale (an SVG viewBox):
	// positions are in thousandths of the window.
	historyWidth = 1000
)

// historySteps are the spans the history is drawn over, shortest first.
var historySteps = []time.Duration{20 * time.Second, time.Minute, 2 * time.Minute, historyWindow}

// historySegment is a stretch of one state.
type historySegment struct {
	X, W  int // in thousandths of the window
	Class string
	Title string
}

// historyRow is one endpoint's strip.
type historyRow struct {
	Endpoint string
	Segments []historySegment
}

// historyMark is a scenario step, at X.
type historyMark struct {
	X     int
	Title string
}

// history is what the page draws above an owner's table.
type history struct {
	Rows   []historyRow
	Marks  []historyMark
	Window string // "5m0s"
}

// historyIndex holds, per owner and endpoint, the endpoint's changes within
// the window in order, and the scenario steps: one read of the timeline's
// tail per page.
type historyIndex struct {
	start, now time.Time
	window     time.Duration
	changes    map[string]map[string][]timeline.Event // owner → endpoint → changes
	marks      []historyMark
}

func (s *Page) historyIndex() *historyIndex {
	if s.src.Timeline == nil {
		return nil
	}
	now := s.src.Now()
	window := historyWindow
	if oldest, ok := s.src.Timeline.Oldest(); ok {
		for _, w := range historySteps {
			if window = w; now.Sub(oldest) <= w {
				break
			}
		}
	}
	ix := &historyIndex{start: now.Add(-window), now: now, window: window, changes: map[string]map[string][]timeline.Event{}}
	for _, ev := range s.src.Timeline.After(ix.start) {
		switch ev.Kind {
		case timeline.KindEndpoint:
			if ix.changes[ev.Resource] == nil {
				ix.changes[ev.Resource] = map[string][]timeline.Event{}
			}
			ix.changes[ev.Resource][ev.Endpoint] = append(ix.changes[ev.Resource][ev.Endpoint], ev)
		case timeline.KindScenario:
			ix.marks = append(ix.marks, historyMark{X: ix.x(ev.Time),
				Title: fmt.Sprintf("%s: scenario %s set %s to %s", stamp(ev.Time), ev.Group, ev.Resource, ev.To)})
		}
	}
	return ix
}

// x is the position of t in the window.
func (ix *historyIndex) x(t time.Time) int {
	x := int(int64(historyWidth) * int64(t.Sub(ix.start)) / int64(ix.window))
	return min(max(x, 0), historyWidth)
}

// endpointNow is an endpoint as the page lists it: its address and its
// state now.
type endpointNow struct{ addr, state string }

// of draws the strips of owner's endpoints (in the page's order).
func (ix *historyIndex) of(owner string, endpoints []endpointNow) *history {
	if ix == nil || len(endpoints) == 0 {
		return nil
	}
	h := &history{Marks: ix.marks, Window: ix.window.String()}
	for _, ep := range endpoints[:min(len(endpoints), historyRows)] {
		row := historyRow{Endpoint: ep.addr}
		changes := ix.changes[owner][ep.addr]
		// Its state at the window's start: what its first change in the
		// window left, else what it is now. Before its first verdict the
		// strip is blank: the timeline does not say since when the
		// endpoint was waiting for one.
		state := ep.state
		if len(changes) > 0 {
			state = changes[0].From
		}
		if state == api.StateUnknown {
			state = ""
		}
		from := ix.start
		for _, ev := range changes {
			row.add(ix, state, from, ev.Time)
			state, from = ev.To, ev.Time
		}
		row.add(ix, state, from, ix.now)
		h.Rows = append(h.Rows, row)
	}
	return h
}

// add draws state from one time to another, if it shows.
func (r *historyRow) add(ix *historyIndex, state string, from, to time.Time) {
	x0, x1 := ix.x(from), ix.x(to)
	if x1 <= x0 || state == "" {
		return
	}
	r.Segments = append(r.Segments, historySegment{X: x0, W: x1 - x0, Class: stateClass(state),
		Title: fmt.Sprintf("%s from %s to %s", state, stamp(from), stamp(to))})
}
