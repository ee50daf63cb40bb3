package journal

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/internal/strscan"
	"github.com/rewind-tui/rewind/model"
)

// The fast path of the classifier: one pass over the line that validates
// it as a JSON object (RFC 8259 grammar, UTF-8, escapes) and picks the
// top-level type on the way, without building tokens or decoding anything.
// String bodies, most of a journal's bytes, are read eight bytes at a time
// while they are short and 64 at a time after that (scanString). Anything
// it does not accept outright goes to the tokenizer (classify's slow path),
// which says what is wrong.

// maxFastDepth is the nesting the fast path follows; deeper lines go to the
// tokenizer.
const maxFastDepth = 256

const (
	lo8    = 0x0101010101010101
	hi8    = 0x8080808080808080
	quote  = 0x2222222222222222 // '"' in every byte
	bslash = 0x5c5c5c5c5c5c5c5c // '\\' in every byte
	ctl8   = 0x2020202020202020 // bytes below this are control characters
)

// fastClassify handles lines that are valid JSON objects whose top-level
// names are unique and written without escapes, and reports whether it
// did. It leaves r untouched when it returns false.
func (c *classifier) fastClassify(line []byte, r *Record) bool {
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	from := len(c.skel.ends)
	end, typ, tid, folded := c.fastObject(line, i)
	if end < 0 || skipWS(line, end) != len(line) {
		c.skel.ends = c.skel.ends[:from]
		return false
	}
	c.setType(r, typ, tid, folded)
	return true
}

// fastLine is fastClassify for the line that starts at data[off] with its
// object ('{'), when its end is not known yet: data holds whole lines, and
// the object's end is found by reading it. It returns the index of the
// line's "\n", with r's type, problem and length set, or -1 when the fast
// path does not accept the line (r untouched; the caller finds the line's
// end and classifies it another way). A line has no "\n" before its end,
// and the fast path reads none as whitespace or within a string, so the
// object it reads is the line's.
func (c *classifier) fastLine(data []byte, off int, r *Record) int {
	end, typ, tid, folded := c.fastObject(data, off)
	if end < 0 {
		return -1
	}
	e := skipWS(data, end)
	if e >= len(data) || data[e] != '\n' {
		return -1
	}
	n := e - off
	if data[e-1] == '\r' {
		n-- // the line ending, not the record's
	}
	r.Len = int64(n)
	c.setType(r, typ, tid, folded)
	return e
}

// fastObject validates the object that starts at b[i] ('{') and returns
// the index just after it, its top-level "type" (tid, its index in the
// type table, when its skeleton holds it; else -1 and typ, the value as
// written, nil when absent) and whether two top-level names differ only in case; end
// is -1 when the fast path does not accept it (invalid, a top-level name
// with escapes or repeated, too deep).
func (c *classifier) fastObject(b []byte, i int) (end int, typ []byte, tid int32, folded bool) {
	if !c.skel.on() {
		end, typ, folded = c.scanObject(b, i)
		return end, typ, -1, folded
	}
	if end, typ, tid, folded = c.skel.match(b, i); end >= 0 {
		return end, typ, tid, folded
	}
	if end, typ, folded = c.scanObject(b, i); end >= 0 {
		c.skel.learn(b, i, folded, c.internBytes)
	}
	return end, typ, -1, folded
}

// scanObject is fastObject without the skeletons: it reads the object's
// grammar, and its top-level names through the shape.
func (c *classifier) scanObject(b []byte, i int) (end int, typ []byte, folded bool) {
	n := len(b)
	c.names = c.names[:0]
	i = skipWS(b, i+1)
	if i < n && b[i] == '}' {
		return i + 1, nil, false
	}
	same := true // every name so far is the last shape's at its place
	for {
		if i >= n || b[i] != '"' {
			return -1, nil, false
		}
		var end int
		if k := len(c.names); same && k < len(c.shape.ends) && c.shape.at(b, i, k) {
			end = i + c.shape.len(k) + 2
		} else {
			same = false
			var esc bool
			end, esc = scanString(b, i)
			if end < 0 || esc {
				return -1, nil, false // a name with escapes: the tokenizer compares it
			}
		}
		name := b[i+1 : end-1]
		c.names = append(c.names, name)
		i = skipWS(b, end)
		if i >= n || b[i] != ':' {
			return -1, nil, false
		}
		i = skipWS(b, i+1)
		vs := i
		if i = scanValue(b, i, 1); i < 0 {
			return -1, nil, false
		}
		if string(name) == "type" {
			typ = b[vs:i]
		}
		i = skipWS(b, i)
		if i >= n {
			return -1, nil, false
		}
		if b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if b[i] != '}' {
			return -1, nil, false
		}
		break
	}
	if same && len(c.names) == len(c.shape.ends) {
		return i + 1, typ, c.shape.folded
	}
	dup, folded := c.nameClashes()
	if dup {
		return -1, nil, false // the tokenizer reports the duplicate
	}
	c.shape.set(c.names, folded)
	return i + 1, typ, folded
}

// shape is the top-level names, in order, of the last object the fast path
// accepted, and whether two of them differ only in case. Most lines of a
// journal have the names of the line before: a line whose names are the
// shape's is read without scanning them as strings or comparing them with
// each other (nameClashes, a tenth of the work on Durable Stream's lines).
// The names are valid JSON strings without escapes, so a name is the
// shape's when its quotes and bytes are.
type shape struct {
	buf    []byte // the names, one after another
	ends   []int  // where each name ends in buf
	folded bool
}

// set makes names the shape, copied.
func (s *shape) set(names [][]byte, folded bool) {
	s.buf, s.ends, s.folded = s.buf[:0], s.ends[:0], folded
	for _, n := range names {
		s.buf = append(s.buf, n...)
		s.ends = append(s.ends, len(s.buf))
	}
}

// len is the length of name k.
func (s *shape) len(k int) int {
	if k == 0 {
		return s.ends[0]
	}
	return s.ends[k] - s.ends[k-1]
}

// at reports whether b[i:] starts with name k of the shape, quoted.
func (s *shape) at(b []byte, i, k int) bool {
	start := 0
	if k > 0 {
		start = s.ends[k-1]
	}
	name := s.buf[start:s.ends[k]]
	e := i + 1 + len(name)
	return e < len(b) && b[e] == '"' && string(b[i+1:e]) == string(name)
}

// setType sets r's type: tid when it is not -1, else from the top-level
// "type" value typ as written (none when it is not a string); and r's
// problem when names differ only in case.
func (c *classifier) setType(r *Record, typ []byte, tid int32, folded bool) {
	if tid >= 0 {
		r.typ = uint16(tid)
	} else if typ != nil && typ[0] == '"' {
		if s, ok := rawjson.Plain(typ); ok {
			r.typ = c.internBytes(s)
		} else if s, ok := rawjson.Unquote(typ); ok {
			r.typ = c.internStr(s)
		}
	}
	if folded {
		r.Problem = WarnCaseKeys
	}
}

// nameClashes reports whether two top-level names are equal, and whether
// two differ only in case ({"seq":1,"SEQ":9}: Node's JSON.parse and rewind
// keep them apart, Go's encoding/json v1 would not).
func (c *classifier) nameClashes() (dup, folded bool) {
	names := c.names
	if len(names) > 32 {
		if c.seen == nil {
			c.seen, c.seenFold = map[string]struct{}{}, map[string]string{}
		}
		clear(c.seen)
		clear(c.seenFold)
		for _, n := range names {
			if _, ok := c.seen[string(n)]; ok {
				return true, folded
			}
			c.seen[string(n)] = struct{}{}
			k := string(bytes.ToLower(n))
			if prev, ok := c.seenFold[k]; ok && prev != string(n) {
				folded = true
			}
			c.seenFold[k] = string(n)
		}
		return false, folded
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if len(names[i]) != len(names[j]) {
				continue
			}
			switch foldCompare(names[i], names[j]) {
			case 0:
				return true, folded
			case 1:
				folded = true
			}
		}
	}
	return false, folded
}

// foldCompare compares two names of the same length: 0 when they are
// equal, 1 when they differ only in case (as bytes.EqualFold has it), 2
// otherwise. Most names differ at an ASCII byte that is not a letter or
// is another letter, which it sees without bytes.EqualFold.
func foldCompare(a, b []byte) int {
	same := true
	for k := range a {
		x, y := a[k], b[k]
		if x == y {
			continue
		}
		if x >= 0x80 || y >= 0x80 {
			if bytes.EqualFold(a, b) {
				return 1
			}
			return 2
		}
		if l := x | 0x20; l != y|0x20 || l < 'a' || l > 'z' {
			return 2
		}
		same = false
	}
	if same {
		return 0
	}
	return 1
}

// scanValue validates the JSON value that starts at b[i] (nested depth
// levels deep) and returns the index just after it, or -1.
func scanValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := scanString(b, i)
		return end
	case c == '{':
		if depth >= maxFastDepth {
			return -1
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i, _ = scanString(b, i); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = scanValue(b, skipWS(b, i+1), depth+1); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == '}' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipWS(b, i+1)
		}
	case c == '[':
		if depth >= maxFastDepth {
			return -1
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = scanValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == ']' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipWS(b, i+1)
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return rawjson.NumberEnd(b, i)
	}
	return -1
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// scanString validates the string that starts at b[i] (a '"') and returns
// the index just after it (or -1) and whether it holds escapes. It refuses
// control characters, invalid UTF-8, bad escapes and \u escapes of
// surrogates (the tokenizer judges those pairs). Its first 32 bytes are
// read eight at a time (most strings are short); from the first byte to
// look at on (an escape, a control character, non-ASCII) strscan.End
// reads 64 at a time.
func scanString(b []byte, i int) (end int, esc bool) {
	j := i + 1
	if len(b)-j >= 32 {
		// The first 32 bytes as four words, without bounds checks.
		w := (*[32]byte)(b[j : j+32])
		o := 0
		t := flag8(binary.LittleEndian.Uint64(w[0:8]))
		if t == 0 {
			if t = flag8(binary.LittleEndian.Uint64(w[8:16])); t != 0 {
				o = 8
			} else if t = flag8(binary.LittleEndian.Uint64(w[16:24])); t != 0 {
				o = 16
			} else if t = flag8(binary.LittleEndian.Uint64(w[24:32])); t != 0 {
				o = 24
			} else {
				return strEnd(b, j+32)
			}
		}
		k := o + bits.TrailingZeros64(t)>>3
		if w[k&31] == '"' {
			return j + k + 1, false
		}
		return strEnd(b, j+k)
	}
	for lim := min(len(b), j+32); j+8 <= lim; j += 8 {
		if t := flag8(binary.LittleEndian.Uint64(b[j:])); t != 0 {
			// The lowest flagged byte is exact.
			k := j + bits.TrailingZeros64(t)>>3
			if b[k] == '"' {
				return k + 1, false
			}
			j = k
			break
		}
	}
	return strEnd(b, j)
}

// flag8 flags (with its top bit) the lowest byte of x that is a quote, a
// backslash, a control character or above 0x7f; bytes above it may be
// flagged wrongly.
func flag8(x uint64) uint64 {
	q, s := x^quote, x^bslash
	return ((q - lo8) | (s - lo8) | (x - ctl8) | x) & hi8
}

// strEnd is scanString's reading from b[j], a character boundary in the
// string's body, on: strscan.End, 64 bytes at a time.
func strEnd(b []byte, j int) (end int, esc bool) {
	end, f := strscan.End(b, j)
	esc = f&strscan.Escapes != 0
	if end < 0 || f&(strscan.Control|strscan.BadEscape|strscan.BadUTF8) != 0 {
		return -1, esc
	}
	return end, esc
}

func (c *classifier) internBytes(b []byte) uint16 {
	if len(b) == 0 {
		return c.internStr("")
	}
	slot := &c.recent[(int(b[0])^int(b[len(b)-1])*7^len(b)*13)&63]
	if slot.name == string(b) && slot.name != "" { // no allocation for the comparison
		return slot.id
	}
	v, ok := c.intern[string(b)] // no allocation for the lookup
	if !ok {
		v = c.internStr(string(b))
	}
	*slot = recentType{typeName(v), v}
	return v
}

// skipWS returns the index of the first byte from b[i] on that is not
// JSON whitespace, "\n" excepted: a line holds none (see fastLine).
func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// parseMillis reads a JSON number as Unix milliseconds (Durable Stream's
// timestamp); 0 when it is not a plausible one.
func parseMillis(v []byte) int64 {
	var n int64
	for _, c := range v {
		if c == '.' || c == 'e' || c == 'E' {
			break
		}
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
		if n > 1e16 {
			return 0
		}
	}
	return n
}

// isoMillis reads the toISOString form 2026-11-21T22:29:47.177Z quickly,
// and anything else through model.ParseTime.
func isoMillis(s []byte) int64 {
	if len(s) == 24 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[19] == '.' && s[23] == 'Z' {
		d := func(a, b int) (int, bool) {
			n := 0
			for _, c := range s[a:b] {
				if c < '0' || c > '9' {
					return 0, false
				}
				n = n*10 + int(c-'0')
			}
			return n, true
		}
		y, ok1 := d(0, 4)
		mo, ok2 := d(5, 7)
		dd, ok3 := d(8, 10)
		h, ok4 := d(11, 13)
		mi, ok5 := d(14, 16)
		se, ok6 := d(17, 19)
		ms, ok7 := d(20, 23)
		// The ranges time.Parse checks: a time it refuses is no time.
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && mo >= 1 && mo <= 12 && dd >= 1 && dd <= daysIn(y, mo) &&
			h <= 23 && mi <= 59 && se <= 59 {
			days := daysFromCivil(y, mo, dd)
			return ((days*24+int64(h))*60+int64(mi))*60000 + int64(se)*1000 + int64(ms)
		}
	}
	if tm := model.ParseTime(string(s)); !tm.IsZero() {
		return tm.UnixMilli()
	}
	return 0
}

// daysIn is the number of days of month m (1-12) of year y (proleptic
// Gregorian).
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic
// Gregorian), Howard Hinnant's algorithm.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
