package statuspage

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// timelinePath serves the timeline: every change of state of endpoints,
// health sources, composite checks and managed instances, from a sequence
// number on; an lbhealth extension, beside the Compute API.
const timelinePath = "/_emulator/timeline"

const (
	// timelinePageSize is how many events one read returns unless limit
	// asks for fewer.
	timelinePageSize = 1000
	// timelineStreams bounds the timelines followed at once.
	timelineStreams = 16
)

// timelineQuery reads since, kind, resource and limit.
func timelineQuery(r *http.Request) (since uint64, f timeline.Filter, limit int, err error) {
	q := r.URL.Query()
	if v := q.Get("since"); v != "" {
		if since, err = strconv.ParseUint(v, 10, 64); err != nil {
			return 0, f, 0, googleapi.Invalid("since (%q) is not a sequence number: give the next of an earlier read, or 0 for the start.", v)
		}
	}
	f = timeline.Filter{Kind: q.Get("kind"), Resource: q.Get("resource")}
	if f.Kind != "" && !slices.Contains(api.TimelineKinds, f.Kind) {
		return 0, f, 0, googleapi.Invalid("kind (%q) is not a kind of event: one of %v.", f.Kind, api.TimelineKinds)
	}
	limit = timelinePageSize
	if v := q.Get("limit"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > timelinePageSize {
			return 0, f, 0, googleapi.Invalid("limit (%q) must be a number of events from 1 to %d.", v, timelinePageSize)
		}
		limit = n
	}
	return since, f, limit, nil
}

// serveTimeline answers GET /_emulator/timeline: one page, or with
// follow=true a stream.
func (s *Page) serveTimeline(w http.ResponseWriter, r *http.Request) {
	switch v := r.URL.Query().Get("follow"); v {
	case "", "false":
		page, err := s.getTimeline(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		googleapi.WriteJSON(w, http.StatusOK, page)
	case "true":
		s.followTimeline(w, r)
	default:
		s.writeError(w, r, googleapi.Invalid("follow (%q) must be true or false.", v))
	}
}

// getTimeline answers one read: the events after since, oldest first, and
// the sequence number to read from next.
func (s *Page) getTimeline(r *http.Request) (any, error) {
	if s.src.Timeline == nil {
		return nil, timelineOff()
	}
	since, f, limit, err := timelineQuery(r)
	if err != nil {
		return nil, err
	}
	page := s.src.Timeline.Read(since, f, limit)
	return page, nil
}

// followTimeline streams the events after since as they happen, one JSON
// object a line (application/x-ndjson), until the client leaves.
func (s *Page) followTimeline(w http.ResponseWriter, r *http.Request) {
	since, f, limit, err := timelineQuery(r)
	switch {
	case s.src.Timeline == nil:
		s.writeError(w, r, timelineOff())
		return
	case err != nil:
		s.writeError(w, r, err)
		return
	}
	release, ok := s.takeStream(w, r, s.timelineStreams, fmt.Sprintf("%d timelines are already followed: stop one, or read pages instead", timelineStreams))
	if !ok {
		return
	}
	defer release()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil { // the client sees the stream open at once
		return
	}
	enc := json.NewEncoder(w)
	for {
		changed := s.src.Timeline.Changed()
		page := s.src.Timeline.Read(since, f, limit)
		if len(page.Events) > 0 || page.Truncated {
			// A stream outlives the server's write timeout; a reader
			// that stops reading for long is dropped.
			rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if page.Truncated {
				enc.Encode(map[string]any{"truncated": true, "detail": "events were dropped before they could be sent: the timeline keeps the last " +
					strconv.Itoa(timeline.Capacity)})
			}
			for _, e := range page.Events {
				if enc.Encode(e) != nil {
					return
				}
			}
			if rc.Flush() != nil {
				return
			}
		}
		since = page.Next
		if len(page.Events) == limit {
			continue // more to send at once
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-s.streamsDone:
			return
		}
	}
}

func timelineOff() *googleapi.Error {
	return googleapi.NewError(http.StatusNotFound, "notFound", "This emulator keeps no timeline.")
}
