package deltaengine

import (
	"strconv"
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// The panes' views (model.PaneViews). The TUI redraws its state and
// projection panes at every cursor move, and View and Render read the whole
// conversation back from the journal: ~1 s each at the end of 250 MB. The
// panes show the end of the conversation, so PaneView and PaneRender walk
// the log back from the state's end and read only the events they show:
// their cost depends on n and max, not on the journal's length.

var (
	_ model.PaneViews = format{}
	_ model.LogDocs   = format{}
)

// LogDoc reports that the CONVERSATION projection grows at its end.
func (format) LogDoc(doc string) bool { return doc == Doc }

// PaneView is View with messages and seq_problems cut to their last n items
// (a model.Window numbered as in the whole list) and actions cut to their
// last n members after a "…" member saying how many were left out, when
// they are longer than n. It decodes the events of the messages and actions
// it shows, and no others.
func (format) PaneView(s model.State, n int) model.Object {
	st, ok := s.(*state)
	switch {
	case !ok && s != nil:
		return s.View()
	case st == nil:
		st = Format.Init().(*state)
	}
	n = max(n, 0)
	var msgs any = []any{}
	actions := model.Object{}
	if st.log != nil {
		sn := st.log.snapshot(st.nLog)
		// Messages are read forwards from the first one shown, a block at
		// a time; actions jump back to their requests, one event a time.
		// Both share the action events they decode.
		some := map[int]*actEvent{}
		seqr, lookr := sn.keepingReader(readBlock, some), sn.keepingReader(0, some)
		defer seqr.release()
		defer lookr.release()

		k := min(n, st.msgs)
		items := make([]any, 0, k)
		for _, i := range sn.last(k, entry.isMessage) {
			items = append(items, seqr.message(i).object())
		}
		msgs = items
		if st.msgs > k {
			msgs = model.Window{Items: items, From: st.msgs - k, Total: st.msgs}
		}

		k = min(n, st.acts)
		actions = make(model.Object, 0, k+1)
		if st.acts > k {
			actions = append(actions, model.Field{Key: "…", Value: count(st.acts-k, "earlier action", "earlier actions") + " not shown (rewind state prints them all)"})
		}
		for _, i := range sn.last(k, func(e entry) bool { return e.has(fFirst) }) {
			a, _ := lookr.action(lookr.info(i).id)
			actions = append(actions, model.Field{Key: a.id, Value: a.object()})
		}
	}
	var problems any
	if total := st.x.seqProblems.Len(); total > n {
		items := make([]any, 0, n)
		if n > 0 {
			it := st.x.seqProblems.Iterator()
			for it.Seek(total - n); !it.Done(); {
				_, p := it.Next()
				items = append(items, p)
			}
		}
		problems = model.Window{Items: items, From: total - n, Total: total}
	} else {
		problems = st.problems()
	}
	return st.view(msgs, actions, problems)
}

// last returns the indexes, in order, of the last k entries of the
// snapshot for which keep is true. It reads the entries back from the
// end, without the events.
func (s *snap) last(k int, keep func(entry) bool) []int {
	out := make([]int, k)
	for i := s.n - 1; i >= 0 && k > 0; i-- {
		if keep(s.get(i)) {
			k--
			out[k] = i
		}
	}
	return out[k:]
}

// PaneRender is Render when the CONVERSATION projection is at most max
// bytes. Otherwise it is the projection's header (what Render writes before
// the messages), a line saying how many messages are left out, and the
// last messages as Render writes them, as many as fit in max bytes (at
// least one). It renders the messages back from the end and stops once
// max bytes are done, so its cost does not grow with the conversation.
func (format) PaneRender(s model.State, doc string, max int) string {
	st, ok := s.(*state)
	if !ok || st == nil || doc != Doc {
		return ""
	}
	var head strings.Builder
	writeHeader(&head, st)
	if st.log == nil || st.msgs == 0 {
		return head.String()
	}
	sn := st.log.snapshot(st.nLog)
	r := sn.keepingReader(0, nil) // back from the end: one event at a time
	defer r.release()

	var parts []string // the messages rendered, last first
	used := head.Len()
	left := st.msgs // messages not rendered
	show := 1       // how many of parts fit in max with the note, at least one
	for i := st.nLog - 1; i >= 0 && left > 0; i-- {
		if !sn.get(i).isMessage() {
			continue
		}
		var b strings.Builder
		writeMessage(&b, r, r, i)
		if len(parts) > 0 && used+b.Len() > max {
			break
		}
		parts = append(parts, b.String())
		used += b.Len()
		left--
		if used+len(earlierNote(left)) <= max {
			show = len(parts)
		}
	}
	if left == 0 {
		// All of it fits (or it is one message longer than max): Render.
		show = len(parts)
	}
	var out strings.Builder
	out.Grow(used + 128)
	out.WriteString(head.String())
	if earlier := st.msgs - show; earlier > 0 {
		out.WriteString(earlierNote(earlier))
	}
	for k := show - 1; k >= 0; k-- {
		out.WriteString(parts[k])
	}
	return out.String()
}

// earlierNote is the line PaneRender writes in place of n earlier messages
// ("" for none).
func earlierNote(n int) string {
	if n == 0 {
		return ""
	}
	return "\n*… " + count(n, "earlier message", "earlier messages") + " not shown (`rewind render` prints the whole conversation)*\n"
}

// count returns n with thousands separators and the noun in the right
// number: "1 earlier action", "12,345 earlier actions".
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
