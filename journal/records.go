package journal

import (
	"iter"
	"math"
	"sort"
)

// The index keeps its records packed: 8 bytes a line and no pointers (the
// low 32 bits of the offset, the type's index, the problem and the gap
// before the record), in chunks that are never moved once written, so that
// a snapshot is a few slice headers and later scans never touch what it
// sees. Everything else a Record says is derived from the next record or
// from short side lists that only grow with what is rare:
//   - the length from the next record's offset, less the gap before it
//     (the line ending: 1 for "\n", 2 for "\r\n", 0 for a NUL run and the
//     record after it on the same line; a gap over 254 bytes, as between
//     the elements of a JSON-array journal, from a list of its own); the
//     last record's length is kept in the snapshot;
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

// chunkBits sets the records per chunk: 65,536, 512 KiB.
const (
	chunkBits = 16
	chunkRecs = 1 << chunkBits
	chunkMask = chunkRecs - 1
	// firstChunk is the size the first chunk starts at; it doubles, copied
	// each time, up to chunkRecs, so a small journal costs little.
	firstChunk = 256
	// longGap is packed.gap of a record whose gap is in gaps.
	longGap = math.MaxUint8
)

// packed is one record as the index stores it.
type packed struct {
	lo   uint32 // the low 32 bits of Off
	typ  uint16
	prob Problem
	gap  uint8 // bytes between the end of the record before and Off, or longGap
}

// lineMark says that record i is on line line; the records after it, up to
// the next mark, are on the lines after it.
type lineMark struct{ i, line int32 }

// hiMark says that from record i on, offsets have hi as their high 32 bits.
type hiMark struct {
	i  int32
	hi uint32
}

// gapMark is the gap before record i when it is longGap bytes or more.
type gapMark struct {
	i   int32
	gap int64
}

// store is the growing side of an index's records. It is guarded by the
// Index's mutex; Records snapshots of it are immutable.
type store struct {
	chunks [][]packed // each chunk's length is its capacity; records fill them in order
	n      int
	bad    []int32 // indexes of bad lines, ascending
	marks  []lineMark
	his    []hiMark
	gaps   []gapMark
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
	var chunk []packed // the chunk record n goes in, from k on
	k := 0
	for i := range rs {
		r := &rs[i]
		if k == len(chunk) && !s.drop {
			chunk, k = s.room(n)
		}
		p := packed{lo: uint32(r.Off), typ: r.typ, prob: r.Problem}
		if h := uint32(uint64(r.Off) >> 32); h != hi {
			s.his = append(s.his, hiMark{int32(n), h})
			hi = h
		}
		if n > 0 {
			if gap := r.Off - end; gap >= 0 && gap < longGap {
				p.gap = uint8(gap)
			} else {
				p.gap = longGap
				s.gaps = append(s.gaps, gapMark{int32(n), gap})
			}
		}
		end = r.Off + r.Len
		if r.Line != nextLine+1 {
			s.marks = append(s.marks, lineMark{int32(n), r.Line})
		}
		nextLine = r.Line
		if !s.drop {
			chunk[k] = p
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
func (s *store) room(i int) ([]packed, int) {
	c, k := i>>chunkBits, i&chunkMask
	if c == len(s.chunks) {
		size := chunkRecs
		if c == 0 {
			size = firstChunk
		}
		s.chunks = append(s.chunks, make([]packed, size))
	} else if k == len(s.chunks[c]) {
		// Only the first chunk is ever short: give it twice the room, in a
		// new list of chunks so that snapshots keep the old one.
		grown := make([]packed, min(2*len(s.chunks[c]), chunkRecs))
		copy(grown, s.chunks[c])
		chunks := make([][]packed, len(s.chunks), cap(s.chunks))
		copy(chunks, s.chunks)
		chunks[c] = grown
		s.chunks = chunks
	}
	return s.chunks[c][k:], 0
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
	chunks [][]packed
	n      int
	bad    []int32
	marks  []lineMark
	his    []hiMark
	gaps   []gapMark
	end    int64 // where record n-1 ends
}

// Len returns the number of records.
func (rs Records) Len() int { return rs.n }

// Events returns the number of events (records that are not bad lines).
func (rs Records) Events() int { return rs.n - len(rs.bad) }

func (rs Records) packed(i int) *packed { return &rs.chunks[i>>chunkBits][i&chunkMask] }

// At returns record i (0 <= i < Len()); it panics when i is out of range,
// as a slice would.
func (rs Records) At(i int) Record {
	if i < 0 || i >= rs.n {
		panic("journal: record index out of range")
	}
	p := rs.packed(i)
	off := rs.off(i, p)
	r := Record{Off: off, Len: rs.endOf(i) - off, Line: rs.line(i), typ: p.typ, Problem: p.prob}
	if !p.prob.Bad() {
		r.Pos = int32(rs.EventsThrough(i))
	}
	return r
}

// Type returns the type of record i without building the whole record.
func (rs Records) Type(i int) string { return typeName(rs.packed(i).typ) }

// Problem returns the problem of record i without building the whole
// record.
func (rs Records) Problem(i int) Problem { return rs.packed(i).prob }

// IsEvent reports whether record i is an event (not a bad line).
func (rs Records) IsEvent(i int) bool { return !rs.packed(i).prob.Bad() }

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

func (rs Records) off(i int, p *packed) int64 {
	var hi uint32
	if len(rs.his) > 0 {
		if k := sort.Search(len(rs.his), func(k int) bool { return int(rs.his[k].i) > i }); k > 0 {
			hi = rs.his[k-1].hi
		}
	}
	return int64(hi)<<32 | int64(p.lo)
}

// endOf returns where record i ends: where the next one starts, less the
// gap before it.
func (rs Records) endOf(i int) int64 {
	if i+1 >= rs.n {
		return rs.end
	}
	p := rs.packed(i + 1)
	return rs.off(i+1, p) - rs.gap(i+1, p)
}

// gap returns the gap before record i.
func (rs Records) gap(i int, p *packed) int64 {
	if p.gap != longGap {
		return int64(p.gap)
	}
	k := sort.Search(len(rs.gaps), func(k int) bool { return int(rs.gaps[k].i) >= i })
	return rs.gaps[k].gap
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
	bad, mark, hi, gap int // the next entry of each list not yet passed
	events             int // events before the record next
}

// seek places c before record i.
func (c *cursor) seek(rs Records, i int) {
	c.bad = sort.Search(len(rs.bad), func(k int) bool { return int(rs.bad[k]) >= i })
	c.mark = sort.Search(len(rs.marks), func(k int) bool { return int(rs.marks[k].i) > i })
	c.hi = sort.Search(len(rs.his), func(k int) bool { return int(rs.his[k].i) > i })
	c.gap = sort.Search(len(rs.gaps), func(k int) bool { return int(rs.gaps[k].i) > i })
	c.events = i - c.bad
}

// next returns record i, which must be the record after the one before
// (or the one seek placed c before).
func (c *cursor) next(rs Records, i int) Record {
	p := rs.packed(i)
	for c.hi < len(rs.his) && int(rs.his[c.hi].i) <= i {
		c.hi++
	}
	var hi uint32
	if c.hi > 0 {
		hi = rs.his[c.hi-1].hi
	}
	r := Record{Off: int64(hi)<<32 | int64(p.lo), typ: p.typ, Problem: p.prob}
	if i+1 >= rs.n {
		r.Len = rs.end - r.Off
	} else {
		// The next record's offset, less the gap before it.
		q := rs.packed(i + 1)
		if c.hi < len(rs.his) && int(rs.his[c.hi].i) == i+1 {
			hi = rs.his[c.hi].hi
		}
		gap := int64(q.gap)
		if q.gap == longGap {
			for int(rs.gaps[c.gap].i) < i+1 {
				c.gap++
			}
			gap = rs.gaps[c.gap].gap
		}
		r.Len = (int64(hi)<<32 | int64(q.lo)) - gap - r.Off
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
