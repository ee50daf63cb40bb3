// Package skel holds what the index's skeletons (journal) and DeltaMind's
// layouts (model/deltamind) share: a line is cut at its JSON scalars, and
// what lies between two of them, a literal, is compared with the bytes of
// the next lines a word at a time.
package skel

import "encoding/binary"

// Kind is the kind of a JSON scalar, or what a literal is followed by.
type Kind uint8

const (
	None   Kind = iota // not a scalar's first byte; a trie's root
	String             // a string
	Number             // a number
	True               // true
	False              // false
	Null               // null
	End                // nothing: the literal closes the line's object
)

// KindOf is the kind of scalar each byte starts (None for the others).
var KindOf = func() (t [256]Kind) {
	t['"'] = String
	t['-'] = Number
	for c := '0'; c <= '9'; c++ {
		t[c] = Number
	}
	t['t'], t['f'], t['n'] = True, False, Null
	return t
}()

// A Lit is a literal: its first eight bytes, its last eight when it has
// more than eight, and the mask of the first word's bytes (all of them
// from eight bytes on), so that one of up to 16 bytes is compared as one
// or two words. Safe for concurrent reads.
type Lit struct {
	w0, w1, mask uint64
	s            string
}

// NewLit returns the literal s.
func NewLit(s string) Lit {
	l := Lit{s: s, mask: ^uint64(0)}
	var w [8]byte
	copy(w[:], s)
	l.w0 = binary.LittleEndian.Uint64(w[:])
	if len(s) < 8 {
		l.mask = 1<<(8*len(s)) - 1
	} else {
		l.w1 = binary.LittleEndian.Uint64([]byte(s[len(s)-8:]))
	}
	return l
}

// String returns the literal's bytes.
func (l *Lit) String() string { return l.s }

// Len returns the literal's length in bytes.
func (l *Lit) Len() int { return len(l.s) }

// At reports whether b[i:j] is the literal (j is i plus its length).
func (l *Lit) At(b []byte, i, j int) bool {
	if len(b)-i < 8 || j > len(b) || len(l.s) > 16 {
		return j <= len(b) && l.s == string(b[i:j])
	}
	if binary.LittleEndian.Uint64(b[i:])&l.mask != l.w0 {
		return false
	}
	return len(l.s) <= 8 || binary.LittleEndian.Uint64(b[j-8:]) == l.w1
}
