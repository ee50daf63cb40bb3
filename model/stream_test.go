package model

import (
	"errors"
	"fmt"
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

// partsDoc is a format whose projection is its state's parts.
type partsDoc struct{ Format }

type docParts []string

func (docParts) View() Object       { return nil }
func (docParts) Pending() []Pending { return nil }

func (partsDoc) Render(s State, _ string) string { return strings.Join(s.(docParts), "") }
func (partsDoc) RenderParts(s State, _ string, yield func(int64, string) bool) {
	for i, p := range s.(docParts) {
		if !yield(int64(i), p) {
			return
		}
	}
}

// failAfter is a writer that takes n writes, then fails.
type failAfter struct {
	strings.Builder
	n, writes int
}

func (w *failAfter) Write(b []byte) (int, error) {
	if w.writes++; w.writes > w.n {
		return 0, errors.New("disk full")
	}
	return w.Builder.Write(b)
}

// WriteRender writes the parts of a long projection, in pieces, as Render
// joins them, and stops at the writer's first error without asking for
// more parts.
func TestWriteRenderWritesTheParts(t *testing.T) {
	var parts docParts
	for i := range 3000 {
		parts = append(parts, fmt.Sprintf("### message %d\n\n%s\n", i, strings.Repeat("x", i%97)))
	}
	f := partsDoc{}
	var whole failAfter
	whole.n = 1 << 30
	if err := WriteRender(f, parts, "DOC", &whole); err != nil || whole.String() != f.Render(parts, "DOC") {
		t.Fatalf("WriteRender: %v, %d bytes, want Render's %d", err, whole.Len(), len(f.Render(parts, "DOC")))
	}
	if whole.writes < 3 {
		t.Errorf("%d writes for %d bytes: not written in pieces", whole.writes, whole.Len())
	}
	asked := 0
	counting := partsDoc{}
	w := &failAfter{n: 1}
	err := WriteRender(countParts{counting, &asked}, parts, "DOC", w)
	if err == nil || asked == len(parts) {
		t.Errorf("after a failed write: error %v, %d of %d parts made", err, asked, len(parts))
	}
}

// countParts counts the parts RenderParts is asked for.
type countParts struct {
	partsDoc
	asked *int
}

func (c countParts) RenderParts(s State, doc string, yield func(int64, string) bool) {
	c.partsDoc.RenderParts(s, doc, func(place int64, p string) bool {
		*c.asked++
		return yield(place, p)
	})
}
