package tui

import (
	"strings"
	"testing"
)

// A long projection is cut for the pane at a heading near the limit, with a
// note of how much was left out: its start for documents, its end for logs.
func TestFitDocCutsLongProjections(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 400; i++ {
		b.WriteString("## Section " + strings.Repeat("x", 3) + "\n\n" + strings.Repeat("text line\n", 20) + "\n")
	}
	doc := b.String()
	if got := fitDoc("# short\n", 1000, false); got != "# short\n" {
		t.Fatalf("a short doc changed: %q", got)
	}
	head := fitDoc(doc, 8<<10, false)
	if len(head) > 9<<10 || !strings.HasPrefix(head, "## Section") || !strings.Contains(head, "more of this projection") {
		t.Fatalf("head cut: %d bytes, ends %q", len(head), head[len(head)-120:])
	}
	if i := strings.Index(head, "*…"); !strings.HasSuffix(strings.TrimRight(head[:i], "\n"), "text line") {
		t.Fatalf("head not cut before a heading: %q", head[i-60:i])
	}
	tail := fitDoc(doc, 8<<10, true)
	if !strings.HasSuffix(tail, doc[len(doc)-200:]) || !strings.Contains(tail, "earlier in this projection") {
		t.Fatalf("tail cut lost the end or the note: %q", tail[:200])
	}
	if i := strings.Index(tail, "\n\n"); !strings.HasPrefix(tail[i+2:], "## Section") {
		t.Fatalf("tail does not start at a heading: %q", tail[:200])
	}
}
