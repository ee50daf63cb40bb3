// Package strscan finds where a JSON string ends 64 bytes at a time, the
// way simdjson does: bit masks of the quotes, backslashes, control
// characters and bytes above 0x7f of each 64-byte block (with AVX2 on
// amd64, eight bytes at a time elsewhere), from which the escaped bytes
// follow by carry-less arithmetic on the backslash runs. Journal strings
// are long (tool output, file contents) and full of escapes, one every 37
// bytes in a Delta Engine journal: a scan that stops at each escape spends
// its time stopping; this one stops only at the string's end and looks at
// the escapes it passed from their bits.
package strscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// Flags say what a string's body holds, up to its closing quote.
type Flags uint8

const (
	// Escapes: at least one escape (a backslash).
	Escapes Flags = 1 << iota
	// BadEscape: an escape that JSON does not have (a backslash before a
	// byte other than " \ / b f n r t u), a \u without four hex digits, or
	// a \u of a surrogate (U+D800 to U+DFFF, alone or in a pair).
	BadEscape
	// Control: a raw control character (a byte below 0x20).
	Control
	// NonASCII: a byte above 0x7f.
	NonASCII
	// BadUTF8: bytes above 0x7f that are not valid UTF-8.
	BadUTF8
)

// End returns the index just after the closing quote of the JSON string
// whose body starts at b[j] (just after its opening quote, or at any
// character boundary within the body: a byte that is not the second byte
// of an escape), or -1 when b holds no closing quote, and what the body
// from b[j] holds. It reads b in blocks of 64 bytes (the last one copied
// into a padded buffer) and does not allocate.
func End(b []byte, j int) (end int, f Flags) {
	var carry uint64 // 1 when the block before ended with a backslash that starts an escape
	next := j        // where the next character starts, after the last non-ASCII one decoded
	for p := j; p < len(b); p += 64 {
		var q, bs, ctl, high, letter, u uint64
		switch {
		case len(b)-p < 64:
			q, bs, ctl, high, letter, u = lastMasks(b[p:])
		case hasAVX2: // masks' dispatch here: masks does not inline
			q, bs, ctl, high, letter, u = masksAVX2(&b[p])
		default:
			q, bs, ctl, high, letter, u = masksSWAR(b[p:])
		}
		escaped, starts := escapes(bs, &carry)
		uq := q &^ escaped
		before := ^uint64(0) // the bytes before the closing quote, when the block has it
		if uq != 0 {
			before = uq&-uq - 1
		}
		if ctl&before != 0 {
			f |= Control
		}
		if hb := high & before; hb != 0 {
			// Decode the character at each byte above 0x7f that does not
			// belong to the one before (its bytes are all above 0x7f, so
			// none is the closing quote).
			f |= NonASCII
			for ; hb != 0; hb &= hb - 1 {
				k := p + bits.TrailingZeros64(hb)
				if k < next {
					continue
				}
				r, size := utf8.DecodeRune(b[k:])
				if r == utf8.RuneError && size <= 1 {
					f |= BadUTF8
				}
				next = k + size
			}
		}
		if starts&before != 0 {
			f |= Escapes
		}
		// The escaped bytes: " \ / b f n r t are escapes as they are; a u
		// needs four hex digits after it; anything else is bad. An escape
		// whose backslash ends a block has its byte in the next one (bit 0
		// of escaped there), where letter and u are 0 when that block has
		// no backslash.
		switch esc := escaped & before; {
		case esc == 0:
		case bs == 0:
			if !validEscape(b, p-1) {
				f |= BadEscape
			}
		default:
			if esc&^(q|bs|letter|u) != 0 {
				f |= BadEscape
			}
			for us := esc & u; us != 0; us &= us - 1 {
				if !validEscape(b, p+bits.TrailingZeros64(us)-1) {
					f |= BadEscape
				}
			}
		}
		if uq != 0 {
			return p + bits.TrailingZeros64(uq) + 1, f
		}
	}
	if carry != 0 {
		f |= BadEscape // b ends with an escape's backslash
	}
	return -1, f
}

// Skip is End without looking at what the string holds: the index just
// after the closing quote of the string whose body starts at b[j] (at a
// character boundary), or -1. It reads the quotes and backslashes of 64
// bytes at a time.
func Skip(b []byte, j int) int {
	var carry uint64
	for p := j; p < len(b); p += 64 {
		var q, bs uint64
		if len(b)-p >= 64 {
			q, bs = quotes(b[p:])
		} else {
			q, bs, _, _, _, _ = lastMasks(b[p:])
		}
		var escaped uint64
		if bs|carry != 0 {
			escaped, _ = escapes(bs, &carry)
		}
		if uq := q &^ escaped; uq != 0 {
			return p + bits.TrailingZeros64(uq) + 1
		}
	}
	return -1
}

// lastMasks is masks of the last bytes of b, fewer than 64, read as if
// spaces followed them.
//
//go:noinline
func lastMasks(b []byte) (quote, bslash, ctl, high, letter, u uint64) {
	pad := [64]byte{}
	n := copy(pad[:], b)
	for k := n; k < 64; k++ {
		pad[k] = ' '
	}
	return masks(pad[:])
}

// escapes returns, of a block whose backslashes are bs, the bytes an
// escape's backslash escapes (the byte after it) and the backslashes that
// start an escape. carry says that the block before ended with a
// backslash that starts an escape (so this block's first byte is
// escaped), and is set for the next block.
func escapes(bs uint64, carry *uint64) (escaped, starts uint64) {
	const even = 0x5555555555555555
	bs &^= *carry // a backslash escaped from the block before starts nothing
	follows := bs<<1 | *carry
	// A run of backslashes escapes the byte after it when it is odd:
	// adding its start (on an odd bit) to the run carries past its end.
	oddStarts := bs &^ even &^ follows
	sum, c := bits.Add64(oddStarts, bs, 0)
	*carry = c
	escaped = (even ^ sum<<1) & follows
	return escaped, bs &^ escaped
}

// validEscape reports whether the escape whose backslash is b[k] is one
// JSON has, \u with four hex digits of no surrogate included.
func validEscape(b []byte, k int) bool {
	if k+1 >= len(b) {
		return false
	}
	switch b[k+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		v, ok := rawjson.Hex4(b[k:])
		return ok && (v < 0xD800 || v > 0xDFFF)
	}
	return false
}

// masksSWAR returns, for the 64 bytes b[0:64], bit masks (bit k for byte
// k) of the quotes, the backslashes, the bytes below 0x20, the bytes above
// 0x7f, the bytes / b f n r t and the bytes u (these two left 0 when there
// is no backslash), eight bytes at a time.
func masksSWAR(b []byte) (quote, bslash, ctl, high, letter, u uint64) {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	_ = b[63]
	var words [8]uint64
	for w := range 8 {
		x := binary.LittleEndian.Uint64(b[8*w:])
		h := x & hi
		low := x &^ hi // the bytes without their top bit, so that nothing borrows across them
		words[w] = x
		sh := uint(8 * w)
		quote |= gather(eq(low, '"')&^h) << sh
		bslash |= gather(eq(low, '\\')&^h) << sh
		// A byte of low is below 0x20 exactly when adding 0x60 leaves its
		// top bit clear (nothing carries out of a byte below 0x80).
		ctl |= gather(^(low+0x60*lo)&hi&^h) << sh
		high |= gather(h) << sh
	}
	if bslash == 0 {
		return quote, bslash, ctl, high, 0, 0
	}
	for w, x := range words {
		h, low := x&hi, x&^hi
		sh := uint(8 * w)
		var l uint64
		for _, c := range []byte("/bfnrt") {
			l |= eq(low, c)
		}
		letter |= gather(l&^h) << sh
		u |= gather(eq(low, 'u')&^h) << sh
	}
	return quote, bslash, ctl, high, letter, u
}

// eq returns the top bits of the bytes of low (each below 0x80) equal to
// c.
func eq(low uint64, c byte) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	v := low ^ (uint64(c) * lo)
	// A byte of v is zero exactly when adding 0x7f leaves its top bit
	// clear (nothing carries out of a byte below 0x80).
	return ^((v + 0x7f*lo) | v) & hi
}

// gather packs the top bits of the eight bytes of m (all its other bits
// clear) into the eight low bits of the result, byte k's into bit k.
func gather(m uint64) uint64 { return (m >> 7) * 0x0102040810204080 >> 56 }
