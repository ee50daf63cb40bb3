package durablestream

import (
	"encoding/binary"
	"hash/maphash"
	"io"
	"reflect"
	"slices"
	"sort"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/rewind-tui/rewind/internal/chunk"
	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/model"
)

// A lineage holds the collections of all the states folded, one event
// after another, from one Init: pending checkpoints, intents, decisions,
// the ledger and the sessions. A state is a version of its lineage (its
// event count n) and sees only what was recorded at versions up to n, so
// the states of a replay share one copy of the history: a keyframe costs a
// state struct, not a copy of the paths a persistent map would copy on
// every change.
//
// Entries are only ever appended, tagged with the version of the state
// that recorded them. A state may record the next version only while it
// is the newest state of its lineage (n == claimed). When a state that is
// not the newest is folded further, the event is usually the very one
// that was folded from it before (replay.StateAt folding forward from a
// keyframe): the step recorded for version n+1 is then reused, which the
// identity of the event (position, offset, source and a hash of its bytes)
// proves. Any other event forks: the new state gets a copy of the lineage
// as of version n.
//
// A lineage is safe for concurrent use: mu guards every field.
type lineage struct {
	mu sync.Mutex
	// claimed is the newest version handed out to a state.
	claimed int64
	// steps are the versions, ascending, whose events recorded entries,
	// and ids their identities; events that only count (deltas,
	// snapshots) record none. Two lists, not one of structs: 12 bytes a
	// step, not 16.
	steps []int32
	ids   []uint64
	// types logs the type of every event, for the counts.
	types *typeLog
	// srcs are the event sources seen, so an identity can name one by index.
	srcs []io.ReaderAt
	// strs interns the strings that repeat (stream ids, agents, titles);
	// forks share it.
	strs *interner
	// kept holds the states likely to be kept as keyframes (see keep).
	kept []state

	pending  omap[*checkpoint] // a deletion is always a decision's
	active   omap[*intent]
	epics    omap[*ledgerItem]
	tasks    omap[*ledgerItem]
	sessions omap[*session]

	// The append-only lists: a state sees the first len entries it knows.
	decided     []decision
	finished    []finished
	directives  []directive
	assumptions []assumption
	learnings   []learning
	handoffs    []handoff

	// mem holds what the maps point to (see store).
	mem store
}

func newLineage() *lineage {
	return &lineage{
		types:   newTypeLog(),
		strs:    &interner{m: map[string]string{}},
		pending: newOmap[*checkpoint](2), active: newOmap[*intent](2),
		epics: newOmap[*ledgerItem](2), tasks: newOmap[*ledgerItem](3), sessions: newOmap[*session](2),
	}
}

var seed = maphash.MakeSeed()

// identity returns the identity of ev in l. The caller holds l.mu.
func (l *lineage) identity(ev model.Event) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(ev.Pos))
	binary.LittleEndian.PutUint64(b[8:], uint64(ev.Off))
	binary.LittleEndian.PutUint64(b[16:], uint64(l.srcIndex(ev.Src)))
	h.Write(b[:])
	h.Write(ev.Raw)
	return h.Sum64()
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

// stepAt returns the identity recorded for version n.
func (l *lineage) stepAt(n int64) (uint64, bool) {
	i := sort.Search(len(l.steps), func(i int) bool { return int64(l.steps[i]) >= n })
	if i < len(l.steps) && int64(l.steps[i]) == n {
		return l.ids[i], true
	}
	return 0, false
}

// fork returns a new lineage holding what l holds as of version n, for a
// state of version n that takes a different next step. The caller holds
// l.mu. Entries are immutable, so the copies share their backing arrays
// (capped, so that appending to either side reallocates).
func (l *lineage) fork(s *state) *lineage {
	n := s.n
	i := sort.Search(len(l.steps), func(i int) bool { return int64(l.steps[i]) > n })
	nl := &lineage{
		steps:       l.steps[:i:i],
		ids:         l.ids[:i:i],
		srcs:        l.srcs[:len(l.srcs):len(l.srcs)],
		types:       l.types.upTo(n),
		strs:        l.strs,
		pending:     l.pending.upTo(n),
		active:      l.active.upTo(n),
		epics:       l.epics.upTo(n),
		tasks:       l.tasks.upTo(n),
		sessions:    l.sessions.upTo(n),
		decided:     l.decided[:s.lens.nDecided:s.lens.nDecided],
		finished:    l.finished[:s.lens.nFinished:s.lens.nFinished],
		directives:  l.directives[:s.lens.nDirectives:s.lens.nDirectives],
		assumptions: l.assumptions[:s.lens.nAssumptions:s.lens.nAssumptions],
		learnings:   l.learnings[:s.lens.nLearnings:s.lens.nLearnings],
		handoffs:    l.handoffs[:s.lens.nHandoffs:s.lens.nHandoffs],
	}
	nl.claimed = n
	return nl
}

// verdict returns the decision that removed checkpoint id from the
// pending ones, as of version n, when it is not pending again since;
// last is the index of the last decision version n sees. The caller holds
// l.mu.
func (l *lineage) verdict(id string, n int64, last int32) (*decision, bool) {
	del, ok := l.pending.deletedAt(id, n)
	if !ok {
		return nil, false
	}
	i := sort.Search(int(last)+1, func(i int) bool { return l.decided[i].n >= del })
	if i > int(last) || l.decided[i].n != del {
		return nil, false
	}
	return &l.decided[i], true
}

// omap is a map that iterates in first-insertion order, like a JavaScript
// Map (setting an existing key keeps its place; a key deleted and set
// again goes last), and that remembers its history: every value is tagged
// with the version that set it, and reads name the version they look at.
type omap[V any] struct {
	slots []slot[V] // in insertion order, so in version order
	ids   map[string]int32
	tags  chunk.Slab[tagged[V]] // the values of the slots
	log   []change              // every set and deletion, in version order
	// room is the values a slot is given room for in tags: as many as a
	// key of this map usually gets (a value and its deletion; a task's
	// three). One more moves the slot's values to an array of their own.
	room int
}

// change says that a version set or deleted the value of a slot (for
// Touched: which entries the events between two versions changed).
type change struct {
	n    int32
	slot int32
}

// slot is one insertion of a key: the values it had from its insertion
// until it was deleted.
type slot[V any] struct {
	id   string
	n    int32 // the version that inserted it (versions are event positions, int32 as in the index)
	prev int32 // the key's previous slot, or -1
	vals []tagged[V]
}

// tagged is a value and the version that set it; a deletion is recorded
// with the version negated.
type tagged[V any] struct {
	n int64
	v V
}

func (t tagged[V]) version() (n int64, del bool) {
	if t.n < 0 {
		return -t.n, true
	}
	return t.n, false
}

func newOmap[V any](room int) omap[V] { return omap[V]{ids: map[string]int32{}, room: room} }

// value returns the slot's value as of version n.
func (s *slot[V]) value(n int64) (V, bool) {
	for j := len(s.vals) - 1; j >= 0; j-- {
		if v, del := s.vals[j].version(); v <= n {
			return s.vals[j].v, !del
		}
	}
	var zero V
	return zero, false
}

// get returns the value of id as of version n.
func (m *omap[V]) get(id string, n int64) (V, bool) {
	i, ok := m.ids[id]
	for ok && i >= 0 && int64(m.slots[i].n) > n {
		i = m.slots[i].prev
	}
	if !ok || i < 0 {
		var zero V
		return zero, false
	}
	return m.slots[i].value(n)
}

// set records id = v at version n, the newest version of the lineage.
func (m *omap[V]) set(id string, v V, n int64) {
	prev := int32(-1)
	if i, ok := m.ids[id]; ok {
		s := &m.slots[i]
		if _, del := s.vals[len(s.vals)-1].version(); !del {
			s.vals = append(s.vals, tagged[V]{n: n, v: v})
			m.log = append(m.log, change{int32(n), i})
			return
		}
		prev = i
	}
	vals := append(m.tags.Reserve(m.room), tagged[V]{n: n, v: v})
	m.slots = append(m.slots, slot[V]{id: id, n: int32(n), prev: prev, vals: vals})
	m.ids[id] = int32(len(m.slots) - 1)
	m.log = append(m.log, change{int32(n), int32(len(m.slots) - 1)})
}

// del records the deletion of id at version n, the newest version of the
// lineage.
func (m *omap[V]) del(id string, n int64) {
	if i, ok := m.ids[id]; ok {
		s := &m.slots[i]
		if _, del := s.vals[len(s.vals)-1].version(); !del {
			s.vals = append(s.vals, tagged[V]{n: -n})
			m.log = append(m.log, change{int32(n), i})
		}
	}
}

// changed returns the slots whose value a version after from and up to to
// set or deleted, in ascending order, each once.
func (m *omap[V]) changed(from, to int64) []int32 {
	i := sort.Search(len(m.log), func(i int) bool { return int64(m.log[i].n) > from })
	var out []int32
	for ; i < len(m.log) && int64(m.log[i].n) <= to; i++ {
		out = append(out, m.log[i].slot)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// deletedAt returns the version that deleted id, when id is deleted as of
// version n (and was not set again since).
func (m *omap[V]) deletedAt(id string, n int64) (int64, bool) {
	i, ok := m.ids[id]
	for ok && i >= 0 && int64(m.slots[i].n) > n {
		i = m.slots[i].prev
	}
	if !ok || i < 0 {
		return 0, false
	}
	s := &m.slots[i]
	for j := len(s.vals) - 1; j >= 0; j-- {
		if v, del := s.vals[j].version(); v <= n {
			return v, del
		}
	}
	return 0, false
}

// each calls fn with the values present as of version n, in insertion
// order.
func (m *omap[V]) each(n int64, fn func(V)) {
	for i := range m.slots {
		s := &m.slots[i]
		if int64(s.n) > n {
			return
		}
		if v, ok := s.value(n); ok {
			fn(v)
		}
	}
}

// eachUntil calls fn with the values present as of version n, in
// insertion order, until it returns false.
func (m *omap[V]) eachUntil(n int64, fn func(V) bool) {
	for i := range m.slots {
		s := &m.slots[i]
		if int64(s.n) > n {
			return
		}
		if v, ok := s.value(n); ok && !fn(v) {
			return
		}
	}
}

// tail returns the last k values present as of version n, in insertion
// order (fewer when fewer are present). It walks the slots back from the
// newest that version n sees.
func (m *omap[V]) tail(n int64, k int) []V {
	k = max(k, 0)
	end := m.inserted(n)
	out := make([]V, k)
	for i := end - 1; i >= 0 && k > 0; i-- {
		if v, ok := m.slots[i].value(n); ok {
			k--
			out[k] = v
		}
	}
	return out[k:]
}

// count returns the number of values present as of version n in a map
// whose keys are never deleted (epics, tasks, sessions): its slots up to
// version n.
func (m *omap[V]) count(n int64) int { return m.inserted(n) }

// inserted returns how many slots versions up to n inserted: the slots
// version n sees are m.slots[:inserted(n)].
func (m *omap[V]) inserted(n int64) int {
	return sort.Search(len(m.slots), func(i int) bool { return int64(m.slots[i].n) > n })
}

// values returns the values present as of version n, in insertion order.
func (m *omap[V]) values(n int64) []V {
	var out []V
	m.each(n, func(v V) { out = append(out, v) })
	return out
}

// upTo returns a copy of m as of version n.
func (m *omap[V]) upTo(n int64) omap[V] {
	k := m.inserted(n)
	c := sort.Search(len(m.log), func(i int) bool { return int64(m.log[i].n) > n })
	out := omap[V]{slots: make([]slot[V], k), ids: make(map[string]int32, k), log: m.log[:c:c], room: m.room}
	for i := range k {
		s := m.slots[i]
		j := sort.Search(len(s.vals), func(j int) bool { v, _ := s.vals[j].version(); return v > n })
		s.vals = s.vals[:j:j]
		out.slots[i] = s
		out.ids[s.id] = int32(i)
	}
	return out
}

// interner hands out one copy of each string it has seen, up to a limit,
// kept in its own arena. It is safe for concurrent use.
type interner struct {
	mu    sync.Mutex
	m     map[string]string
	bytes chunk.Arena
}

const maxInterned = 1 << 17

// str decodes v as strVal does, returning the interned copy of plain
// strings.
func (in *interner) str(v []byte) (string, bool) {
	plain, ok := rawjson.Plain(v)
	if !ok || !utf8.Valid(plain) {
		return strVal(v)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if s, ok := in.m[string(plain)]; ok {
		return s, true
	}
	if len(in.m) >= maxInterned {
		return string(plain), true
	}
	s := in.bytes.Str(unsafe.String(unsafe.SliceData(plain), len(plain)))
	in.m[s] = s
	return s, true
}

// A store keeps the values a lineage holds on to in chunks of many, so
// that they do not each sit among the dead states and payloads of a
// fold, which would keep the heap's spans half empty: the strings in an
// arena, the structs in slabs. It is guarded by the lineage's mu.
type store struct {
	bytes       chunk.Arena
	checkpoints chunk.Slab[checkpoint]
	intents     chunk.Slab[intent]
	items       chunk.Slab[ledgerItem]
	sessions    chunk.Slab[session]
	options     chunk.Slab[option]
	strs        chunk.Slab[string]
	texts       chunk.Slab[model.Text]
}

// str returns a copy of s kept in the store (s itself when it is
// interned already: the caller knows).
func (m *store) str(s string) string { return m.bytes.Str(s) }

// text returns a copy of t kept in the store.
func (m *store) text(t text) text {
	if t.long != nil {
		p := m.texts.New()
		*p = *t.long
		return text{long: p}
	}
	return text{s: m.bytes.Str(t.s)}
}

// opts returns a copy of the options (whose strings are interned).
func (m *store) opts(o []option) []option {
	if o == nil {
		return nil
	}
	return append(m.options.Reserve(len(o)), o...)
}

// list returns a copy of ss kept in the store.
func (m *store) list(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := m.strs.Reserve(len(ss))
	for _, s := range ss {
		out = append(out, m.bytes.Str(s))
	}
	return out
}

// keyframeInterval is replay.DefaultInterval: replay keeps the state after
// every event whose position is a multiple of it.
const keyframeInterval = 256

// place returns s, a new state of the lineage after the event at pos,
// as it is to be kept (see keep).
func (l *lineage) place(s *state, pos int) *state {
	if pos%keyframeInterval != 0 {
		return s
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keep(s)
}

// keep returns a copy of s stored next to the other states kept so far.
// The states a replay keeps as keyframes would otherwise each hold on to a
// span of the heap full of dead states (a new state is allocated for every
// event), which costs far more than the keyframes themselves. The caller
// holds l.mu.
func (l *lineage) keep(s *state) *state {
	if len(l.kept) == cap(l.kept) {
		l.kept = make([]state, 0, 32)
	}
	l.kept = append(l.kept, *s)
	return &l.kept[len(l.kept)-1]
}
