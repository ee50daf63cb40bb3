package deltamind

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// A pool gives back every run of bytes it keeps byte for byte: runs in
// chunks and runs longer than a chunk, in a pool and in its forks.
func TestPoolBytes(t *testing.T) {
	in := []string{"", "x", "2026-02-02T07:07:06.669Z", "\xff\xfe", strings.Repeat("long ", maxChunk/4),
		strings.Repeat("y", maxChunk), strings.Repeat("z", maxChunk+1)}
	var p pool
	var refs []ref
	for i := range 3 * maxChunk / 100 {
		for _, s := range in {
			refs = append(refs, p.add([]byte(s)))
		}
		if i%50 == 0 {
			f := p.fork()
			for j, r := range refs {
				if got := f.str(r); got != in[j%len(in)] {
					t.Fatalf("fork: run %d is %q, want %q", j, got, in[j%len(in)])
				}
			}
			f.add([]byte("a run only the fork has"))
		}
	}
	for j, r := range refs {
		if got := p.str(r); got != in[j%len(in)] {
			t.Fatalf("run %d is %q, want %q", j, got, in[j%len(in)])
		}
	}
}

// A dense array and its forks each see the values added before the fork
// and their own after it, across chunks, whatever else either adds.
func TestDenseFork(t *testing.T) {
	var d dense[uint64]
	var forks []dense[uint64]
	var at []int
	for i := range 3*denseSize + 100 {
		d.add(uint64(i))
		if i%997 == 0 || i == denseSize-1 || i == denseSize {
			forks = append(forks, d.fork(d.len()))
			at = append(at, d.len())
		}
	}
	for j := range forks {
		for i := range 500 {
			forks[j].add(uint64(1_000_000*(j+1) + i))
		}
	}
	for i := range d.len() {
		if d.at(i) != uint64(i) {
			t.Fatalf("value %d is %d after the forks grew", i, d.at(i))
		}
	}
	for j, f := range forks {
		if f.len() != at[j]+500 {
			t.Fatalf("fork %d holds %d values, want %d", j, f.len(), at[j]+500)
		}
		for i := range f.len() {
			want := uint64(i)
			if i >= at[j] {
				want = uint64(1_000_000*(j+1) + i - at[j])
			}
			if f.at(i) != want {
				t.Fatalf("fork %d: value %d is %d, want %d", j, i, f.at(i), want)
			}
		}
	}
}

// The id table finds every item by its id: counter ids by their number
// (also when two prefixes share a number, when the number has leading
// zeros or is far above the others, when the items of a page's numbers are
// far apart), other ids by their hash (also when
// the hashes it keeps of two ids are equal: at this many ids some are,
// which the test checks), and finds no item for ids it does not hold.
// A fork finds only the items it was forked with.
func TestIDTableCollisions(t *testing.T) {
	var tab idTable
	const n = 300000
	id := func(i int) string {
		switch i % 7 {
		case 0:
			return "d-" + strconv.Itoa(i)
		case 1:
			if i%2 == 0 {
				return "milestone-" + strconv.Itoa(i-1) // a prefix too long to pack
			}
			return "task-" + strconv.Itoa(i-1) // the number of the d- before
		case 2:
			return "c-0" + strconv.Itoa(i) // leading zero: not a counter
		case 3:
			return "g-" + strconv.Itoa(i*1000) // far above the others
		case 4:
			return "p" + strconv.Itoa(i%17) + "-" + strconv.Itoa(i) // more prefixes than codes
		case 5:
			return "w-" + strconv.Itoa(1e6+(i/7*7919)%(n/7)) // a page's numbers go to items far apart
		}
		return "item " + strconv.Itoa(i)
	}
	// ref gives every other lookup the id split, as the fold's readers
	// do (refOf), and the others its bytes alone, as a caller that did
	// not split it: both must find the same items.
	calls := 0
	ref := func(id string) idRef {
		calls++
		if calls%2 == 0 {
			return refOf([]byte(id))
		}
		return idRef{b: []byte(id)}
	}
	seen := map[uint32]bool{}
	collisions := 0
	for i := range n {
		if _, ok := tab.lookup(ref(id(i)), int32(i)); ok {
			t.Fatalf("lookup(%q) found an item before it was added", id(i))
		}
		tab.add(ref(id(i)), int32(i))
		h := idHash([]byte(id(i)))
		if seen[h] {
			collisions++
		}
		seen[h] = true
	}
	if collisions == 0 {
		t.Log("no two ids' hashes are equal this time")
	}
	for i := range n {
		if j, ok := tab.lookup(ref(id(i)), n); !ok || j != int32(i) {
			t.Fatalf("lookup(%q) = %d, %v", id(i), j, ok)
		}
		if _, ok := tab.lookup(ref(id(i)), int32(i)); ok {
			t.Fatalf("lookup(%q) among the items before it found it", id(i))
		}
		if _, ok := tab.lookup(ref(id(i)+"x"), n); ok {
			t.Fatalf("lookup(%q) found an item", id(i)+"x")
		}
	}
	if _, ok := tab.lookup(ref("d-1"), n); ok {
		t.Fatal(`lookup("d-1") found an item`)
	}
	f := tab.fork(n / 2)
	for i := range n {
		if j, ok := f.lookup(ref(id(i)), n); ok != (i < n/2) || ok && j != int32(i) {
			t.Fatalf("fork: lookup(%q) = %d, %v", id(i), j, ok)
		}
	}
	f.add(ref(id(n-1)), n/2)
	if j, ok := f.lookup(ref(id(n-1)), n); !ok || j != n/2 {
		t.Fatalf("fork: lookup of an id added to the fork = %d, %v", j, ok)
	}
	if j, ok := tab.lookup(ref(id(n-1)), n); !ok || j != n-1 {
		t.Fatalf("lookup of an id the fork added again = %d, %v", j, ok)
	}
}

// The links between an item's versions come back as they were added, in
// the revisions and in forks taken anywhere (within a word of bits, at its
// edge, at the edge of a chunk of words), whatever either adds after.
func TestRevisionsFork(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const n = 64*denseSize + 300
	want := make([]int32, 0, n+1000)
	var revs revisions
	type fork struct {
		r    revisions
		want []int32
	}
	var forks []fork
	for k := range n {
		p := int32(-1)
		if k > 0 && r.Intn(3) == 0 {
			p = int32(r.Intn(k))
		}
		revs.add(p)
		want = append(want, p)
		if k%1000 == 7 || k+1 == 64 || k+1 == 64*denseSize || k+1 == 64*denseSize+1 || k+1 == 65 {
			forks = append(forks, fork{revs.fork(k + 1), want[: k+1 : k+1]})
		}
	}
	for i := range forks {
		for k := range 200 {
			p := int32(-1)
			if k%2 == 0 {
				p = int32(k)
			}
			forks[i].r.add(p)
			forks[i].want = append(forks[i].want, p)
		}
	}
	check := func(what string, r *revisions, want []int32) {
		if r.n != len(want) {
			t.Fatalf("%s: %d versions, want %d", what, r.n, len(want))
		}
		for k, p := range want {
			if got := r.prev(k); got != p {
				t.Fatalf("%s: prev(%d) = %d, want %d", what, k, got, p)
			}
		}
	}
	check("revisions", &revs, want)
	for i := range forks {
		check("fork "+strconv.Itoa(i), &forks[i].r, forks[i].want)
	}
}

// quickHash, where it hashes a summary, gives what the general hash gives:
// on words that are and are not stop words or verbs to normalize, verbs
// inside longer words and next to punctuation, every kind of space, upper
// case, letters that lower case changes, characters outside the Basic
// Multilingual Plane, invalid UTF-8 and control characters (the last ones
// it leaves to the general hash).
func TestQuickHash(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	words := []string{"using", "Using", "USING", "use", "building", "sending", "adding", "the", "The", "a", "not", "Node",
		"refusing", "usingX", "x_using", "using_", "9using", "-using-", "(adding)", "writing.", "an", "ok", "__", "Z",
		"été", "Été", "écrire", "→", "—", "“quoted”", "usingé", "éusing", "σ", "Σ", "ΣΑΣ", "İ", "ﬀ", "ǅ", "日本", "𝒳", "\uFFFD", "\xff", "Ⓐ", "ⓐ"}
	seps := []string{" ", "  ", "\t", "\n", "\v", "\f", "\r", "-", ".", "", "\x01", "\x7f", "\u00a0", "\u2028", "\u3000", "\uFEFF", "·"}
	hashed := 0
	for range 100000 {
		var b strings.Builder
		for range r.Intn(12) {
			b.WriteString(words[r.Intn(len(words))])
			b.WriteString(seps[r.Intn(len(seps))])
		}
		s := b.String()
		if h, ok := quickHash(s); ok {
			hashed++
			if want := unicodeHash(s); h != want {
				t.Fatalf("quickHash(%q) = %08x, want %08x", s, h, want)
			}
		}
	}
	if hashed < 10000 {
		t.Fatalf("quickHash hashed only %d summaries", hashed)
	}
}

// FuzzQuickHash: wherever quickHash hashes a summary, the general hash
// agrees.
func FuzzQuickHash(f *testing.F) {
	for _, s := range []string{"Use Redis for the blacklist, not a database table", "using X — é → Σ", "İstanbul ǅ ΣΑΣ writing\u2028adding"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if h, ok := quickHash(s); ok && h != unicodeHash(s) {
			t.Fatalf("quickHash(%q) = %08x, want %08x", s, h, unicodeHash(s))
		}
	})
}

// versions gives back every loc as it was added (offset, inline index,
// class and check), for lines that follow each other closely, far apart,
// backwards and inline, in the versions and in forks taken anywhere.
func TestVersionsLocs(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	var vs versions
	var want []uint64
	type fork struct {
		vs   versions
		want []uint64
	}
	var forks []fork
	off := uint64(0)
	next := func() uint64 {
		var loc uint64
		switch x := r.Intn(100); {
		case x < 3:
			loc = locInline | uint64(r.Intn(1000))
		case x < 6:
			off += uint64(r.Intn(1 << 20)) // far on
			loc = off
		case x < 8:
			loc = uint64(r.Int63n(int64(off) + 1)) // back
		case x < 9:
			loc = maxOff
		default:
			off += uint64(r.Intn(600))
			loc = off
		}
		return loc | uint64(r.Intn(nClasses))<<classOff | uint64(r.Intn(1<<checkBits))<<checkOff
	}
	for k := range 3*denseSize + 77 {
		loc := next()
		if got := vs.add(loc, progFor(loc)); got != k {
			t.Fatalf("add returned %d, want %d", got, k)
		}
		want = append(want, loc)
		if k%701 == 0 || k == 31 || k == 32 || k == denseSize-1 {
			forks = append(forks, fork{vs.fork(k + 1), want[: k+1 : k+1]})
		}
	}
	for i := range forks {
		for range 100 {
			loc := next()
			forks[i].vs.add(loc, progFor(loc))
			forks[i].want = append(forks[i].want, loc)
		}
	}
	check := func(what string, vs *versions, want []uint64) {
		if vs.len() != len(want) {
			t.Fatalf("%s: %d versions, want %d", what, vs.len(), len(want))
		}
		for k, loc := range want {
			if got := vs.at(k); got != loc {
				t.Fatalf("%s: at(%d) = %x, want %x", what, k, got, loc)
			}
			if got := vs.class(k); got != classOf(loc) {
				t.Fatalf("%s: class(%d) = %d, want %d", what, k, got, classOf(loc))
			}
			if got := vs.prog(k); got != progFor(loc) {
				t.Fatalf("%s: prog(%d) = %d, want %d", what, k, got, progFor(loc))
			}
		}
		// Through a cursor, in order, in steps, and going back and forth
		// (as a walk of items reads their versions, newest first).
		for _, step := range []int{1, 3, 17} {
			cur := verCursor{k: -1}
			for k := 0; k < len(want); k += step {
				for _, k := range []int{k, max(k-5, 0), k} {
					if got := vs.atFrom(k, &cur); got != want[k] {
						t.Fatalf("%s: atFrom(%d) in steps of %d = %x, want %x", what, k, step, got, want[k])
					}
				}
			}
		}
	}
	check("versions", &vs, want)
	for i := range forks {
		check("fork "+strconv.Itoa(i), &forks[i].vs, forks[i].want)
	}
}

// progFor is the program the versions test gives the version of loc.
func progFor(loc uint64) uint8 { return uint8(loc>>3 ^ loc>>checkOff) }
