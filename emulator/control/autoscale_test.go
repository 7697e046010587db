package control

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// fakeScalers is one autoscaler over one group, in memory.
type fakeScalers struct {
	mu          sync.Mutex
	g           ScaledGroup
	recommended []int64
}

func (f *fakeScalers) Autoscalers(context.Context) ([]ScaledGroup, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []ScaledGroup{f.g}, nil
}

func (f *fakeScalers) Resize(_ context.Context, _ store.Key, size int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.g.Size = size
	return nil
}

func (f *fakeScalers) Recommend(_ context.Context, _ store.Key, size int64, _ []api.AutoscalerStatusDetail) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.g.Recommended = size
	f.recommended = append(f.recommended, size)
	return nil
}

func i64(n int64) *int64 { return &n }

// Load above the target grows the group at once, up to its maximum; when
// it stops, the group shrinks to its minimum once the stabilization period
// (the cool-down here) has passed, and each resize is on the timeline.
func TestAutoscaler_GrowsUnderLoadAndShrinksAfterTheCoolDown(t *testing.T) {
	target := 0.5
	f := &fakeScalers{g: ScaledGroup{Autoscaler: store.Key{Project: "p", Scope: "zones/z", Collection: "autoscalers", Name: "as"},
		Manager: store.Key{Project: "p", Scope: "zones/z", Collection: "instanceGroupManagers", Name: "m"}, Group: "g", Size: 1, Recommended: -1,
		PerInstance: 10, Policy: api.AutoscalingPolicy{MinNumReplicas: i64(1), MaxNumReplicas: i64(5), CoolDownPeriodSec: i64(60), Mode: "ON",
			LoadBalancingUtilization: &api.UtilizationTarget{UtilizationTarget: &target}}}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var requests int64
	tl := timeline.New(100)
	a := NewAutoscaler(f, func(string) int64 { return requests }, testClock{now: func() time.Time { return now }}, nil)
	a.RecordTo(tl)
	step := func(rate int64) {
		now = now.Add(time.Second)
		requests += rate
		if err := a.Once(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	step(0)
	if f.g.Size != 1 {
		t.Fatalf("idle: size %d", f.g.Size)
	}
	step(15) // 15 requests/s over 10 an instance at 0.5: 3 instances
	if f.g.Size != 3 || f.g.Recommended != 3 {
		t.Fatalf("at 15 requests/s: size %d, recommended %d, want 3", f.g.Size, f.g.Recommended)
	}
	for range 5 {
		step(100) // far above: capped at the maximum
	}
	if f.g.Size != 5 {
		t.Fatalf("at 100 requests/s: size %d, want the maximum 5", f.g.Size)
	}
	// The load stops: the rate falls as the window moves on; the group
	// keeps its size for the cool-down after the sizes asked for fall, then
	// shrinks to the largest asked for meanwhile.
	stoppedAt := now
	for f.g.Size > 1 && now.Sub(stoppedAt) < 10*time.Minute {
		step(0)
	}
	if f.g.Size != 1 {
		t.Fatalf("after the load stopped: size %d, want the minimum 1", f.g.Size)
	}
	if waited := now.Sub(stoppedAt); waited < 60*time.Second {
		t.Errorf("shrank %s after the load stopped, before the 60 s cool-down", waited)
	}
	var sizes []string
	for _, e := range tl.Read(0, timeline.Filter{Kind: timeline.KindScaler}, 10).Events {
		sizes = append(sizes, e.From+">"+e.To)
	}
	// Shrinking takes the largest size asked for in each period: in steps,
	// as the rate over the window falls.
	if len(sizes) < 3 || sizes[0] != "1>3" || sizes[1] != "3>5" || sizes[2][:2] != "5>" || sizes[len(sizes)-1][2:] != "1" {
		t.Errorf("timeline resizes %v, want 1>3, 3>5, then down from 5 to 1", sizes)
	}
}

// OFF only recommends; ONLY_SCALE_OUT grows but never shrinks; with no
// signal measurable the size stays.
func TestAutoscaler_Modes(t *testing.T) {
	for _, c := range []struct {
		mode       string
		start      int64
		rate       int64
		want, recs int64
	}{
		{"OFF", 1, 100, 1, 2}, // 100 requests/s at 0.6 of 100: 2
		{"ONLY_SCALE_OUT", 4, 0, 4, 1},
		{"ON", 4, 0, 4, 1}, // within the cool-down
	} {
		f := &fakeScalers{g: ScaledGroup{Autoscaler: store.Key{Name: "as"}, Manager: store.Key{Name: "m"}, Size: c.start, Recommended: -1,
			Policy: api.AutoscalingPolicy{MinNumReplicas: i64(1), MaxNumReplicas: i64(4), CoolDownPeriodSec: i64(60), Mode: c.mode,
				CPUUtilization: &api.UtilizationTarget{}}}}
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var requests int64
		a := NewAutoscaler(f, func(string) int64 { return requests }, testClock{now: func() time.Time { return now }}, nil)
		for range 3 {
			now = now.Add(time.Second)
			requests += c.rate
			a.Once(context.Background())
		}
		if f.g.Size != c.want || f.g.Recommended != c.recs {
			t.Errorf("%s: size %d recommended %d, want %d and %d", c.mode, f.g.Size, f.g.Recommended, c.want, c.recs)
		}
	}
}
