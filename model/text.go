package model

import (
	"io"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// InlineText is the longest JSON string literal (in bytes, quotes
// included) that TextOf decodes and keeps in memory; longer ones stay in the
// journal file and are read back when shown.
const InlineText = 256

// Text is a string value of a journal event that a state keeps. Short
// strings are held decoded; long ones (tool output, THOUGHT content) stay
// in the journal file as the offset and length of their JSON string literal
// and are decoded only when String is called, so a state that holds a whole
// conversation costs a few words per message instead of its text, and
// keyframes that share it cost nothing more.
//
// A Text is an immutable value, safe to copy and to use from several
// goroutines (reads use ReadAt on the event's Src).
type Text struct {
	src io.ReaderAt
	off int64  // offset of the literal's opening quote in src
	n   int32  // length of the literal, quotes included; 0 when inline
	s   string // the decoded value, when inline
}

// TextOf returns the Text of the JSON string literal lit, which must be a
// sub-slice of ev.Raw (so its offset in the file is known). A literal that
// is short, or whose event has no Src, is decoded at once. A lit that is
// not a JSON string gives the empty Text.
func TextOf(ev Event, lit []byte) Text {
	if len(lit) <= InlineText || ev.Src == nil || len(lit) > 1<<31-1 {
		s, _ := rawjson.Unquote(lit)
		return Text{s: s}
	}
	rel, ok := subOffset(ev.Raw, lit)
	if !ok || lit[0] != '"' {
		s, _ := rawjson.Unquote(lit)
		return Text{s: s}
	}
	return Text{src: ev.Src, off: ev.Off + int64(rel), n: int32(len(lit))}
}

// PlainText returns a Text that holds s.
func PlainText(s string) Text { return Text{s: s} }

// String decodes the text, reading it back from the journal when it was
// left there. A read that fails (the file was truncated or replaced under
// a state that is about to be rebuilt) gives a note saying so instead.
func (t Text) String() string {
	if t.n == 0 {
		return t.s
	}
	b := make([]byte, t.n)
	if m, err := t.src.ReadAt(b, t.off); m < len(b) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return "[text at offset " + Itoa(t.off) + " could not be read back: " + err.Error() + "]"
	}
	s, ok := rawjson.Unquote(b)
	if !ok {
		return "[text at offset " + Itoa(t.off) + " changed in the file since it was indexed]"
	}
	return s
}

// IsEmpty reports whether the text is the empty string.
func (t Text) IsEmpty() bool { return t.n == 0 && t.s == "" }

// Equal reports whether a and b are the same text, without reading either
// back when they refer to the same bytes.
func (a Text) Equal(b Text) bool {
	if a.n != 0 && b.n != 0 && a.src == b.src && a.off == b.off && a.n == b.n {
		return true
	}
	if a.n == 0 && b.n == 0 {
		return a.s == b.s
	}
	return a.String() == b.String()
}

// subOffset returns where sub starts inside b, when sub is a sub-slice of b.
func subOffset(b, sub []byte) (int, bool) {
	if len(sub) == 0 || len(b) == 0 {
		return 0, false
	}
	start := cap(b) - cap(sub)
	if start < 0 || start+len(sub) > len(b) || &b[start] != &sub[0] {
		return 0, false
	}
	return start, true
}
