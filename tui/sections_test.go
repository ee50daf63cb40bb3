package tui

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
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

// RenderTop gives the top of what Render gives, at least as many lines as
// asked for and no more sections than it needs; once the rest is in the
// cache, it gives it all. Sections rendered on several goroutines land in
// their places.
func TestRenderTopIsTheTopOfRender(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("# Durable Stream\n\n> Events: 40\n\n## Pending checkpoints\n")
	for i := range 40 {
		fmt.Fprintf(&doc, "\n### cp_%d\n\nShip build %d?\n\n- Options:\n  - `yes`: Yes\n  - `no`: No\n- Requested by: agent-%d\n", i, i, i)
	}
	checkTop(t, doc.String(), 20)
}

// A long list, one section (DeltaMind's goals), gives as much of its top
// as fills the pane, as the whole render shows it: tight, numbered,
// nested, or loose from a blank line on between two items.
func TestRenderTopOfALongList(t *testing.T) {
	list := func(item func(i int) string) string {
		var doc strings.Builder
		doc.WriteString("# Active State\n\n> Sequence: 9 | Items: 300\n\n## Goals\n\n")
		for i := range 300 {
			doc.WriteString(item(i))
		}
		return doc.String() + "\n## Decisions\n\n- **d-1**: use Redis\n"
	}
	tight := list(func(i int) string { return fmt.Sprintf("- **g-%d**: a REST API using Express [certain]\n", i) })
	for name, doc := range map[string]string{
		"tight":    tight,
		"numbered": list(func(i int) string { return fmt.Sprintf("%d. goal %d\n   more about it\n", i+1, i) }),
		"nested":   list(func(i int) string { return fmt.Sprintf("* goal %d\n  - sub\n  - sub\n", i) }),
		"loose":    strings.Replace(tight, "- **g-250**", "\n- **g-250**", 1),
	} {
		t.Run(name, func(t *testing.T) { checkTop(t, doc, 20) })
	}
}

// Once the sections rendered and those being rendered fill the pane, the
// next is left for later, even when a CPU is free to render it beside
// them: the first screen of Durable Stream waited for its tasks, a long
// list below the epics that already filled the pane. (The epics are the
// fifth section: with two, three or four renderers, the tasks came in
// their batch.)
func TestRenderTopStopsAtThePane(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("# Durable Stream\n\n> Events: 2154 | Pending: 0\n\n## Pending checkpoints\n\nNone.\n\n## Active intents\n\nNone.\n\n## Ledger\n\n### Epics\n\n")
	for i := range 15 {
		fmt.Fprintf(&doc, "- **epic_%d**: Token refresh flow\n  - completed: Token refresh flow done\n", i)
	}
	tasks := "### Tasks\n"
	doc.WriteString("\n" + tasks + "\n")
	for i := range 40 {
		fmt.Fprintf(&doc, "- **task_%d**: Write migration\n  - completed, epic epic_%d\n", i, i/3)
	}
	checkTop(t, doc.String(), 20)
	r := newSectionRenderer(render.NewMarkdown(true))
	if _, rest, err := r.RenderTop(doc.String(), 70, 20); err != nil || !rest {
		t.Fatalf("RenderTop: rest %v, err %v; want the tasks left out", rest, err)
	}
	for sec := range r.cache {
		if strings.HasPrefix(sec, tasks) {
			t.Fatalf("the tasks were rendered for a pane the epics fill:\n%s", sec)
		}
	}
}

// checkTop checks that RenderTop(doc, 70, lines) is the top of Render's
// whole, lines or more and not half of it; that the rest rendered after it
// is the whole; and that with every section cached it is the whole.
func checkTop(t *testing.T, doc string, lines int) {
	t.Helper()
	md := render.NewMarkdown(true)
	whole, err := newSectionRenderer(md).Render(doc, 70)
	if err != nil {
		t.Fatal(err)
	}
	r := newSectionRenderer(md)
	top, rest, err := r.RenderTop(doc, 70, lines)
	if err != nil {
		t.Fatal(err)
	}
	if !rest {
		t.Fatalf("the document should not fit %d lines", lines)
	}
	tl, wl := strings.Split(top, "\n"), strings.Split(whole, "\n")
	if len(tl) < lines || len(tl) > len(wl)/2 {
		t.Fatalf("the top has %d lines of the whole's %d, want %d and not half of it", len(tl), len(wl), lines)
	}
	for i := range tl {
		if ansi.Strip(tl[i]) != ansi.Strip(wl[i]) {
			t.Fatalf("line %d of the top is %q, the whole has %q", i, ansi.Strip(tl[i]), ansi.Strip(wl[i]))
		}
	}
	if got, err := r.Render(doc, 70); err != nil || got != whole {
		t.Fatalf("the rest rendered after the top differs from one render (err %v)", err)
	}
	again, rest, err := r.RenderTop(doc, 70, lines)
	if err != nil || rest || again != whole {
		t.Fatalf("with every section cached, RenderTop should give the whole (rest %v, err %v)", rest, err)
	}
}

// listTop cuts a list after its items-th item, outside fenced code and not
// at a thematic break, and not a list too short to be worth it.
func TestListTop(t *testing.T) {
	items := func(n int, f string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, f, i)
		}
		return b.String()
	}
	for _, c := range []struct {
		name, sec string
		want      string // "" for no cut
	}{
		{"tight", "## G\n\n" + items(30, "- g%d\n"), "## G\n\n" + items(5, "- g%d\n")},
		{"code and breaks", "## G\n\n```\n- a\n- b\n- c\n- d\n- e\n- f\n```\n\n- - -\n" + items(30, "+ g%d\n"),
			"## G\n\n```\n- a\n- b\n- c\n- d\n- e\n- f\n```\n\n- - -\n" + items(5, "+ g%d\n")},
		{"numbered", items(30, "%d) step\n"), items(5, "%d) step\n")},
		{"paragraph then list", "text\n\nmore\n\n" + items(30, "- g%d\n"), "text\n\nmore\n\n" + items(5, "- g%d\n")},
		{"loose", items(30, "- g%d\n\n"), items(5, "- g%d\n\n")},
		{"short", items(9, "- g%d\n"), ""},
		{"no list", items(60, "g%d\n"), ""},
	} {
		top, ok := listTop(c.sec, 5)
		if ok != (c.want != "") || top != c.want {
			t.Errorf("%s: listTop gave %q, %v; want %q", c.name, top, ok, c.want)
		}
	}
}

// A render that is no longer wanted stops before its next section, gives
// errStale and nothing else, and keeps what it rendered in the cache.
func TestRenderUnlessStopsWhenStale(t *testing.T) {
	var doc strings.Builder
	for i := range 12 {
		fmt.Fprintf(&doc, "## Part %d\n\nText of part %d.\n\n", i, i)
	}
	r := newSectionRenderer(render.NewMarkdown(true))
	var calls atomic.Int32 // stale is asked on both goroutines
	out, err := r.RenderUnless(doc.String(), 60, func() bool { return calls.Add(1) > 3 })
	if !errors.Is(err, errStale) || out != "" {
		t.Fatalf("a stale render gave %q, %v; want nothing and errStale", out, err)
	}
	if n := len(r.cache); n == 0 || n >= 12 {
		t.Fatalf("%d sections cached, want those rendered before it stopped", n)
	}
	whole, err := r.RenderUnless(doc.String(), 60, func() bool { return false })
	if err != nil || !strings.Contains(ansi.Strip(whole), "Text of part 11.") {
		t.Fatalf("a wanted render should give every section (err %v)", err)
	}
}
