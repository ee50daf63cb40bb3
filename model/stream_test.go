package model

import (
	"strings"
	"testing"
)

// AppendLine indents as Indent does at every depth, the deep ones (past
// its one-copy run of spaces) included.
func TestAppendLineIndentsTwoSpacesALevel(t *testing.T) {
	for depth := range 80 {
		got := string(AppendLine([]byte("x"), depth))
		if want := "x\n" + strings.Repeat("  ", depth); got != want {
			t.Fatalf("depth %d: %q, want %q", depth, got, want)
		}
	}
}
