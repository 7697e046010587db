package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// timeline prints the changes the emulator recorded, one JSON event a line,
// filtered and from a sequence number, to standard output or a file.
func TestTimelineCommand(t *testing.T) {
	e := twoEndpoints(t)
	var out bytes.Buffer
	if err := run([]string{"wait", "--endpoint", e.URL(), "--backend-service", "projects/p/global/backendServices/web",
		"--min-healthy", "1", "--timeout", "1m"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "timeline.ndjson")
	if err := run([]string{"timeline", "--endpoint", e.URL(), "--kind", "endpoint", "--resource", "backendServices/web", "--output", file}, &out, &out); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(file)
	var events []api.TimelineEvent
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		var ev api.TimelineEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("a line that is not an event: %q (%v)", line, err)
		}
		events = append(events, ev)
	}
	healthy := -1
	for i, ev := range events {
		if ev.Kind != api.TimelineEndpoint || !strings.HasSuffix(ev.Resource, "/backendServices/web") {
			t.Errorf("an event the filter should have left out: %+v", ev)
		}
		if ev.To == "HEALTHY" && healthy < 0 {
			healthy = i
		}
	}
	if healthy < 0 {
		t.Fatalf("no endpoint turned HEALTHY in:\n%s", text)
	}

	// From a sequence number on: only what came after it.
	out.Reset()
	last := events[len(events)-1].Seq
	if err := run([]string{"timeline", "--endpoint", e.URL(), "--since", "999999"}, &out, &out); err != nil || out.Len() != 0 {
		t.Errorf("after the newest: %v %q, want nothing", err, out.String())
	}
	out.Reset()
	if err := run([]string{"timeline", "--endpoint", e.URL(), "--since", "0"}, &out, &out); err != nil || !strings.Contains(out.String(), `"seq":1,`) ||
		strings.Count(out.String(), "\n") < int(last) {
		t.Errorf("from the start: %v, %d lines, want at least %d", err, strings.Count(out.String(), "\n"), last)
	}

	if err := run([]string{"timeline", "--endpoint", e.URL(), "--kind", "probe"}, &out, &out); err == nil ||
		!strings.Contains(err.Error(), `--kind "probe": want one of [endpoint healthSource compositeHealthCheck instance scenario securityPolicy autoscaler cloudRunService]`) {
		t.Errorf("a bad kind: %v", err)
	}
}
