package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// docCurl is one curl command a document shows, as a shell reads it.
type docCurl struct {
	where string // file:line
	args  []string
}

// The ports the documents give the emulator's API and the target
// simulators' control APIs (make demo's, and the second and third
// simulators of examples/google-traffic).
const docAPIHost = "127.0.0.1:8686"

var docControlHosts = map[string]bool{"127.0.0.1:8687": true, "127.0.0.1:8688": true, "127.0.0.1:8689": true}

// What the documents' shell variables and placeholders stand for when a
// command is run here: a loop's target number, a simulator's control port.
var docShellVars = expand.ListEnviron("i=1", "c=8688")
var docPlaceholders = map[string]string{"<name>": "http-1"}

// Every curl in the README, the guides and the examples' READMEs that
// drives the emulator's API or the target simulator's control API is run,
// as a shell parses it, against an emulator and a target simulator of this
// test's own: its route, method and body must be accepted. The documents
// are written against an applied configuration, so a resource they name may
// be missing here (a 404 that says the resource was not found); an unknown
// route, a refused method, a body the API will not read (415, 400) fail.
func TestDocs_CurlsThatDriveTheEmulatorRun(t *testing.T) {
	curlBin, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("this test runs the documents' curl commands and needs curl on PATH (scripts/test-deps.sh installs it)")
	}
	var cmds []docCurl
	for _, pattern := range []string{"README.md", "docs/guides/*.md", "examples/*/README.md"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			cmds = append(cmds, curlsIn(t, f)...)
		}
	}

	emu := lbhealthtest.Start(t)
	set := lbhealthtest.StartTargets(t, targets.Config{HTTP: 3, DNS: 1})
	apiHost, controlHost := strings.TrimPrefix(emu.URL(), "http://"), strings.TrimPrefix(set.ControlURL(), "http://")

	ran, absent := 0, 0
	for _, c := range cmds {
		args, run := pointAt(c.args, apiHost, controlHost)
		if !run {
			continue // the data plane of an applied configuration
		}
		ran++
		status, body := runCurl(t, curlBin, args)
		t.Logf("%s: %d", c.where, status)
		switch {
		case status >= 200 && status < 300:
		case status == 404 && strings.Contains(body, "was not found"):
			absent++
		default:
			t.Errorf("%s: curl %s\nanswered %d: %s", c.where, strings.Join(c.args, " "), status, body)
		}
	}
	t.Logf("ran %d curl commands of %d found (%d named a resource this test did not create)", ran, len(cmds), absent)
	if ran < 10 {
		t.Errorf("ran %d curl commands: the documents were not read (run from the repository root)", ran)
	}
}

// curlsIn parses file as Markdown and returns the curl commands of its
// shell code blocks and of its inline code that starts with curl.
func curlsIn(t *testing.T, file string) []docCurl {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []docCurl
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var code string
		var offset int
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if lang := string(n.Language(src)); lang != "sh" && lang != "bash" && lang != "shell" {
				return ast.WalkSkipChildren, nil
			}
			lines := n.Lines()
			if lines.Len() == 0 {
				return ast.WalkSkipChildren, nil
			}
			offset = lines.At(0).Start
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				code += string(seg.Value(src))
			}
		case *ast.CodeSpan:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					if offset == 0 {
						offset = t.Segment.Start
					}
					b.Write(t.Segment.Value(src))
				}
			}
			// In inline code a line ending is a space.
			code = strings.ReplaceAll(b.String(), "\n", " ")
			if !strings.HasPrefix(code, "curl ") {
				return ast.WalkSkipChildren, nil
			}
			for ph, v := range docPlaceholders {
				code = strings.ReplaceAll(code, ph, v)
			}
		default:
			return ast.WalkContinue, nil
		}
		line := bytes.Count(src[:offset], []byte("\n")) + 1
		out = append(out, curlCalls(t, file, line, code)...)
		return ast.WalkSkipChildren, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// curlCalls returns the curl commands of a piece of shell that starts at
// line of file, each expanded as
// the shell would (quotes removed, the loop variables set).
func curlCalls(t *testing.T, file string, line int, code string) []docCurl {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(code), "")
	if err != nil {
		t.Errorf("%s:%d: the shell does not parse this: %v\n%s", file, line, err, code)
		return nil
	}
	var out []docCurl
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "curl" {
			return true
		}
		where := fmt.Sprintf("%s:%d", file, line+int(call.Pos().Line())-1)
		args, err := expand.Fields(&expand.Config{Env: docShellVars}, call.Args[1:]...)
		if err != nil {
			t.Errorf("%s: expanding a curl command: %v", where, err)
			return true
		}
		out = append(out, docCurl{where: where, args: args})
		return true
	})
	return out
}

// pointAt rewrites a document's curl arguments to this test's emulator
// and control API, with its own output and status flags; run is false for
// a command that drives neither.
func pointAt(args []string, apiHost, controlHost string) (out []string, run bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-o", "--output", "-w", "--write-out":
			i++ // the test writes its own
			continue
		case "-s", "-sS", "-fsS", "-f", "--silent", "--fail":
			continue
		}
		if u, err := url.Parse(a); err == nil && u.Scheme == "http" {
			switch {
			case u.Host == docAPIHost:
				u.Host, run = apiHost, true
			case docControlHosts[u.Host]:
				u.Host, run = controlHost, true
			}
			a = u.String()
		}
		out = append(out, a)
	}
	return out, run
}

var statusLine = regexp.MustCompile(`\n(\d{3})$`)

// runCurl runs curl with args and returns the answer's status and body.
func runCurl(t *testing.T, curlBin string, args []string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append([]string{"-sS", "-m", "30", "-w", `\n%{http_code}`}, args...)
	out, err := exec.CommandContext(ctx, curlBin, full...).Output()
	if err != nil {
		t.Errorf("curl %s: %v", strings.Join(args, " "), err)
		return 0, string(out)
	}
	m := statusLine.FindSubmatchIndex(out)
	if m == nil {
		t.Errorf("curl %s: no status in %q", strings.Join(args, " "), out)
		return 0, string(out)
	}
	var status int
	fmt.Sscan(string(out[m[2]:m[3]]), &status)
	return status, string(out[:m[0]])
}
