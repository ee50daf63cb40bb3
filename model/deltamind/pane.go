package deltamind

import (
	"strconv"
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// The panes' views (model.PaneViews). The TUI redraws its state and
// projection panes at every cursor move, and View and Render build every
// item of the state: ~720 ms and ~320 ms (25 MB of Markdown) at the end of
// a 250 MB journal. The items are kept in creation order with random
// access, so PaneView builds only the last n of each list; PaneRender
// writes the projection from its start and stops at max bytes, only
// counting the items it leaves out.

var _ model.PaneViews = format{}

// PaneView is View with items, rejected and disagreements cut to their
// last n entries, as a model.Window numbered as in the whole list, when
// they are longer than n. It builds the entries it shows, and no others.
func (format) PaneView(st model.State, n int) model.Object {
	s, ok := st.(*state)
	if !ok || s == nil {
		if st == nil {
			return nil
		}
		return st.View()
	}
	n = max(n, 0)
	l := s.lin
	// Each list's entries are read back in one read of the file where
	// they are (the last ones are near each other).
	d, e, f := l.decoder(0), l.decoder(0), l.decoder(0)
	l.mu.Lock()
	d.cover(l.itemLocs(max(s.nItems-int32(n), 0), s.nItems, s.seq, nil))
	e.cover(l.recLocs(false, max(int(s.nRejected)-n, 0), int(s.nRejected), nil))
	f.cover(l.recLocs(true, max(int(s.nDisagreements)-n, 0), int(s.nDisagreements), nil))
	l.mu.Unlock()
	items := model.WindowOf(int(s.nItems), n, func(i int) any {
		it := d.item(int32(i), s.seq)
		return it.object()
	})
	rej := model.WindowOf(int(s.nRejected), n, func(i int) any { return e.entry(l.rec(false, i), false) })
	dis := model.WindowOf(int(s.nDisagreements), n, func(i int) any { return f.entry(l.rec(true, i), true) })
	return s.view(items, rej, dis)
}

// PaneRender is Render when projection doc is at most max bytes. Otherwise
// it is the start of the projection, up to the last item that fits in max
// bytes (cut after an item line), followed by a line saying how many items
// are left out. It walks the items from the first until it has the ones it
// shows; the lineage counts the others.
func (format) PaneRender(st model.State, doc string, max int) string {
	s, ok := st.(*state)
	if !ok || s == nil {
		return ""
	}
	l := s.lin
	head, secs, ok := s.plan(doc)
	if !ok {
		return ""
	}
	// How many items each section has, from the lineage's counts by class.
	l.mu.Lock()
	byClass := l.countsAt(s.v)
	l.mu.Unlock()
	counts := make([]int, len(secs))
	for c := range nClasses {
		if byClass[c] == 0 {
			continue
		}
		for k := range secs {
			if secs[k].keep(uint8(c)) {
				counts[k] += int(byClass[c])
			}
		}
	}
	var b strings.Builder
	lines := 0
	add := func(line string) {
		if lines > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		lines++
	}
	for _, h := range head {
		add(h)
	}
	d := l.decoder(paneWin)
	var classes []uint8
	full := false
	shown, total := 0, 0
	for k, sec := range secs {
		total += counts[k]
		if full || counts[k] == 0 {
			continue
		}
		open := false
		found := 0
	walk:
		for from := int32(0); from < s.nItems && found < counts[k]; from += classBatch {
			classes = l.classes(from, min(from+classBatch, s.nItems), s.seq, classes[:0])
			for j, c := range classes {
				if found == counts[k] {
					break walk
				}
				if !sec.keep(c) {
					continue
				}
				found++
				it := d.item(from+int32(j), s.seq)
				line := sec.line(&it)
				extra := len(line) + 1
				if !open {
					extra += len(sec.title) + 2
				}
				if b.Len()+extra > max {
					full = true
					break walk
				}
				if !open {
					add(sec.title)
					add("")
					open = true
				}
				add(line)
				shown++
			}
		}
		if open && !full {
			add("")
		}
	}
	if !full {
		return b.String()
	}
	if lines > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(moreNote(total-shown, doc))
	return b.String()
}

// moreNote is the line PaneRender ends a cut projection with.
func moreNote(n int, doc string) string {
	one, many := "item", "items"
	switch doc {
	case DocDecisions:
		one, many = "decision", "decisions"
	case DocTasks:
		one, many = "task", "tasks"
	case DocConstraints:
		one, many = "constraint", "constraints"
	}
	return "*… " + count(n, "more "+one, "more "+many) + " not shown (rewind render prints the whole document)*"
}

// count returns n with thousands separators and the noun in the right
// number: "1 more item", "12,345 more items".
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
