package health

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
)

// The engine takes a partial update: owners not named keep their targets
// (and verdicts), a named owner with no targets stops.
func TestEngine_UpdateOwnersLeavesOthersAlone(t *testing.T) {
	e := New(Config{Clock: newFakeClock(), Probe: (&script{}).probe})
	t.Cleanup(e.Close)
	mk := func(owner, ip string) Target {
		return Target{Owner: owner, Endpoint: Endpoint{IP: ip, Port: 80}, Check: Check{Name: "c", Port: 0, Unresolved: "not probed in this test"}}
	}
	e.Update([]Target{mk("a", "127.0.0.1"), mk("b", "127.0.0.2")})
	e.UpdateOwners(map[string][]Target{"a": {mk("a", "127.0.0.3")}, "c": {mk("c", "127.0.0.4")}})
	var got []string
	for _, st := range e.All() {
		got = append(got, st.Owner+" "+st.Endpoint.IP)
	}
	if want := "[a 127.0.0.3 b 127.0.0.2 c 127.0.0.4]"; fmt.Sprint(got) != want {
		t.Fatalf("after UpdateOwners: %v, want %s", got, want)
	}
	e.UpdateOwners(map[string][]Target{"b": nil})
	if n := len(e.Statuses("b")); n != 0 {
		t.Fatalf("owner b still has %d targets", n)
	}
}

// Update takes an owner's targets whether they come together or not, and
// leaves the list it was given as it was.
func TestEngine_UpdateGroupsOwnersInAnyOrder(t *testing.T) {
	e := New(Config{Clock: newFakeClock(), Probe: (&script{}).probe})
	t.Cleanup(e.Close)
	mk := func(owner, ip string) Target {
		return Target{Owner: owner, Endpoint: Endpoint{IP: ip, Port: 80}, Check: Check{Name: "c", Unresolved: "not probed in this test"}}
	}
	e.Update([]Target{mk("a", "127.0.0.1"), mk("b", "127.0.0.2")})
	list := []Target{mk("a", "127.0.0.1"), mk("a", "127.0.0.5"), mk("b", "127.0.0.2"), mk("a", "127.0.0.3"), mk("c", "127.0.0.4")}
	before := fmt.Sprint(list)
	e.Update(list)
	var got []string
	for _, st := range e.All() {
		got = append(got, st.Owner+" "+st.Endpoint.IP)
	}
	if want := "[a 127.0.0.1 a 127.0.0.3 a 127.0.0.5 b 127.0.0.2 c 127.0.0.4]"; fmt.Sprint(got) != want {
		t.Errorf("after Update: %v, want %s", got, want)
	}
	if after := fmt.Sprint(list); after != before {
		t.Errorf("Update changed its list:\n%s\nwas\n%s", after, before)
	}
	e.Update(list[:2])
	if n := len(e.Statuses("b")) + len(e.Statuses("c")); n != 0 {
		t.Errorf("owners b and c, not in the list, still have %d targets", n)
	}
}

// A blocking probe in flight when its endpoint leaves is cancelled at
// once, not left to run to its deadline, and its result is dropped.
func TestEngine_RemovedEndpointCancelsItsBlockingProbe(t *testing.T) {
	t.Parallel()
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	e := New(Config{Probe: func(ctx context.Context, _ prober.Spec, _ prober.Target) prober.Result {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return prober.Result{Healthy: true}
	}})
	t.Cleanup(e.Close)
	tg := target(time.Second, time.Second, 1, 1)
	e.Update([]Target{tg})
	<-started // within an interval
	e.UpdateOwners(map[string][]Target{tg.Owner: nil})
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the probe of a removed endpoint ended with %v, want it cancelled", err)
	}
	if st := e.All(); len(st) != 0 {
		t.Errorf("after removal the engine still reports %+v", st)
	}
}
