package emulator_test

import (
	"net/http"
	"slices"
	"testing"

	compute "google.golang.org/api/compute/v1"
)

// The operations collections, through Google's Compute client: list (with
// filter and paging), aggregated list, and delete, in each scope.
func TestComputeOperations_ListFilterPageAndDelete(t *testing.T) {
	c := newComputeEnv(t)
	var global []string
	for _, name := range []string{"hc-a", "hc-b", "hc-c"} {
		global = append(global, c.done("insert "+name, ccR(c.svc.HealthChecks.Insert(ccProject, ccHealthCheck(name)).Context(c.ctx).Do())).Name)
	}
	regional := c.done("insert a regional check", ccR(c.svc.RegionHealthChecks.Insert(ccProject, ccRegion, ccHealthCheck("hc-r")).Context(c.ctx).Do()))
	deleted := c.done("delete hc-c", ccR(c.svc.HealthChecks.Delete(ccProject, "hc-c").Context(c.ctx).Do()))
	global = append(global, deleted.Name)

	all := ccMust(t, "list global operations", ccR(c.svc.GlobalOperations.List(ccProject).Context(c.ctx).Do()))
	if all.Kind != "compute#operationList" || all.SelfLink != c.link("projects/"+ccProject+"/global/operations") {
		t.Errorf("list: kind %q, selfLink %q", all.Kind, all.SelfLink)
	}
	if got := ccNames(all.Items); !slices.Equal(got, global) {
		t.Fatalf("global operations %v, want the four made here in the order they were made %v", got, global)
	}

	// Paged: two pages of two, then none; the regional one is in neither.
	var paged []string
	err := c.svc.GlobalOperations.List(ccProject).MaxResults(2).Pages(c.ctx, func(l *compute.OperationList) error {
		if len(l.Items) > 2 {
			t.Errorf("a page of %d, want at most 2", len(l.Items))
		}
		paged = append(paged, ccNames(l.Items)...)
		return nil
	})
	if err != nil || !slices.Equal(paged, global) {
		t.Fatalf("paged: %v (%v), want %v", paged, err, global)
	}

	deletes := ccMust(t, "filter", ccR(c.svc.GlobalOperations.List(ccProject).Filter(`operationType = "delete"`).Context(c.ctx).Do()))
	if got := ccNames(deletes.Items); !slices.Equal(got, []string{deleted.Name}) {
		t.Errorf("operationType = delete: %v, want [%s]", got, deleted.Name)
	}

	regions := ccMust(t, "list regional operations", ccR(c.svc.RegionOperations.List(ccProject, ccRegion).Context(c.ctx).Do()))
	if got := ccNames(regions.Items); !slices.Equal(got, []string{regional.Name}) {
		t.Errorf("regional operations %v, want [%s]", got, regional.Name)
	}
	zones := ccMust(t, "list zonal operations", ccR(c.svc.ZoneOperations.List(ccProject, ccZone).Context(c.ctx).Do()))
	if len(zones.Items) != 0 {
		t.Errorf("zonal operations %v, want none", ccNames(zones.Items))
	}

	agg := ccMust(t, "aggregated list", ccR(c.svc.GlobalOperations.AggregatedList(ccProject).Context(c.ctx).Do()))
	if agg.Kind != "compute#operationAggregatedList" {
		t.Errorf("aggregated kind %q", agg.Kind)
	}
	if got := ccNames(agg.Items["global"].Operations); !slices.Equal(got, global) {
		t.Errorf("aggregated global %v, want %v", got, global)
	}
	if got := ccNames(agg.Items["regions/"+ccRegion].Operations); !slices.Equal(got, []string{regional.Name}) {
		t.Errorf("aggregated regions/%s %v, want [%s]", ccRegion, got, regional.Name)
	}

	// Delete: gone from get and list; a second delete is 404.
	if err := c.svc.GlobalOperations.Delete(ccProject, global[0]).Context(c.ctx).Do(); err != nil {
		t.Fatalf("delete an operation: %v", err)
	}
	_, err = c.svc.GlobalOperations.Get(ccProject, global[0]).Context(c.ctx).Do()
	ccWantError(t, "get a deleted operation", err, http.StatusNotFound, "notFound")
	err = c.svc.GlobalOperations.Delete(ccProject, global[0]).Context(c.ctx).Do()
	ccWantError(t, "delete it again", err, http.StatusNotFound, "notFound")
	if err := c.svc.RegionOperations.Delete(ccProject, ccRegion, regional.Name).Context(c.ctx).Do(); err != nil {
		t.Fatalf("delete a regional operation: %v", err)
	}
	after := ccMust(t, "list after deletes", ccR(c.svc.GlobalOperations.List(ccProject).Context(c.ctx).Do()))
	if got := ccNames(after.Items); !slices.Equal(got, global[1:]) {
		t.Errorf("after the delete %v, want %v", got, global[1:])
	}
}
