package journal

import (
	"iter"
	"sort"

	"github.com/rewind-tui/rewind/internal/prefault"
)

// The index keeps its records packed: 5 bytes a line and no pointers (the
// low 32 bits of the offset, and a byte with the type's index), in chunks
// that are never moved once written, so that a snapshot is a few slice
// headers and later scans never touch what it sees. Everything else a
// Record says is derived from the next record or from short side lists
// that only grow with what is rare:
//   - the length from the next record's offset, less the gap before it
//     (the line ending: 1 for "\n", 2 for "\r\n", 0 for a NUL run and the
//     record after it on the same line; longer between the elements of a
//     JSON-array journal), kept as runs: from record i on, the gap is g,
//     and 1 before the first run; the last record's length is kept in the
//     snapshot;
//   - the type and the problem of a record whose problem is not OK or
//     whose type's index does not fit in the byte (past the 254th type the
//     process has seen), from a list of such records;
//   - the event position from the sorted list of bad lines (a record's
//     position is its index plus one, minus the bad lines before it);
//   - the line number from marks where it is not the previous record's
//     plus one (a NUL run and the record after it share a line; the
//     elements of a JSON-array journal sit where they sit);
//   - the high 32 bits of the offset from marks where they change (files
//     over 4 GiB, or lines of 4 GiB and more, skipped).
//
// The seq or id and the timestamp are not kept at all: KeyIn and TimeIn
// read them from the record's bytes when a row is shown.
//
// Session 30: 8 bytes a record before (the type in 2 bytes, the problem
// and the gap in one each); 1 GB of DeltaMind is 3.5 M records, so 28 MB
// of index became 17.7 MB.

// chunkBits sets the records per chunk: 65,536, 320 KiB.
const (
	chunkBits = 16
	chunkRecs = 1 << chunkBits
	chunkMask = chunkRecs - 1
	// firstChunk is the size the first chunk starts at; it doubles, copied
	// each time, up to chunkRecs, so a small journal costs little.
	firstChunk = 256
	// oddType is the type byte of a record in the odd list: its problem is
	// not OK, or its type's index is oddType or more.
	oddType = 0xff
	// usualGap is the gap before a record when no gap run says otherwise.
	usualGap = 1
)

// recChunk holds up to chunkRecs records as parallel arrays of their
// offsets' low 32 bits and their type bytes (see oddType).
type recChunk struct {
	lo []uint32
	tp []uint8
}

func makeChunk(n int) recChunk {
	return recChunk{lo: prefault.Make[uint32](n, n), tp: prefault.Make[uint8](n, n)}
}

// oddMark is the type and problem of record i, whose type byte is oddType.
type oddMark struct {
	i    int32
	typ  uint16
	prob Problem
}

// lineMark says that record i is on line line; the records after it, up to
// the next mark, are on the lines after it.
type lineMark struct{ i, line int32 }

// hiMark says that from record i on, offsets have hi as their high 32 bits.
type hiMark struct {
	i  int32
	hi uint32
}

// gapRun says that from record i on, the gap before each record is gap
// bytes (before the first run, usualGap).
type gapRun struct {
	i   int32
	gap int64
}

// store is the growing side of an index's records. It is guarded by the
// Index's mutex; Records snapshots of it are immutable.
type store struct {
	chunks []recChunk // each chunk's length is its capacity; records fill them in order
	n      int
	bad    []int32 // indexes of bad lines, ascending
	odd    []oddMark
	marks  []lineMark
	his    []hiMark
	gaps   []gapRun
	end    int64 // where the last record ends: its Off plus its Len
	// next predictions, to know when a mark is needed
	nextLine int32
	hi       uint32
	// With drop (see dropFromNow), the records added are counted (n,
	// bad, their positions) but not stored: the first stored are, the
	// last of which ends at storedEnd.
	drop      bool
	stored    int
	storedEnd int64
}

// dropFromNow makes addAll count the records it adds without storing
// them; the ones stored so far stay.
func (s *store) dropFromNow() {
	if !s.drop {
		s.drop, s.stored, s.storedEnd = true, s.n, s.end
	}
}

// kept returns how many records are stored and where the last of them
// ends.
func (s *store) kept() (int, int64) {
	if s.drop {
		return s.stored, s.storedEnd
	}
	return s.n, s.end
}

// addAll appends rs in order, setting each one's Pos from the bad lines.
// Each record must start at or after the end of the one before.
func (s *store) addAll(rs []Record) {
	n, end, nextLine, hi := s.n, s.end, s.nextLine, s.hi
	lastGap := int64(usualGap)
	if len(s.gaps) > 0 {
		lastGap = s.gaps[len(s.gaps)-1].gap
	}
	var chunk recChunk // the chunk record n goes in, from k on
	k := 0
	for i := range rs {
		r := &rs[i]
		if k == len(chunk.lo) && !s.drop {
			chunk, k = s.room(n)
		}
		if h := uint32(uint64(r.Off) >> 32); h != hi {
			s.his = append(s.his, hiMark{int32(n), h})
			hi = h
		}
		if n > 0 {
			if gap := r.Off - end; gap != lastGap {
				s.gaps = append(s.gaps, gapRun{int32(n), gap})
				lastGap = gap
			}
		}
		end = r.Off + r.Len
		if r.Line != nextLine+1 {
			s.marks = append(s.marks, lineMark{int32(n), r.Line})
		}
		nextLine = r.Line
		if !s.drop {
			tp := uint8(r.typ)
			if r.typ >= oddType || r.Problem != OK {
				tp = oddType
				s.odd = append(s.odd, oddMark{int32(n), r.typ, r.Problem})
			}
			chunk.lo[k], chunk.tp[k] = uint32(r.Off), tp
			k++
		}
		if r.Problem.Bad() {
			s.bad = append(s.bad, int32(n))
			r.Pos = 0
		} else {
			r.Pos = int32(n + 1 - len(s.bad))
		}
		n++
	}
	s.n, s.end, s.nextLine, s.hi = n, end, nextLine, hi
}

// room returns the chunk that record i goes in, from i's index in it on,
// adding or growing the chunk when it is the next one or full.
func (s *store) room(i int) (recChunk, int) {
	c, k := i>>chunkBits, i&chunkMask
	if c == len(s.chunks) {
		size := chunkRecs
		if c == 0 {
			size = firstChunk
		}
		s.chunks = append(s.chunks, makeChunk(size))
	} else if k == len(s.chunks[c].lo) {
		// Only the first chunk is ever short: give it twice the room, in a
		// new list of chunks so that snapshots keep the old one.
		grown := makeChunk(min(2*len(s.chunks[c].lo), chunkRecs))
		copy(grown.lo, s.chunks[c].lo)
		copy(grown.tp, s.chunks[c].tp)
		chunks := make([]recChunk, len(s.chunks), cap(s.chunks))
		copy(chunks, s.chunks)
		chunks[c] = grown
		s.chunks = chunks
	}
	ch := s.chunks[c]
	return recChunk{lo: ch.lo[k:], tp: ch.tp[k:]}, 0
}

// snapshot returns the records stored so far.
func (s *store) snapshot() Records {
	n, end := s.kept()
	bad := s.bad[:len(s.bad):len(s.bad)]
	if n < s.n {
		bad = bad[:sort.Search(len(bad), func(k int) bool { return int(bad[k]) >= n })]
	}
	return Records{
		chunks: s.chunks[:len(s.chunks):len(s.chunks)],
		n:      n,
		bad:    bad,
		odd:    s.odd[:len(s.odd):len(s.odd)],
		marks:  s.marks[:len(s.marks):len(s.marks)],
		his:    s.his[:len(s.his):len(s.his)],
		gaps:   s.gaps[:len(s.gaps):len(s.gaps)],
		end:    end,
	}
}

// Records is a snapshot of an index's records, in file order: records
// 0..Len()-1, of which Events() are events (positions 1..Events()) and the
// rest bad lines. It is a small value, immutable and safe for concurrent
// use: later scans append to the index without changing what a snapshot
// sees. Random access (At, Event) costs a few binary searches over the bad
// lines and marks; All reads records in order at a constant cost each.
type Records struct {
	chunks []recChunk
	n      int
	bad    []int32
	odd    []oddMark
	marks  []lineMark
	his    []hiMark
	gaps   []gapRun
	end    int64 // where record n-1 ends
}

// Len returns the number of records.
func (rs Records) Len() int { return rs.n }

// Events returns the number of events (records that are not bad lines).
func (rs Records) Events() int { return rs.n - len(rs.bad) }

func (rs Records) lo(i int) uint32 { return rs.chunks[i>>chunkBits].lo[i&chunkMask] }

// kind returns the type's index and the problem of record i.
func (rs Records) kind(i int) (uint16, Problem) {
	if tp := rs.chunks[i>>chunkBits].tp[i&chunkMask]; tp != oddType {
		return uint16(tp), OK
	}
	k := sort.Search(len(rs.odd), func(k int) bool { return int(rs.odd[k].i) >= i })
	return rs.odd[k].typ, rs.odd[k].prob
}

// At returns record i (0 <= i < Len()); it panics when i is out of range,
// as a slice would.
func (rs Records) At(i int) Record {
	if i < 0 || i >= rs.n {
		panic("journal: record index out of range")
	}
	off := rs.off(i)
	typ, prob := rs.kind(i)
	r := Record{Off: off, Len: rs.endOf(i) - off, Line: rs.line(i), typ: typ, Problem: prob}
	if !prob.Bad() {
		r.Pos = int32(rs.EventsThrough(i))
	}
	return r
}

// Type returns the type of record i without building the whole record.
func (rs Records) Type(i int) string {
	typ, _ := rs.kind(i)
	return typeName(typ)
}

// Problem returns the problem of record i without building the whole
// record.
func (rs Records) Problem(i int) Problem {
	_, prob := rs.kind(i)
	return prob
}

// IsEvent reports whether record i is an event (not a bad line).
func (rs Records) IsEvent(i int) bool { return !rs.Problem(i).Bad() }

// EventsThrough returns the number of events among records 0..i: the
// position of record i when it is an event, of the event before it when it
// is a bad line (0 when there is none).
func (rs Records) EventsThrough(i int) int {
	if i < 0 {
		return 0
	}
	i = min(i, rs.n-1)
	nb := sort.Search(len(rs.bad), func(k int) bool { return int(rs.bad[k]) > i })
	return i + 1 - nb
}

// EventIndex returns the index of the record of event pos (1-based), or -1
// when there is no such event.
func (rs Records) EventIndex(pos int) int {
	if pos < 1 || pos > rs.Events() {
		return -1
	}
	// With k bad lines before it, the record of pos is pos-1+k; bad[k]-k
	// never decreases, so the first k with bad[k]-k > pos-1 is that k.
	k := sort.Search(len(rs.bad), func(k int) bool { return int(rs.bad[k])-k > pos-1 })
	return pos - 1 + k
}

// Event returns the record of event pos (1 <= pos <= Events()); it panics
// when there is none.
func (rs Records) Event(pos int) Record {
	i := rs.EventIndex(pos)
	if i < 0 {
		panic("journal: event position out of range")
	}
	return rs.At(i)
}

func (rs Records) off(i int) int64 {
	var hi uint32
	if len(rs.his) > 0 {
		if k := sort.Search(len(rs.his), func(k int) bool { return int(rs.his[k].i) > i }); k > 0 {
			hi = rs.his[k-1].hi
		}
	}
	return int64(hi)<<32 | int64(rs.lo(i))
}

// endOf returns where record i ends: where the next one starts, less the
// gap before it.
func (rs Records) endOf(i int) int64 {
	if i+1 >= rs.n {
		return rs.end
	}
	return rs.off(i+1) - rs.gap(i+1)
}

// gap returns the gap before record i (i > 0).
func (rs Records) gap(i int) int64 {
	if k := sort.Search(len(rs.gaps), func(k int) bool { return int(rs.gaps[k].i) > i }); k > 0 {
		return rs.gaps[k-1].gap
	}
	return usualGap
}

func (rs Records) line(i int) int32 {
	k := sort.Search(len(rs.marks), func(k int) bool { return int(rs.marks[k].i) > i })
	if k == 0 {
		return int32(i + 1)
	}
	m := rs.marks[k-1]
	return m.line + int32(i) - m.i
}

// All yields the records from index from on, in order, with their indexes,
// at a constant cost per record (no searches after the first).
func (rs Records) All(from int) iter.Seq2[int, Record] {
	return func(yield func(int, Record) bool) {
		if from < 0 {
			from = 0
		}
		if from >= rs.n {
			return
		}
		var c cursor
		c.seek(rs, from)
		for i := from; i < rs.n; i++ {
			if !yield(i, c.next(rs, i)) {
				return
			}
		}
	}
}

// cursor walks records in order, keeping its place in the side lists.
type cursor struct {
	bad, odd, mark, hi, gap int // the next entry of each list not yet passed
	events                  int // events before the record next
}

// seek places c before record i.
func (c *cursor) seek(rs Records, i int) {
	c.bad = sort.Search(len(rs.bad), func(k int) bool { return int(rs.bad[k]) >= i })
	c.odd = sort.Search(len(rs.odd), func(k int) bool { return int(rs.odd[k].i) >= i })
	c.mark = sort.Search(len(rs.marks), func(k int) bool { return int(rs.marks[k].i) > i })
	c.hi = sort.Search(len(rs.his), func(k int) bool { return int(rs.his[k].i) > i })
	c.gap = sort.Search(len(rs.gaps), func(k int) bool { return int(rs.gaps[k].i) > i })
	c.events = i - c.bad
}

// next returns record i, which must be the record after the one before
// (or the one seek placed c before).
func (c *cursor) next(rs Records, i int) Record {
	ch := &rs.chunks[i>>chunkBits]
	for c.hi < len(rs.his) && int(rs.his[c.hi].i) <= i {
		c.hi++
	}
	var hi uint32
	if c.hi > 0 {
		hi = rs.his[c.hi-1].hi
	}
	r := Record{Off: int64(hi)<<32 | int64(ch.lo[i&chunkMask]), typ: uint16(ch.tp[i&chunkMask])}
	if r.typ == oddType {
		for int(rs.odd[c.odd].i) < i {
			c.odd++
		}
		r.typ, r.Problem = rs.odd[c.odd].typ, rs.odd[c.odd].prob
	}
	if i+1 >= rs.n {
		r.Len = rs.end - r.Off
	} else {
		// The next record's offset, less the gap before it.
		if c.hi < len(rs.his) && int(rs.his[c.hi].i) == i+1 {
			hi = rs.his[c.hi].hi
		}
		for c.gap < len(rs.gaps) && int(rs.gaps[c.gap].i) <= i+1 {
			c.gap++
		}
		gap := int64(usualGap)
		if c.gap > 0 {
			gap = rs.gaps[c.gap-1].gap
		}
		r.Len = (int64(hi)<<32 | int64(rs.lo(i+1))) - gap - r.Off
	}
	for c.mark < len(rs.marks) && int(rs.marks[c.mark].i) <= i {
		c.mark++
	}
	if c.mark == 0 {
		r.Line = int32(i + 1)
	} else {
		m := rs.marks[c.mark-1]
		r.Line = m.line + int32(i) - m.i
	}
	if c.bad < len(rs.bad) && int(rs.bad[c.bad]) == i {
		c.bad++
	} else {
		c.events++
		r.Pos = int32(c.events)
	}
	return r
}
