package aggregate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestInputs_APolicyChangeReachesItsSources: a source is evaluable once its
// policy exists; a policy change hands the Aggregator the sources that use
// it and nothing else; a deleted composite is handed over as nil.
func TestInputs_APolicyChangeReachesItsSources(t *testing.T) {
	const (
		policy = "projects/p/regions/r/healthAggregationPolicies/pol"
		other  = "projects/p/regions/r/healthAggregationPolicies/other"
		srcA   = "projects/p/regions/r/healthSources/a"
		srcB   = "projects/p/regions/r/healthSources/b"
		comp   = "projects/p/regions/r/compositeHealthChecks/c"
		svc    = "projects/p/regions/r/backendServices/bs"
	)
	pct := func(v int64) *int64 { return &v }
	in := NewInputs()
	in.Set(srcA, &api.HealthSource{HealthAggregationPolicy: policy, Sources: []string{"http://x/compute/v1/" + svc}})
	in.Set(srcB, &api.HealthSource{HealthAggregationPolicy: other, Sources: []string{svc}})
	in.Set(comp, &api.CompositeHealthCheck{HealthSources: []string{srcA, srcB}})
	if sources, _ := in.Flush(); sources[srcA] != nil || sources[srcB] != nil {
		t.Fatalf("sources without their policy are evaluable: %v", sources)
	}
	in.Set(policy, &api.HealthAggregationPolicy{HealthyPercentThreshold: pct(60), MinHealthyThreshold: pct(1)})
	sources, composites := in.Flush()
	if len(sources) != 1 || sources[srcA] == nil || *sources[srcA] != (Source{Path: srcA, Service: svc, HealthyPercent: 60, MinHealthy: 1}) {
		t.Errorf("after the policy: %v, want source a alone, evaluable", sources)
	}
	if len(composites) != 0 {
		t.Errorf("a policy change handed over composites: %v", composites)
	}
	in.Set(comp, nil)
	if _, composites := in.Flush(); len(composites) != 1 || composites[comp] != nil {
		t.Errorf("a deleted composite: %v, want it handed over as nil", composites)
	}
	ss, cs := in.All()
	if len(ss) != 1 || ss[0].Path != srcA || len(cs) != 0 {
		t.Errorf("All: %v %v, want source a and no composite", ss, cs)
	}
}

// TestInputsReadEveryAggregatedCollection: a collection the catalogue says
// decides aggregation, which Inputs does not read, stops it at start.
func TestInputsReadEveryAggregatedCollection(t *testing.T) {
	saved := api.Catalogue
	api.Catalogue = append(append([]api.Collection(nil), saved...),
		api.Collection{Name: "regionHealthAggregations", Kind: "compute#x", Scopes: api.Regional, Role: api.Aggregated})
	defer func() { api.Catalogue = saved }()
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "regionHealthAggregations") {
			t.Fatalf("NewInputs: panic %v, want one naming the collection", p)
		}
	}()
	NewInputs()
}
