package model

import "slices"

// Reading a line where the first line of its layout had its values: an
// EndsPreparer learns, from one line of each of the index's layouts
// (LineScalars.Layout) that it parsed whole, where each value it needs
// starts and ends as a place among the line's scalars (a LayoutSpan), and
// reads the other lines of that layout there, without walking them.

// A LayoutPlace is a place in a line of one of the index's layouts that is
// not inside a scalar: D bytes after the end of scalar K-1 (after the
// line's first byte, '{', for K = 0). The bytes between two scalars are
// the same in every line of a layout, so it is the same place in each.
type LayoutPlace struct{ K, D int32 }

// PlaceOf returns the place of index p of a line whose scalars end at ends
// (LineScalars.Ends), p being at no scalar's inside (a scalar's first
// byte, or the byte after its last, is not inside it).
func PlaceOf(ends []uint32, p int) LayoutPlace {
	k, _ := slices.BinarySearch(ends, uint32(p)+1) // the scalars that end at or before p
	base := 0
	if k > 0 {
		base = int(ends[k-1])
	}
	return LayoutPlace{int32(k), int32(p - base)}
}

// In returns the index of place lp in a line whose scalars end at ends, or
// -1 when the line has too few.
func (lp LayoutPlace) In(ends []uint32) int {
	if lp.K == 0 {
		return int(lp.D)
	}
	if int(lp.K) > len(ends) {
		return -1
	}
	return int(ends[lp.K-1]) + int(lp.D)
}

// A LayoutSpan is where a value is in the lines of one layout: its first
// byte and the byte after its last, as places (a value starts and ends at
// no scalar's inside).
type LayoutSpan [2]LayoutPlace

// SpanOf returns the LayoutSpan of v, a subslice of raw (which starts with
// its object's '{'), in a line whose scalars end at ends, and whether v is
// exactly one of those scalars.
func SpanOf(raw []byte, ends []uint32, v []byte) (sp LayoutSpan, scalar bool) {
	lo := cap(raw) - cap(v)
	hi := lo + len(v)
	sp = LayoutSpan{PlaceOf(ends, lo), PlaceOf(ends, hi)}
	return sp, sp[1].D == 0 && sp[1].K == sp[0].K+1
}

// In returns the bytes of span sp in raw, a line of sp's layout whose
// scalars end at ends, or nil when they do not fit raw.
func (sp LayoutSpan) In(raw []byte, ends []uint32) []byte {
	lo, hi := sp[0].In(ends), sp[1].In(ends)
	if lo < 0 || hi <= lo || hi > len(raw) {
		return nil
	}
	return raw[lo:hi]
}

// MaxLayouts is how many layouts a LayoutCache keeps: it forgets them all
// when it would hold more.
const MaxLayouts = 256

// A LayoutCache holds what an EndsPreparer learned of each of the index's
// layouts it has seen (a *T per LineScalars.Layout), at most MaxLayouts.
// Not safe for concurrent use: a Prepare that runs on several goroutines
// takes one from a sync.Pool for each call.
type LayoutCache[T any] struct{ m map[any]*T }

// Get returns what was learned of layout, or nil.
func (c *LayoutCache[T]) Get(layout any) *T { return c.m[layout] }

// Put keeps t as what was learned of layout.
func (c *LayoutCache[T]) Put(layout any, t *T) {
	if c.m == nil || len(c.m) >= MaxLayouts {
		c.m = map[any]*T{}
	}
	c.m[layout] = t
}
