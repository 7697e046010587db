package health

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestEvents_KeepTheLastNewestFirstAndWake(t *testing.T) {
	ev := NewEvents(3)
	if len(ev.Recent()) != 0 {
		t.Fatal("a new log has events")
	}
	woken := ev.Changed()
	for _, to := range []string{api.StateHealthy, api.StateUnhealthy, api.StateHealthy, api.StateUnhealthy} {
		ev.Add(Transition{Status: Status{State: to}})
	}
	select {
	case <-woken:
	default:
		t.Error("Add did not wake the waiter")
	}
	got := ev.Recent()
	if len(got) != 3 || got[0].State != api.StateUnhealthy || got[1].State != api.StateHealthy || got[2].State != api.StateUnhealthy {
		t.Errorf("Recent() = %+v, want the last 3, newest first", got)
	}
	select {
	case <-ev.Changed():
		t.Error("Changed is closed with no Add since")
	default:
	}
}
