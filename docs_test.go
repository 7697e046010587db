package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every curl in the guides, the README, the examples' READMEs and the
// scripts that sends the emulator a body says it is JSON: the emulator
// (and the target simulator) refuse any other body with 415, so a command
// without the type fails as a reader types it.
func TestDocs_CurlsThatSendABodySayJSON(t *testing.T) {
	var files []string
	for _, pattern := range []string{"README.md", "docs/guides/*.md", "templates/guides/*.tmpl", "examples/*/README.md",
		"examples/*/*.tf", "scripts/*.sh"} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d files to read: run from the repository root", len(files))
	}
	body := regexp.MustCompile(`(^|\s)(-d|--data|--data-raw|--data-binary)(\s|=|')`)
	checked := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// A command continued with a backslash is one line.
		joined := strings.ReplaceAll(string(text), "\\\n", " ")
		for i, line := range strings.Split(joined, "\n") {
			for _, cmd := range strings.Split(line, "curl ")[1:] {
				if !body.MatchString(" " + cmd) {
					continue
				}
				checked++
				if !strings.Contains(cmd, "Content-Type: application/json") {
					t.Errorf("%s, line %d: a curl that sends a body without -H 'Content-Type: application/json': curl %s", f, i+1, cmd)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no curl with a body found: the test reads nothing")
	}
}
