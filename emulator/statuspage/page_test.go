package statuspage_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/statuspage"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// TestStatusStream: the status page's stream is open without the token
// (as the page is), answers server-sent events at once, and the page and
// its stream load nothing but their own script and style.
func TestStatusStream(t *testing.T) {
	st := store.NewMemory()
	ts := httptest.NewUnstartedServer(nil)
	srv := httpapi.New(st, httpapi.Options{RootURL: "http://" + ts.Listener.Addr().String(), Access: httpapi.Access{Token: "s3cret-token"}})
	views := statuspage.New(statuspage.Sources{Store: st})
	srv.Mount(views)
	ts.Config.Handler = srv
	ts.Start()
	defer ts.Close()
	defer views.StopStreams() // before ts.Close, which waits for the stream
	e := struct{ url string }{ts.URL}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/_emulator/status/live", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s, want 200 text/event-stream without the token", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("stream CSP %q", csp)
	}
	r := bufio.NewReader(resp.Body)
	first, _ := r.ReadString('\n')
	second, _ := r.ReadString('\n')
	if first != "event: live\n" || !strings.HasPrefix(second, "data: ") {
		t.Errorf("first event starts %q %q, want event: live and its data", first, second)
	}

	page, err := http.Get(e.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") ||
		!strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("page CSP %q: want its own script only, no framing", csp)
	}
}
