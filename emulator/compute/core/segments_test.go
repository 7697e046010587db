package core

import (
	"slices"
	"strings"
	"testing"
)

// pathSegments splits as strings.Split does up to its room, and a path
// longer than that keeps more segments than any reference has, so that
// "projects/p/zones/z/instances/vm/extra" is never read as instance
// "vm/extra".
func TestPathSegmentsSplitsAsSplitDoes(t *testing.T) {
	for _, p := range []string{"", "a", "projects/p/global/healthChecks/hc", "projects/p/zones/z/instances/vm",
		"projects/p/zones/z/instances/vm/extra", "projects/p/zones/z/instances/vm/a/b", "a//b", "/x/", "a/b/c/d/e/f/g/h/i"} {
		var buf [7]string
		got := pathSegments(p, buf[:0])
		want := strings.Split(p, "/")
		if len(want) > 7 {
			want = append(want[:6:6], strings.Join(want[6:], "/"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("pathSegments(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestParseRef_RefusesAPathOfMoreSegments(t *testing.T) {
	if _, err := ParseAnyRef("f", "projects/p/zones/z/instances/vm/extra", Scope{Project: "p"}, "instances"); err == nil {
		t.Error("a path of 7 segments was taken as a reference")
	}
	if k, err := ParseAnyRef("f", "projects/p/zones/z/instances/vm", Scope{Project: "p"}, "instances"); err != nil || k.Name != "vm" || k.Scope != "zones/z" {
		t.Errorf("got %v, %v", k, err)
	}
}
