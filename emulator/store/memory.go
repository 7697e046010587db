package store

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Memory is a Store that keeps nothing across restarts (--in-memory). It is
// also where the SQLite store serves every read from.
//
// Every operation costs what it touches: a map lookup for Get, and for List
// two binary searches and the page itself, whatever else is stored.
type Memory struct {
	mu     sync.RWMutex
	tables map[string]*table // by collection
	// guard, when set (by SQLite), may refuse a write before it is made,
	// and journal then receives every change in the order they are made:
	// the order they must be written in. Both run under mu.
	guard   func() error
	journal func(change)
	// read counts the objects handed out, so that tests can prove that a
	// write reads what it changes and not what is stored.
	read atomic.Uint64
}

// table is one collection: bodies by key, and the names of each project
// and scope in order, for List.
type table struct {
	bodies map[Key][]byte
	names  map[scopeKey]*names
	// peak is the most bodies held since the map was last made: a Go map
	// never shrinks, so one that has lost most of its peak is copied into
	// a smaller one (operations come and go by the thousand).
	peak int
}

// scopeKey is a project and scope; the NUL keeps "p" + "global" apart from
// "pg" + "lobal" and sorts project first.
type scopeKey string

func scopeKeyOf(project, scope string) scopeKey { return scopeKey(project + "\x00" + scope) }

func (k scopeKey) split() (project, scope string) {
	p, s, _ := strings.Cut(string(k), "\x00")
	return p, s
}

// changeKind is what a change does.
type changeKind int

const (
	changePut    changeKind = iota // insert or update: the body is the new one
	changeDelete                   // delete the key
	changeReset                    // delete everything
)

// change is one write, as the journal receives it.
type change struct {
	kind changeKind
	key  Key
	body []byte
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{tables: map[string]*table{}} }

// ObjectsRead is how many objects Get, List and All have handed out since
// the store opened.
func (m *Memory) ObjectsRead() uint64 { return m.read.Load() }

func (m *Memory) Get(_ context.Context, k Key) (Object, error) {
	m.mu.RLock()
	body, ok := m.tables[k.Collection].get(k)
	m.mu.RUnlock()
	if !ok {
		return Object{}, ErrNotFound
	}
	m.read.Add(1)
	return Object{Key: k, Body: slices.Clone(body)}, nil
}

func (t *table) get(k Key) ([]byte, bool) {
	if t == nil {
		return nil, false
	}
	body, ok := t.bodies[k]
	return body, ok
}

func (m *Memory) List(_ context.Context, opts ListOptions) ([]Object, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t := m.tables[opts.Collection]
	if t == nil {
		return nil, nil
	}
	ns := t.names[scopeKeyOf(opts.Project, opts.Scope)]
	if ns == nil {
		return nil, nil
	}
	var page []Object
	ns.ascend(opts.After, func(name string) bool {
		k := Key{Project: opts.Project, Scope: opts.Scope, Collection: opts.Collection, Name: name}
		page = append(page, Object{Key: k, Body: slices.Clone(t.bodies[k])})
		return opts.Limit <= 0 || len(page) < opts.Limit
	})
	m.read.Add(uint64(len(page)))
	return page, nil
}

func (m *Memory) All(_ context.Context, collection string) ([]Object, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t := m.tables[collection]
	if t == nil {
		return nil, nil
	}
	all := make([]Object, 0, len(t.bodies))
	// The order SQLite gives: project, scope, name.
	for _, sk := range slices.Sorted(maps.Keys(t.names)) {
		project, scope := sk.split()
		t.names[sk].ascend("", func(name string) bool {
			k := Key{Project: project, Scope: scope, Collection: collection, Name: name}
			all = append(all, Object{Key: k, Body: slices.Clone(t.bodies[k])})
			return true
		})
	}
	m.read.Add(uint64(len(all)))
	return all, nil
}

func (m *Memory) Insert(_ context.Context, o Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return err
	}
	t := m.table(o.Collection)
	if _, ok := t.bodies[o.Key]; ok {
		return ErrAlreadyExists
	}
	m.put(t, o)
	return nil
}

func (m *Memory) Update(_ context.Context, o Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return err
	}
	t := m.tables[o.Collection]
	if _, ok := t.get(o.Key); !ok {
		return ErrNotFound
	}
	m.put(t, o)
	return nil
}

// put stores o in t (which holds its collection) and journals it.
func (m *Memory) put(t *table, o Object) {
	body := slices.Clone(o.Body)
	if _, ok := t.bodies[o.Key]; !ok {
		sk := scopeKeyOf(o.Project, o.Scope)
		ns := t.names[sk]
		if ns == nil {
			ns = &names{}
			t.names[sk] = ns
		}
		ns.insert(o.Name)
	}
	t.bodies[o.Key] = body
	t.peak = max(t.peak, len(t.bodies))
	if m.journal != nil {
		m.journal(change{kind: changePut, key: o.Key, body: body})
	}
}

func (m *Memory) Delete(_ context.Context, k Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return err
	}
	t := m.tables[k.Collection]
	if _, ok := t.get(k); !ok {
		return ErrNotFound
	}
	delete(t.bodies, k)
	if len(t.bodies) < t.peak/4 && t.peak > 1024 {
		// Amortised: at least 3/4 of the peak was deleted since the last
		// copy, and the copy moves less than 1/4 of it.
		t.bodies, t.peak = maps.Clone(t.bodies), len(t.bodies)
	}
	sk := scopeKeyOf(k.Project, k.Scope)
	t.names[sk].delete(k.Name)
	if len(t.names[sk].chunks) == 0 {
		delete(t.names, sk)
	}
	if m.journal != nil {
		m.journal(change{kind: changeDelete, key: k})
	}
	return nil
}

// check runs the guard, if any. Call with mu held.
func (m *Memory) check() error {
	if m.guard == nil {
		return nil
	}
	return m.guard()
}

// table returns the table of a collection, creating it. Call with mu held.
func (m *Memory) table(collection string) *table {
	t := m.tables[collection]
	if t == nil {
		t = &table{bodies: map[Key][]byte{}, names: map[scopeKey]*names{}}
		m.tables[collection] = t
	}
	return t
}

func (m *Memory) Reset(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return err
	}
	m.tables = map[string]*table{}
	if m.journal != nil {
		m.journal(change{kind: changeReset})
	}
	return nil
}

// WaitDurable returns at once: nothing in memory is ever durable, and every
// write is as done as it will be when the call that made it returns.
func (m *Memory) WaitDurable(context.Context) error { return nil }

func (m *Memory) Close() error { return nil }
