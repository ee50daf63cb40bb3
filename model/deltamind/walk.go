package deltamind

import (
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// The fold and the views walk each line's members with a cursor (no
// callbacks) and skip strings eight bytes at a time: DeltaMind lines are
// mostly short strings (names, ids, timestamps, summaries of a few dozen
// bytes), on which the call that bytes.IndexByte makes per string costs
// more than the search. The lines come validated from the index (or are
// the bytes the fold took, read back), so the walk checks only what it
// needs to find its way, as internal/rawjson does, and fails (never
// panics) on anything else.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// skipStr returns the index just after the JSON string that starts at b[i]
// (a '"'), or -1, and whether the string is plain: without escapes and all
// ASCII, so that its contents are its value.
func skipStr(b []byte, i int) (int, bool) {
	j := i + 1
	plain := true
	for j+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[j:])
		q := w ^ ('"' * ones)
		s := w ^ ('\\' * ones)
		m := ((q-ones)&^q | (s-ones)&^s) & highs
		if plain {
			m |= w & highs
		}
		if m == 0 {
			j += 8
			continue
		}
		j += bits.TrailingZeros64(m) >> 3
		switch b[j] {
		case '"':
			return j + 1, plain
		case '\\':
			plain = false
			j += 2
		default: // a byte of a non-ASCII character
			plain = false
			j++
		}
	}
	for j < len(b) {
		switch c := b[j]; {
		case c == '"':
			return j + 1, plain
		case c == '\\':
			plain = false
			j += 2
		default:
			plain = plain && c < 0x80
			j++
		}
	}
	return -1, false
}

// plainStr reports whether the contents s of a JSON string are plain (see
// skipStr): no escape, and all ASCII.
func plainStr(s []byte) bool {
	for ; len(s) >= 8; s = s[8:] {
		w := binary.LittleEndian.Uint64(s)
		b := w ^ ('\\' * ones)
		if (w|(b-ones)&^b)&highs != 0 {
			return false
		}
	}
	for _, c := range s {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// skipVal returns the index just after the JSON value that starts at b[i],
// or -1.
func skipVal(b []byte, i int) int {
	if i < len(b) && b[i] == '"' {
		j, _ := skipStr(b, i)
		return j
	}
	return rawjson.SkipValue(b, i)
}

// strOf returns the value of the JSON string or null v (strVal's), as a
// view of v when the string is plain.
func strOf(v []byte, plain bool) string {
	if plain {
		return unsafe.String(unsafe.SliceData(v[1:]), len(v)-2)
	}
	b := decoded(v)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// A cursor walks the members of one JSON object: start it with open, then
// call next for each member, which sets name (escapes decoded) and v, where
// the member's value starts; the caller reads or skips the value and sets
// i to the index just after it before calling next again. When next
// returns false, i is the index just after the object, or -1 when the
// object could not be walked.
type cursor struct {
	b    []byte
	i    int
	name []byte
	v    int
	more bool // a member was read: a ',' or '}' must follow
}

// open starts a cursor on the object at b[i], or returns false when b[i]
// is not '{'.
func open(b []byte, i int) (cursor, bool) {
	if i >= len(b) || b[i] != '{' {
		return cursor{i: -1}, false
	}
	return cursor{b: b, i: i + 1}, true
}

func (c *cursor) next() bool {
	b, i := c.b, c.i
	if i < 0 {
		return false
	}
	i = ws(b, i)
	if c.more {
		if i < len(b) && b[i] == ',' {
			i = ws(b, i+1)
		} else if i >= len(b) || b[i] != '}' {
			c.i = -1
			return false
		}
	}
	if i >= len(b) || b[i] != '"' {
		if i < len(b) && b[i] == '}' {
			c.i = i + 1
		} else {
			c.i = -1
		}
		return false
	}
	if n, name := knownName(b, i); n > 0 {
		c.name, c.v, c.more = name, ws(b, i+n), true
		return true
	}
	e, plain := skipStr(b, i)
	if e < 0 {
		c.i = -1
		return false
	}
	c.name = b[i+1 : e-1]
	if !plain {
		c.name = rawjson.Name(c.name)
	}
	i = ws(b, e)
	if i >= len(b) || b[i] != ':' {
		c.i = -1
		return false
	}
	c.v = ws(b, i+1)
	c.more = true
	return true
}

// knownName recognizes the members DeltaMind writes by the bytes at b[i]
// (a '"'): for `"name":`, with nothing escaped, it returns the length of
// those bytes and the name; otherwise 0. It compares the first four bytes
// at once and then the rest, which is cheaper than finding the end of the
// name and switching on it.
func knownName(b []byte, i int) (int, []byte) {
	if i+4 > len(b) {
		return 0, nil
	}
	var lit string
	switch binary.LittleEndian.Uint32(b[i:]) {
	case 0x70797422: // "typ
		lit = `"type":`
	case 0x71657322: // "seq
		lit = `"seq":`
	case 0x6d697422: // "tim
		lit = `"timestamp":`
	case 0x6c656422: // "del
		lit = `"delta":`
	case 0x61657222: // "rea
		lit = `"reason":`
	case 0x65746922: // "ite
		lit = `"itemId":`
	case 0x73657222: // "res
		lit = `"resolution":`
		if i+4 < len(b) && b[i+4] == 'u' {
			lit = `"resultingStatus":`
		}
	case 0x6e696b22: // "kin
		lit = `"kind":`
	case 0x22646922: // "id"
		lit = `"id":`
	case 0x72617422: // "tar
		lit = `"targetId":`
	case 0x6d757322: // "sum
		lit = `"summary":`
	case 0x6e6f6322: // "con
		lit = `"confidence":`
	case 0x72616822: // "har
		lit = `"hard":`
	case 0x646f6d22: // "mod
		lit = `"mode":`
	case 0x746c6122: // "alt
		lit = `"alternatives":`
	case 0x756f7322: // "sou
		lit = `"sourceTurns":`
	case 0x72757422: // "tur
		lit = `"turnId":`
	case 0x66666f22: // "off
		lit = `"offset":`
	default:
		return 0, nil
	}
	if i+len(lit) > len(b) || string(b[i:i+len(lit)]) != lit {
		return 0, nil
	}
	return len(lit), bytesOf(lit[1 : len(lit)-2])
}

// value skips the member's value and returns it, or nil (and stops the
// cursor) when it cannot be skipped.
func (c *cursor) value() []byte {
	j := skipVal(c.b, c.v)
	if j < 0 {
		c.i = -1
		return nil
	}
	c.i = j
	return c.b[c.v:j]
}

// str skips the member's value and returns it decoded when it is a string
// or null (ok), as strVal decodes it.
func (c *cursor) str() (s string, ok bool) {
	b, i := c.b, c.v
	if i < len(b) && b[i] == '"' {
		j, plain := skipStr(b, i)
		if j < 0 {
			c.i = -1
			return "", false
		}
		c.i = j
		return strOf(b[i:j], plain), true
	}
	v := c.value()
	return "", v != nil && v[0] == 'n'
}

// isStrVal skips the member's value and reports whether it is a string or
// null, without decoding it.
func (c *cursor) isStrVal() bool {
	b, i := c.b, c.v
	if i < len(b) && b[i] == '"' {
		j, _ := skipStr(b, i)
		c.i = j
		return j >= 0
	}
	v := c.value()
	return v != nil && v[0] == 'n'
}

// ws returns the index of the first byte at or after i that is not JSON
// whitespace (rawjson.SkipWS, with the common case first).
func ws(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	return rawjson.SkipWS(b, i)
}

// An array cursor walks the elements of one JSON array: each call of
// next returns where the next element starts; the caller sets i to the
// index just after it. When next returns false, i is the index after the
// array, or -1.
type arrCursor struct {
	b    []byte
	i    int
	more bool
}

func openArr(b []byte, i int) (arrCursor, bool) {
	if i >= len(b) || b[i] != '[' {
		return arrCursor{i: -1}, false
	}
	return arrCursor{b: b, i: i + 1}, true
}

func (a *arrCursor) next() (int, bool) {
	b, i := a.b, a.i
	if i < 0 {
		return 0, false
	}
	i = ws(b, i)
	if i < len(b) && b[i] == ']' {
		a.i = i + 1
		return 0, false
	}
	if a.more {
		if i >= len(b) || b[i] != ',' {
			a.i = -1
			return 0, false
		}
		i = ws(b, i+1)
	}
	if i >= len(b) {
		a.i = -1
		return 0, false
	}
	a.more = true
	return i, true
}
