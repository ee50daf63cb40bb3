package deltamind

import (
	"bytes"
	"hash/maphash"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rewind-tui/rewind/model"
)

// A lineage holds what the states folded, one line after another, from one
// Init have seen. A state is a version of its lineage (the number of lines
// that changed it, v) plus the lengths of the lineage's lists it sees, so
// the states of a replay share one copy of the history and a keyframe costs
// a state struct.
//
// The lineage keeps no text. Each line that changed the state is an entry
// that says where the line is (its offset in the journal, or for an event
// that came without a file its bytes in inline) and what the fold must
// know of it to fold the next lines; the views read the lines back and
// decode them when asked (see decoder):
//
//   - an accepted line applied to an item is an item version, ivs[k] for
//     the state seq k+1: where the line is, the item's class after it (its
//     kind, status and whether it is a branch; see class) and a check of
//     the line's bytes, and in revs the item's version before, unless
//     the line created the item. items[i] is the newest version of
//     item i, and ids finds an item by its id;
//   - a rejected line, and an accepted line this package's reconciler
//     rejects (a disagreement), is a rec in rejected or disagreements;
//   - a checkpoint line is held by the states that follow it.
//
// Entries are only ever appended. A state may record the next version only
// while it is the newest state of its lineage (v == claimed). When a state
// that is not the newest is folded further, the line is usually the very
// one that was folded from it before (replay.StateAt folding forward from a
// keyframe): the entry recorded for version v+1 is then reused, which the
// line's place in the file and its check (or its bytes, for an inline
// line) prove. Any other line forks: the new state gets a copy of the
// lineage as of version v.
//
// A lineage is safe for concurrent use: mu guards every field.
type lineage struct {
	mu sync.Mutex
	// claimed is the newest version handed out to a state.
	claimed int64
	// steps says what each version recorded (stepItem, …), in two bits:
	// version v's are bits 2*((v-1)%4) of steps[(v-1)/4] (see step).
	steps []uint8
	// src is the journal file the offsets of entries are in: the first
	// comparable Src seen. Lines of other sources are kept inline.
	src io.ReaderAt
	// variants are the formats lines were folded with: variants[0] is
	// the lineage's own, and other holds the item versions folded with
	// another, by index in ivs.
	variants []format
	other    map[uint32]uint8

	ivs   versions
	revs  revisions
	items dense[uint32] // newest version of each item, in creation order
	ids   idTable

	rejected      dense[rec]
	disagreements dense[rec]

	// inline holds the bytes of lines that came without a file, and
	// inl their refs: an entry whose loc has locInline set holds the
	// index in inl.
	inline pool
	inl    dense[ref]

	// The number of items of each class as of any version, for the
	// panes (PaneRender), which must say how many items they leave out
	// without walking them: counts[k] is as of version k*countsEvery, cur
	// as of claimed; countsAt adds the moves of the versions after.
	counts []countsMark
	cur    classCounts

	// kept holds the states likely to be kept as keyframes (see place).
	kept []state
	// sids caches semantic hashes of summaries for the views; shared by
	// forks.
	sids *sidCache
}

// step returns what version v recorded. The caller holds l.mu.
func (l *lineage) step(v int64) uint8 { return l.steps[(v-1)/4] >> (2 * ((v - 1) % 4)) & 3 }

// What a version recorded, in steps.
const (
	stepItem = iota
	stepRejected
	stepDisagreement
	stepCheckpoint
)

// An entry's loc says where its line is and checks its bytes: the offset
// of the line's first byte in src (or, with locInline, the index in inl of
// the ref of its bytes in inline) in the low locBits bits, the item's class after an item
// version in the next 6 bits, and checkBits bits of a hash of the line's
// bytes (without the whitespace around them) in the top bits.
const (
	locBits   = 39
	locInline = 1 << locBits
	maxOff    = locInline - 1 // 512 GiB; a line further on is kept inline
	classBits = 6
	classOff  = locBits + 1
	checkOff  = classOff + classBits
	checkBits = 64 - checkOff
)

func locOf(l uint64) uint64   { return l & (locInline<<1 - 1) }
func classOf(l uint64) uint8  { return uint8(l>>classOff) & (1<<classBits - 1) }
func checkOf(l uint64) uint64 { return l >> checkOff }
func withClass(l uint64, c uint8) uint64 {
	return l&^(uint64(1<<classBits-1)<<classOff) | uint64(c)<<classOff
}

// lineCheck returns the check of a line's bytes, as a loc holds it.
func lineCheck(b []byte) uint64 { return maphash.Bytes(seed, b) >> checkOff }

// rec is a rejected line or a disagreement: where the line is (a loc) and,
// in pos, its position (the low posBits bits), the program its line was
// read with (the top byte; see layoutProg), and for a disagreement why
// (the why constants, bits 52-55) and, for whyKind, the target's kind
// (bits 48-51).
type rec struct {
	loc uint64
	pos uint64
}

const posBits = 48

// recPos returns the pos of a rec at position at, read with program
// prog, and for a disagreement, why and the target's kind.
func recPos(at int, prog, why, oldKind uint8) uint64 {
	return uint64(at)&(1<<posBits-1) | uint64(oldKind&0xf)<<posBits | uint64(why&0xf)<<52 | uint64(prog)<<56
}

func (r rec) at() int        { return int(r.pos & (1<<posBits - 1)) }
func (r rec) why() uint8     { return uint8(r.pos>>52) & 0xf }
func (r rec) oldKind() uint8 { return uint8(r.pos>>posBits) & 0xf }
func (r rec) prog() uint8    { return uint8(r.pos >> 56) }

// Why an accepted line's delta is rejected (a disagreement).
const (
	whyNone = iota
	whyMissing
	whyNotFound
	whyKind
	whyUnknown
)

func newLineage(f format) *lineage {
	return &lineage{counts: []countsMark{{}}, variants: []format{f}, sids: &sidCache{}}
}

// An item's class is what the projections' sections select it by: its
// kind, its status and whether it has the tag "branch".
const (
	nClasses = len(itemKinds) * len(itemStatuses) * 2
	noClass  = 255
)

type classCounts [nClasses]int32

// countsMark is the number of items of each class and the seq as of a
// version.
type countsMark struct {
	c   classCounts
	seq int64
}

// countsEvery is how many versions apart the lineage keeps the counts.
const countsEvery = 1024

func classFor(kind, status uint8, branch bool) uint8 {
	c := kind*uint8(len(itemStatuses)) + status
	if branch {
		c += uint8(len(itemKinds) * len(itemStatuses))
	}
	return c
}

func kindOfClass(c uint8) uint8 {
	return c % uint8(len(itemKinds)*len(itemStatuses)) / uint8(len(itemStatuses))
}
func statusOfClass(c uint8) uint8 { return c % uint8(len(itemStatuses)) }
func branchOfClass(c uint8) bool  { return c >= uint8(len(itemKinds)*len(itemStatuses)) }

// countsAt returns the number of items of each class as of version v.
// The caller holds l.mu.
func (l *lineage) countsAt(v int64) classCounts {
	k := v / countsEvery
	m := l.counts[k]
	c, seq := m.c, m.seq
	for u := k*countsEvery + 1; u <= v; u++ {
		if l.step(u) != stepItem {
			continue
		}
		if p := l.revs.prev(int(seq)); p >= 0 {
			c[l.ivs.class(int(p))]--
		}
		c[l.ivs.class(int(seq))]++
		seq++
	}
	return c
}

// version returns the newest version of item i among the first seq item
// versions (the item must exist by then). The caller holds l.mu.
func (l *lineage) version(i int32, seq int64) int32 {
	k := int64(l.items.at(int(i)))
	for k >= seq {
		k = int64(l.revs.prev(int(k)))
	}
	return int32(k)
}

// classAt returns the class of item i among the first seq item versions.
// The caller holds l.mu.
func (l *lineage) classAt(i int32, seq int64) uint8 {
	return l.ivs.class(int(l.version(i, seq)))
}

// lookup returns the index of the item whose id is ref's among the first
// n items. The caller holds l.mu.
func (l *lineage) lookup(ref idRef, n int32) (int32, bool) { return l.ids.lookup(ref, n) }

// locate returns the loc of event ev's line, which sc read (with its
// check, without a class), keeping the bytes inline when they cannot be
// read back from the lineage's file. The caller holds l.mu.
func (l *lineage) locate(ev model.Event, sc *scanned) uint64 {
	line, off := sc.line(ev)
	if l.src == nil && ev.Src != nil && reflect.TypeOf(ev.Src).Comparable() {
		l.src = ev.Src
	}
	check := sc.check << checkOff
	if ev.Src != nil && ev.Src == l.src && off >= 0 && off <= maxOff && len(line) > 0 {
		return check | uint64(off)
	}
	return check | locInline | uint64(l.inl.add(l.inline.add(line)))
}

// inlineLine returns the bytes of an inline entry's line. The caller
// holds l.mu; the bytes stay valid after.
func (l *lineage) inlineLine(loc uint64) []byte {
	return l.inline.get(l.inl.at(int(locOf(loc) &^ locInline)))
}

// matches reports whether entry loc's line is the line of event ev, which
// sc read. The caller holds l.mu.
func (l *lineage) matches(loc uint64, ev model.Event, sc *scanned) bool {
	if checkOf(loc) != sc.check {
		return false
	}
	line, off := sc.line(ev)
	if loc&locInline != 0 {
		return bytes.Equal(l.inlineLine(loc), line)
	}
	return ev.Src != nil && ev.Src == l.src && uint64(off) == locOf(loc)
}

// trimSpace returns raw without the whitespace around it, and where it
// starts in raw.
func trimSpace(raw []byte) ([]byte, int) {
	start := 0
	for start < len(raw) && isSpace(raw[start]) {
		start++
	}
	end := len(raw)
	for end > start && isSpace(raw[end-1]) {
		end--
	}
	return raw[start:end], start
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// variant returns the index of f among l's variants, adding it.
func (l *lineage) variant(f format) uint8 {
	for i, v := range l.variants {
		if sameVariant(v, f) {
			return uint8(i)
		}
	}
	if len(l.variants) == 255 {
		return 255 // cannot tell them apart any more: forks
	}
	l.variants = append(l.variants, f)
	return uint8(len(l.variants) - 1)
}

// sameVariant reports whether a and b fold alike: both the plain Format
// (checked without reflect: the fold asks for every line), or the same
// snapshot's.
func sameVariant(a, b format) bool {
	if a.snap == nil || b.snap == nil {
		return a.snap == nil && b.snap == nil
	}
	return reflect.ValueOf(a.snap).Pointer() == reflect.ValueOf(b.snap).Pointer()
}

// variantOf returns the format item version k was folded with.
func (l *lineage) variantOf(k int32) format {
	if v, ok := l.other[uint32(k)]; ok {
		return l.variants[v]
	}
	return l.variants[0]
}

// recordStep ends recording version v, the newest: its kind and, for an
// item version, the class the item left (noClass for a new item) and the
// one it entered. The caller holds l.mu.
func (l *lineage) recordStep(v int64, step uint8, from, to uint8) {
	l.claimed = v
	if (v-1)%4 == 0 {
		l.steps = append(l.steps, step)
	} else {
		l.steps[(v-1)/4] |= step << (2 * ((v - 1) % 4))
	}
	if step == stepItem {
		if from != noClass {
			l.cur[from]--
		}
		l.cur[to]++
	}
	if v%countsEvery == 0 {
		l.counts = append(l.counts, countsMark{l.cur, int64(l.ivs.len())})
	}
}

// fork returns a new lineage holding what l holds as of s's version, for
// s to take a different next step. The caller holds l.mu. Entries are
// immutable, so the copies share full chunks with l.
func (l *lineage) fork(s *state) *lineage {
	v, seq := s.v, s.seq
	nl := &lineage{
		claimed:       v,
		steps:         l.steps[: v/4 : v/4],
		src:           l.src,
		variants:      l.variants[:len(l.variants):len(l.variants)],
		ivs:           l.ivs.fork(int(seq)),
		revs:          l.revs.fork(int(seq)),
		items:         l.items.copyOf(int(s.nItems)),
		ids:           l.ids.fork(s.nItems),
		rejected:      l.rejected.fork(int(s.nRejected)),
		disagreements: l.disagreements.fork(int(s.nDisagreements)),
		inline:        l.inline.fork(),
		inl:           l.inl.fork(l.inl.len()),
		counts:        l.counts[: v/countsEvery+1 : v/countsEvery+1],
		cur:           l.countsAt(v),
		sids:          l.sids,
	}
	if v%4 != 0 { // the byte being filled, without the later versions' steps
		nl.steps = append(nl.steps, l.steps[v/4]&(1<<(2*(v%4))-1))
	}
	for k, vi := range l.other {
		if int64(k) < seq {
			if nl.other == nil {
				nl.other = map[uint32]uint8{}
			}
			nl.other[k] = vi
		}
	}
	for i := range int(s.nItems) {
		nl.items.set(i, uint32(l.version(int32(i), seq)))
	}
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

// sidCache caches the semantic hashes of the first maxSemanticIDs
// summaries hashed: journals repeat some summaries, and hashing one costs
// a quarter of a microsecond (quickHash) to over a microsecond. It is safe
// for concurrent use, and a hit takes no lock: the goroutines writing
// StreamView's parts look a summary up for each item version, and a
// mutex they all took moved its cache line from CPU to CPU at each lookup
// (1 GB journal, rewind state: 0.2 s of 5.3 s of CPU in Lock).
type sidCache struct {
	m sync.Map // summary → uint32
	n atomic.Int32
}

const maxSemanticIDs = 1 << 12

// hash returns semanticHash(summary).
func (c *sidCache) hash(summary string) uint32 {
	if h, ok := c.m.Load(summary); ok {
		return h.(uint32)
	}
	h := semanticHash(summary)
	if c.n.Load() < maxSemanticIDs {
		if _, loaded := c.m.LoadOrStore(strings.Clone(summary), h); !loaded {
			c.n.Add(1)
		}
	}
	return h
}
