package replay

import (
	"encoding/binary"
	"fmt"
	"math"
)

// How Touches keeps its paths: as bytes, in chunks that hold no pointers
// and never move. A long Delta Engine run changes a path of its own for
// every message and every action (1.4 million distinct paths on 1 GB);
// kept as interned Path values they took 600 MB, and the garbage
// collector's scans of them half the recording pass's time.

// A path is kept as its code: each element as a tag byte and
//   - tagName: a top-level member's name, as its one-byte number in the
//     coder's table (the state's fields: a few dozen names);
//   - tagString: any other name, as its length (uvarint) and bytes;
//   - tagInt: a list index, as a varint.
//
// Each element's code says where it ends and an element has one code (a
// top-level name keeps the number it was given first), so one path is a
// prefix of another exactly when its code is a prefix of the other's.
const (
	tagString = 1
	tagInt    = 2
	tagName   = 3
)

// coder gives top-level names their numbers. Only the recording pass adds
// names (under the Touches' write lock); readers hold its read lock.
type coder struct {
	names map[string]byte
	list  []string // by number
}

// number gives name the next number, if there is one left.
func (c *coder) number(name string) (byte, bool) {
	if len(c.list) > math.MaxUint8 {
		return 0, false
	}
	if c.names == nil {
		c.names = map[string]byte{}
	}
	id := byte(len(c.list))
	c.names[name], c.list = id, append(c.list, name)
	return id, true
}

// appendCode appends p's code to b. With add, a top-level name without a
// number gets the next one (while there are any); add is for the
// recording pass only. Elements other than strings and ints (neither Diff
// nor a Toucher makes any) are kept as their text.
func (c *coder) appendCode(b []byte, p Path, add func(name string) (byte, bool)) []byte {
	for i, e := range p {
		switch k := e.(type) {
		case int:
			b = append(b, tagInt)
			b = binary.AppendVarint(b, int64(k))
		case string:
			if i == 0 {
				id, ok := c.names[k]
				if !ok && add != nil {
					id, ok = add(k)
				}
				if ok {
					b = append(b, tagName, id)
					continue
				}
			}
			b = appendStringCode(b, k)
		default:
			b = appendStringCode(b, fmt.Sprint(k))
		}
	}
	return b
}

func appendStringCode(b []byte, s string) []byte {
	b = append(b, tagString)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// path is the Path whose code is b.
func (c *coder) path(b []byte) Path {
	var p Path
	for len(b) > 0 {
		tag := b[0]
		b = b[1:]
		switch tag {
		case tagInt:
			v, n := binary.Varint(b)
			p, b = append(p, int(v)), b[n:]
		case tagName:
			p, b = append(p, c.list[b[0]]), b[1:]
		default:
			l, n := binary.Uvarint(b)
			p, b = append(p, string(b[n:n+int(l)])), b[n+int(l):]
		}
	}
	return p
}

// An event's record is its paths, each as
//   - a uvarint: how many bytes of its code are the previous path's (in
//     the same record; an action's status and observation share
//     "actions" and the call's id);
//   - a uvarint: the number of bytes that follow, times two, plus one
//     when the path is coarse (the top-level field of a larger change);
//   - the rest of its code.

// recWriter writes the records of a run of events, one after another.
type recWriter struct {
	b     []byte   // the records
	recs  []uint32 // where each written record ends in b
	masks []uint64 // each written record's nameMask
	mask  uint64   // the nameMask of the record being written
	codes []byte   // the codes of its paths, one after another
	ends  []int    // where each ends in codes
}

// add adds the path of code c to the record being written, unless it is
// there already.
func (w *recWriter) add(c []byte, coarse bool) {
	from, last := 0, 0 // last: where the last path's code starts
	for _, end := range w.ends {
		if string(w.codes[from:end]) == string(c) {
			return
		}
		from, last = end, from
	}
	shared := commonPrefix(c, w.codes[last:])
	h := uint64(len(c)-shared) << 1
	if coarse {
		h |= 1
	}
	w.b = binary.AppendUvarint(w.b, uint64(shared))
	w.b = binary.AppendUvarint(w.b, h)
	w.b = append(w.b, c[shared:]...)
	w.mask |= nameMask(c)
	w.codes = append(w.codes, c...)
	w.ends = append(w.ends, len(w.codes))
}

// next ends the record being written and starts the next event's.
func (w *recWriter) next() {
	w.recs, w.masks, w.mask = append(w.recs, uint32(len(w.b))), append(w.masks, w.mask), 0
	w.codes, w.ends = w.codes[:0], w.ends[:0]
}

// reset forgets the records written (after next).
func (w *recWriter) reset() {
	w.b, w.recs, w.masks = w.b[:0], w.recs[:0], w.masks[:0]
}

// nameMask is a bit for the top-level name a path of code c starts with
// (its number modulo 64), or every bit for a path that starts with a name
// without a number, or is empty. Touches keeps the union for every 1024
// events (maskSpan), so that blame skips the spans that changed nothing
// under the asked path's first name.
func nameMask(c []byte) uint64 {
	if len(c) >= 2 && c[0] == tagName {
		return 1 << (c[1] & 63)
	}
	return ^uint64(0)
}

const maskSpan = 1024

// recReader reads the paths of one record.
type recReader struct {
	rec  []byte
	last []byte // the code of the last path read: in rec or in cur
	cur  []byte
}

// next returns the code of the next path (valid until the next call) and
// whether it is coarse; ok is false past the last.
func (r *recReader) next() (code []byte, coarse, ok bool) {
	if len(r.rec) == 0 {
		return nil, false, false
	}
	var shared int
	var suffix []byte
	shared, suffix, coarse, r.rec = splitPath(r.rec)
	if shared == 0 {
		r.last = suffix // read in place: most paths share nothing
	} else {
		// r.last may be r.cur: its first bytes are then copied onto
		// themselves.
		r.cur = append(append(r.cur[:0], r.last[:shared]...), suffix...)
		r.last = r.cur
	}
	return r.last, coarse, true
}

// splitPath splits the first path off rec, a record: how many bytes of
// its code are the previous path's, the rest of its code, whether it is
// coarse, and the record's other paths.
func splitPath(rec []byte) (shared int, suffix []byte, coarse bool, rest []byte) {
	sh, n := uvarint(rec)
	h, m := uvarint(rec[n:])
	l := int(h >> 1)
	return int(sh), rec[n+m : n+m+l], h&1 != 0, rec[n+m+l:]
}

// commonPrefix is the number of bytes a and b start with alike.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// uvarint is binary.Uvarint of a record's own bytes, with one-byte values
// (nearly all) read inline.
func uvarint(b []byte) (uint64, int) {
	if b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

const chunkBits = 20 // 1 MiB chunks

// chunks holds bytes in 1 MiB chunks that never move (the record of a
// gigabyte grows to tens of megabytes: appending to one slice would hold
// two copies of it for a while, every time it grows). Offsets are uint32:
// at most 4 GiB.
type chunks struct {
	c [][]byte // full, but the last
	n uint64   // the bytes held
}

// write appends b; it reports false, and writes nothing, when the chunks
// would hold more than 4 GiB.
func (s *chunks) write(b []byte) bool {
	if s.n+uint64(len(b)) > math.MaxUint32 {
		return false
	}
	s.n += uint64(len(b))
	for len(b) > 0 {
		if len(s.c) == 0 || len(s.c[len(s.c)-1]) == 1<<chunkBits {
			s.c = append(s.c, make([]byte, 0, 1<<chunkBits))
		}
		last := &s.c[len(s.c)-1]
		k := min(len(b), 1<<chunkBits-len(*last))
		*last = append(*last, b[:k]...)
		b = b[k:]
	}
	return true
}

// slice returns the bytes from a to b: in place when they lie in one
// chunk, else copied into *scratch (which it grows as needed).
func (s *chunks) slice(a, b uint32, scratch *[]byte) []byte {
	if a == b {
		return nil
	}
	const mask = 1<<chunkBits - 1
	if a>>chunkBits == (b-1)>>chunkBits {
		return s.c[a>>chunkBits][a&mask : (b-1)&mask+1]
	}
	out := (*scratch)[:0]
	for a < b {
		e := uint32(min(uint64(b), (uint64(a)>>chunkBits+1)<<chunkBits))
		out = append(out, s.c[a>>chunkBits][a&mask:(e-1)&mask+1]...)
		a = e
	}
	*scratch = out
	return out
}
