package query

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
	"unsafe"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// maxDepth is how deeply decode nests arrays and objects, as encoding/json
// does (10000).
const maxDepth = 10000

var errSyntax = errors.New("not a JSON value")

// decode is Event's decoder: one pass over raw, a JSON text, building what
// encoding/json's Decoder with UseNumber builds (map[string]any, []any,
// json.Number, string, bool, nil; of repeated names the last wins; invalid
// UTF-8 and lone surrogates become U+FFFD), in less than half its time:
// it tokenizes nothing and copies the text once, its plain strings
// sharing that copy. Text that is not
// one JSON value is an error. FuzzDecode holds it equal to encoding/json.
func decode(raw []byte) (any, error) {
	d := decoder{b: raw, s: string(raw)}
	return d.decode()
}

// decodeReusing is decode into d's maps and arrays of the previous call,
// its plain strings aliasing raw: the value is valid only while raw is
// unchanged and until the next call. It makes a Matcher's evaluation of a
// journal's events allocate a few bytes an event instead of kilobytes,
// which, with rewind's low GOGC, is most of a filter's time.
func (d *decoder) decodeReusing(raw []byte) (any, error) {
	d.b, d.i, d.reuse, d.nm, d.na = raw, 0, true, 0, 0
	d.s = ""
	if len(raw) > 0 {
		d.s = unsafe.String(&raw[0], len(raw))
	}
	return d.decode()
}

func (d *decoder) decode() (any, error) {
	d.ws()
	v, ok := d.value(0)
	if !ok {
		return nil, errSyntax
	}
	if d.ws(); d.i != len(d.b) {
		return nil, errSyntax
	}
	return v, nil
}

type decoder struct {
	b []byte
	s string // b as a string: plain strings are its substrings, not copies
	i int

	// With reuse, objects and arrays are made in maps and arrs, in the
	// order they start; nm and na of them are taken.
	reuse  bool
	maps   []map[string]any
	arrs   [][]any
	nm, na int
}

func (d *decoder) ws() { d.i = rawjson.SkipWS(d.b, d.i) }

// value decodes the value at d.i and moves past it.
func (d *decoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) || depth > maxDepth {
		return nil, false
	}
	switch c := d.b[d.i]; c {
	case '{':
		return d.object(depth)
	case '[':
		return d.array(depth)
	case '"':
		return d.str()
	case 't':
		return true, d.lit("true")
	case 'f':
		return false, d.lit("false")
	case 'n':
		return nil, d.lit("null")
	default:
		e := rawjson.NumberEnd(d.b, d.i)
		if e < 0 {
			return nil, false
		}
		n := json.Number(d.b[d.i:e])
		d.i = e
		return n, true
	}
}

func (d *decoder) lit(s string) bool {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return false
	}
	d.i += len(s)
	return true
}

func (d *decoder) object(depth int) (any, bool) {
	var m map[string]any
	switch {
	case !d.reuse:
		m = make(map[string]any, 8)
	case d.nm < len(d.maps):
		m = d.maps[d.nm]
		clear(m)
		d.nm++
	default:
		m = make(map[string]any, 8)
		d.maps = append(d.maps, m)
		d.nm++
	}
	if d.empty('}') {
		return m, true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		if d.ws(); d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.ws()
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k.(string)] = v
		if more, ok := d.next('}'); !ok || !more {
			return m, ok
		}
	}
}

// empty moves past the opening bracket at d.i and the space after it, and
// past close when it follows (the object or array is empty, and empty
// reports true).
func (d *decoder) empty(close byte) bool {
	d.i++
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == close {
		d.i++
		return true
	}
	return false
}

// next moves past what follows a member or an element: a ',' (more is
// true) or close (more is false); ok is false for anything else.
func (d *decoder) next(close byte) (more, ok bool) {
	if d.ws(); d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		d.ws()
		return true, true
	case close:
		d.i++
		return false, true
	}
	return false, false
}

func (d *decoder) array(depth int) (any, bool) {
	a := []any{}
	slot := -1
	if d.reuse {
		if slot = d.na; slot == len(d.arrs) {
			d.arrs = append(d.arrs, a)
		}
		a = d.arrs[slot][:0]
		d.na++
	}
	if d.empty(']') {
		return a, true
	}
	for {
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if more, ok := d.next(']'); !ok || !more {
			if ok && slot >= 0 {
				d.arrs[slot] = a // keep what it grew to
			}
			return a, ok
		}
	}
}

// str decodes the string at d.i (a '"'). A string of printable ASCII
// without escapes, most of a journal's, is a substring of d.s; any other is
// checked for raw control characters and decoded by rawjson.Unquote.
func (d *decoder) str() (any, bool) {
	s := d.i + 1
	j := s
	for j < len(d.b) {
		c := d.b[j]
		if c == '"' {
			d.i = j + 1
			return d.s[s:j], true
		}
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			break
		}
		j++
	}
	e := rawjson.SkipString(d.b, d.i)
	if e < 0 {
		return nil, false
	}
	for _, c := range d.b[j : e-1] {
		if c < 0x20 {
			return nil, false
		}
	}
	v, ok := rawjson.Unquote(d.b[d.i:e])
	if !ok {
		return nil, false
	}
	d.i = e
	return v, true
}
