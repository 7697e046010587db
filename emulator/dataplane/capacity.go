package dataplane

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A proxy's service divides its traffic among its backend groups in
// proportion to their capacity: what the group's balancingMode says it
// can take (maxRatePerEndpoint, maxRatePerInstance, or maxRate shared by
// its healthy endpoints; the same for CONNECTION with maxConnections*),
// times its capacityScaler. A mode without a number (UTILIZATION) gives
// each endpoint the same capacity; when some groups have a number and
// others none, the numbers are left out and only the scalers count.
// The emulator has no zones to fill one after another, nor a measure of
// load to stop at a capacity: it divides by capacity, so that a
// capacityScaler of 0.1 sends a tenth of the traffic there.

// weightsOf is the weight of each of bes (endpoints of bs that a pool
// sends to) by its group's capacity; nil when they all weigh the same.
func weightsOf(bs *api.BackendService, bes []*backend) []float64 {
	if bs == nil || len(bes) < 2 {
		return nil
	}
	groups := map[string]api.Capacity{}
	allNamed := true
	for _, b := range bs.Backends {
		c := b.Capacity()
		groups[api.PathOf(b.Group)] = c
		allNamed = allNamed && c.Named()
	}
	inGroup := map[string]int{}
	for _, b := range bes {
		inGroup[b.group]++
	}
	weights := make([]float64, len(bes))
	for i, b := range bes {
		c, ok := groups[b.group]
		if !ok {
			c = api.Capacity{Scaler: 1}
		}
		weights[i] = c.Scaler
		if allNamed {
			weights[i] = c.PerEach(inGroup[b.group])
		}
	}
	if !slices.ContainsFunc(weights, func(w float64) bool { return w != weights[0] }) {
		return nil
	}
	return weights
}

// weigh gives p its backends' weights: the running sums a weighted pick
// searches, and the order ROUND_ROBIN follows.
func (p *pool) weigh(weights []float64) {
	if weights == nil {
		return
	}
	p.weights = weights
	p.cum = make([]float64, len(weights))
	total := 0.0
	for i, w := range weights {
		total += w
		p.cum[i] = total
	}
	p.order = smoothOrder(weights, total)
}

// smoothOrder is a cycle of backend indexes in which each appears in
// proportion to its weight, spread out rather than in runs (nginx's
// smooth weighted round robin): weights 1, 1, 2 give 2 0 1 2, again and
// again.
func smoothOrder(weights []float64, total float64) []int32 {
	n := len(weights)
	steps := min(64*n, 4096)
	current := make([]float64, n)
	order := make([]int32, steps)
	for s := range order {
		best := 0
		for i, w := range weights {
			current[i] += w
			if current[i] > current[best] {
				best = i
			}
		}
		current[best] -= total
		order[s] = int32(best)
	}
	return order
}

// pick is the index of a backend chosen at random, by weight.
func (p *pool) pick() int {
	if p.cum == nil {
		return rand.IntN(len(p.healthy))
	}
	r := rand.Float64() * p.cum[len(p.cum)-1]
	i, _ := slices.BinarySearch(p.cum, r)
	return min(i, len(p.cum)-1)
}

// load is backend i's requests in flight for its weight.
func (p *pool) load(i int) float64 {
	n := float64(p.healthy[i].inFlight.Load())
	if p.weights == nil {
		return n
	}
	return n / p.weights[i]
}

// score is backend i's weighted rendezvous score for a key hashing to h
// with it: -weight / ln u, u the hash in (0, 1), under which a backend
// wins a share of the keys in proportion to its weight.
func (p *pool) score(i int, h uint64) float64 {
	u := (float64(h>>11) + 0.5) / (1 << 53)
	return -p.weights[i] / math.Log(u)
}
