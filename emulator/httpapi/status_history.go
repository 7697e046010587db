package httpapi

import (
	"fmt"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
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

// historyIndex holds, per owner and endpoint, the endpoint's changes in
// order, and the scenario steps: one read of the timeline per page.
type historyIndex struct {
	start, now time.Time
	window     time.Duration
	changes    map[string]map[string][]timeline.Event // owner → endpoint → changes
	marks      []historyMark
}

func (s *Server) historyIndex() *historyIndex {
	if s.timeline == nil {
		return nil
	}
	now := s.now()
	events := s.timeline.Read(0, timeline.Filter{}, 0).Events
	window := historyWindow
	if len(events) > 0 {
		for _, w := range historySteps {
			if window = w; now.Sub(events[0].Time) <= w {
				break
			}
		}
	}
	ix := &historyIndex{start: now.Add(-window), now: now, window: window, changes: map[string]map[string][]timeline.Event{}}
	for _, ev := range events {
		switch ev.Kind {
		case timeline.KindEndpoint:
			if ix.changes[ev.Resource] == nil {
				ix.changes[ev.Resource] = map[string][]timeline.Event{}
			}
			ix.changes[ev.Resource][ev.Endpoint] = append(ix.changes[ev.Resource][ev.Endpoint], ev)
		case timeline.KindScenario:
			if ev.Time.After(ix.start) {
				ix.marks = append(ix.marks, historyMark{X: ix.x(ev.Time),
					Title: fmt.Sprintf("%s: scenario %s set %s to %s", stamp(ev.Time), ev.Group, ev.Resource, ev.To)})
			}
		}
	}
	return ix
}

// x is the position of t in the window.
func (ix *historyIndex) x(t time.Time) int {
	x := int(int64(historyWidth) * int64(t.Sub(ix.start)) / int64(ix.window))
	return min(max(x, 0), historyWidth)
}

// of draws the strips of owner's endpoints (addresses, in the page's order).
func (ix *historyIndex) of(owner string, endpoints []string) *history {
	if ix == nil || len(endpoints) == 0 {
		return nil
	}
	h := &history{Marks: ix.marks, Window: ix.window.String()}
	for _, ep := range endpoints[:min(len(endpoints), historyRows)] {
		row := historyRow{Endpoint: ep}
		// Before its first change the strip is blank: the timeline does
		// not say since when the endpoint was waiting for a verdict.
		state, from := "", ix.start
		for _, ev := range ix.changes[owner][ep] {
			if ev.Time.After(ix.start) {
				row.add(ix, state, from, ev.Time)
				from = ev.Time
			}
			state = ev.To
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
