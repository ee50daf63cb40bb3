package deltamind

import (
	"encoding/binary"
	"hash/maphash"
	"io"
	"reflect"
	"sort"
	"sync"

	"github.com/rewind-tui/rewind/model"
)

// A lineage holds the items, rejected lines and disagreements of all the
// states folded, one line after another, from one Init. A state is a
// version of its lineage (the number of lines that changed it, v) and sees
// only what was recorded at versions up to v, so the states of a replay
// share one copy of the history and a keyframe costs a state struct, not
// the copied paths of a persistent map.
//
// Entries are only ever appended, tagged with the version of the state
// that recorded them. A state may record the next version only while it
// is the newest state of its lineage (v == claimed). When a state that is
// not the newest is folded further, the line is usually the very one that
// was folded from it before (replay.StateAt folding forward from a
// keyframe): the step recorded for version v+1 is then reused, which the
// identity of the event (position, offset, source, a hash of its bytes and
// the format variant) proves. Any other line forks: the new state gets a
// copy of the lineage as of version v.
//
// A lineage is safe for concurrent use: mu guards every field.
type lineage struct {
	mu sync.Mutex
	// claimed is the newest version handed out to a state.
	claimed int64
	// steps[v-1] is the identity of the line that recorded version v,
	// or 0 for a checkpoint line, which only changes the state and
	// records no entries (identity is never 0).
	steps []uint64
	// srcs are the event sources seen, so an identity can name one by index.
	srcs []io.ReaderAt

	// sids caches the summaries kept and their semanticHash, by item
	// kind and summary.
	sids [len(itemKinds)]map[string]sid

	items []slot // in creation order
	// vers are the versions of items after their first, in the order
	// they were recorded (so by v).
	vers []ver
	// ids finds an item's index by its id.
	ids           idTable
	rejected      []rejection
	disagreements []disagreement
	// mem holds what the items and lists point to (see store).
	mem store

	// The number of items of each class (see class) as of any version,
	// for the panes (PaneRender), which must say how many items they
	// leave out without walking them: moves[v-1] is what version v did,
	// counts[k] the numbers as of version k*countsEvery, cur as of
	// claimed, and move what the version being recorded does.
	moves []move
	// touched[v-1] is the index of the item version v changed, or -1
	// (for Touched).
	touched []int32
	counts  []classCounts
	cur     classCounts
	move    move
	item    int32 // the index of the item the version being recorded changed
	// kept holds the states likely to be kept as keyframes (see keep).
	kept []state
}

// slot is one item: the versions it went through, from its creation.
type slot struct {
	v    int64  // the version that created it
	it   uint32 // its first version, in mem.items
	last int32  // the index in vers of its newest later version, or -1
}

// ver is a version of an item after its first.
type ver struct {
	v    int64  // the version that recorded it
	it   uint32 // the item, in mem.items
	prev int32  // the index in vers of the item's version before, or -1
}

func newLineage() *lineage {
	return &lineage{counts: []classCounts{{}}, move: noMove, item: -1}
}

// An item's class is what the projections' sections select it by: its
// kind, its status and whether it has the tag "branch".
const (
	nClasses = len(itemKinds) * len(itemStatuses) * 2
	noClass  = 255
)

type classCounts [nClasses]int32

// move is an item leaving class from and entering class to (noClass for
// none).
type move struct{ from, to uint8 }

var noMove = move{noClass, noClass}

// countsEvery is how many versions apart the lineage keeps the counts.
const countsEvery = 256

func class(it *item) uint8 {
	c := it.kind*uint8(len(itemStatuses)) + it.status
	if it.branch {
		c += uint8(len(itemKinds) * len(itemStatuses))
	}
	return c
}

// classItem returns an item of class c, for the sections' keep functions.
func classItem(c int) *item {
	it := &item{kind: uint8(c % (len(itemKinds) * len(itemStatuses)) / len(itemStatuses)), status: uint8(c % len(itemStatuses))}
	it.branch = c >= len(itemKinds)*len(itemStatuses)
	return it
}

// record ends recording version v, the newest: the move its line made.
// The caller holds l.mu.
func (l *lineage) record(v int64) {
	m := l.move
	l.move = noMove
	l.moves = append(l.moves, m)
	l.touched = append(l.touched, l.item)
	l.item = -1
	if m.from != noClass {
		l.cur[m.from]--
	}
	if m.to != noClass {
		l.cur[m.to]++
	}
	if v%countsEvery == 0 {
		l.counts = append(l.counts, l.cur)
	}
}

// countsAt returns the number of items of each class as of version v.
// The caller holds l.mu.
func (l *lineage) countsAt(v int64) classCounts {
	k := v / countsEvery
	c := l.counts[k]
	for _, m := range l.moves[k*countsEvery : v] {
		if m.from != noClass {
			c[m.from]--
		}
		if m.to != noClass {
			c[m.to]++
		}
	}
	return c
}

var seed = maphash.MakeSeed()

// identity returns the identity of ev folded by f in l. The caller holds
// l.mu.
func (l *lineage) identity(f format, ev model.Event) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var b [32]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(ev.Pos))
	binary.LittleEndian.PutUint64(b[8:], uint64(ev.Off))
	binary.LittleEndian.PutUint64(b[16:], uint64(l.srcIndex(ev.Src)))
	binary.LittleEndian.PutUint64(b[24:], uint64(reflect.ValueOf(f.snap).Pointer()))
	h.Write(b[:])
	h.Write(ev.Raw)
	if id := h.Sum64(); id != 0 {
		return id
	}
	return 1 // 0 stands for no step
}

// srcIndex returns the index of src among the sources seen, adding it.
// Sources whose type cannot be compared all share one index.
func (l *lineage) srcIndex(src io.ReaderAt) int {
	if src == nil {
		return -1
	}
	if !reflect.TypeOf(src).Comparable() {
		return -2
	}
	for i, s := range l.srcs {
		if s == src {
			return i
		}
	}
	l.srcs = append(l.srcs, src)
	return len(l.srcs) - 1
}

// stepAt returns the identity recorded for version v.
func (l *lineage) stepAt(v int64) (uint64, bool) {
	if v < 1 || v > int64(len(l.steps)) || l.steps[v-1] == 0 {
		return 0, false
	}
	return l.steps[v-1], true
}

// get returns item id as of version v and its index in creation order.
func (l *lineage) get(id string, v int64) (*item, int32, bool) {
	i, ok := l.lookup(id)
	if !ok || l.items[i].v > v {
		return nil, 0, false
	}
	return l.at(i, v), i, true
}

// at returns item i as of version v (at or after its creation).
func (l *lineage) at(i int32, v int64) *item {
	s := &l.items[i]
	for j := s.last; j >= 0; j = l.vers[j].prev {
		if l.vers[j].v <= v {
			return l.mem.items.at(l.vers[j].it)
		}
	}
	return l.mem.items.at(s.it)
}

// An idTable finds items by id: an open-addressing hash table (linear
// probing) of entries that hold 32 bits of a seeded hash of the id and the
// item's index plus one (0 is an empty entry). Ids whose hashes collide
// are told apart by the ids the items hold.
type idTable struct {
	e []uint64
	n int
}

// idHash is the hash of id the table keeps.
func idHash(id string) uint32 { return uint32(maphash.String(seed, id)) }

// idOf returns the id of item i.
func (l *lineage) idOf(i int32) string { return l.mem.s(l.mem.items.at(l.items[i].it).id) }

// lookup returns the index of the item whose id is id.
func (l *lineage) lookup(id string) (int32, bool) {
	t := &l.ids
	if len(t.e) == 0 {
		return 0, false
	}
	h := idHash(id)
	mask := uint64(len(t.e) - 1)
	for p := uint64(h) & mask; ; p = (p + 1) & mask {
		e := t.e[p]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == h && l.idOf(int32(uint32(e)-1)) == id {
			return int32(uint32(e) - 1), true
		}
	}
}

// addID records that the item at index i has id id, in place of the item
// that had it.
func (l *lineage) addID(id string, i int32) {
	t := &l.ids
	if 4*(t.n+1) > 3*len(t.e) {
		old := t.e
		t.e = make([]uint64, max(2*len(old), 64))
		for _, e := range old {
			if e != 0 {
				t.put(e)
			}
		}
	}
	h := idHash(id)
	mask := uint64(len(t.e) - 1)
	for p := uint64(h) & mask; ; p = (p + 1) & mask {
		e := t.e[p]
		if e == 0 {
			t.e[p] = uint64(h)<<32 | uint64(uint32(i)+1)
			t.n++
			return
		}
		if uint32(e>>32) == h && l.idOf(int32(uint32(e)-1)) == id {
			t.e[p] = uint64(h)<<32 | uint64(uint32(i)+1)
			return
		}
	}
}

// put adds entry e to the table, which has room and does not hold it.
func (t *idTable) put(e uint64) {
	mask := uint64(len(t.e) - 1)
	p := (e >> 32) & mask
	for t.e[p] != 0 {
		p = (p + 1) & mask
	}
	t.e[p] = e
}

// set records item it at version v, the newest version of the lineage:
// a new version of the item at index i, or a new item when i is -1.
func (l *lineage) set(i int32, it *item, v int64) {
	l.move, l.item = move{noClass, class(it)}, i
	if i >= 0 {
		l.move.from = class(l.at(i, v))
		s := &l.items[i]
		l.vers = append(l.vers, ver{v: v, it: l.mem.items.one(*it), prev: s.last})
		s.last = int32(len(l.vers) - 1)
		return
	}
	l.items = append(l.items, slot{v: v, it: l.mem.items.one(*it), last: -1})
	l.item = int32(len(l.items) - 1)
	l.addID(l.mem.s(it.id), l.item)
}

// fork returns a new lineage holding what l holds as of s's version, for
// s to take a different next step. The caller holds l.mu. Entries are
// immutable, so the copies share their backing arrays (capped, so that
// appending to either side reallocates) and the store's chunks.
func (l *lineage) fork(s *state) *lineage {
	v := s.v
	k := sort.Search(len(l.vers), func(j int) bool { return l.vers[j].v > v })
	nl := &lineage{
		steps:         l.steps[:v:v],
		srcs:          l.srcs[:len(l.srcs):len(l.srcs)],
		items:         make([]slot, s.nItems),
		vers:          l.vers[:k:k],
		rejected:      l.rejected[:s.nRejected:s.nRejected],
		disagreements: l.disagreements[:s.nDisagreements:s.nDisagreements],
		mem:           l.mem.fork(),
	}
	for j := range nl.items {
		sl := l.items[j]
		for sl.last >= int32(k) {
			sl.last = l.vers[sl.last].prev
		}
		nl.items[j] = sl
		nl.addID(nl.mem.s(nl.mem.items.at(sl.it).id), int32(j))
	}
	nl.claimed = v
	nl.moves = l.moves[:v:v]
	nl.touched = l.touched[:v:v]
	nl.item = -1
	nl.counts = l.counts[: v/countsEvery+1 : v/countsEvery+1]
	nl.cur = l.countsAt(v)
	nl.move = noMove
	return nl
}

// keyframeInterval is replay.DefaultInterval: replay keeps the state after
// every event whose position is a multiple of it.
const keyframeInterval = 256

// place returns s, a new state of the lineage after the event at pos, as
// it is to be kept: the states a replay keeps as keyframes are copied
// next to each other, since each would otherwise hold on to a span of the
// heap full of dead states (a state is allocated for every line).
func (l *lineage) place(s *state, pos int) *state {
	if pos%keyframeInterval != 0 {
		return s
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.kept) == cap(l.kept) {
		l.kept = make([]state, 0, 64)
	}
	l.kept = append(l.kept, *s)
	return &l.kept[len(l.kept)-1]
}

const maxSemanticIDs = 1 << 14

// sid is a summary kept in the store and its semanticHash.
type sid struct {
	s str
	h uint32
}

// summary returns summary kept in the store and its semanticHash, from a
// cache: journals repeat their summaries. The caller holds l.mu.
func (l *lineage) summary(kind uint8, summary string) (str, uint32) {
	m := l.sids[kind]
	if e, ok := m[summary]; ok {
		return e.s, e.h
	}
	e := sid{l.mem.str(summary), semanticHash(summary)}
	if m == nil {
		m = map[string]sid{}
		l.sids[kind] = m
	}
	if len(m) < maxSemanticIDs {
		m[l.mem.s(e.s)] = e
	}
	return e.s, e.h
}
