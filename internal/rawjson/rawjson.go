// Package rawjson reads single fields out of a JSON object's bytes without
// decoding the rest: strings are skipped with bytes.IndexByte, nested
// values by counting brackets outside strings. It is how the index finds a
// record's type, seq and timestamp and how the folds pick the few payload
// fields they need while large text (tool output, THOUGHT content) stays
// undecoded.
//
// The functions expect input that has been validated as JSON (the index
// validates every event); on anything else they report failure (ok false,
// or -1) and never panic. They are pure and safe for concurrent use.
package rawjson

import (
	"bytes"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Members calls fn with each top-level member of the object obj: its name
// as written between the quotes (escapes not decoded) and its value's
// bytes. It stops early when fn returns false, and reports false when obj
// is not an object it could walk to the closing brace.
func Members(obj []byte, fn func(name, value []byte) bool) bool {
	i := SkipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	for {
		i = SkipWS(obj, i)
		if i >= len(obj) {
			return false
		}
		if obj[i] == '}' {
			return true
		}
		if obj[i] != '"' {
			return false
		}
		end := SkipString(obj, i)
		if end < 0 {
			return false
		}
		name := obj[i+1 : end-1]
		i = SkipWS(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = SkipWS(obj, i+1)
		vEnd := SkipValue(obj, i)
		if vEnd < 0 {
			return false
		}
		if !fn(name, obj[i:vEnd]) {
			return true
		}
		i = SkipWS(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i++
		} else if i < len(obj) && obj[i] != '}' {
			return false
		}
	}
}

// Get returns the value of the top-level member name of obj, the last one
// when the name repeats (as JSON.parse reads it). Names written with escapes
// ("ty\u0070e") are decoded before they are compared.
func Get(obj []byte, name string) ([]byte, bool) {
	var v []byte
	found := false
	Members(obj, func(n, val []byte) bool {
		if NameIs(n, name) {
			v, found = val, true
		}
		return true
	})
	return v, found
}

// NameIs reports whether the member name n, as written between its quotes,
// is name once its escapes are decoded.
func NameIs(n []byte, name string) bool {
	if bytes.IndexByte(n, '\\') < 0 {
		return string(n) == name
	}
	s, ok := Unquote(append(append([]byte{'"'}, n...), '"'))
	return ok && s == name
}

// SkipWS returns the index of the first byte at or after i that is not JSON
// whitespace.
func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipString returns the index just after the string that starts at b[i]
// (a '"'), or -1.
func SkipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// Count the backslashes before the quote: an odd number escapes it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// SkipValue returns the index just after the JSON value that starts at
// b[i], or -1.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := SkipString(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', ':', '}', ']':
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	return j
}

// Plain returns the contents of the JSON string v when it has no escapes
// (the common case, and then without copying), and false otherwise.
func Plain(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, false
	}
	return s, true
}

// Unquote decodes the JSON string v with JSON.parse's rules. It reports
// false when v is not a JSON string.
func Unquote(v []byte) (string, bool) {
	if s, ok := Plain(v); ok && utf8.Valid(s) {
		return string(s), true
	}
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	var s string
	if jsonv2.Unmarshal(v, &s, nodeOptions) != nil {
		return "", false
	}
	return s, true
}

// nodeOptions are JSON.parse's rules, as model.Unmarshal applies them:
// invalid UTF-8 and lone surrogates become U+FFFD instead of errors.
var nodeOptions = jsonv2.JoinOptions(
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// IsNumber reports whether v starts like a JSON number.
func IsNumber(v []byte) bool {
	return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

// NumberEnd validates the JSON number that starts at b[i],
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, and returns the index just
// after it, or -1 when there is none. Unlike the other functions here it
// trusts nothing: the index validates lines with it.
func NumberEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsEnd(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// Hex4 reads the \uXXXX escape at the start of s (upper or lower case hex
// digits) and returns the UTF-16 code unit it writes; false when s does not
// start with one.
func Hex4(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
