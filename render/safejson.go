package render

import (
	"strconv"
	"unicode/utf8"
)

// SafeJSON rewrites JSON text so that it cannot drive a terminal while
// decoding to the same value: every character inside a string that
// Sanitize would make visible (C1 controls, bidi controls, zero-width and
// tag characters, line separators, DEL) is written as a \uXXXX escape, and
// invalid UTF-8 bytes as \ufffd. Bytes outside strings are copied. The input
// must be valid JSON for the output to be; control characters below U+0020
// cannot appear raw in valid JSON strings, and raw ones are escaped anyway.
func SafeJSON(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f {
				out = appendU(out, rune(c))
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = append(out, `\ufffd`...)
		case needsEscape(r):
			out = appendU(out, r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

func appendU(out []byte, r rune) []byte {
	if r > 0xFFFF {
		r -= 0x10000
		out = appendHex(out, 0xD800+(r>>10))
		return appendHex(out, 0xDC00+(r&0x3FF))
	}
	return appendHex(out, r)
}

func appendHex(out []byte, r rune) []byte {
	h := strconv.FormatInt(int64(r), 16)
	out = append(out, `\u`...)
	for i := len(h); i < 4; i++ {
		out = append(out, '0')
	}
	return append(out, h...)
}

// needsEscape reports whether r is one of the characters a terminal could
// act on or hide (the set Sanitize makes visible), above ASCII.
func needsEscape(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f,
		r == 0xad, r == 0x61c, r == 0x180e, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0,
		r >= 0x200b && r <= 0x200f,
		r >= 0x2028 && r <= 0x202e,
		r >= 0x2060 && r <= 0x206f,
		r >= 0xfe00 && r <= 0xfe0f,
		r == 0xfeff, r >= 0xfff9 && r <= 0xfffb, r == 0xfffe, r == 0xffff,
		r >= 0xe0000 && r <= 0xe01ef:
		return true
	}
	return false
}

// AppendJSONString appends s as a JSON string the way rewind prints every
// string: exactly SafeJSON of what json.Marshal writes without its HTML
// escaping (", \ and control characters as escapes, invalid UTF-8 as
// \ufffd; < > & as they are, as JSON.stringify and jq write them) and
// SafeJSON's escaping (the characters Sanitize makes visible, and DEL, as
// \u escapes), in one pass and without allocating beyond dst.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		i += plainRunSWAR(s[i:])
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = appendASCII(dst, c)
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case needsEscape(r):
			dst = append(dst, s[start:i]...)
			dst = appendU(dst, r)
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendASCII appends the escape AppendJSONString writes for c, an ASCII
// byte it does not copy as it is (see plainJSON).
func appendASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// plainJSON marks the ASCII bytes AppendJSONString copies as they are.
var plainJSON = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range `"\` {
		t[c] = false
	}
	return t
}()
