package control

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// fakeInstances records what Reconcile makes and deletes.
type fakeInstances struct{ made, deleted []string }

func (f *fakeInstances) Make(_ context.Context, _ *api.InstanceGroupManager, n int, zone string) (string, error) {
	link := fmt.Sprintf("projects/p/zones/%s/instances/web-%d", zone, n)
	f.made = append(f.made, link)
	return link, nil
}

func (f *fakeInstances) Delete(_ context.Context, link string) error {
	f.deleted = append(f.deleted, link)
	return nil
}

// A regional group grows by numbering new instances after those it keeps,
// spread over its zones in turn, and shrinks by deleting its last ones.
func TestReconcile_GrowsAndShrinks(t *testing.T) {
	size := int64(4)
	m := &api.InstanceGroupManager{TargetSize: &size}
	f := &fakeInstances{}
	kept, removed, err := Reconcile(context.Background(), f, m, "", "europe-west1", []string{"one"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"one", "projects/p/zones/europe-west1-b/instances/web-2",
		"projects/p/zones/europe-west1-c/instances/web-3", "projects/p/zones/europe-west1-a/instances/web-4"}
	if !slices.Equal(kept, want) || removed != nil {
		t.Fatalf("grown to %v (removed %v), want %v", kept, removed, want)
	}
	size = 1
	f = &fakeInstances{}
	kept, removed, err = Reconcile(context.Background(), f, m, "", "europe-west1", want)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, want[:1]) || !slices.Equal(removed, []string{want[3], want[2], want[1]}) || !slices.Equal(f.deleted, removed) {
		t.Errorf("shrunk to %v, removed %v, deleted %v; want the last ones deleted first", kept, removed, f.deleted)
	}
}

// A zonal group's instances stay in its zone; a distribution policy's
// zones replace the region's a, b and c.
func TestInstanceZone(t *testing.T) {
	m := &api.InstanceGroupManager{}
	if z := InstanceZone(m, 2, "us-east1-d", ""); z != "us-east1-d" {
		t.Errorf("zonal group: %s", z)
	}
	m.DistributionPolicy = &api.DistributionPolicy{}
	for _, z := range []string{"projects/p/zones/us-east1-d", "zones/us-east1-b"} {
		m.DistributionPolicy.Zones = append(m.DistributionPolicy.Zones, struct {
			Zone string `json:"zone,omitempty"`
		}{z})
	}
	var got []string
	for n := 1; n <= 3; n++ {
		got = append(got, InstanceZone(m, n, "", "us-east1"))
	}
	if !slices.Equal(got, []string{"us-east1-d", "us-east1-b", "us-east1-d"}) {
		t.Errorf("distribution policy: %v", got)
	}
}

// A target pool keeps its other members, loses the group's removed
// instances, and gains those it lacks, whatever root their links have.
func TestPoolMembers(t *testing.T) {
	other := "https://www.googleapis.com/compute/v1/projects/p/zones/z/instances/other"
	a := "https://www.googleapis.com/compute/v1/projects/p/zones/z/instances/a"
	b := "http://127.0.0.1:8686/compute/v1/projects/p/zones/z/instances/b"
	out, changed := PoolMembers([]any{other, a}, []string{"projects/p/zones/z/instances/a", b}, nil)
	if !changed || !slices.Equal(out, []any{other, a, b}) {
		t.Errorf("adding: %v (changed %v)", out, changed)
	}
	out, changed = PoolMembers([]any{other, a}, []string{a}, nil)
	if changed || len(out) != 2 {
		t.Errorf("nothing to do: %v (changed %v)", out, changed)
	}
	out, changed = PoolMembers([]any{other, a}, []string{b}, []string{a})
	if !changed || !slices.Equal(out, []any{other, b}) {
		t.Errorf("one replaced by another: %v (changed %v)", out, changed)
	}
}
