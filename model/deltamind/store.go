package deltamind

import (
	"slices"
	"unsafe"
)

// The history a lineage holds (millions of items on a long journal) is
// kept free of pointers, so that the garbage collector never scans it:
// strings are copies in byte chunks addressed by a str, the small lists of
// an item are runs in chunks of pointer-free values addressed by a lst,
// and items are addressed by their index in chunks of items. Only the
// slices of chunks hold pointers, one per chunk.

// A ref addresses a run of values in a pool: the position of its first
// value (chunk<<chunkBits | offset) in its high 40 bits and its length in
// its low lenBits bits, or, when the length bits are all ones, the index
// of a run of its own (longer than a chunk) in its high bits. The zero ref
// is the empty run.
type ref uint64

const (
	chunkBits = 16
	maxChunk  = 1 << chunkBits // values in a chunk, at most
	lenBits   = 24
	bigLen    = 1<<lenBits - 1
	// firstChunk is the size of a pool's first chunk; each next one is
	// twice the size of the one before, up to maxChunk.
	firstChunk = 64
)

// str is a string kept in a store's bytes.
type str ref

// lst is a list kept in one of a store's pools.
type lst ref

// A pool keeps runs of values of a pointer-free type T, appended one run
// at a time and never changed. A forked pool shares the chunks of the pool
// it was forked from, reading only the runs written before the fork, and
// appends only to chunks of its own.
type pool[T any] struct {
	chunks [][]T
	big    [][]T // runs longer than a chunk
	// owned is the number of chunks shared with other pools (from a
	// fork), which this one never appends to.
	owned int
}

// add copies vs into the pool and returns its ref.
func (p *pool[T]) add(vs []T) ref {
	n := len(vs)
	if n == 0 {
		return 0
	}
	if n > maxChunk {
		p.big = append(p.big, slices.Clone(vs))
		return ref(len(p.big)-1)<<lenBits | bigLen
	}
	c := len(p.chunks) - 1
	if c < p.owned || cap(p.chunks[c])-len(p.chunks[c]) < n {
		size := firstChunk
		if c >= p.owned {
			size = min(2*cap(p.chunks[c]), maxChunk)
		}
		p.chunks = append(p.chunks, make([]T, 0, max(size, n)))
		c++
		if c >= 1<<(39-chunkBits) { // the top bit of a str marks a packed time
			panic("deltamind: lineage pool overflow")
		}
	}
	off := len(p.chunks[c])
	p.chunks[c] = append(p.chunks[c], vs...)
	return ref(c<<chunkBits|off)<<lenBits | ref(n)
}

// get returns the run r addresses. The caller must not modify it.
func (p *pool[T]) get(r ref) []T {
	n := int(r & bigLen)
	pos := uint64(r >> lenBits)
	switch n {
	case 0:
		return nil
	case bigLen:
		return p.big[pos]
	}
	c, off := pos>>chunkBits, int(pos&(maxChunk-1))
	return p.chunks[c][off : off+n : off+n]
}

// one adds v and returns its index, for at.
func (p *pool[T]) one(v T) uint32 {
	pos := uint64(p.add(unsafe.Slice(&v, 1)) >> lenBits)
	if pos > 1<<32-1 {
		panic("deltamind: lineage pool overflow")
	}
	return uint32(pos)
}

// at returns the value at index i (from one).
func (p *pool[T]) at(i uint32) *T {
	return &p.chunks[i>>chunkBits][i&(maxChunk-1)]
}

// fork returns a pool that shares p's chunks as they are now.
func (p *pool[T]) fork() pool[T] {
	return pool[T]{chunks: slices.Clone(p.chunks), big: slices.Clone(p.big), owned: len(p.chunks)}
}

// A store keeps the values a lineage holds on to. It is guarded by the
// lineage's mu.
type store struct {
	bytes pool[byte]
	items pool[item]
	turns pool[turn]
	tags  pool[str]
	// The strs of the constants of confidences and deltaKinds, once kept.
	confs [4]str  // as many as confidences
	kinds [11]str // as many as deltaKinds
	// texts caches the copies of the first texts kept with text; not
	// shared by forks.
	texts map[string]str
	// Scratch buffers for building lists; not shared by forks.
	tbuf []turn
	sbuf []str
}

// maxTexts bounds the size of a store's texts.
const maxTexts = 1 << 16

// text returns s kept in the store, sharing the copy with the texts kept
// before when it is in the cache: for the summaries, resolutions and
// reasons journals repeat.
func (m *store) text(s string) str {
	if r, ok := m.texts[s]; ok {
		return r
	}
	r := m.str(s)
	if len(m.texts) < maxTexts {
		if m.texts == nil {
			m.texts = map[string]str{}
		}
		m.texts[m.s(r)] = r
	}
	return r
}

// turn is one entry of an item's sourceTurns: the turnId and the offset
// as written (its JSON text; none when empty).
type turn struct {
	id, off str
}

func (m *store) fork() store {
	return store{bytes: m.bytes.fork(), items: m.items.fork(), turns: m.turns.fork(), tags: m.tags.fork(), confs: m.confs, kinds: m.kinds}
}

// str returns s kept in the store.
func (m *store) str(s string) str {
	if r, ok := packTime(s); ok {
		return r
	}
	return str(m.bytes.add(unsafe.Slice(unsafe.StringData(s), len(s))))
}

// packedTime marks a str that holds a time, not a ref: journals stamp
// every delta with a Date.toISOString ("2026-02-02T07:07:06.669Z"),
// which a str holds as the number its 17 digits make.
const packedTime = 1 << 63

// timeDigits are the positions of the digits in such a time.
var timeDigits = [17]uint8{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22}

// packTime returns s as a packed time, when it is written as one.
func packTime(s string) (str, bool) {
	if len(s) != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return 0, false
	}
	var n uint64
	for _, i := range timeDigits {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return str(packedTime | n), true
}

// unpackTime returns the time r holds as written.
func unpackTime(r str) string {
	b := []byte("0000-00-00T00:00:00.000Z")
	n := uint64(r) &^ packedTime
	for i := len(timeDigits) - 1; i >= 0; i-- {
		b[timeDigits[i]] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}

// raw returns b kept in the store.
func (m *store) raw(b []byte) str { return str(m.bytes.add(b)) }

// s returns the string r addresses (a view of the store, never changed).
func (m *store) s(r str) string {
	if r&packedTime != 0 {
		return unpackTime(r)
	}
	b := m.bytes.get(ref(r))
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// b returns the bytes r addresses; the caller must not modify them.
func (m *store) b(r str) []byte {
	if r&packedTime != 0 {
		return []byte(unpackTime(r))
	}
	return m.bytes.get(ref(r))
}

// keep returns s kept in the store, sharing the copy of the string of set
// it equals (cache holds those copies, by index in set).
func (m *store) keep(s string, set []string, cache []str) str {
	for i, c := range set {
		if s == c {
			if cache[i] == 0 {
				cache[i] = m.str(c)
			}
			return cache[i]
		}
	}
	return m.str(s)
}

// conf returns confidence s kept in the store.
func (m *store) conf(s string) str { return m.keep(s, confidences, m.confs[:]) }

// kind returns delta kind s kept in the store.
func (m *store) kind(s string) str { return m.keep(s, deltaKinds, m.kinds[:]) }

// list returns ss kept in the store.
func (m *store) list(ss []string) lst {
	buf := m.sbuf[:0]
	for _, s := range ss {
		buf = append(buf, m.str(s))
	}
	m.sbuf = buf
	return lst(m.tags.add(buf))
}

// tagList returns the tags l addresses.
func (m *store) tagList(l lst) []str { return m.tags.get(ref(l)) }

// turnList returns the turns l addresses.
func (m *store) turnList(l lst) []turn { return m.turns.get(ref(l)) }

// newTurns returns refs kept in the store.
func (m *store) newTurns(refs []sourceRef) lst {
	buf := m.tbuf[:0]
	for _, r := range refs {
		buf = append(buf, turn{m.str(r.turnID), m.raw(r.off)})
	}
	m.tbuf = buf
	return lst(m.turns.add(buf))
}
