package emulator_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// chromiumPath is the headless browser the status page is tested in.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the status page is tested in a real browser: install Chromium (Debian: apt-get install chromium; .ci/run does)")
	return ""
}

// TestStatusPage_InABrowser opens the status page in headless Chromium and
// watches it, without reloading, turn a target broken through the target
// simulator red and then green again after recovery; the filter hides
// what does not match. A screenshot of the broken state is written to
// LBHEALTH_SCREENSHOT_DIR, or the test's temporary directory.
func TestStatusPage_InABrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	set := lbhealthtest.StartTargets(t, targets.Config{HTTP: 2})
	broken, fine := set.Targets()[0], set.Targets()[1]
	e := startEmulator(t, emulator0())
	// Detection bound: (unhealthy threshold - 1) x interval + timeout = 2s,
	// plus up to a second for the page's stream to look again.
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"unhealthyThreshold":2,"healthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", fmt.Sprintf(`{"name":"neg","endpoints":[
		{"ipAddress":"127.0.0.1","port":%d},{"ipAddress":"127.0.0.1","port":%d}]}`, broken.Port, fine.Port))
	mustCall(t, e, "POST", "global/backendServices", `{"name":"web","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)

	ctx, js, pageErrors := openBrowser(t)
	row := func(port int) string {
		return `document.querySelector('tr[data-endpoint="127.0.0.1:` + strconv.Itoa(port) + `"]')`
	}
	waitState := func(what string, port int, want string) time.Duration {
		t.Helper()
		start := time.Now()
		for {
			got := js(`(` + row(port) + ` || {dataset: {}}).dataset.state || ""`)
			if got == want {
				return time.Since(start)
			}
			if time.Since(start) > 30*time.Second {
				t.Fatalf("%s: the row of 127.0.0.1:%d is %q on the page after 30s, want %q", what, port, got, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(e.URL()+"/")); err != nil {
		t.Fatal(err)
	}
	js(`window.loadedOnce = true`) // a reload would lose it
	waitState("both targets healthy", broken.Port, "ok")
	waitState("both targets healthy", fine.Port, "ok")

	if err := set.SetMode(broken.Name, targets.ModeStatus500); err != nil {
		t.Fatal(err)
	}
	took := waitState("the broken target red", broken.Port, "error")
	t.Logf("the broken target was shown red %v after it broke (detection bound 2s, plus the stream's 1s look)", took.Round(10*time.Millisecond))

	if js(`window.loadedOnce === true`) != "true" || js(`document.getElementById("live").dataset.updates || "0"`) == "0" {
		t.Errorf("the page was reloaded, or never updated live")
	}
	counts := js(`document.querySelector("section h3").textContent`)
	for _, want := range []string{"OK 1", "Error 1", "Preparing 0", "No data 0"} {
		if !strings.Contains(counts, want) {
			t.Errorf("the service's counts %q lack %q", counts, want)
		}
	}
	if events := js(`document.querySelector("table.events").textContent`); !strings.Contains(events, "HEALTHY → UNHEALTHY") || !strings.Contains(events, "BAD_STATUS") {
		t.Errorf("the events do not show the transition: %q", events)
	}
	if strip := js(row(broken.Port) + `.querySelector(".strip").innerHTML`); !strings.Contains(strip, `class="p"`) || !strings.Contains(strip, `class="f"`) {
		t.Errorf("the strip of the last probes shows no pass then fail: %s", strip)
	}
	if since := js(row(broken.Port) + `.querySelector("time").textContent`); !strings.HasSuffix(since, "s ago") {
		t.Errorf("since %q, want a time ago", since)
	}

	// The filter: Error hides the healthy row; text matches addresses.
	filter := func(state, text string) {
		js(`(() => { const s = document.getElementById("state"); s.value = "` + state + `"; s.dispatchEvent(new Event("change"));
			const q = document.getElementById("text"); q.value = "` + text + `"; q.dispatchEvent(new Event("input")); })()`)
	}
	filter("error", "")
	if js(row(fine.Port)+`.hidden`) != "true" || js(row(broken.Port)+`.hidden`) != "false" {
		t.Errorf("filter Error: want only the healthy row hidden")
	}
	filter("", ":"+strconv.Itoa(fine.Port))
	if js(row(fine.Port)+`.hidden`) != "false" || js(row(broken.Port)+`.hidden`) != "true" {
		t.Errorf("filter by the healthy target's port: want only the broken row hidden")
	}
	filter("", "")

	// A finding opened stays open across live updates.
	js(row(broken.Port) + `.querySelector("details").open = true`)
	before := js(`document.getElementById("live").dataset.updates`)
	for start := time.Now(); js(`document.getElementById("live").dataset.updates`) == before; time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatal("no live update in 30s")
		}
	}
	if js(row(broken.Port)+`.querySelector("details").open`) != "true" {
		t.Error("the firewall finding opened was closed by a live update")
	}

	if err := set.SetMode(broken.Name, targets.ModeOK); err != nil {
		t.Fatal(err)
	}
	waitState("the recovered target green", broken.Port, "ok")

	// The history above the table draws the break and the recovery from
	// the timeline: HEALTHY, UNHEALTHY, HEALTHY again, in that order.
	strip := js(`[...[...document.querySelectorAll("section .hrow")].find(r => r.querySelector(".hlabel").textContent === "127.0.0.1:` +
		strconv.Itoa(broken.Port) + `").querySelectorAll("rect")].map(r => r.getAttribute("class")).join(" ")`)
	if !regexp.MustCompile(`^ok error ok$`).MatchString(strip) {
		t.Errorf("the broken target's history: %q, want ok error ok", strip)
	}
	// Nothing is cut off at 1,400 pixels: the page is no wider than the
	// window (a wide table scrolls inside its section).
	if wide := js(`document.documentElement.scrollWidth <= window.innerWidth`); wide != "true" {
		t.Errorf("the page is %s px wide in a window of %s", js(`document.documentElement.scrollWidth`), js(`window.innerWidth`))
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("LBHEALTH_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, "status-page.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)

	if errs := pageErrors(); len(errs) > 0 {
		t.Errorf("the page threw: %v", errs)
	}
}

// openBrowser starts headless Chromium for one test. It returns the
// browser's context, js (which evaluates an expression on the page as a
// string) and pageErrors (the exceptions the page has thrown so far).
func openBrowser(t *testing.T) (context.Context, func(string) string, func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)), chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// A hang guard for the whole test, not a measurement.
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	var (
		mu     sync.Mutex
		thrown []string
	)
	if err := chromedp.Listen(ctx, func(ev any) {
		if ex, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			thrown = append(thrown, fmt.Sprintf("%s:%d: %s", ex.ExceptionDetails.URL, ex.ExceptionDetails.LineNumber, ex.ExceptionDetails.Text))
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	js := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(`+expr+`)`))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	return ctx, js, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), thrown...) }
}

// TestStatusPage_BreaksAndHealsAWorkload: the page lists each instance's
// simulated workload, and its mode select breaks one (the instance's row
// turns red, as the check finds it failing) and heals it, without a
// reload.
func TestStatusPage_BreaksAndHealsAWorkload(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	e, _, _ := workloadLB(t, "127.1.202.16/29", false)
	ctx, js, pageErrors := openBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.URL()+"/")); err != nil {
		t.Fatal(err)
	}
	js(`window.loadedOnce = true`)
	wait := func(what, expr, want string) {
		t.Helper()
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			if js(expr) == want {
				return
			}
			if time.Since(start) > 30*time.Second {
				t.Fatalf("%s: %s is %q after 30s, want %q", what, expr, js(expr), want)
			}
		}
	}
	const first = `document.querySelector("table.workloads tr[data-instance]")`
	wait("a workload listed SERVING", `(`+first+` || {cells: [{textContent: ""}]}).cells[0].textContent`, "SERVING")
	instance := js(first + `.dataset.instance`)
	address := js(first + `.cells[2].textContent`)
	endpoint := `(document.querySelector('section[id$="backendServices-bs"] tr[data-endpoint^="` + address + `:"]') || {dataset: {}}).dataset.state || ""`
	wait("the instance healthy", endpoint, "ok")

	setMode := func(mode string) {
		js(`(() => { const s = document.querySelector('select.mode[data-instance="` + instance + `"]'); s.value = "` + mode + `";
			s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
	}
	setMode("status-500")
	wait("the broken instance red", endpoint, "error")
	wait("its workload shown broken", `document.querySelector('select.mode[data-instance="`+instance+`"]').value`, "status-500")
	setMode("ok")
	wait("the healed instance green", endpoint, "ok")
	if js(`window.loadedOnce === true`) != "true" {
		t.Error("the page was reloaded")
	}
	if errs := pageErrors(); len(errs) > 0 {
		t.Errorf("the page threw: %v", errs)
	}
}

// TestStatusPage_AddressesStayWholeAndStateInView: at 1,400 and at 800
// pixels wide, no address or path of the endpoints and traffic tables is
// broken over two lines, and at 800, with the endpoints table scrolled
// all the way right, each row's state is still in view.
func TestStatusPage_AddressesStayWholeAndStateInView(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	set := lbhealthtest.StartTargets(t, targets.Config{HTTP: 2})
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	a, b := set.Targets()[0], set.Targets()[1]
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"a-health-check-with-a-long-name","checkIntervalSec":1,"timeoutSec":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/us-central1-a/networkEndpointGroups", fmt.Sprintf(`{"name":"a-network-endpoint-group-with-a-long-name","endpoints":[
		{"ipAddress":"127.0.0.1","port":%d},{"ipAddress":"127.0.0.1","port":%d}]}`, a.Port, b.Port))
	mustCall(t, e, "POST", "global/backendServices", `{"name":"a-backend-service-with-a-long-name","loadBalancingScheme":"EXTERNAL_MANAGED",
		"backends":[{"group":"zones/us-central1-a/networkEndpointGroups/a-network-endpoint-group-with-a-long-name","balancingMode":"RATE","maxRatePerEndpoint":100}],
		"healthChecks":["global/healthChecks/a-health-check-with-a-long-name"]}`)
	applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/a-backend-service-with-a-long-name"}`)

	ctx, js, pageErrors := openBrowser(t)
	// brokenCells lists the cells of selector whose text runs over more
	// than one line.
	brokenCells := func(selector string) string {
		return js(`[...document.querySelectorAll("` + selector + `")].filter(td => {
			const r = document.createRange(); r.selectNodeContents(td);
			const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
			return tops.size > 1;
		}).map(td => td.textContent).join(" | ")`)
	}
	for _, width := range []int64{1400, 800} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(e.URL()+"/")); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); js(`document.querySelectorAll("td.path").length`) == "0" ||
			js(`document.querySelectorAll("table.traffic td").length`) == "0"; time.Sleep(50 * time.Millisecond) {
			if time.Since(start) > 30*time.Second { // a hang guard, not a measurement
				t.Fatalf("%d px: the page never showed the endpoints and the traffic", width)
			}
		}
		if broken := brokenCells("td.path"); broken != "" {
			t.Errorf("%d px: addresses or paths broken over lines: %s", width, broken)
		}
		if broken := brokenCells("table.traffic td"); broken != "" {
			t.Errorf("%d px: traffic cells broken over lines: %s", width, broken)
		}
		if width != 800 {
			continue
		}
		// Scrolled and measured in one go: the page's live updates may
		// redraw the table between two evaluations.
		measure := `(() => {
			const s = document.querySelector(".scroll"); s.scrollLeft = s.scrollWidth;
			const out = [...s.querySelectorAll("tr[data-endpoint] td:first-child")].filter(td => {
				const r = td.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth; }).length;
			return s.scrollLeft + " " + s.scrollWidth + " " + s.clientWidth + " " + out; })()`
		var scrolled, scrollWidth, clientWidth, out int
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			fmt.Sscan(js(measure), &scrolled, &scrollWidth, &clientWidth, &out)
			if scrolled > 0 || time.Since(start) > 10*time.Second { // a hang guard, not a measurement
				break
			}
		}
		if scrolled == 0 {
			t.Fatalf("800 px: the endpoints table does not scroll sideways (%d px wide in %d), so this test shows nothing",
				scrollWidth, clientWidth)
		}
		if out != 0 {
			t.Errorf("800 px, scrolled right by %d px: %d state cells out of view", scrolled, out)
		}
	}
	if errs := pageErrors(); len(errs) > 0 {
		t.Errorf("the page threw: %v", errs)
	}
}
