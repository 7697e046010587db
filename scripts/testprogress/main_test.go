package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestProgress: a passing test leaves one count and no output; a failing
// one prints its output and its failing subtest's at once; package lines
// say ok or FAIL; the summary names the failures, a package that failed
// without a failing test among them.
func TestProgress(t *testing.T) {
	const pkg = "github.com/lbhealth/terraform-provider-lbhealth/emulator"
	events := []event{
		{Action: "start", Package: pkg},
		{Action: "run", Package: pkg, Test: "TestFine"},
		{Action: "output", Package: pkg, Test: "TestFine", Output: "fine output\n"},
		{Action: "pass", Package: pkg, Test: "TestFine", Elapsed: 0.1},
		{Action: "run", Package: pkg, Test: "TestBoom"},
		{Action: "output", Package: pkg, Test: "TestBoom", Output: "    boom_test.go:5: context\n"},
		{Action: "run", Package: pkg, Test: "TestBoom/sub"},
		{Action: "output", Package: pkg, Test: "TestBoom/sub", Output: "    boom_test.go:9: sub failed\n"},
		{Action: "fail", Package: pkg, Test: "TestBoom/sub"},
		{Action: "fail", Package: pkg, Test: "TestBoom", Elapsed: 0.2},
		{Action: "output", Package: pkg, Output: "FAIL\n"},
		{Action: "fail", Package: pkg, Elapsed: 1.5},
		// A package that fails to build.
		{Action: "start", Package: pkg + "/broken"},
		{Action: "output", Package: pkg + "/broken", Output: "broken.go:3:1: syntax error\n"},
		{Action: "fail", Package: pkg + "/broken"},
	}
	var out strings.Builder
	p := newProgress(&out)
	// Before any package starts, go test is building the binaries.
	if got := p.status(); got != "0 tests passed, 0 failed, 0 skipped; building the test binaries" {
		t.Errorf("status before any package: %q", got)
	}
	for _, ev := range events[:2] {
		p.handle(ev)
	}
	if got := p.status(); got != "0 tests passed, 0 failed, 0 skipped; running: emulator" {
		t.Errorf("status while emulator runs: %q", got)
	}
	p = newProgress(&out)
	for _, ev := range events {
		// Through JSON, as go test -json writes them.
		b, _ := json.Marshal(ev)
		var back event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		p.handle(back)
	}
	p.summary()
	got := out.String()
	for _, want := range []string{"--- FAIL: emulator TestBoom (0.2s)", "boom_test.go:5: context", "boom_test.go:9: sub failed",
		"FAIL  emulator (1.5s)", "1 tests passed, 1 failed, 0 skipped", "FAILED: emulator TestBoom",
		"broken.go:3:1: syntax error", "FAILED: emulator/broken (the package; its output is above)"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "FAILED: emulator (the package") {
		t.Errorf("a package whose test failed is named again as failing on its own:\n%s", got)
	}
	if strings.Contains(got, "fine output") {
		t.Errorf("a passing test's output was shown:\n%s", got)
	}
}
