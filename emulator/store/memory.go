package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
)

// Memory is a Store that keeps nothing across restarts (--in-memory).
type Memory struct {
	mu sync.RWMutex
	// objects is indexed by collection first: the emulator reads whole
	// collections after every write, and operations pile up beside them.
	objects map[string]map[Key][]byte
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{objects: map[string]map[Key][]byte{}} }

func (m *Memory) Get(_ context.Context, k Key) (Object, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	body, ok := m.objects[k.Collection][k]
	if !ok {
		return Object{}, ErrNotFound
	}
	return Object{Key: k, Body: slices.Clone(body)}, nil
}

func (m *Memory) List(_ context.Context, opts ListOptions) ([]Object, error) {
	m.mu.RLock()
	var page []Object
	for k, body := range m.objects[opts.Collection] {
		if k.Project == opts.Project && k.Scope == opts.Scope && k.Name > opts.After {
			page = append(page, Object{Key: k, Body: slices.Clone(body)})
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(page, func(a, b Object) int { return strings.Compare(a.Name, b.Name) })
	if opts.Limit > 0 && len(page) > opts.Limit {
		page = page[:opts.Limit]
	}
	return page, nil
}

func (m *Memory) All(_ context.Context, collection string) ([]Object, error) {
	m.mu.RLock()
	all := make([]Object, 0, len(m.objects[collection]))
	for k, body := range m.objects[collection] {
		all = append(all, Object{Key: k, Body: slices.Clone(body)})
	}
	m.mu.RUnlock()
	// The order SQLite gives: project, scope, name.
	slices.SortFunc(all, func(a, b Object) int {
		return cmp.Or(strings.Compare(a.Project, b.Project), strings.Compare(a.Scope, b.Scope), strings.Compare(a.Name, b.Name))
	})
	return all, nil
}

func (m *Memory) Insert(_ context.Context, o Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.objects[o.Collection]
	if c == nil {
		c = map[Key][]byte{}
		m.objects[o.Collection] = c
	}
	if _, ok := c[o.Key]; ok {
		return ErrAlreadyExists
	}
	c[o.Key] = slices.Clone(o.Body)
	return nil
}

func (m *Memory) Update(_ context.Context, o Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[o.Collection][o.Key]; !ok {
		return ErrNotFound
	}
	m.objects[o.Collection][o.Key] = slices.Clone(o.Body)
	return nil
}

func (m *Memory) Delete(_ context.Context, k Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[k.Collection][k]; !ok {
		return ErrNotFound
	}
	delete(m.objects[k.Collection], k)
	return nil
}

func (m *Memory) Reset(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects = map[string]map[Key][]byte{}
	return nil
}

func (m *Memory) Close() error { return nil }
