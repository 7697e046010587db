package timeline

import (
	"fmt"
	"testing"
	"time"
)

func seqs(p Page) string {
	out := ""
	for _, e := range p.Events {
		out += fmt.Sprintf("%d ", e.Seq)
	}
	return out
}

// Events are numbered in order and read back after a sequence number,
// filtered and paged; a reader behind what the ring still holds is told.
func TestTimeline(t *testing.T) {
	tl := New(4)
	<-func() <-chan struct{} { // Changed is closed by the next Add
		ch := tl.Changed()
		tl.Add(Event{Kind: KindEndpoint, Resource: "projects/p/global/backendServices/web", Endpoint: "127.0.0.1:1", From: "UNKNOWN", To: "HEALTHY"})
		return ch
	}()
	tl.Add(Event{Kind: KindSource, Resource: "projects/p/regions/r/healthSources/src", From: "UNKNOWN", To: "HEALTHY"})
	tl.Add(Event{Kind: KindEndpoint, Resource: "projects/p/global/backendServices/api", Group: "projects/p/zones/z/networkEndpointGroups/neg"})

	if p := tl.Read(0, Filter{}, 0); seqs(p) != "1 2 3 " || p.Next != 3 || p.Truncated {
		t.Errorf("all: %s next %d truncated %v", seqs(p), p.Next, p.Truncated)
	}
	if p := tl.Read(1, Filter{Kind: KindEndpoint}, 0); seqs(p) != "3 " || p.Next != 3 {
		t.Errorf("endpoints after 1: %s next %d", seqs(p), p.Next)
	}
	if p := tl.Read(0, Filter{Resource: "networkEndpointGroups/neg"}, 0); seqs(p) != "3 " {
		t.Errorf("by group: %s", seqs(p))
	}
	if p := tl.Read(0, Filter{}, 2); seqs(p) != "1 2 " || p.Next != 2 {
		t.Errorf("limit 2: %s next %d, want the next read to start after 2", seqs(p), p.Next)
	}
	if p := tl.Read(3, Filter{}, 0); len(p.Events) != 0 || p.Next != 3 {
		t.Errorf("nothing new: %s next %d", seqs(p), p.Next)
	}

	for range 4 { // 7 events in a ring of 4: 4 to 7 are kept
		tl.Add(Event{Kind: KindInstance})
	}
	if p := tl.Read(0, Filter{}, 0); seqs(p) != "4 5 6 7 " || !p.Truncated {
		t.Errorf("after wrapping: %s truncated %v, want 4 to 7 and truncated", seqs(p), p.Truncated)
	}
	if p := tl.Read(3, Filter{}, 0); seqs(p) != "4 5 6 7 " || p.Truncated {
		t.Errorf("from 3 after wrapping: %s truncated %v, want nothing lost", seqs(p), p.Truncated)
	}
	var none *Timeline
	none.Add(Event{}) // a nil timeline records nothing, and does not panic
}

// After reads only the tail of the ring, the events after a time; Oldest
// is the oldest event still kept.
func TestTimeline_AfterAndOldest(t *testing.T) {
	tl := New(3)
	if _, ok := tl.Oldest(); ok || len(tl.After(time.Time{})) != 0 {
		t.Error("an empty timeline has events")
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 { // 1 to 5 at start+1s ... start+5s; 3 to 5 are kept
		tl.Add(Event{Time: start.Add(time.Duration(i+1) * time.Second)})
	}
	if oldest, ok := tl.Oldest(); !ok || !oldest.Equal(start.Add(3*time.Second)) {
		t.Errorf("oldest %v, want the time of event 3", oldest)
	}
	for at, want := range map[time.Duration]string{0: "3 4 5 ", 3 * time.Second: "4 5 ", 4500 * time.Millisecond: "5 ", 5 * time.Second: ""} {
		if got := seqs(Page{Events: tl.After(start.Add(at))}); got != want {
			t.Errorf("after start+%v: %q, want %q", at, got, want)
		}
	}
}
