package store

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// Memory is a Store that keeps nothing across restarts (--in-memory).
type Memory struct {
	mu      sync.RWMutex
	objects map[Key][]byte
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{objects: map[Key][]byte{}} }

func (m *Memory) Get(_ context.Context, k Key) (Object, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	body, ok := m.objects[k]
	if !ok {
		return Object{}, ErrNotFound
	}
	return Object{Key: k, Body: slices.Clone(body)}, nil
}

func (m *Memory) List(_ context.Context, opts ListOptions) ([]Object, error) {
	m.mu.RLock()
	var page []Object
	for k, body := range m.objects {
		if k.Project == opts.Project && k.Scope == opts.Scope && k.Collection == opts.Collection && k.Name > opts.After {
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
	var all []Object
	for k, body := range m.objects {
		if k.Collection == collection {
			all = append(all, Object{Key: k, Body: slices.Clone(body)})
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(all, func(a, b Object) int { return strings.Compare(a.Path(), b.Path()) })
	return all, nil
}

func (m *Memory) Insert(_ context.Context, o Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[o.Key]; ok {
		return ErrAlreadyExists
	}
	m.objects[o.Key] = slices.Clone(o.Body)
	return nil
}

func (m *Memory) Update(_ context.Context, o Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[o.Key]; !ok {
		return ErrNotFound
	}
	m.objects[o.Key] = slices.Clone(o.Body)
	return nil
}

func (m *Memory) Delete(_ context.Context, k Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[k]; !ok {
		return ErrNotFound
	}
	delete(m.objects, k)
	return nil
}

func (m *Memory) Reset(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects = map[Key][]byte{}
	return nil
}

func (m *Memory) Close() error { return nil }
