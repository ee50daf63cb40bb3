package render

import (
	"strings"
	"unicode/utf8"
)

// maxSGRParams is the longest parameter string of an SGR sequence that
// [Filter] lets through.
const maxSGRParams = 60

// Filter is the allow-list applied to styled output just before it is
// written to the terminal. It copies SGR sequences (ESC '[' followed by at
// most 60 bytes from "0123456789;:" and 'm', i.e. colours and attributes)
// unchanged; every other ESC becomes a visible "␛", and the bytes after it
// are treated as ordinary text. Everything else goes through the same
// character mapping as [Sanitize], so C0 controls (including '\r' and
// '\t', which becomes spaces), DEL, C1, bidi, invisible and tag characters
// and invalid UTF-8 all become visible stand-ins. '\n' is kept. There is no
// length limit.
//
// Filter accepts any bytes. Its result contains no escape sequence other
// than SGR, no C0 control except '\n', no C1, bidi or tag character, and
// is valid UTF-8. Filter(Filter(s)) == Filter(s).
func Filter(s string) string {
	if isPlainASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	m := mapper{b: &b}
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if n := sgrLen(s[i:]); n > 0 {
				m.flushMarks()
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		m.put(s, i, r, size)
		i += size
	}
	m.flushMarks()
	return b.String()
}

// sgrLen returns the length of the SGR sequence at the start of s, or 0 if
// s does not start with one.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s) && i <= 2+maxSGRParams; i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}
