package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
	"github.com/rewind-tui/rewind/replay"
)

// A list of a thousand messages shows its first and last items and the one
// that changed in the middle, with lines counting what is left out, so the
// state pane stays small and shows where a log grows.
func TestTreeShowsEndsOfLongLists(t *testing.T) {
	items := make([]any, 1000)
	for i := range items {
		items[i] = model.Object{{Key: "role", Value: "tool"}}
	}
	root := model.Object{{Key: "messages", Value: items}}
	tr := newTree(render.NewStyles(true))
	tr.setSize(80, 2000)
	tr.setState(root, replay.ChangedPaths(model.Object{}, model.Object{}))
	tr.changed = map[string]replay.Op{".messages": replay.Changed, ".messages[500]": replay.Changed, ".messages[999]": replay.Added}
	tr.rebuild()
	view := ansi.Strip(tr.view(false))
	for _, want := range []string{"[0]", "[19]", "… 480 items not shown", "[500]", "… 299 items not shown", "[800]", "+ [999]"} {
		if !strings.Contains(view, want) {
			t.Fatalf("tree lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "[20]") || strings.Contains(view, "[799]") {
		t.Fatalf("tree shows items it should leave out:\n%s", view)
	}
	if n := len(tr.lines); n > listHead+listTail+8 {
		t.Fatalf("%d tree lines for a 1000-item list", n)
	}
}

// The window of a list a format did not build whole is numbered as in the
// full list, after one line for the items left out.
func TestTreeShowsWindowOfList(t *testing.T) {
	items := make([]any, 200)
	for i := range items {
		items[i] = model.Object{{Key: "role", Value: "assistant"}}
	}
	root := model.Object{{Key: "messages", Value: model.Window{Items: items, From: 99800, Total: 100000}}}
	tr := newTree(render.NewStyles(true))
	tr.setSize(80, 400)
	tr.setState(root, map[string]replay.Op{".messages": replay.Changed, ".messages[99999]": replay.Added})
	view := ansi.Strip(tr.view(false))
	for _, want := range []string{"messages", "… 99800 items not shown", "[99800]", "+ [99999]"} {
		if !strings.Contains(view, want) {
			t.Fatalf("tree lacks %q:\n%s", want, view)
		}
	}
	if p := tr.lines[len(tr.lines)-2].jp; len(p) != 2 || p[1] != 99999 {
		t.Fatalf("last item's path %v, want .messages[99999]", p)
	}
}

// What a Toucher reports is Added where the state before had nothing, even
// past a window, and Changed where it had something, even left out.
func TestTouchedOps(t *testing.T) {
	prev := model.Object{
		{Key: "messages", Value: model.Window{Items: []any{"a", "b"}, From: 8, Total: 10}},
		{Key: "actions", Value: model.Object{{Key: "…", Value: "5 earlier actions not shown"}, {Key: "c9", Value: model.Object{}}}},
	}
	got := touchedOps([]replay.Path{{"messages", 10}, {"messages", 3}, {"actions", "c1", "status"}, {"actions", "c9", "status"}, {"last_seq"}}, prev)
	want := map[string]replay.Op{".messages[10]": replay.Added, ".messages[3]": replay.Changed,
		".actions.c1.status": replay.Changed, ".actions.c9.status": replay.Added, ".last_seq": replay.Added}
	for p, op := range want {
		if got[p] != op {
			t.Errorf("%s: %v, want %v", p, got[p], op)
		}
	}
	if got[".messages"] != replay.Changed || got[".actions.c1"] != replay.Changed {
		t.Errorf("ancestors not marked: %v", got)
	}
}
