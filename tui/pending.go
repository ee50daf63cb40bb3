package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// pendingList is the overlay that lists every decision the journal still
// waits on, oldest first, with how long each has waited.
type pendingList struct {
	items []model.Pending
	runs  []string // for a .delta/ directory: the run directory of each item
	sel   int
	now   time.Time
	// unknown, when not "", says why the items are not known yet (the
	// journal is still being indexed) instead of "nothing is waiting".
	unknown string
}

// allPendingMsg is sent with the pending items of every run of a .delta/
// directory.
type allPendingMsg struct {
	items []model.Pending
	runs  []string
}

// allRunsPending folds every run of the .delta/ directory (off the UI
// goroutine) and lists their pending items, oldest first.
func (m *Model) allRunsPending() tea.Cmd {
	dir, open := m.target.DeltaDir, m.o.Open
	if open == nil {
		return nil
	}
	return func() tea.Msg {
		items, _ := app.PendingOfRuns(dir, open) // unreadable runs are left out
		var out allPendingMsg
		for _, it := range items {
			out.items, out.runs = append(out.items, it.Pending), append(out.runs, it.Run)
		}
		return out
	}
}

// fill shows the pending items of every run (msg) in p, which showed those
// of run cur (the run directory shown, "" when none) or of every run: the
// cursor stays on the item it was on, not on the place in the list, so
// that a key pressed as the list fills in acts on the item the user saw.
func (p *pendingList) fill(msg allPendingMsg, cur string) {
	var id string
	run, at := cur, -1
	if p.sel < len(p.items) {
		id, at = p.items[p.sel].ID, p.items[p.sel].At
		if p.runs != nil {
			run = p.runs[p.sel]
		}
	}
	p.items, p.runs, p.sel = msg.items, msg.runs, 0
	for i, it := range msg.items {
		if at >= 0 && it.ID == id && it.At == at && msg.runs[i] == run {
			p.sel = i
			break
		}
	}
}

func newPendingList(_ render.Styles, items []model.Pending, now time.Time) *pendingList {
	return &pendingList{items: items, now: now}
}

func waited(p model.Pending, now time.Time) string {
	t := model.ParseTime(p.RequestedAt)
	if t.IsZero() {
		return "?"
	}
	d := now.Sub(t).Round(time.Second)
	if d < 0 {
		return "0s"
	}
	return d.String()
}

func (p *pendingList) view(st render.Styles, w, h int) string {
	inner := w - 10
	if inner < 40 {
		inner = w - 4
	}
	var b strings.Builder
	if p.unknown != "" {
		b.WriteString(st.DialogTitle.Render("Pending decisions") + "\n")
		b.WriteString(st.Dim.Render("esc: close") + "\n\n")
		b.WriteString(st.Dim.Render(p.unknown))
		return st.Dialog.Render(b.String())
	}
	b.WriteString(st.DialogTitle.Render(fmt.Sprintf("Pending decisions (%d)", len(p.items))) + "\n")
	b.WriteString(st.Dim.Render("enter: jump · a: approve/answer · r: reject · esc: close") + "\n\n")
	if len(p.items) == 0 {
		b.WriteString(st.Dim.Render("Nothing is waiting for a decision."))
	}
	for i, it := range p.items {
		if i > h-8 {
			b.WriteString(st.Dim.Render(fmt.Sprintf("… %d more", len(p.items)-i)))
			break
		}
		line := fmt.Sprintf("#%-5d %-10s %-26s waited %-8s %s", it.At, render.Line(it.Kind), render.Fit(render.Line(it.ID), 26), waited(it, p.now), render.Line(firstLine(it.Prompt, 400)))
		if p.runs != nil {
			line = render.Fit(render.Line(filepath.Base(p.runs[i])), 22) + " " + line
		}
		line = render.Fit(line, inner)
		if i == p.sel {
			line = st.OptionActive.Render(line)
		} else {
			line = st.Option.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return st.Dialog.Render(strings.TrimRight(b.String(), "\n"))
}

func (m Model) pendingKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	g, d := m.keys.Global, m.keys.Dialog
	p := m.pend
	switch {
	case key.Matches(msg, d.Cancel), key.Matches(msg, g.Pending), key.Matches(msg, g.Quit):
		m.pend = nil
	case key.Matches(msg, g.Down):
		if p.sel < len(p.items)-1 {
			p.sel++
		}
	case key.Matches(msg, g.Up):
		if p.sel > 0 {
			p.sel--
		}
	case key.Matches(msg, d.Confirm):
		if p.sel < len(p.items) {
			it := p.items[p.sel]
			m.pend = nil
			if cmd := m.otherRun(p, p.sel, openedMsg{at: it.At}); cmd != nil {
				return m, cmd
			}
			m.tl.selectEvent(it.At)
			return m, m.moved()
		}
	case key.Matches(msg, g.Approve), key.Matches(msg, g.Reject):
		if p.sel < len(p.items) {
			it := p.items[p.sel]
			m.pend = nil
			approve := key.Matches(msg, g.Approve)
			if cmd := m.otherRun(p, p.sel, openedMsg{at: it.At, decide: &it, approve: approve}); cmd != nil {
				return m, cmd
			}
			return m.openDialog(approve, &it)
		}
	}
	return m, nil
}

// otherRun returns the command that opens the run of item i of p when it
// is another run of the .delta/ directory than the one shown (so that jumps
// and decisions act on the right journal), and nil when it is this one.
func (m *Model) otherRun(p *pendingList, i int, then openedMsg) tea.Cmd {
	if p.runs == nil || m.sess == nil || m.o.Open == nil || p.runs[i] == m.sessRun() {
		return nil
	}
	return m.openRun(app.RunTarget(m.target.DeltaDir, p.runs[i]), then)
}

// sessRun returns the run directory of the journal shown (for a .delta/
// directory, .delta/<run_id>/), or "" when none is.
func (m *Model) sessRun() string {
	if m.sess == nil {
		return ""
	}
	return filepath.Dir(m.sess.J.Path)
}

// openedMsg is sent when a run chosen in the run list or the pending list
// has been opened and indexed off the UI goroutine. at, when not 0, is the
// position to select; decide, when not nil, the item whose decision dialog
// opens next, unless a key was pressed after the request (keySeq): a
// dialog must never open on a user who has moved on.
type openedMsg struct {
	keySeq  int
	open    int // Model.opens when it was asked for
	t       journal.Target
	s       *app.Session
	err     error
	at      int
	decide  *model.Pending
	approve bool
}

// openRun opens t in a command; then carries what to do once it is open.
func (m *Model) openRun(t journal.Target, then openedMsg) tea.Cmd {
	open := m.o.Open
	m.opens++
	then.keySeq, then.open = m.keySeq, m.opens
	return func() tea.Msg {
		then.t = t
		then.s, then.err = open(t)
		return then
	}
}

// runOpened switches to the run that openRun opened.
func (m Model) runOpened(msg openedMsg) (tea.Model, tea.Cmd) {
	if msg.open != m.opens {
		// The user asked for another run, or went back to the list.
		if msg.s != nil {
			msg.s.Close()
		}
		return m, nil
	}
	if msg.err != nil {
		m.setStatus(msg.err.Error(), true)
		return m, nil
	}
	m.status = ""
	m.target = msg.t
	m.replaceSession(msg.s, true)
	cmds := []tea.Cmd{m.watch(), m.recompute()}
	if msg.at > 0 {
		m.tl.selectEvent(msg.at)
		cmds = append(cmds, m.moved())
	} else {
		cmds = append(cmds, m.requestState())
	}
	if msg.decide != nil && msg.keySeq == m.keySeq {
		mm, cmd := m.openDialog(msg.approve, msg.decide)
		return mm, tea.Batch(append(cmds, cmd)...)
	}
	return m, tea.Batch(cmds...)
}
