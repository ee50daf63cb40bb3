package model

// PaneViews may be implemented by a Format whose states grow with the
// journal (a Delta Engine conversation keeps every message). The TUI's
// state and projection panes redraw at every cursor move; with these they
// cost the same at event 10 and at event 10 million, while `rewind state`
// and `rewind render` still print everything through View and Render.
type PaneViews interface {
	// PaneView is View with every list that grows with the journal cut to
	// its last n items, as a Window, and every such map cut to its last n
	// members after a "…" member saying how many were left out.
	PaneView(s State, n int) Object
	// PaneRender is Render(s, doc) when that is at most max bytes, else
	// about its last max bytes, starting at an entry, after a line saying
	// what was left out.
	PaneRender(s State, doc string, max int) string
}

// Window is part of a long JSON array: Items are the array's items From to
// From+len(Items)-1 of Total. PaneView returns it for lists whose leading
// items the pane leaves out; it marshals as its items.
type Window struct {
	Items []any
	From  int
	Total int
}

// MarshalJSON writes the items the window holds.
func (w Window) MarshalJSON() ([]byte, error) { return marshalValue(w.Items) }

// PaneStateJSON is StateJSON with f's PaneView when f implements PaneViews
// (n items per long list), its "pending" cut likewise to the last n items
// as a Window when it is longer; and StateJSON otherwise. The pane's state
// is built at every cursor move, twice (the state before it, for what the
// event changed): at the end of 1 GB of Durable Stream, 1,278 pending
// checkpoints built whole were about a quarter of what a move allocated.
func PaneStateJSON(f Format, s State, at, n int) Object {
	pv, ok := f.(PaneViews)
	if !ok {
		return StateJSON(f, s, at)
	}
	p := s.Pending()
	pending := WindowOf(len(p), n, func(i int) any { return p[i].Object() })
	return append(head(f, at, pending), pv.PaneView(s, n)...)
}

// WindowOf returns the list of total items that get(i) builds (i from 0),
// whole when total is at most n, else only its last n as a Window numbered
// as in the whole list (n < 0 counts as 0): a PaneView's long list, which
// builds the items it shows and no others.
func WindowOf(total, n int, get func(i int) any) any {
	k := min(max(n, 0), total)
	out := make([]any, 0, k)
	for i := total - k; i < total; i++ {
		out = append(out, get(i))
	}
	if k == total {
		return out
	}
	return Window{Items: out, From: total - k, Total: total}
}
