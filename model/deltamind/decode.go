package deltamind

import (
	"bytes"
	"math"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// These helpers read member values with the rules model.Unmarshal applies
// when it fills the Go types the fold used to decode into, so that a line
// the old decoding refused is refused here too: a JSON null fills any
// field with its zero value, a value of the wrong JSON type fails the
// whole line, and every occurrence of a repeated name is checked though
// the last one wins.

// name returns the member name n (as written between its quotes) with its
// escapes decoded; only names with escapes are copied.
func name(n []byte) []byte {
	if bytes.IndexByte(n, '\\') < 0 {
		return n
	}
	s, ok := rawjson.Unquote(append(append([]byte{'"'}, n...), '"'))
	if !ok {
		return nil
	}
	return []byte(s)
}

// isStr reports whether v fills a Go string: a JSON string or null.
func isStr(v []byte) bool { return len(v) > 0 && (v[0] == '"' || v[0] == 'n') }

// strVal decodes v into a Go string: a JSON string, or "" for null.
func strVal(v []byte) (string, bool) {
	if len(v) > 0 && v[0] == 'n' {
		return "", true
	}
	return rawjson.Unquote(v)
}

// integer decodes v into an int64 the way model.Unmarshal does: null is
// 0 (and reported as null), a number must be an integer without fraction
// or exponent that fits, anything else fails.
func integer(v []byte) (n int64, null, ok bool) {
	if len(v) == 0 {
		return 0, false, false
	}
	if v[0] == 'n' {
		return 0, true, true
	}
	neg := v[0] == '-'
	d := v
	if neg {
		d = v[1:]
	}
	if len(d) == 0 {
		return 0, false, false
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, false, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false, false
		}
		return int64(-u), false, true
	}
	if u > math.MaxInt64 {
		return 0, false, false
	}
	return int64(u), false, true
}

// opt is an optional integer (a *int64 field of the old decoding).
type opt struct {
	v   int64
	set bool
}

func (o opt) value() any {
	if !o.set {
		return nil
	}
	return o.v
}

// optInt decodes v into an opt: null unsets it.
func optInt(v []byte) (opt, bool) {
	n, null, ok := integer(v)
	return opt{n, !null}, ok
}

// elements calls fn with each element of the JSON array arr and reports
// false when arr is not an array or fn returns false.
func elements(arr []byte, fn func(v []byte) bool) bool {
	i := rawjson.SkipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = rawjson.SkipWS(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return true
	}
	for i < len(arr) {
		end := rawjson.SkipValue(arr, i)
		if end < 0 || !fn(arr[i:end]) {
			return false
		}
		i = rawjson.SkipWS(arr, end)
		if i < len(arr) && arr[i] == ']' {
			return true
		}
		if i >= len(arr) || arr[i] != ',' {
			return false
		}
		i = rawjson.SkipWS(arr, i+1)
	}
	return false
}

// strList decodes v into a []string: null gives nil, and each element
// must be a string or null ("").
func strList(v []byte) ([]string, bool) {
	if len(v) > 0 && v[0] == 'n' {
		return nil, true
	}
	out := []string{}
	ok := elements(v, func(e []byte) bool {
		s, ok := strVal(e)
		out = append(out, s)
		return ok
	})
	return out, ok
}

// object calls fn with each member of the JSON object v (names with their
// escapes decoded) until fn returns false, and reports whether v is an
// object and fn never returned false.
func object(v []byte, fn func(name, v []byte) bool) bool {
	ok := true
	walked := rawjson.Members(v, func(n, val []byte) bool {
		ok = fn(name(n), val)
		return ok
	})
	return walked && ok
}

// boolean decodes v into a Go bool: true, false, or false for null.
func boolean(v []byte) (b, ok bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false", "null":
		return false, true
	}
	return false, false
}
