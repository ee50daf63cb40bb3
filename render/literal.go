package render

import (
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// AppendJSONLiteral appends lit, a JSON string literal (quotes included) as
// a journal holds it, the way rewind prints every string: exactly
// AppendJSONString(dst, s) where s is lit decoded with JSON.parse's rules
// (rawjson.Unquote: a lone surrogate escape is U+FFFD). It does not decode
// lit into a string first: runs of bytes both encodings write alike (text,
// and the escapes \" \\ \b \f \n \r \t) are copied as they are, and only
// what AppendJSONString writes another way is re-encoded: \/ and \u escapes
// of characters it writes raw or with a short escape, DEL, the
// characters Sanitize makes visible. A lit that is not a JSON string
// (unterminated, a raw control character or quote, a bad escape) is
// written as its decoding gives it, the empty string when it has none; so
// is one holding invalid UTF-8, decoded first. It allocates nothing beyond
// dst, except for those rare literals.
func AppendJSONLiteral(dst, lit []byte) []byte {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return appendDecoded(dst, lit)
	}
	s := lit[1 : len(lit)-1]
	start := len(dst)
	dst = append(dst, '"')
	run := 0 // s[run:i] is copied as it is when something else is written
	i := 0
	for {
		i += plainRun(s[i:])
		if i >= len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return appendDecoded(dst[:start], lit)
			}
			switch s[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2 // written alike
				continue
			case '/':
				dst = append(dst, s[run:i]...)
				dst = append(dst, '/')
				i += 2
			case 'u':
				r, ok := rawjson.Hex4(s[i:])
				if !ok {
					return appendDecoded(dst[:start], lit)
				}
				n := 6
				if utf16.IsSurrogate(r) {
					if r2, ok := rawjson.Hex4(s[i+6:]); ok && r < 0xdc00 && r2 >= 0xdc00 && r2 <= 0xdfff {
						r, n = utf16.DecodeRune(r, r2), 12
					} else {
						r = utf8.RuneError
					}
				}
				var tmp [12]byte
				enc := appendRune(tmp[:0], r)
				if string(enc) == string(s[i:i+n]) {
					i += n // written alike: \u escapes AppendJSONString writes too
					continue
				}
				dst = append(dst, s[run:i]...)
				dst = append(dst, enc...)
				i += n
			default:
				return appendDecoded(dst[:start], lit)
			}
		case c < 0x20 || c == '"':
			return appendDecoded(dst[:start], lit) // not valid in a JSON string
		case c < utf8.RuneSelf:
			if plainJSON[c] {
				i++ // a false flag
				continue
			}
			dst = append(dst, s[run:i]...)
			dst = appendASCII(dst, c) // DEL
			i++
		default:
			if n := plainRune(s[i:]); n > 0 {
				i += n // a character written as it is
				continue
			}
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return appendDecoded(dst[:start], lit)
			}
			if !needsEscape(r) {
				i += n
				continue
			}
			dst = append(dst, s[run:i]...)
			dst = appendU(dst, r)
			i += n
		}
		run = i
	}
	dst = append(dst, s[run:]...)
	return append(dst, '"')
}

// plainRunSWAR returns the index of the first byte of s that
// AppendJSONLiteral looks at ('"', '\\', a control character, DEL or
// non-ASCII), or len(s): sixteen bytes at a time, then eight. Those are
// the bytes AppendJSONString does not copy as they are, too.
func plainRunSWAR[T string | []byte](s T) int {
	n := len(s)
	for len(s) >= 16 {
		m := special8(load64(s))
		m2 := special8(load64(s[8:]))
		if m|m2 != 0 {
			if m != 0 {
				return n - len(s) + bits.TrailingZeros64(m)>>3
			}
			return n - len(s) + 8 + bits.TrailingZeros64(m2)>>3
		}
		s = s[16:]
	}
	if len(s) >= 8 {
		if m := special8(load64(s)); m != 0 {
			return n - len(s) + bits.TrailingZeros64(m)>>3
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return n - len(s) + i
		}
	}
	return n
}

// load64 returns the first eight bytes of s, little-endian.
func load64[T string | []byte](s T) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// special8 flags (with its top bit) the lowest byte of x that
// plainRunSWAR stops at; bytes above it may be flagged wrongly.
func special8(x uint64) uint64 {
	q := x ^ quote8
	bs := x ^ bslash8
	return ((q - lo8) | (bs - lo8) | (x - ctl8) | ((x &^ hi8) + lo8) | x) & hi8
}

// plainRune returns the length of the UTF-8 character at the start of s
// when it is one of the usual ones AppendJSONString writes as it is
// (U+00C0 to U+07FF but U+0600 to U+063F, and U+2080 to U+2FFF: arrows,
// box drawing, check marks and the like), or 0 when it takes a closer
// look (needsEscape, invalid UTF-8).
func plainRune(s []byte) int {
	if len(s) >= 2 && s[1]&0xc0 == 0x80 {
		switch c := s[0]; {
		case c >= 0xc3 && c <= 0xdf && c != 0xd8:
			return 2
		case c == 0xe2 && len(s) >= 3 && s[1] >= 0x82 && s[2]&0xc0 == 0x80:
			return 3
		}
	}
	return 0
}

// appendDecoded appends lit decoded with rawjson.Unquote (the empty string
// when it is not a JSON string) with AppendJSONString: the way for the
// literals AppendJSONLiteral does not expect.
func appendDecoded(dst, lit []byte) []byte {
	s, _ := rawjson.Unquote(lit)
	return AppendJSONString(dst, s)
}

// appendRune appends r, decoded from a \u escape, as AppendJSONString
// writes it.
func appendRune(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if plainJSON[r] {
			return append(dst, byte(r))
		}
		return appendASCII(dst, byte(r))
	}
	if needsEscape(r) {
		return appendU(dst, r)
	}
	return utf8.AppendRune(dst, r)
}

// Bytes repeated in every byte of a word, for AppendJSONLiteral's scan.
const (
	lo8     = 0x0101010101010101
	hi8     = 0x8080808080808080
	quote8  = '"' * lo8
	bslash8 = '\\' * lo8
	ctl8    = 0x20 * lo8
)
