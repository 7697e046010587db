package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// Operations older than the TTL are deleted when their time comes, with no
// write needed to trigger it, and the timer stops once none is left.
func TestOperations_ExpireAfterTheTTL(t *testing.T) {
	st := store.NewMemory()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(st, Options{RootURL: "http://emulator.test", Log: slog.New(slog.DiscardHandler),
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }, OperationsTTL: time.Minute, OperationsMax: 100})
	t.Cleanup(s.Close)
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	serve := func(method, path, body string) (int, string) {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(method, "http://127.0.0.1:8686"+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	const hcs = "/compute/v1/projects/p/global/healthChecks"
	if code, body := serve(http.MethodPost, hcs, `{"name": "a", "tcpHealthCheck": {}}`); code != 200 {
		t.Fatalf("insert: %d %s", code, body)
	}
	advance(30 * time.Second)
	serve(http.MethodPost, hcs, `{"name": "b", "tcpHealthCheck": {}}`)
	count := func() int {
		all, _ := st.All(context.Background(), core.OperationsCollection)
		return len(all)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d operations, want 2", n)
	}
	if armed, _ := s.core.Operations().Pending(); !armed {
		t.Fatal("no timer armed for the oldest operation")
	}

	advance(30 * time.Second)    // the first is a minute old
	s.core.Operations().Expire() // what the timer runs
	if n := count(); n != 1 {
		t.Fatalf("after the first expired: %d operations, want 1", n)
	}
	advance(time.Hour)
	s.core.Operations().Expire()
	if n := count(); n != 0 {
		t.Fatalf("after both expired: %d operations, want 0", n)
	}
	if armed, queued := s.core.Operations().Pending(); armed || queued != 0 {
		t.Fatalf("nothing kept, yet timer armed %v, %d queued", armed, queued)
	}
	code, body := serve(http.MethodGet, "/compute/v1/projects/p/global/operations/operation-1-2", "")
	if code != 404 || !strings.Contains(body, "keeps operations for 1m0s") {
		t.Fatalf("GET of a dropped operation: %d %s", code, body)
	}
}

// Operations stored by an earlier run are loaded oldest first, and those
// beyond the retention are dropped at start.
func TestOperations_LoadedAndTrimmedAtStart(t *testing.T) {
	st := store.NewMemory()
	ctx := context.Background()
	base := time.Now()
	for i, age := range []time.Duration{3 * time.Hour, time.Minute, 2 * time.Minute, 2 * time.Hour} {
		body := `{"insertTime": "` + base.Add(-age).Format(core.OperationTimeLayout) + `"}`
		st.Insert(ctx, store.Object{Key: store.Key{Project: "p", Scope: "global", Collection: core.OperationsCollection, Name: string(rune('a' + i))}, Body: []byte(body)})
	}
	s := New(st, Options{RootURL: "http://emulator.test", Log: slog.New(slog.DiscardHandler)})
	t.Cleanup(s.Close)
	all, _ := st.All(ctx, core.OperationsCollection)
	if len(all) != 2 || all[0].Name != "b" || all[1].Name != "c" {
		t.Fatalf("after start: %v, want b and c (the ones younger than an hour)", all)
	}
	s.core.Operations().SetRetention(time.Hour, 1)
	if all, _ := st.All(ctx, core.OperationsCollection); len(all) != 1 || all[0].Name != "b" {
		t.Fatalf("with at most 1: %v, want b (the newest)", all)
	}
}
