// Package keymap declares every key rewind answers to, as bubbles
// key.Binding values with their help text, grouped by context. The keymap is
// a value handed to the UI, never a mutable global.
package keymap

import "charm.land/bubbles/v2/key"

// Global are the keys that work whatever pane has focus.
type Global struct {
	Quit, Help, Focus, FocusBack      key.Binding
	Up, Down, PageUp, PageDown        key.Binding
	First, Last, Follow               key.Binding
	Goto, GotoKey, PrevType, NextType key.Binding
	Time, Doc, Pending                key.Binding
	Approve, Reject                   key.Binding
}

// Travel are the time-travel keys: marks, diff, blame, filters, play,
// breakpoints and copy. They work whatever pane has focus.
type Travel struct {
	Mark, Jump, Diff, Blame              key.Binding
	Filter, NextMatch, PrevMatch, Search key.Binding
	HideType, ShowAll, Problems          key.Binding
	Play, Faster, Slower, Breakpoint     key.Binding
	CopyEvent, CopyPath                  key.Binding
}

// Tree are the keys of the state pane.
type Tree struct {
	Toggle, Expand, Collapse, ExpandAll, CollapseAll key.Binding
}

// Dialog are the keys of modal inputs and the decision dialog.
type Dialog struct {
	Confirm, Cancel, NextOption, PrevOption key.Binding
}

// Runs are the keys of the run picker of a .delta/ directory.
type Runs struct {
	Open, Back key.Binding
}

// Map is the whole keymap.
type Map struct {
	Global Global
	Travel Travel
	Tree   Tree
	Dialog Dialog
	Runs   Runs
}

// Default returns rewind's keys, which follow less and vim habits.
func Default() Map {
	return Map{
		Global: Global{
			Quit:      key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
			Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
			Focus:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
			FocusBack: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
			Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous event")),
			Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next event")),
			PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
			PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "f"), key.WithHelp("pgdn/f", "page down")),
			First:     key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first event")),
			Last:      key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last event, follow")),
			Follow:    key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow new events")),
			Goto:      key.NewBinding(key.WithKeys(":"), key.WithHelp(":N", "go to position N")),
			GotoKey:   key.NewBinding(key.WithKeys("#"), key.WithHelp("#V", "go to seq/id V")),
			PrevType:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous of this type")),
			NextType:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next of this type")),
			Time:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "relative/absolute time")),
			Doc:       key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "next document")),
			Pending:   key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pending decisions")),
			Approve:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve/answer")),
			Reject:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reject")),
		},
		Travel: Travel{
			Mark:       key.NewBinding(key.WithKeys("m"), key.WithHelp("m<a-z>", "mark")),
			Jump:       key.NewBinding(key.WithKeys("'"), key.WithHelp("'<a-z>", "go to mark")),
			Diff:       key.NewBinding(key.WithKeys("d"), key.WithHelp("d<a-z>/dd", "diff mark/prev")),
			Blame:      key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "blame path")),
			Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter (jq)")),
			NextMatch:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
			PrevMatch:  key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "prev match")),
			Search:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "find state (jq)")),
			HideType:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "hide type")),
			ShowAll:    key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "show types")),
			Problems:   key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "problems only")),
			Play:       key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "play/stop")),
			Faster:     key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
			Slower:     key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "slower")),
			Breakpoint: key.NewBinding(key.WithKeys("B"), key.WithHelp("B", "breakpoint (jq)")),
			CopyEvent:  key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy event")),
			CopyPath:   key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy path")),
		},
		Tree: Tree{
			Toggle:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "fold/unfold")),
			Expand:      key.NewBinding(key.WithKeys("l", "right"), key.WithHelp("l/→", "unfold")),
			Collapse:    key.NewBinding(key.WithKeys("h", "left"), key.WithHelp("h/←", "fold")),
			ExpandAll:   key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "unfold all")),
			CollapseAll: key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "fold all")),
		},
		Dialog: Dialog{
			Confirm:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
			Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
			NextOption: key.NewBinding(key.WithKeys("down", "tab"), key.WithHelp("↓", "next option")),
			PrevOption: key.NewBinding(key.WithKeys("up", "shift+tab"), key.WithHelp("↑", "previous option")),
		},
		Runs: Runs{
			Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open run")),
			Back: key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "run list")),
		},
	}
}

// ShortHelp returns the bindings of the bottom help line.
func (m Map) ShortHelp() []key.Binding {
	g := m.Global
	return []key.Binding{g.Down, g.Up, g.Last, g.Focus, m.Travel.Play, m.Travel.Filter, g.Pending, g.Approve, g.Help, g.Quit}
}

// FullHelp returns the bindings of the ? screen, in columns.
func (m Map) FullHelp() [][]key.Binding {
	g, t, tr := m.Global, m.Tree, m.Travel
	return [][]key.Binding{
		{g.Down, g.Up, g.PageDown, g.PageUp, g.First, g.Last, g.Follow},
		{g.Goto, g.GotoKey, g.PrevType, g.NextType, g.Time, g.Doc},
		{g.Focus, g.FocusBack, t.Toggle, t.Expand, t.Collapse, t.ExpandAll, t.CollapseAll},
		{g.Pending, g.Approve, g.Reject, m.Runs.Back, g.Help, g.Quit},
		{tr.Mark, tr.Jump, tr.Diff, tr.Blame, tr.CopyEvent, tr.CopyPath},
		{tr.Filter, tr.NextMatch, tr.PrevMatch, tr.Search, tr.HideType, tr.ShowAll, tr.Problems},
		{tr.Play, tr.Faster, tr.Slower, tr.Breakpoint},
	}
}
