package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// updateWithState is m.Update(msg), followed, when the command it returns
// gives a stateMsg (the state asked for at a new size or position), by
// m.Update of that message, without a program: the screen then shows it.
func updateWithState(m tea.Model, msg tea.Msg) tea.Model {
	m, cmd := m.Update(msg)
	if cmd == nil {
		return m
	}
	if st, ok := cmd().(stateMsg); ok {
		m, _ = m.Update(st)
	}
	return m
}

// TestTinyTerminal shrinks the terminal to a few cells and back, scrolling
// the projection on the way: the screen is drawn at every size (no panic,
// as when the projection's pane had a negative height), no wider than the
// terminal once the panes' borders fit (6 columns: two panes side by
// side), and whole again once the terminal is large.
func TestTinyTerminal(t *testing.T) {
	var m tea.Model = openModel(t, deltaCompleted)
	update := func(msg tea.Msg) { m = updateWithState(m, msg) }
	screen := func(w, h int) string {
		t.Helper()
		v := ansi.Strip(m.View().Content)
		for i, l := range strings.Split(v, "\n") {
			if lw := ansi.StringWidth(l); lw > max(w, 6) {
				t.Fatalf("%dx%d: line %d is %d columns wide: %q", w, h, i, lw, l)
			}
		}
		return v
	}
	update(tea.WindowSizeMsg{Width: 100, Height: 30})
	update(keyMsg("tab"))
	update(keyMsg("tab")) // the projection
	for _, sz := range [][2]int{{60, 20}, {20, 8}, {10, 5}, {5, 4}, {3, 3}, {2, 2}, {1, 1}, {7, 1}, {1, 9}} {
		update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		screen(sz[0], sz[1])
		for _, k := range []string{"j", "f", "G", "k", "g"} {
			update(keyMsg(k))
			screen(sz[0], sz[1])
		}
	}
	update(tea.WindowSizeMsg{Width: 100, Height: 30})
	s := screen(100, 30)
	// g, the last key, went to the first event.
	for _, want := range []string{"State after #1 ", "Projection · CONVERSATION", "RUN_START"} {
		if !strings.Contains(s, want) {
			t.Errorf("back at 100x30 the screen lacks %q:\n%s", want, s)
		}
	}
}

// TestBoxRowsExactWidth holds a pane to its size whatever its content:
// tabs, wide characters, lines longer than the pane, colour, fewer or more
// lines than it has rows. panes joins the boxes row by row, so a row one
// column off would shift every pane to its right.
func TestBoxRowsExactWidth(t *testing.T) {
	m := openModel(t, deltaCompleted)
	content := strings.Join([]string{
		"a\ttab\t\tend",
		"漢字とかな、幅の広い文字がペインより長く続く行",
		strings.Repeat("long ", 30),
		"\x1b[31mred\x1b[0m text",
		"",
	}, "\n")
	for _, sz := range [][2]int{{40, 10}, {24, 4}, {7, 3}, {3, 3}} {
		for _, focused := range []bool{false, true} {
			rows := m.box("a title longer than some panes", content, sz[0], sz[1], focused)
			if len(rows) != sz[1] {
				t.Errorf("%dx%d: %d rows", sz[0], sz[1], len(rows))
			}
			for i, r := range rows {
				if w := ansi.StringWidth(r); w != sz[0] || strings.ContainsRune(r, '\t') {
					t.Errorf("%dx%d: row %d is %d columns wide: %q", sz[0], sz[1], i, w, r)
				}
			}
		}
	}
}
