package rawjson

import (
	"bytes"
	"math"
)

// These helpers read member values with the rules model.Unmarshal applies
// when it fills Go types (the folds used to decode into structs), so that a line
// the old decoding refused is refused here too: a JSON null fills any
// field with its zero value, a value of the wrong JSON type fails the
// whole line, and every occurrence of a repeated name is checked though
// the last one wins.

// Name returns the member name n (as written between its quotes) with its
// escapes decoded; only names with escapes are copied.
func Name(n []byte) []byte {
	if bytes.IndexByte(n, '\\') < 0 {
		return n
	}
	s, ok := Unquote(append(append([]byte{'"'}, n...), '"'))
	if !ok {
		return nil
	}
	return []byte(s)
}

// IsStr reports whether v fills a Go string: a JSON string or null.
func IsStr(v []byte) bool { return len(v) > 0 && (v[0] == '"' || v[0] == 'n') }

// Str decodes v into a Go string: a JSON string, or "" for null.
func Str(v []byte) (string, bool) {
	if len(v) > 0 && v[0] == 'n' {
		return "", true
	}
	return Unquote(v)
}

// Int decodes v into an int64 the way model.Unmarshal does: null is
// 0 (and reported as null), a number must be an integer without fraction
// or exponent that fits, anything else fails.
func Int(v []byte) (n int64, null, ok bool) {
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

// Opt is an optional integer (a *int64 field of the old decoding).
type Opt struct {
	V   int64
	Set bool
}

func (o Opt) Value() any {
	if !o.Set {
		return nil
	}
	return o.V
}

// OptInt decodes v into an Opt: null unsets it.
func OptInt(v []byte) (Opt, bool) {
	n, null, ok := Int(v)
	return Opt{n, !null}, ok
}

// Elements calls fn with each element of the JSON array arr and reports
// false when arr is not an array or fn returns false.
func Elements(arr []byte, fn func(v []byte) bool) bool {
	i := SkipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = SkipWS(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return true
	}
	for i < len(arr) {
		end := SkipValue(arr, i)
		if end < 0 || !fn(arr[i:end]) {
			return false
		}
		i = SkipWS(arr, end)
		if i < len(arr) && arr[i] == ']' {
			return true
		}
		if i >= len(arr) || arr[i] != ',' {
			return false
		}
		i = SkipWS(arr, i+1)
	}
	return false
}

// StrList decodes v into a []string: null gives nil, and each element
// must be a string or null ("").
func StrList(v []byte) ([]string, bool) {
	if len(v) > 0 && v[0] == 'n' {
		return nil, true
	}
	out := []string{}
	ok := Elements(v, func(e []byte) bool {
		s, ok := Str(e)
		out = append(out, s)
		return ok
	})
	return out, ok
}

// Object calls fn with each member of the JSON object v (names with their
// escapes decoded) until fn returns false, and reports whether v is an
// object and fn never returned false.
func Object(v []byte, fn func(name, v []byte) bool) bool {
	ok := true
	walked := Members(v, func(n, val []byte) bool {
		ok = fn(Name(n), val)
		return ok
	})
	return walked && ok
}

// Bool decodes v into a Go bool: true, false, or false for null.
func Bool(v []byte) (b, ok bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false", "null":
		return false, true
	}
	return false, false
}
