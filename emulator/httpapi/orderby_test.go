package httpapi_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestOrderByCreationTimestamp_TiesFollowCreation: resources made in the
// same millisecond (a clock that does not move) get distinct, increasing
// creation times, so "creationTimestamp desc" lists them newest first.
func TestOrderByCreationTimestamp_TiesFollowCreation(t *testing.T) {
	frozen := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	_, e, _ := serverWith(t, store.NewMemory(), httpapi.Options{Now: func() time.Time { return frozen }})
	for _, name := range []string{"hc-c", "hc-a", "hc-b"} {
		e.insert(globalHC, `{"name": "`+name+`", "tcpHealthCheck": {}}`)
	}
	var list struct {
		Items []api.HealthCheck `json:"items"`
	}
	e.ok("GET", globalHC+"?orderBy=creationTimestamp%20desc", "", &list)
	var names, times []string
	for _, hc := range list.Items {
		names, times = append(names, hc.Name), append(times, hc.CreationTimestamp)
	}
	if !slices.Equal(names, []string{"hc-b", "hc-a", "hc-c"}) {
		t.Errorf("newest first: %v (created %v), want hc-b, hc-a, hc-c", names, times)
	}
	if want := "2026-01-02T03:04:05.002Z"; len(times) != 3 || times[0] != want {
		t.Errorf("creation times %v, want the newest at %s (a millisecond apart)", times, want)
	}
}
