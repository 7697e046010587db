package depindex

import (
	"slices"
	"testing"
)

// TestIndex: users are found by what they use; a user's new deps replace
// its old ones, and a user set to nothing is gone everywhere.
func TestIndex(t *testing.T) {
	var x Index
	x.Set("svc-a", []string{"check", "group-1", ""})
	x.Set("svc-b", []string{"check"})
	if got := x.Users("check"); !slices.Equal(got, []string{"svc-a", "svc-b"}) {
		t.Errorf("users of check: %v", got)
	}
	x.Set("svc-a", []string{"group-2"})
	if got := x.Users("check"); !slices.Equal(got, []string{"svc-b"}) {
		t.Errorf("after svc-a moved: users of check %v, want svc-b", got)
	}
	if got := x.Users("group-1"); len(got) != 0 {
		t.Errorf("group-1 still used by %v", got)
	}
	x.Set("svc-b", nil)
	if got := x.Users("check"); len(got) != 0 || len(x.users) != 1 {
		t.Errorf("after svc-b is gone: %v (%d paths indexed, want group-2 alone)", got, len(x.users))
	}
	x.Reset()
	if got := x.Users("group-2"); len(got) != 0 {
		t.Errorf("after Reset: %v", got)
	}
}

func TestEachUser_IsUsersInNoOrder(t *testing.T) {
	var x Index
	x.Set("svc-b", []string{"check"})
	x.Set("svc-a", []string{"check"})
	if got := slices.Sorted(x.EachUser("check")); !slices.Equal(got, x.Users("check")) || len(got) != 2 {
		t.Errorf("EachUser %v, Users %v", got, x.Users("check"))
	}
	if got := slices.Collect(x.EachUser("nothing")); len(got) != 0 {
		t.Errorf("EachUser of an unused path: %v", got)
	}
}
