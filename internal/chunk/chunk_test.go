package chunk

import (
	"strings"
	"testing"
	"unsafe"
)

// overlaps reports whether a and b share any byte of memory.
func overlaps(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.StringData(a))), uintptr(unsafe.Pointer(unsafe.StringData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// The strings an arena hands out equal what went in, share no memory with
// the caller's bytes (which the caller may reuse: interners pass a view of
// a line being decoded) nor with each other, across chunks and for the
// long strings that get their own allocation.
func TestArenaCopies(t *testing.T) {
	var a Arena
	if got := a.Str(""); got != "" {
		t.Fatalf(`Str("") = %q`, got)
	}
	buf := make([]byte, 0, 4<<10)
	var ins []string
	var outs []string
	// Enough strings to fill several chunks, of lengths around arenaMax.
	for i := 0; i < 600; i++ {
		n := []int{1, 7, 100, arenaMax - 1, arenaMax, arenaMax + 1, 3 * arenaMax}[i%7]
		buf = buf[:0]
		for j := range n {
			buf = append(buf, byte('a'+(i+j)%26))
		}
		in := string(buf)
		view := unsafe.String(unsafe.SliceData(buf), len(buf))
		out := a.Str(view)
		if out != in {
			t.Fatalf("Str of %d bytes returned %d bytes that differ", n, len(out))
		}
		if overlaps(out, view) {
			t.Fatalf("Str of %d bytes returned the caller's bytes", n)
		}
		for j := range buf {
			buf[j] = '!' // the caller reuses its buffer
		}
		if out != in {
			t.Fatalf("the copy of %d bytes changed with the caller's buffer", n)
		}
		ins, outs = append(ins, in), append(outs, out)
	}
	for i := range outs {
		if outs[i] != ins[i] {
			t.Fatalf("string %d changed after later ones were added", i)
		}
		if i > 0 && overlaps(outs[i-1], outs[i]) {
			t.Fatalf("strings %d and %d share memory", i-1, i)
		}
	}
}

// A slice from Reserve(n) has length 0 and capacity n, with zero values:
// appending up to n values fills it, and appending more moves it rather
// than overwriting the slice handed out next, which callers rely on when
// they append to a list reserved for a few values (the versions of an
// item or a slot).
func TestSlabReserve(t *testing.T) {
	var s Slab[int64]
	perChunk := slabChunk / 8
	for _, n := range []int{1, 2, 3, 0, 5, perChunk - 3, 4, perChunk + 10, 2} {
		a := s.Reserve(n)
		if len(a) != 0 || cap(a) != n {
			t.Fatalf("Reserve(%d): len %d cap %d", n, len(a), cap(a))
		}
		for i, v := range a[:n] {
			if v != 0 {
				t.Fatalf("Reserve(%d)[%d] = %d, want 0", n, i, v)
			}
		}
		for i := range n {
			a = append(a, int64(-1-i))
		}
		grown := append(a, 99) // past capacity: must move
		b := s.Reserve(3)
		for i, v := range b[:3] {
			if v != 0 {
				t.Fatalf("after Reserve(%d) and an append past it, the next Reserve(3)[%d] = %d, want 0", n, i, v)
			}
		}
		b = append(b, 7, 8, 9)
		for i, v := range a {
			if v != int64(-1-i) {
				t.Fatalf("Reserve(%d)[%d] = %d after the next was filled, want %d", n, i, v, -1-i)
			}
		}
		if grown[n] != 99 || b[0] != 7 {
			t.Fatalf("appending past Reserve(%d): %v, next %v", n, grown, b)
		}
	}
}

// New hands out distinct zero values.
func TestSlabNew(t *testing.T) {
	type item struct {
		id   string
		tags []string
	}
	var s Slab[item]
	var ps []*item
	for i := range 2 * slabChunk / int(unsafe.Sizeof(item{})) {
		p := s.New()
		if p.id != "" || p.tags != nil {
			t.Fatalf("New() %d = %+v, want the zero value", i, *p)
		}
		p.id = strings.Repeat("x", i%5+1)
		ps = append(ps, p)
	}
	for i, p := range ps {
		if want := strings.Repeat("x", i%5+1); p.id != want {
			t.Fatalf("item %d = %q after later ones were set, want %q", i, p.id, want)
		}
	}
	var z Slab[struct{}]
	if z.New() == nil {
		t.Fatal("New() of a zero-size type is nil")
	}
}
