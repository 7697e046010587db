package emulator_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
)

// readTimeline reads GET /_emulator/timeline with query q.
func readTimeline(t *testing.T, root, q string) (int, timeline.Page, string) {
	t.Helper()
	resp, err := http.Get(root + "/_emulator/timeline?" + q)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	json.NewDecoder(resp.Body).Decode(&raw)
	var page timeline.Page
	json.Unmarshal(raw, &page)
	return resp.StatusCode, page, string(raw)
}

// index finds the first event after from that match says is the one.
func index(events []timeline.Event, from int, match func(timeline.Event) bool) int {
	for i := from; i < len(events); i++ {
		if match(events[i]) {
			return i
		}
	}
	return -1
}

// The timeline records, in order, an endpoint's change with the probe that
// caused it, then the health source and the composite check it moved, each
// naming its cause; it is read in pages from a sequence number and followed
// as a stream, and bad queries are refused naming the parameter.
func TestTimeline_RecordsWhatHappenedInOrder(t *testing.T) {
	t.Parallel()
	a, b := newSwitchable(t), newSwitchable(t)
	e := startEmulator(t, emulator0())

	// Follow the timeline from the start, before anything happens.
	stream, err := http.Get(e.URL() + "/_emulator/timeline?follow=true&kind=" + timeline.KindComposite)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Body.Close() })
	if ct := stream.Header.Get("Content-Type"); stream.StatusCode != 200 || ct != "application/x-ndjson" {
		t.Fatalf("follow: %d %s", stream.StatusCode, ct)
	}
	followed := make(chan timeline.Event, 16)
	go func() {
		lines := bufio.NewScanner(stream.Body)
		for lines.Scan() {
			var ev timeline.Event
			if json.Unmarshal(lines.Bytes(), &ev) == nil {
				followed <- ev
			}
		}
		close(followed)
	}()

	compositeSetup(t, e, a.port(), b.port())
	waitFor(t, "composite HEALTHY", func() bool { return compositeState(t, e).HealthState == "HEALTHY" })
	a.status.Store(500)
	waitFor(t, "composite UNHEALTHY", func() bool { return compositeState(t, e).HealthState == "UNHEALTHY" })

	code, page, raw := readTimeline(t, e.URL(), "since=0")
	if code != 200 {
		t.Fatalf("read: %d %s", code, raw)
	}
	evs := page.Events
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq != evs[i-1].Seq+1 || evs[i].Time.Before(evs[i-1].Time.Add(-1e9)) {
			t.Fatalf("events out of order at %d: %+v then %+v", i, evs[i-1], evs[i])
		}
	}
	endpointA := "127.0.0.1:" + a.port()
	up := index(evs, 0, func(ev timeline.Event) bool {
		return ev.Kind == timeline.KindEndpoint && ev.Endpoint == endpointA && ev.To == "HEALTHY"
	})
	down := index(evs, up+1, func(ev timeline.Event) bool {
		return ev.Kind == timeline.KindEndpoint && ev.Endpoint == endpointA && ev.From == "HEALTHY" && ev.To == "UNHEALTHY"
	})
	source := index(evs, down+1, func(ev timeline.Event) bool {
		return ev.Kind == timeline.KindSource && ev.From == "HEALTHY" && ev.To == "UNHEALTHY"
	})
	composite := index(evs, source+1, func(ev timeline.Event) bool {
		return ev.Kind == timeline.KindComposite && ev.From == "HEALTHY" && ev.To == "UNHEALTHY"
	})
	if up < 0 || down < 0 || source < 0 || composite < 0 {
		t.Fatalf("want the endpoint HEALTHY, then UNHEALTHY, then the source and the composite UNHEALTHY, in that order (%d %d %d %d):\n%s",
			up, down, source, composite, raw)
	}
	if d := evs[down]; !strings.HasSuffix(d.Resource, "/regions/r/backendServices/bs") || !strings.HasSuffix(d.Check, "/healthChecks/hc") ||
		d.Reason == "" || !strings.Contains(d.Detail, "500") || d.LatencyMs <= 0 {
		t.Errorf("the endpoint's change %+v, want its service, check, the probe's reason, detail (500) and latency", d)
	}
	if s := evs[source]; !strings.HasSuffix(s.Resource, "/healthSources/src") || !strings.Contains(s.Cause, endpointA) {
		t.Errorf("the source's change %+v, want it caused by endpoint %s", s, endpointA)
	}
	if c := evs[composite]; !strings.HasSuffix(c.Resource, "/compositeHealthChecks/chc") || !strings.Contains(c.Cause, "healthSources/src") {
		t.Errorf("the composite's change %+v, want it caused by the source", c)
	}

	// Pages: after a sequence number, by kind and resource, limited.
	if _, p, _ := readTimeline(t, e.URL(), fmt.Sprintf("since=%d&kind=endpoint&resource=%s&limit=1", evs[up].Seq, "backendServices/bs")); len(p.Events) != 1 ||
		p.Events[0].Seq <= evs[up].Seq || p.Events[0].Kind != timeline.KindEndpoint || p.Next != p.Events[0].Seq {
		t.Errorf("a page of one endpoint event after %d: %+v", evs[up].Seq, p)
	}

	// The stream sent the composite's changes as they happened.
	var got []string
	for ev := range followed {
		got = append(got, ev.From+">"+ev.To)
		if ev.Seq == evs[composite].Seq {
			break
		}
	}
	if strings.Join(got, " ") != "UNKNOWN>HEALTHY HEALTHY>UNHEALTHY" {
		t.Errorf("the stream of composite changes: %v", got)
	}

	for q, want := range map[string]string{
		"since=abc":            `since (\"abc\") is not a sequence number`,
		"kind=probe":           `kind (\"probe\") is not a kind of event`,
		"limit=0":              `limit (\"0\") must be a number of events from 1 to 1000`,
		"follow=yes":           `follow (\"yes\") must be true or false`,
		"follow=true&since=-1": `since (\"-1\") is not a sequence number`,
	} {
		if code, _, raw := readTimeline(t, e.URL(), q); code != 400 || !strings.Contains(raw, want) {
			t.Errorf("%s: %d %s, want 400 saying %s", q, code, raw, want)
		}
	}
}
