// Package chunk keeps many small values in a few large allocations, so
// that the values a long-lived structure holds on to (the lineages of
// model/deltamind and model/durablestream) do not each sit in a span of
// the heap among short-lived garbage, which would keep the spans half
// empty long after the garbage is collected.
//
// An Arena or a Slab is not safe for concurrent use: its user guards it
// with a mutex (a lineage's, or an interner's). The zero value of either
// is ready to use. Nothing handed out is freed on its own: a chunk stays
// allocated as long as anything handed out from it is reachable.
package chunk

import (
	"strings"
	"unsafe"
)

const (
	// arenaChunk is the size of an Arena's chunks, in bytes.
	arenaChunk = 64 << 10
	// arenaMax is the length of the longest string an Arena copies into
	// a chunk, in bytes.
	arenaMax = 1 << 10
	// slabChunk is about the size of a Slab's chunks, in bytes.
	slabChunk = 16 << 10
)

// An Arena keeps copies of strings in chunks of 64 KiB. A string of over
// 1 KiB gets an allocation of its own instead; a string that does not fit
// in what is left of the current chunk starts a new one, and the rest of
// the old chunk is not used.
type Arena struct {
	buf []byte
}

// Str returns a copy of s kept in the arena: equal to s, sharing no
// memory with it, and never changed afterwards. The empty string is
// returned as it is.
func (a *Arena) Str(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) > arenaMax:
		return strings.Clone(s)
	}
	if cap(a.buf)-len(a.buf) < len(s) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	start := len(a.buf)
	a.buf = append(a.buf, s...)
	return unsafe.String(&a.buf[start], len(s))
}

// A Slab hands out values of type T, one at a time or as short slices,
// from chunks of about 16 KiB (of at least one value, and of n values for
// a Reserve(n) that asks for more than that). A request that does not fit
// in what is left of the current chunk starts a new one.
type Slab[T any] struct {
	buf []T
}

// New returns a pointer to a new zero value of T, which only its caller
// may use.
func (s *Slab[T]) New() *T {
	return &s.Reserve(1)[:1][0]
}

// Reserve returns a slice of length 0 and capacity n (exactly n) whose n
// values are zero and are its caller's alone: appending up to n values
// fills them in place, and appending more moves the slice to a new array
// (as append does), so it never overwrites what the slab hands out next.
// Reserve(0) may return nil.
func (s *Slab[T]) Reserve(n int) []T {
	if cap(s.buf)-len(s.buf) < n {
		var zero T
		s.buf = make([]T, 0, max(slabChunk/max(int(unsafe.Sizeof(zero)), 1), n))
	}
	out := s.buf[len(s.buf) : len(s.buf) : len(s.buf)+n]
	s.buf = s.buf[:len(s.buf)+n]
	return out
}
