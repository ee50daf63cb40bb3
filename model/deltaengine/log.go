package deltaengine

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
)

// The state keeps no text. Each event that adds to the conversation or to
// the actions (USER_MESSAGE, THOUGHT, ACTION_REQUEST, ACTION_RESULT) becomes
// a 24-byte entry of an append-only log: where the event's bytes are in the
// journal, what it is, a link to the previous entry of the same action_id,
// and where in the line its longest payload value is. A state is a prefix
// of the log (its length); the views read the events back from the journal
// and decode them when asked.
//
// The log is shared by every state of one replay. Apply appends to it when
// the state is its last version, and when it is not (a replay folding again
// from a keyframe) it checks that the entry already at that index is the
// one it would write, so refolding the same events allocates nothing. Only
// a state that takes a different event from one already folded (two
// branches) forks the log: the fork shares the full chunks and copies the
// rest.

// entry is one event in the log. ref packs, from the top: the event's
// offset in the journal (or, for an event without a file, its index in
// inline) in 40 bits, the check bits of its action_id's key in 16 bits, and
// 8 bits of flags.
type entry struct {
	ref  uint64
	n    uint32 // length of the event's bytes
	prev uint32 // 1 + index of the previous entry whose action_id has the same hash; 0 for none
	long span   // the longest payload value the fold read in the line
}

// span is where a payload value is in its line: at, the offset of its
// first byte, and n, its length in bytes (0 for none). Reading the line
// back, the views jump over it (payload.long) rather than scan the tool
// output or the THOUGHT again for its end: on 1 GB of Delta Engine, that
// was a third of the time `rewind state` spent reading lines back.
type span struct{ at, n uint32 }

// minLong is the shortest value a span is kept for: a shorter one is
// scanned about as fast as its span is checked.
const minLong = 64

// longest returns the span of the longest of vs, values that fields of
// raw hold (a value not in raw is passed over), or none when each is
// shorter than minLong.
func longest(raw []byte, vs ...[]byte) span {
	var best span
	for _, v := range vs {
		if len(v) < minLong || len(v) <= int(best.n) || len(v) > len(raw) || int64(len(raw)) > math.MaxUint32 {
			continue
		}
		if at := cap(raw) - cap(v); at >= 0 && at+len(v) <= len(raw) && &raw[at] == &v[0] {
			best = span{uint32(at), uint32(len(v))}
		}
	}
	return best
}

// end returns the index just after the value that s says starts at b[vs],
// or -1 when s is not about vs or b does not hold a string, object or
// array there, s long (a line that changed since the fold read it).
func (s span) end(b []byte, vs int) int {
	e := int(s.at) + int(s.n)
	if s.n < 2 || vs != int(s.at) || e > len(b) {
		return -1
	}
	switch first, last := b[vs], b[e-1]; {
	case first == '"' && last == '"' && b[e-2] != '\\', first == '{' && last == '}', first == '[' && last == ']':
		return e
	}
	return -1
}

// Entry kinds and flags, in the low byte of entry.ref.
const (
	kUser    = 1 // USER_MESSAGE
	kThought = 2 // THOUGHT
	kRequest = 3 // ACTION_REQUEST
	kResult  = 4 // ACTION_RESULT
	kindMask = 7

	fFirst  = 1 << 3 // the first entry of its action_id (the actions' order)
	fPos    = 1 << 4 // the event's position is above 0 (Render's requestPos > 0)
	fInline = 1 << 5 // the bytes are in inline, not in the file

	flagBits  = 8
	checkBits = 16
	offShift  = flagBits + checkBits
	maxOff    = 1<<(64-offShift) - 1 // 1 TiB; an event further on keeps its bytes
)

func (e entry) kind() uint8       { return uint8(e.ref & kindMask) }
func (e entry) has(f uint64) bool { return e.ref&f != 0 }
func (e entry) off() int64        { return int64(e.ref >> offShift) }
func (e entry) check() uint16     { return uint16(e.ref >> flagBits) }

// isMessage reports whether the entry is a message of the conversation.
func (e entry) isMessage() bool { k := e.kind(); return k == kUser || k == kThought || k == kResult }

// idKey identifies an action_id: a 64-bit hash of the decoded id, which
// the log's index maps to the id's entries, and 16 check bits from a second
// hash, which each entry keeps. The seeds are chosen at start-up, so two
// distinct ids share a key with probability 2⁻⁸⁰ whatever the journal
// holds (about 10⁻¹³ for the 340,000 ids of a 1 GB journal).
type idKey struct {
	h     uint64
	check uint16
}

var seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// keyOf returns the key of a decoded action_id. It is a variable so that
// a test can make keys collide.
var keyOf = func(id []byte) idKey {
	return idKey{maphash.Bytes(seeds[0], id), uint16(maphash.Bytes(seeds[1], id))}
}

const (
	chunkBits = 12
	chunkSize = 1 << chunkBits
)

// arena is the log shared by the states of one replay. Entries below a
// state's length never change, so readers that hold a snapshot of the
// chunks read them without the lock.
type arena struct {
	mu     sync.Mutex
	src    io.ReaderAt       // the journal the entries' offsets are in; nil when none
	chunks [][]entry         // chunkSize entries each (the first, and a fork's last, grow up to that)
	n      int               // entries
	inline [][]byte          // bytes of events that came without a file
	ids    map[uint64]uint32 // idKey.h → 1 + index of its last entry

	// parent is the log this one was forked from at base entries: ids of
	// entries below base are looked up there.
	parent *arena
	base   int

	// The views' cache of decoded events (see keep).
	cmu        sync.Mutex
	cache      map[int]any // *message or *actEvent by entry index
	cacheBytes int
	cacheEnd   atomic.Int64 // 1 + the highest index in cache
}

func newArena(src io.ReaderAt) *arena {
	if src != nil && !reflect.TypeOf(src).Comparable() {
		src = nil // cannot tell its events from others': keep their bytes
	}
	return &arena{src: src, ids: map[uint64]uint32{}}
}

// fileBacked reports whether the bytes of an event read from src at off,
// n long, can be read back from the log's file.
func (a *arena) fileBacked(src io.ReaderAt, off int64, n int) bool {
	return a.src != nil && src == a.src && off >= 0 && off <= maxOff && int64(n) <= math.MaxUint32
}

func (a *arena) get(i int) entry { return a.chunks[i>>chunkBits][i&(chunkSize-1)] }

// lookup returns the index of the last entry below limit whose action_id
// has key k (found), and of the last one whose action_id has k's hash
// (head, for the new entry's link; -1 for none). It must be called with
// a.mu held.
func (a *arena) lookup(k idKey, limit int) (found, head int) {
	v, ok := a.ids[k.h]
	if !ok {
		if a.parent == nil {
			return -1, -1
		}
		a.parent.mu.Lock()
		defer a.parent.mu.Unlock()
		return a.parent.lookup(k, min(limit, a.base))
	}
	found, head = -1, -1
	for i := int(v) - 1; i >= 0; {
		e := a.get(i)
		if i < limit {
			if head < 0 {
				head = i
			}
			if e.check() == k.check {
				return i, head
			}
		}
		i = int(e.prev) - 1
	}
	return -1, head
}

// add makes e, whose event bytes are raw, the entry at index at (the length
// of the state that adds it) and returns the log that holds it: a itself,
// or a fork of a when a already holds a different entry there. For an
// action event (hasKey), key is its action_id's and add sets e's link and
// first flag, and reports whether it set the flag.
func (a *arena) add(at int, e entry, raw []byte, key idKey, hasKey bool) (*arena, bool) {
	a.mu.Lock()
	if hasKey {
		found, head := a.lookup(key, at)
		e.prev = uint32(head + 1)
		e.ref |= uint64(key.check) << flagBits
		if found < 0 {
			e.ref |= fFirst
		}
	}
	first := e.has(fFirst)
	if at == a.n {
		a.push(e, raw, key, hasKey)
		a.mu.Unlock()
		return a, first
	}
	if at < a.n && a.same(a.get(at), e, raw) {
		a.mu.Unlock()
		return a, first
	}
	f := a.fork(at)
	a.mu.Unlock()
	f.mu.Lock()
	f.push(e, raw, key, hasKey)
	f.mu.Unlock()
	return f, first
}

// same reports whether the stored entry old is e.
func (a *arena) same(old, e entry, raw []byte) bool {
	if old.ref&fInline != 0 && e.ref&fInline != 0 {
		return old.ref&(1<<offShift-1) == e.ref&(1<<offShift-1) && old.n == e.n && old.prev == e.prev &&
			bytes.Equal(a.inline[old.off()], raw)
	}
	return old == e
}

// push appends e at the end. It must be called with a.mu held.
func (a *arena) push(e entry, raw []byte, key idKey, hasKey bool) {
	if e.ref&fInline != 0 {
		e.ref |= uint64(len(a.inline)) << offShift
		a.inline = append(a.inline, bytes.Clone(raw))
	}
	c := a.n >> chunkBits
	if c == len(a.chunks) {
		size := chunkSize
		if c == 0 {
			size = 64
		}
		a.chunks = append(a.chunks, make([]entry, 0, size))
	}
	ch := a.chunks[c]
	if len(ch) == cap(ch) { // a chunk made small (the first, a fork's last) grows
		ch = append(make([]entry, 0, min(2*cap(ch), chunkSize)), ch...)
	}
	a.chunks[c] = append(ch, e)
	if hasKey {
		a.ids[key.h] = uint32(a.n + 1)
	}
	a.n++
}

// fork returns a new log holding the first at entries of a. It must be
// called with a.mu held.
func (a *arena) fork(at int) *arena {
	f := &arena{src: a.src, ids: map[uint64]uint32{}, parent: a, base: at, n: at}
	full := at >> chunkBits
	f.chunks = make([][]entry, full, full+1)
	copy(f.chunks, a.chunks[:full])
	if rest := at & (chunkSize - 1); rest > 0 {
		ch := make([]entry, rest, max(rest, min(2*rest, chunkSize)))
		copy(ch, a.chunks[full][:rest])
		f.chunks = append(f.chunks, ch)
	}
	f.inline = a.inline[:len(a.inline):len(a.inline)]
	return f
}

// snap is the first n entries of a log, for the views.
type snap struct {
	a      *arena
	chunks [][]entry
	inline [][]byte
	n      int

	nextOnce sync.Once
	next     []uint32 // see nexts

	msgOnce sync.Once
	msgs    []uint32 // see messageEntries
}

// nexts returns the prev links of the snapshot's entries turned around:
// for each entry, 1 + the index of the next entry whose action_id has the
// same hash, or 0. It is built once, on the first call; safe for
// concurrent use.
func (s *snap) nexts() []uint32 {
	s.nextOnce.Do(func() {
		s.next = make([]uint32, s.n)
		for i := range s.n {
			if p := s.get(i).prev; p > 0 {
				s.next[p-1] = uint32(i + 1)
			}
		}
	})
	return s.next
}

// messageEntries returns the index of the entry of each message of the
// snapshot, in order (4 bytes a message). It is built once, on the first
// call; safe for concurrent use.
func (s *snap) messageEntries() []uint32 {
	s.msgOnce.Do(func() {
		for i := range s.n {
			if s.get(i).isMessage() {
				s.msgs = append(s.msgs, uint32(i))
			}
		}
	})
	return s.msgs
}

func (a *arena) snapshot(n int) *snap {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &snap{a: a, chunks: a.chunks[:len(a.chunks):len(a.chunks)], inline: a.inline[:len(a.inline):len(a.inline)], n: n}
}

func (s *snap) get(i int) entry { return s.chunks[i>>chunkBits][i&(chunkSize-1)] }

// lookup returns the last entry of the snapshot whose action_id has key
// k, or -1.
func (s *snap) lookup(k idKey) int {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	found, _ := s.a.lookup(k, s.n)
	return found
}

// readBlock is how much of the file a reader that goes through many events
// in file order reads at first; each further read doubles it, up to
// maxBlock.
const (
	readBlock = 32 << 10
	maxBlock  = 1 << 20
)

// reader reads the events of a snapshot back from the file, a block at a
// time. The views use one per pass over the log, so that each pass reads
// the file forwards.
type reader struct {
	*snap
	block  int64   // how much to read next; 0 for just the event
	buf    []byte  // a block of the file
	pooled *[]byte // buf's buffer when it came from blocks
	bufOff int64
	infos  []*actEvent // action events decoded so far by entry index, shared by a view's readers; nil for none
	// some holds the action events decoded so far when infos is nil and
	// the reader reads a few entries of a long log (the panes' views).
	some map[int]*actEvent
	sc   *scratch // where the stream views build their objects
}

// reader returns a reader of s that reads block bytes at first (0: just
// the events asked for) and keeps the action events it decodes in infos
// (when not nil: one slot per entry of s).
func (s *snap) reader(block int64, infos []*actEvent) *reader {
	return &reader{snap: s, block: block, bufOff: -1, infos: infos}
}

// keepingReader is a reader of s that reads block bytes at first and
// keeps the action events it decodes in some, which readers of the same
// entries may share (nil: a map of its own): for a reader of a few entries
// of a long log, which a slot per entry (infos) would not suit.
func (s *snap) keepingReader(block int64, some map[int]*actEvent) *reader {
	if some == nil {
		some = map[int]*actEvent{}
	}
	r := s.reader(block, nil)
	r.some = some
	return r
}

// blocks holds read buffers of maxBlock bytes for the views' readers.
var blocks = sync.Pool{New: func() any { b := make([]byte, maxBlock); return &b }}

// release gives the reader's buffer back; the reader can still be used.
func (r *reader) release() {
	if r.pooled != nil {
		blocks.Put(r.pooled)
	}
	r.pooled, r.buf, r.bufOff = nil, nil, -1
}

// holds reports whether the reader's buffer holds the event of e, so that
// reading it does not read the file.
func (r *reader) holds(e entry) bool {
	off := e.off()
	return e.has(fInline) || r.bufOff >= 0 && off >= r.bufOff && off+int64(e.n) <= r.bufOff+int64(len(r.buf))
}

// event returns the bytes of the event of e, valid until the next call
// that reads the file.
func (r *reader) event(e entry) ([]byte, error) {
	if e.has(fInline) {
		return r.inline[e.off()], nil
	}
	off, n := e.off(), int64(e.n)
	if r.bufOff < 0 || off < r.bufOff || off+n > r.bufOff+int64(len(r.buf)) {
		size := max(n, r.block)
		if r.block > 0 && r.block < maxBlock {
			r.block *= 2
		}
		if int64(cap(r.buf)) < size {
			r.release()
			if size <= maxBlock {
				r.pooled = blocks.Get().(*[]byte)
				r.buf = *r.pooled
			} else {
				r.buf = make([]byte, size)
			}
		}
		r.buf = r.buf[:size]
		m, err := r.a.src.ReadAt(r.buf, off)
		if int64(m) < n {
			r.bufOff = -1
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("[event at offset %d could not be read back: %v]", off, err)
		}
		r.buf, r.bufOff = r.buf[:m], off
	}
	return r.buf[off-r.bufOff : off-r.bufOff+n], nil
}
