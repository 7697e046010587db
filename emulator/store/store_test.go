package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// implementations lists every Store; each test below runs against all.
func implementations(t *testing.T) map[string]Store {
	t.Helper()
	sq, err := OpenSQLite(filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	return map[string]Store{"memory": NewMemory(), "sqlite": sq}
}

func forEachStore(t *testing.T, test func(t *testing.T, s Store)) {
	for name, s := range implementations(t) {
		t.Run(name, func(t *testing.T) { test(t, s) })
	}
}

func key(name string) Key {
	return Key{Project: "p", Scope: "global", Collection: "healthChecks", Name: name}
}

func TestStore_InsertGetUpdateDelete(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		if _, err := s.Get(ctx, key("a")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get missing = %v, want ErrNotFound", err)
		}
		if err := s.Insert(ctx, Object{Key: key("a"), Body: []byte(`{"v":1}`)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Insert(ctx, Object{Key: key("a"), Body: []byte(`{"v":2}`)}); !errors.Is(err, ErrAlreadyExists) {
			t.Fatalf("second Insert = %v, want ErrAlreadyExists", err)
		}
		if o, _ := s.Get(ctx, key("a")); string(o.Body) != `{"v":1}` {
			t.Fatalf("failed Insert changed the object: %s", o.Body)
		}
		if err := s.Update(ctx, Object{Key: key("a"), Body: []byte(`{"v":3}`)}); err != nil {
			t.Fatal(err)
		}
		if o, _ := s.Get(ctx, key("a")); string(o.Body) != `{"v":3}` {
			t.Fatalf("Get after Update = %s", o.Body)
		}
		if err := s.Update(ctx, Object{Key: key("b"), Body: []byte(`{}`)}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Update missing = %v, want ErrNotFound", err)
		}
		if err := s.Delete(ctx, key("a")); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, key("a")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("second Delete = %v, want ErrNotFound", err)
		}
	})
}

func TestStore_KeysAreDistinctPerScopeAndProject(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		keys := []Key{key("x"), {Project: "p", Scope: "regions/r1", Collection: "healthChecks", Name: "x"},
			{Project: "q", Scope: "global", Collection: "healthChecks", Name: "x"}, {Project: "p", Scope: "global", Collection: "other", Name: "x"}}
		for _, k := range keys {
			if err := s.Insert(ctx, Object{Key: k, Body: []byte(`{}`)}); err != nil {
				t.Fatalf("Insert %s: %v", k.Path(), err)
			}
		}
		all, _ := s.All(ctx, "healthChecks")
		if len(all) != 3 {
			t.Fatalf("All(healthChecks) = %d objects, want 3", len(all))
		}
	})
}

func TestStore_ListPages(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		for _, n := range []string{"c", "a", "e", "b", "d"} {
			if err := s.Insert(ctx, Object{Key: key(n), Body: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		after := ""
		for {
			page, err := s.List(ctx, ListOptions{Project: "p", Scope: "global", Collection: "healthChecks", After: after, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			for _, o := range page {
				got = append(got, o.Name)
			}
			after = page[len(page)-1].Name
		}
		if fmt.Sprint(got) != "[a b c d e]" {
			t.Fatalf("pages = %v, want [a b c d e]", got)
		}
	})
}

func TestStore_Reset(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		s.Insert(ctx, Object{Key: key("a"), Body: []byte(`{}`)})
		if err := s.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if all, _ := s.All(ctx, "healthChecks"); len(all) != 0 {
			t.Fatalf("after Reset: %d objects", len(all))
		}
	})
}

func TestStore_ConcurrentInsertsOfOneNameOneWins(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.Insert(ctx, Object{Key: key("same"), Body: []byte(fmt.Sprintf(`{"i":%d}`, i))})
				if err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, ErrAlreadyExists) {
					t.Errorf("Insert: %v", err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("%d inserts of one name succeeded, want 1", wins)
		}
	})
}

func TestSQLite_SurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Insert(context.Background(), Object{Key: key("kept"), Body: []byte(`{"a":1}`)})
	s.Close()
	s, err = OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o, err := s.Get(context.Background(), key("kept"))
	if err != nil || string(o.Body) != `{"a":1}` {
		t.Fatalf("after reopen: %s, %v", o.Body, err)
	}
}

// Every implementation orders All the same way: project, scope, name.
func TestStore_AllOrder(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		for _, k := range []Key{
			{Project: "q", Scope: "global", Collection: "c", Name: "a"},
			{Project: "p", Scope: "regions/r", Collection: "c", Name: "a"},
			{Project: "p", Scope: "global", Collection: "c", Name: "b"},
			{Project: "p", Scope: "global", Collection: "c", Name: "a"},
		} {
			if err := s.Insert(ctx, Object{Key: k, Body: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		all, _ := s.All(ctx, "c")
		var got []string
		for _, o := range all {
			got = append(got, o.Path())
		}
		want := "[projects/p/global/c/a projects/p/global/c/b projects/p/regions/r/c/a projects/q/global/c/a]"
		if fmt.Sprint(got) != want {
			t.Fatalf("All order %v, want %s", got, want)
		}
	})
}
