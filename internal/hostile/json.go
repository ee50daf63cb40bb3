package hostile

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// KV is one member of an Obj: the key (a string) and the value. An array,
// so fixtures can write {"type", "x"} without field names.
type KV [2]any

// Obj is a JSON object with its members in order, for writing fixture
// journals whose key order matters.
type Obj []KV

// AppendJSON appends v as compact JSON the way Node's JSON.stringify writes
// it: no HTML escaping, control characters as \uXXXX, other characters raw.
// Invalid UTF-8 becomes U+FFFD, as JSON.stringify of a JavaScript string
// would have it, unless raw is true: then the bytes are written unchanged
// (for fixtures of broken journals). v is a string, int, int64, bool, nil,
// []string, []any or Obj.
func AppendJSON(b []byte, v any, raw bool) []byte {
	switch x := v.(type) {
	case string:
		return AppendString(b, x, raw)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case bool:
		return strconv.AppendBool(b, x)
	case nil:
		return append(b, "null"...)
	case []string:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, e, raw)
		}
		return append(b, ']')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSON(b, e, raw)
		}
		return append(b, ']')
	case Obj:
		b = append(b, '{')
		for i, kv := range x {
			if i > 0 {
				b = append(b, ',')
			}
			k, _ := kv[0].(string)
			b = AppendString(b, k, raw)
			b = append(b, ':')
			b = AppendJSON(b, kv[1], raw)
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("hostile.AppendJSON: unsupported %T", v))
}

// AppendString appends s as a JSON string (see AppendJSON).
func AppendString(b []byte, s string, raw bool) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			if raw {
				b = append(b, s[i])
			} else {
				b = append(b, "\uFFFD"...)
			}
		case r == '"':
			b = append(b, `\"`...)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20:
			b = append(b, fmt.Sprintf(`\u%04x`, r)...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
