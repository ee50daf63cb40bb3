package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rewind-tui/rewind/render"
)

// Sections are cut before headings, never inside fenced code, and join
// back to the document.
func TestSplitSections(t *testing.T) {
	doc := "# T\n\n> q\n\n## A\n\ntext\n\n````\n## not a heading\n```\n# still code\n````\n\n### B\n\n#hashtag is text\n    # indented code\n## C"
	secs := splitSections(doc)
	if strings.Join(secs, "") != doc {
		t.Fatal("sections do not join back to the document")
	}
	var starts []string
	for _, s := range secs {
		starts = append(starts, strings.SplitN(s, "\n", 2)[0])
	}
	if got := strings.Join(starts, "|"); got != "# T|## A|### B|## C" {
		t.Fatalf("sections start at %q", got)
	}
}

// Rendering section by section shows what one render shows, and a second
// render of a document with one changed section reuses the others.
func TestSectionRendererMatchesWholeRender(t *testing.T) {
	md := render.NewMarkdown(true)
	r := newSectionRenderer(md)
	doc := "# Durable Stream\n\n> Events: 1 | Pending: 2\n\n## Pending\n\n### cp_1\n\nShip it?\n\n- Options:\n  - `yes`: Yes\n- Requested by: a\n\n### cp_2\n\n```\n## code\n```\n"
	whole, err := md.Render(doc, 60)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Render(doc, 60)
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string {
		lines := strings.Split(ansi.Strip(s), "\n")
		for i := range lines {
			lines[i] = strings.TrimRight(lines[i], " ")
		}
		return strings.Join(lines, "\n")
	}
	if norm(got) != norm(whole) {
		t.Fatalf("sectioned render differs:\n%s\n---- whole:\n%s", norm(got), norm(whole))
	}
	n := len(r.cache)
	if _, err := r.Render(strings.Replace(doc, "Events: 1", "Events: 2", 1), 60); err != nil {
		t.Fatal(err)
	}
	if len(r.cache) != n+1 {
		t.Fatalf("changing one section rendered %d new sections, want 1", len(r.cache)-n)
	}
}
