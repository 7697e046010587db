package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
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

// Pages stay in order and complete across many names, inserted in random
// order and partly deleted again (the memory index splits and merges
// chunks of names on the way).
func TestStore_ListManyPagesAfterDeletes(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		const n = 1500
		for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
			if err := s.Insert(ctx, Object{Key: key(fmt.Sprintf("n%05d", i)), Body: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]bool{}
		for i := range n {
			name := fmt.Sprintf("n%05d", i)
			if i%3 == 0 || (i > 300 && i < 900) {
				if err := s.Delete(ctx, key(name)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want[name] = true
		}
		var got []string
		for after := ""; ; {
			page, err := s.List(ctx, ListOptions{Project: "p", Scope: "global", Collection: "healthChecks", After: after, Limit: 7})
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
		if !slices.IsSorted(got) || len(got) != len(want) {
			t.Fatalf("paged %d names (sorted %v), want %d", len(got), slices.IsSorted(got), len(want))
		}
		for _, name := range got {
			if !want[name] {
				t.Fatalf("paged %s, which was deleted", name)
			}
		}
		// A page may start after a name that no longer exists.
		page, _ := s.List(ctx, ListOptions{Project: "p", Scope: "global", Collection: "healthChecks", After: "n00300", Limit: 1})
		if len(page) != 1 || page[0].Name != "n00901" {
			t.Fatalf("page after a deleted name: %v", page)
		}
	})
}

// A write is durable once WaitDurable returns, in every store, and one
// that failed changed nothing (including what a later reopen sees).
func TestStore_WaitDurable(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		if err := s.WaitDurable(ctx); err != nil {
			t.Fatalf("WaitDurable with nothing written: %v", err)
		}
		s.Insert(ctx, Object{Key: key("a"), Body: []byte(`{}`)})
		s.Insert(ctx, Object{Key: key("a"), Body: []byte(`{"again":1}`)})
		s.Delete(ctx, key("missing"))
		if err := s.WaitDurable(ctx); err != nil {
			t.Fatalf("WaitDurable: %v", err)
		}
	})
}

func openTestSQLite(t *testing.T, path string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Concurrent writers each wait for their own writes; after a reopen, every
// write that WaitDurable confirmed is there.
func TestSQLite_ConcurrentWritersAreDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := openTestSQLite(t, path)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := key(fmt.Sprintf("w%d-%02d", w, i))
				if err := s.Insert(ctx, Object{Key: k, Body: []byte(`{"v":1}`)}); err != nil {
					t.Error(err)
				}
				if i%5 == 0 {
					s.Update(ctx, Object{Key: k, Body: []byte(`{"v":2}`)})
				}
				if i%7 == 0 {
					s.Delete(ctx, k)
				}
				if err := s.WaitDurable(ctx); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	want, _ := s.All(ctx, "healthChecks")
	// Not Close: what WaitDurable confirmed must be on disk already. A
	// second handle reads the file as a restarted emulator would.
	s2 := openTestSQLite(t, path)
	defer s2.Close()
	got, _ := s2.All(ctx, "healthChecks")
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 8*(50-8) {
		t.Fatalf("after reopen %d objects, want %d (%d in memory)", len(got), 8*(50-8), len(want))
	}
	s.Close()
}

// A commit that fails is reported to the writers waiting on it, and every
// later write is refused: the store never goes on from a state the disk
// does not have. What was committed before stays.
func TestSQLite_FailedCommitRefusesLaterWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := openTestSQLite(t, path)
	ctx := context.Background()
	if _, err := s.db.Exec(`CREATE TRIGGER poison BEFORE INSERT ON objects WHEN NEW.name = 'poison'
		BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	s.Insert(ctx, Object{Key: key("kept"), Body: []byte(`{}`)})
	if err := s.WaitDurable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(ctx, Object{Key: key("poison"), Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	err := s.WaitDurable(ctx)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "injected failure") || !strings.Contains(err.Error(), path) {
		t.Fatalf("WaitDurable after a failed commit = %v, want ErrUnavailable naming the file and the cause", err)
	}
	for name, write := range map[string]func() error{
		"Insert": func() error { return s.Insert(ctx, Object{Key: key("later"), Body: []byte(`{}`)}) },
		"Update": func() error { return s.Update(ctx, Object{Key: key("kept"), Body: []byte(`{"v":2}`)}) },
		"Delete": func() error { return s.Delete(ctx, key("kept")) },
		"Reset":  func() error { return s.Reset(ctx) },
	} {
		if err := write(); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s after a failed commit = %v, want ErrUnavailable", name, err)
		}
	}
	if err := s.WaitDurable(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("WaitDurable later = %v, want the failure again", err)
	}
	if err := s.Close(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Close = %v, want the failure", err)
	}
	s = openTestSQLite(t, path)
	defer s.Close()
	all, _ := s.All(ctx, "healthChecks")
	if len(all) != 1 || all[0].Name != "kept" {
		t.Fatalf("after reopen: %v, want only kept", all)
	}
}

// Writes after Close are refused, and Close twice is fine.
func TestSQLite_WritesAfterClose(t *testing.T) {
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "db"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(context.Background(), Object{Key: key("x"), Body: []byte(`{}`)}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Insert after Close = %v, want ErrUnavailable", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// Reads count the objects they hand out, and only those: a Get is one,
// whatever else is stored.
func TestMemory_ObjectsReadCountsWhatIsHandedOut(t *testing.T) {
	m := NewMemory()
	ctx := context.Background()
	for i := range 100 {
		m.Insert(ctx, Object{Key: key(fmt.Sprint(i)), Body: []byte(`{}`)})
	}
	before := m.ObjectsRead()
	m.Get(ctx, key("5"))
	m.List(ctx, ListOptions{Project: "p", Scope: "global", Collection: "healthChecks", Limit: 3})
	if got := m.ObjectsRead() - before; got != 4 {
		t.Fatalf("ObjectsRead grew by %d, want 4", got)
	}
}

// A collection that shrinks to a few of its objects (operations expiring)
// still answers every read right after the memory index is compacted.
func TestStore_ShrinkingCollection(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		ctx := context.Background()
		for i := range 3000 {
			s.Insert(ctx, Object{Key: key(fmt.Sprintf("op%05d", i)), Body: []byte(fmt.Sprintf(`{"i":%d}`, i))})
		}
		for i := range 2950 {
			if err := s.Delete(ctx, key(fmt.Sprintf("op%05d", i))); err != nil {
				t.Fatal(err)
			}
		}
		all, _ := s.All(ctx, "healthChecks")
		if len(all) != 50 || all[0].Name != "op02950" {
			t.Fatalf("after deleting most: %d objects, first %v", len(all), all[0].Key)
		}
		if o, err := s.Get(ctx, key("op02999")); err != nil || string(o.Body) != `{"i":2999}` {
			t.Fatalf("Get after compaction: %s %v", o.Body, err)
		}
		if err := s.Insert(ctx, Object{Key: key("op02999"), Body: []byte(`{}`)}); !errors.Is(err, ErrAlreadyExists) {
			t.Fatalf("Insert of a kept name after compaction: %v", err)
		}
	})
}
