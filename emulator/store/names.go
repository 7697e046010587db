package store

import (
	"slices"
	"sort"
	"strings"
)

// chunkMax is the most names one chunk of a names set holds.
const chunkMax = 256

// names is a sorted set of names kept in chunks (a B+tree of height two),
// so that an insert or a delete moves at most one chunk of names, however
// many a collection holds, and a page of a list starts with two binary
// searches. The chunk index itself moves only when a chunk splits or
// empties: one pointer per 256 names, which is nothing next to the bodies.
type names struct {
	// chunks are sorted and non-empty; every name of chunk i sorts before
	// every name of chunk i+1.
	chunks [][]string
}

// chunkFor is the index of the chunk that holds name, or would: the first
// whose last name is >= name, else the last chunk.
func (s *names) chunkFor(name string) int {
	i := sort.Search(len(s.chunks), func(i int) bool {
		c := s.chunks[i]
		return c[len(c)-1] >= name
	})
	return min(i, len(s.chunks)-1)
}

func (s *names) insert(name string) {
	if len(s.chunks) == 0 {
		s.chunks = [][]string{{name}}
		return
	}
	ci := s.chunkFor(name)
	c := s.chunks[ci]
	pos, found := slices.BinarySearch(c, name)
	if found {
		return
	}
	c = slices.Insert(c, pos, name)
	if len(c) <= chunkMax {
		s.chunks[ci] = c
		return
	}
	// Split in two fresh halves, so that neither aliases the other.
	half := len(c) / 2
	left, right := slices.Clone(c[:half]), slices.Clone(c[half:])
	s.chunks[ci] = left
	s.chunks = slices.Insert(s.chunks, ci+1, right)
}

func (s *names) delete(name string) {
	if len(s.chunks) == 0 {
		return
	}
	ci := s.chunkFor(name)
	c := s.chunks[ci]
	pos, found := slices.BinarySearch(c, name)
	if !found {
		return
	}
	c = slices.Delete(c, pos, pos+1)
	switch {
	case len(c) == 0:
		s.chunks = slices.Delete(s.chunks, ci, ci+1)
	case ci+1 < len(s.chunks) && len(c)+len(s.chunks[ci+1]) <= chunkMax/2:
		// Merge small neighbours, so that deletes cannot leave a long
		// index of near-empty chunks.
		s.chunks[ci] = append(c, s.chunks[ci+1]...)
		s.chunks = slices.Delete(s.chunks, ci+1, ci+2)
	default:
		s.chunks[ci] = c
	}
}

// ascend calls fn with every name after after ("" for all), in order,
// until fn returns false.
func (s *names) ascend(after string, fn func(name string) bool) {
	ci := sort.Search(len(s.chunks), func(i int) bool {
		c := s.chunks[i]
		return c[len(c)-1] > after
	})
	for ; ci < len(s.chunks); ci++ {
		c := s.chunks[ci]
		pos := sort.Search(len(c), func(i int) bool { return strings.Compare(c[i], after) > 0 })
		for _, n := range c[pos:] {
			if !fn(n) {
				return
			}
		}
	}
}
