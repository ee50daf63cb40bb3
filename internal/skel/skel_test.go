package skel

import (
	"strings"
	"testing"
)

// A literal is found exactly where the bytes are its own, at every length
// (the one-word, two-word and longer compares) and at the end of the
// input, where fewer than eight bytes are left.
func TestLitAtMatchesItsBytesOnly(t *testing.T) {
	for n := 1; n <= 40; n++ {
		s := strings.Repeat("x", n-1) + `"`
		l := NewLit(s)
		for _, tc := range []struct {
			b    string
			i    int
			want bool
		}{
			{s, 0, true},
			{"ab" + s + "cdefghijkl", 2, true},
			{"ab" + s, 2, true},
			{"ab" + s[:n-1] + "y" + "cdefghijkl", 2, false},
			{"ab" + "y" + s[1:] + "cdefghijkl", 2, false},
			{"ab" + s[:n-1], 2, false}, // cut short
		} {
			if got := l.At([]byte(tc.b), tc.i, tc.i+l.Len()); got != tc.want {
				t.Errorf("NewLit(%q).At(%q, %d) = %v, want %v", s, tc.b, tc.i, got, tc.want)
			}
		}
		// A byte changed anywhere in the literal: each word compared
		// covers its bytes.
		for k := range n {
			b := []byte("ab" + s + "cdefghijkl")
			b[2+k] = 'y'
			if l.At(b, 2, 2+n) {
				t.Errorf("NewLit(%q).At(%q, 2) = true", s, b)
			}
		}
	}
}
