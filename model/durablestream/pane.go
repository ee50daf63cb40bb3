package durablestream

import (
	"strconv"
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// The panes' views (model.PaneViews). The TUI redraws its state and
// projection panes at every cursor move, and View and Render build every
// entry the stream has kept: decisions, finished intents, the ledger. The
// append-only lists are read by index and the maps back from their newest
// entry, so PaneView builds only the last n entries of each list;
// PaneRender writes the CHECKPOINTS document from its start and stops at
// max bytes.

var _ model.PaneViews = format{}

// PaneView is View with every list (pending checkpoints, active intents,
// decided checkpoints, finished intents, the ledger's epics, tasks,
// directives, assumptions, learnings and handoffs, sessions) cut to its
// last n entries, as a model.Window numbered as in the whole list, when it
// is longer than n. It builds the entries it shows, and no others.
func (format) PaneView(st model.State, n int) model.Object {
	s, ok := st.(*state)
	if !ok || s == nil {
		if st == nil {
			return nil
		}
		return st.View()
	}
	n = max(n, 0)
	l, ver := s.lin, s.n
	l.mu.Lock()
	defer l.mu.Unlock()
	pend := mapWindow(&l.pending, ver, int(s.lens.nPending), n, (*checkpoint).object)
	act := mapWindow(&l.active, ver, int(s.lens.nActive), n, (*intent).object)
	epics := mapWindow(&l.epics, ver, l.epics.count(ver), n, (*ledgerItem).epicObject)
	tasks := mapWindow(&l.tasks, ver, l.tasks.count(ver), n, (*ledgerItem).taskObject)
	sess := mapWindow(&l.sessions, ver, l.sessions.count(ver), n, (*session).object)
	dec := listWindow(l.decided[:s.lens.nDecided], n, (*decision).object)
	fin := listWindow(l.finished[:s.lens.nFinished], n, (*finished).object)
	directives := listWindow(l.directives[:s.lens.nDirectives], n, (*directive).object)
	assumptions := listWindow(l.assumptions[:s.lens.nAssumptions], n, (*assumption).object)
	learnings := listWindow(l.learnings[:s.lens.nLearnings], n, (*learning).object)
	handoffs := listWindow(l.handoffs[:s.lens.nHandoffs], n, (*handoff).object)
	return s.view(pend, act, dec, fin, epics, tasks, directives, assumptions, learnings, handoffs, sess)
}

// listWindow returns the objects of list, whole when it is at most n
// long, else its last n as a model.Window.
func listWindow[T any](list []T, n int, object func(*T) model.Object) any {
	return model.WindowOf(len(list), n, func(i int) any { return object(&list[i]) })
}

// listAll returns the objects of list.
func listAll[T any](list []T, object func(*T) model.Object) []any {
	out := make([]any, len(list))
	for i := range list {
		out[i] = object(&list[i])
	}
	return out
}

// mapAll returns the objects of the values of m as of version ver.
func mapAll[V any](m *omap[V], ver int64, object func(V) model.Object) []any {
	out := []any{}
	m.each(ver, func(v V) { out = append(out, object(v)) })
	return out
}

// mapWindow returns the objects of the total values of m as of version
// ver, whole when there are at most n, else the last n as a model.Window.
func mapWindow[V any](m *omap[V], ver int64, total, n int, object func(V) model.Object) any {
	if total <= n {
		return mapAll(m, ver, object)
	}
	vals := m.tail(ver, n)
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = object(v)
	}
	return model.Window{Items: out, From: total - len(vals), Total: total}
}

// PaneRender is Render when the CHECKPOINTS document is at most max bytes.
// Otherwise it is the start of the document, up to the last entry (a
// pending checkpoint, an active intent, an epic, a task or a decision)
// that fits in max bytes, followed by a line saying how many entries are
// left out. It writes only the entries it shows.
func (format) PaneRender(st model.State, doc string, max int) string {
	s, ok := st.(*state)
	if !ok || s == nil || doc != DocCheckpoints {
		return ""
	}
	s.lin.mu.Lock()
	defer s.lin.mu.Unlock()
	p := page{max: max}
	s.render(&p)
	left := s.entries() - p.shown
	if !p.full || left == 0 {
		if p.full { // only the lines after the last entry are left out
			p = page{max: -1}
			s.render(&p)
		}
		return p.b.String()
	}
	p.b.WriteString(moreNote(left))
	return p.b.String()
}

// moreNote is the line PaneRender ends a cut document with.
func moreNote(n int) string {
	return "\n*… " + count(n, "more entry", "more entries") + " not shown (rewind render prints the whole document)*\n"
}

// count returns n with thousands separators and the noun in the right
// number: "1 more entry", "12,345 more entries".
func count(n int, one, many string) string {
	d := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 && d[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if n == 1 {
		return b.String() + " " + one
	}
	return b.String() + " " + many
}
