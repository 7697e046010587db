package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// scenario runs a scenario file on the emulator and, with --wait, exits 0
// once every step ran, or 1 naming the steps that failed; the file is
// checked before anything is sent.
func TestScenarioCommand(t *testing.T) {
	e, err := emulator.Start(context.Background(), emulator.Config{InMemory: true, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	sim, err := targets.Start(t.Context(), targets.Config{HTTP: 1, ControlListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	target := sim.ControlURL() + "/targets/" + sim.Targets()[0].Name
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		return path
	}

	var out bytes.Buffer
	ok := write("ok.yaml", "name: blip\nsteps:\n  - {at: 0s, target: \""+target+"\", mode: status-500}\n  - {at: 50ms, target: \""+target+"\", mode: ok}\n")
	if err := run([]string{"scenario", "--endpoint", e.URL(), "--file", ok, "--wait"}, &out, &out); err != nil ||
		!strings.Contains(out.String(), "scenario blip: DONE, 2 of 2 steps done") {
		t.Fatalf("a scenario that runs: %v %q", err, out.String())
	}
	if mode := sim.Targets()[0].Mode(); mode != targets.ModeOK {
		t.Errorf("the target is %s after the scenario healed it", mode)
	}

	bad := write("bad.json", `{"name": "bad", "steps": [{"at": "0s", "target": "`+target+`", "mode": "sideways"}]}`)
	err = run([]string{"scenario", "--endpoint", e.URL(), "--file", bad, "--wait"}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "scenario bad: 1 of 1 steps failed: steps[0]: the target simulator answered 400") {
		t.Errorf("a step that fails: %v", err)
	}

	for args, want := range map[string]string{
		"":                  "scenario: give --file (a scenario to run) or --stop (the name of one to stop)",
		"--file x --stop y": "scenario: give --file",
		"--stop never":      "No scenario named 'never' has run",
		"--file " + write("w.yaml", "name: w\nsteps: [{at: soon, zone: projects/p/zones/z, mode: ok}]\n"): `steps[0].at ("soon") is not a duration`,
	} {
		err := run(append([]string{"scenario", "--endpoint", e.URL()}, strings.Fields(args)...), &out, &out)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("scenario %s: %v, want %q", args, err, want)
		}
	}
}
