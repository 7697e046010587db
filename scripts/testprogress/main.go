// Command testprogress runs go test with the arguments it is given and
// shows its progress as it goes: each package's result as it ends, the
// output of every failing test at once, and every 15 seconds how many
// tests have passed and which packages still run. make test uses it, so
// that a run of minutes is never minutes of silence.
//
// Arguments separated by a lone "+" are runs of go test of their own,
// run side by side (packages that need different flags, such as -race):
//
//	testprogress -race ./a/... + ./b/...
//
// It exits with the first failing run's status, else 0.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	var runs [][]string
	args := []string{}
	for _, a := range os.Args[1:] {
		if a == "+" {
			runs, args = append(runs, args), []string{}
			continue
		}
		args = append(args, a)
	}
	runs = append(runs, args)

	p := newProgress(os.Stdout)
	done := make(chan struct{})
	go p.tick(done)
	codes := make([]int, len(runs))
	var wg sync.WaitGroup
	for i, args := range runs {
		wg.Go(func() { codes[i] = p.goTest(args) })
	}
	wg.Wait()
	close(done)
	p.summary()
	for _, c := range codes {
		if c != 0 {
			os.Exit(c)
		}
	}
}

// goTest runs go test -json with args, feeding its events to p, and
// returns its exit status.
func (p *progress) goTest(args []string) int {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			p.mu.Lock()
			fmt.Fprintln(p.out, sc.Text()) // not an event: show it as it is
			p.mu.Unlock()
			continue
		}
		p.handle(ev)
	}
	if err := cmd.Wait(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok {
			return exit.ExitCode()
		}
		fatal(err)
	}
	return 0
}

func newProgress(out io.Writer) *progress {
	return &progress{start: time.Now(), out: out, running: map[string]bool{}, output: map[string][]string{}, failedIn: map[string]bool{}}
}

type progress struct {
	start time.Time
	out   io.Writer

	mu                      sync.Mutex
	running                 map[string]bool     // packages started and not ended
	output                  map[string][]string // of each test (and package) running, by package and test
	passed, failed, skipped int
	failures                []string
	failedIn                map[string]bool // packages with a failing test
}

func (p *progress) handle(ev event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := ev.Package + " " + ev.Test
	short := strings.TrimPrefix(ev.Package, "github.com/lbhealth/terraform-provider-lbhealth/")
	switch ev.Action {
	case "start":
		p.running[ev.Package] = true
	case "output", "build-output":
		p.output[key] = append(p.output[key], ev.Output)
	case "pass", "fail", "skip":
		out := strings.Join(p.output[key], "")
		delete(p.output, key)
		if ev.Test == "" {
			delete(p.running, ev.Package)
			switch ev.Action {
			case "fail":
				fmt.Fprintf(p.out, "FAIL  %s (%.1fs)\n", short, ev.Elapsed)
				// The package's own output: a build failure, a panic
				// outside a test, or its FAIL lines.
				fmt.Fprint(p.out, out)
				if !p.failedIn[ev.Package] {
					// No test failed, yet the package did (a build
					// failure, a panic, TestMain): the summary says so.
					p.failures = append(p.failures, short+" (the package; its output is above)")
				}
			case "pass":
				fmt.Fprintf(p.out, "ok    %s (%.1fs)\n", short, ev.Elapsed)
			}
			return
		}
		if top, _, sub := strings.Cut(ev.Test, "/"); sub {
			// Subtests are counted in their test; a failing one's output
			// goes with its test's.
			if parent := ev.Package + " " + top; ev.Action == "fail" {
				p.output[parent] = append(p.output[parent], out)
			}
			return
		}
		switch ev.Action {
		case "pass":
			p.passed++
		case "skip":
			p.skipped++
		case "fail":
			p.failed++
			p.failedIn[ev.Package] = true
			p.failures = append(p.failures, short+" "+ev.Test)
			fmt.Fprintf(p.out, "--- FAIL: %s %s (%.1fs)\n", short, ev.Test, ev.Elapsed)
			fmt.Fprint(p.out, out)
		}
	}
}

// tick prints where the run is every 15 seconds.
func (p *progress) tick(done <-chan struct{}) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			p.mu.Lock()
			fmt.Fprintf(p.out, "[%s] %s\n", time.Since(p.start).Round(time.Second), p.status())
			p.mu.Unlock()
		}
	}
}

// status is where the run is: the counts, and the packages whose tests
// run, or, before any runs, that go test is building them. The caller
// holds p.mu.
func (p *progress) status() string {
	var pkgs []string
	for pkg := range p.running {
		pkgs = append(pkgs, strings.TrimPrefix(pkg, "github.com/lbhealth/terraform-provider-lbhealth/"))
	}
	slices.Sort(pkgs)
	doing := "running: " + strings.Join(pkgs, ", ")
	if len(pkgs) == 0 {
		doing = "building the test binaries"
	}
	return fmt.Sprintf("%d tests passed, %d failed, %d skipped; %s", p.passed, p.failed, p.skipped, doing)
}

func (p *progress) summary() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, "%d tests passed, %d failed, %d skipped in %s\n", p.passed, p.failed, p.skipped, time.Since(p.start).Round(time.Second))
	for _, f := range p.failures {
		fmt.Fprintln(p.out, "FAILED:", f)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "testprogress:", err)
	os.Exit(1)
}
