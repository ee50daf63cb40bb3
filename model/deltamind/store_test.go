package deltamind

import (
	"strconv"
	"strings"
	"testing"
)

// A store gives back every string it keeps byte for byte: times packed
// into a str, strings in chunks and strings longer than a chunk, in a
// pool and in its forks.
func TestStoreStrings(t *testing.T) {
	in := []string{"", "x", "2026-02-02T07:07:06.669Z", "0000-00-00T00:00:00.000Z", "9999-99-99T99:99:99.999Z",
		"2026-02-02T07:07:06.669z", "2026-02-02 07:07:06.669Z", "2026-02-02T07:07:06.6690Z", "2026-02-02T07:07:0\xff.669Z",
		"\xff\xfe", strings.Repeat("long ", maxChunk/4), strings.Repeat("y", maxChunk), strings.Repeat("z", maxChunk+1)}
	var m store
	var refs []str
	for i := range 3 * maxChunk / 100 {
		for _, s := range in {
			refs = append(refs, m.str(s))
		}
		if i%50 == 0 {
			f := m.fork()
			for j, r := range refs {
				if got := f.s(r); got != in[j%len(in)] {
					t.Fatalf("fork: str %d is %q, want %q", j, got, in[j%len(in)])
				}
			}
			f.str("a string only the fork has")
		}
	}
	for j, r := range refs {
		if got := m.s(r); got != in[j%len(in)] {
			t.Fatalf("str %d is %q, want %q", j, got, in[j%len(in)])
		}
	}
	if _, ok := packTime(in[2]); !ok {
		t.Error("a time is not packed")
	}
}

// The id table finds every item by its id, also when the hashes it keeps
// of two ids are equal (at this many ids some are, which the test checks),
// and finds no item for ids it does not hold.
func TestIDTableCollisions(t *testing.T) {
	l := newLineage()
	const n = 300000
	id := func(i int) string { return "item-" + strconv.Itoa(i) }
	seen := map[uint32]bool{}
	collisions := 0
	for i := range n {
		it := item{id: l.mem.str(id(i))}
		l.claimed = int64(i + 1)
		l.steps = append(l.steps, 1)
		l.set(-1, &it, l.claimed)
		l.record(l.claimed)
		h := idHash(id(i))
		if seen[h] {
			collisions++
		}
		seen[h] = true
	}
	if collisions == 0 {
		t.Log("no two ids' hashes are equal this time")
	}
	for i := range n {
		if j, ok := l.lookup(id(i)); !ok || j != int32(i) {
			t.Fatalf("lookup(%q) = %d, %v", id(i), j, ok)
		}
		if _, ok := l.lookup(id(i) + "x"); ok {
			t.Fatalf("lookup(%q) found an item", id(i)+"x")
		}
	}
	f := l.fork(&state{lin: l, v: n / 2, nItems: n / 2})
	for i := range n {
		if j, ok := f.lookup(id(i)); ok != (i < n/2) || ok && j != int32(i) {
			t.Fatalf("fork: lookup(%q) = %d, %v", id(i), j, ok)
		}
	}
}
