package dataplane

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestWeightsOf_ByBalancingModeAndScaler(t *testing.T) {
	two := []*backend{{addr: "a1", group: "projects/p/zones/z/instanceGroups/ga"}, {addr: "b1", group: "projects/p/zones/z/instanceGroups/gb"}}
	cases := []struct {
		name     string
		backends string
		bes      []*backend
		want     []float64
	}{
		{"maxRatePerEndpoint", `[{"group":"projects/p/zones/z/instanceGroups/ga","balancingMode":"RATE","maxRatePerEndpoint":100},{"group":"projects/p/zones/z/instanceGroups/gb","balancingMode":"RATE","maxRatePerEndpoint":300}]`,
			two, []float64{100, 300}},
		{"maxRatePerInstance, scaled", `[{"group":"projects/p/zones/z/instanceGroups/ga","balancingMode":"RATE","maxRatePerInstance":100,"capacityScaler":0.5},{"group":"projects/p/zones/z/instanceGroups/gb","balancingMode":"RATE","maxRatePerInstance":100}]`,
			two, []float64{50, 100}},
		{"maxRate shared by the group's endpoints", `[{"group":"projects/p/zones/z/instanceGroups/ga","balancingMode":"RATE","maxRate":100},{"group":"projects/p/zones/z/instanceGroups/gb","balancingMode":"RATE","maxRatePerEndpoint":100}]`,
			[]*backend{{addr: "a1", group: "projects/p/zones/z/instanceGroups/ga"}, {addr: "a2", group: "projects/p/zones/z/instanceGroups/ga"}, {addr: "b1", group: "projects/p/zones/z/instanceGroups/gb"}}, []float64{50, 50, 100}},
		{"CONNECTION", `[{"group":"projects/p/zones/z/instanceGroups/ga","balancingMode":"CONNECTION","maxConnectionsPerEndpoint":10},{"group":"projects/p/zones/z/instanceGroups/gb","balancingMode":"CONNECTION","maxConnections":40}]`,
			two, []float64{10, 40}},
		{"UTILIZATION: the scalers alone", `[{"group":"projects/p/zones/z/instanceGroups/ga","balancingMode":"UTILIZATION","capacityScaler":0.25},{"group":"projects/p/zones/z/instanceGroups/gb","balancingMode":"UTILIZATION"}]`,
			two, []float64{0.25, 1}},
		{"a number on one group only: the scalers alone", `[{"group":"projects/p/zones/z/instanceGroups/ga","balancingMode":"RATE","maxRatePerEndpoint":500,"capacityScaler":0.5},{"group":"projects/p/zones/z/instanceGroups/gb","balancingMode":"UTILIZATION"}]`,
			two, []float64{0.5, 1}},
		{"the same capacity everywhere: no weights", `[{"group":"projects/p/zones/z/instanceGroups/ga","balancingMode":"RATE","maxRatePerEndpoint":100},{"group":"projects/p/zones/z/instanceGroups/gb","balancingMode":"RATE","maxRatePerEndpoint":100}]`,
			two, nil},
	}
	for _, c := range cases {
		var bs api.BackendService
		if err := json.Unmarshal([]byte(`{"backends":`+c.backends+`}`), &bs); err != nil {
			t.Fatal(err)
		}
		if got := weightsOf(&bs, c.bes); !slices.Equal(got, c.want) {
			t.Errorf("%s: weights %v, want %v", c.name, got, c.want)
		}
	}
}

// weightedPool is a pool of four backends weighing 1, 1, 2 and 4.
func weightedPool(policy, affinity string) *pool {
	p := testPool(policy, affinity)
	p.weigh([]float64{1, 1, 2, 4})
	return p
}

func TestPool_WeightsDivideTraffic(t *testing.T) {
	share := func(p *pool, n int, choose func(i int) *backend) []int {
		count := map[*backend]int{}
		for i := range n {
			count[choose(i)]++
		}
		out := make([]int, len(p.healthy))
		for i, b := range p.healthy {
			out[i] = count[b]
		}
		return out
	}
	near := func(got []int, n int, tolerance float64) bool {
		for i, w := range []float64{1, 1, 2, 4} {
			if math.Abs(float64(got[i])-float64(n)*w/8) > tolerance*float64(n)*w/8 {
				return false
			}
		}
		return true
	}

	// ROUND_ROBIN: exactly by weight over its cycle.
	req := clientRequest("10.0.0.1:1")
	rr := weightedPool(PolicyRoundRobin, "")
	cycle := len(rr.order)
	if got := share(rr, cycle, func(int) *backend { return rr.choose(req).b }); !slices.Equal(got, []int{cycle / 8, cycle / 8, cycle / 4, cycle / 2}) {
		t.Errorf("ROUND_ROBIN over a cycle of %d: %v, want 1:1:2:4", cycle, got)
	}
	for _, policy := range []string{PolicyRandom, PolicyRingHash, PolicyMaglev, PolicyLeastRequest} {
		p := weightedPool(policy, "")
		if got := share(p, 8000, func(int) *backend { return p.choose(req).b }); !near(got, 8000, 0.15) {
			t.Errorf("%s: %v of 8000, want about 1000:1000:2000:4000", policy, got)
		}
	}
	// Affinity keys spread by weight too, and each key sticks.
	h := weightedPool(PolicyRingHash, AffinityHeaderField)
	got := share(h, 8000, func(i int) *backend { return h.choose(clientRequest("10.0.0.1:1", "X-User", strconv.Itoa(i))).b })
	if !near(got, 8000, 0.15) {
		t.Errorf("HEADER_FIELD keys: %v of 8000, want about 1000:1000:2000:4000", got)
	}
	// Without weights, keys spread evenly.
	even := testPool(PolicyRingHash, AffinityHeaderField)
	got = share(even, 8000, func(i int) *backend { return even.choose(clientRequest("10.0.0.1:1", "X-User", strconv.Itoa(i))).b })
	for i, n := range got {
		if n < 1700 || n > 2300 {
			t.Errorf("HEADER_FIELD keys without weights: %v of 8000, want about 2000 each (backend %d)", got, i)
			break
		}
	}
	for i := range 50 {
		user := fmt.Sprint(i)
		if a, b := h.choose(clientRequest("10.0.0.1:1", "X-User", user)).b, h.choose(clientRequest("10.0.0.2:1", "X-User", user)).b; a != b {
			t.Fatalf("user %s went to %s, then %s", user, a.addr, b.addr)
		}
	}
}

func TestSmoothOrder_SpreadsTheHeavyBackend(t *testing.T) {
	order := smoothOrder([]float64{1, 1, 2}, 4)
	if got := order[:8]; !slices.Equal(got, []int32{2, 0, 1, 2, 2, 0, 1, 2}) {
		t.Fatalf("weights 1, 1, 2: %v, want 2 0 1 2 again and again", got)
	}
}
