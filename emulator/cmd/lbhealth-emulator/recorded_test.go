package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

var updateRecorded = flag.Bool("update-recorded", false, "write testdata/recorded/cli.golden from the command as it is")

// The command's answers to a recorded sequence of invocations against an
// emulator (waits that fail and why, the timeline, a scenario run and
// stopped, a configuration pointed at the emulator, usage errors) stay
// byte for byte what they were when recorded, the emulator's address and
// the times masked. A deliberate change is recorded again with
// -update-recorded, and reviewed in the diff of cli.golden.
func TestRecorded_CommandAnswersStayTheSame(t *testing.T) {
	e, err := emulator.Start(context.Background(), emulator.Config{InMemory: true, Listen: "127.0.0.1:0", Workloads: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	post(t, e, "global/healthChecks", `{"name":"hc","tcpHealthCheck":{"port":1}}`)
	post(t, e, "global/backendServices", `{"name":"web","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP","healthChecks":["global/healthChecks/hc"]}`)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte("provider \"google\" {\n  project = \"p\"\n}\n\nprovider \"google\" {\n  alias  = \"west\"\n  region = \"us-west1\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scenario := filepath.Join(dir, "chaos.yaml")
	if err := os.WriteFile(scenario, []byte("name: chaos\nsteps:\n  - at: 1h\n    zone: projects/p/zones/us-east1-b\n    mode: status-500\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"wait", "--endpoint", e.URL(), "--backend-service", "projects/p/global/backendServices/nope", "--timeout", "1s"},
		{"wait", "--endpoint", e.URL(), "--backend-service", "projects/p/global/backendServices/web", "--timeout", "1s"},
		{"wait", "--backend-servce", "web"},
		{"wait"},
		{"timeline", "--endpoint", e.URL(), "--kind", "endpoint"},
		{"timeline", "--endpoint", e.URL(), "--kind", "nope"},
		{"scenario", "--endpoint", e.URL(), "--file", scenario},
		{"scenario", "--endpoint", e.URL(), "--stop", "chaos"},
		{"scenario", "--endpoint", e.URL(), "--stop", "nope"},
		{"scenario", "--endpoint", e.URL(), "--file", filepath.Join(dir, "missing.yaml")},
		{"terraform-override", "--dir", dir, "--endpoint", e.URL()},
		{"terraform-overide"},
	}
	var got strings.Builder
	for _, args := range cases {
		var out bytes.Buffer
		err := run(args, &out, &out)
		fmt.Fprintf(&got, "$ lbhealth-emulator %s\n%s", strings.Join(args, " "), out.String())
		if err != nil {
			fmt.Fprintf(&got, "error: %v\n", err)
		}
		if args[0] == "terraform-override" {
			override, err := os.ReadFile(filepath.Join(dir, "lbhealth_override.tf"))
			fmt.Fprintf(&got, "lbhealth_override.tf (%v):\n%s", err, override)
		}
		got.WriteString("\n")
	}
	text := strings.ReplaceAll(got.String(), e.URL(), "http://EMULATOR")
	text = strings.ReplaceAll(text, strings.TrimPrefix(e.URL(), "http://"), "EMULATOR")
	text = strings.ReplaceAll(text, dir, "DIR")
	text = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`).ReplaceAllString(text, "TIME")
	const golden = "testdata/recorded/cli.golden"
	if *updateRecorded {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Errorf("the command's answers differ from those recorded in %s (a deliberate change: go test -run TestRecorded ./emulator/cmd/lbhealth-emulator/ -update-recorded, and review the diff); got:\n%s", golden, text)
	}
}
