package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal/writer"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// guardDelay is how long keys are ignored after the dialog opens, so bytes
// a terminal injects into stdin (or a key held down) cannot decide.
const guardDelay = 250 * time.Millisecond

// decisionDialog asks for a deliberate decision on one pending item: pick an
// option or type a reason (or the answer, for Delta Engine), press enter,
// then confirm with y. Keys within guardDelay of opening are ignored.
type decisionDialog struct {
	item     model.Pending
	approve  bool
	answer   bool // Delta Engine: a free-text answer
	opt      int
	input    textinput.Model
	opened   time.Time
	confirm  bool // second step: waiting for y
	sensitiv bool
	busy     bool
}

// maxDialogPrompt caps the prompt shown in the dialog, so a journal cannot
// make each frame slow with a huge question.
const maxDialogPrompt = 2000

// decisionMsg is sent when a decision was written or refused.
type decisionMsg struct {
	item    model.Pending
	approve bool
	written app.Written
	err     error
}

func (m Model) openDialog(approve bool, item *model.Pending) (tea.Model, tea.Cmd) {
	if item == nil {
		pos := m.tl.pos()
		for i := range m.pending {
			if m.pending[i].At == pos {
				item = &m.pending[i]
				break
			}
		}
	}
	if item == nil {
		if p := m.indexing; p != nil {
			// What is pending needs the fold to the end.
			m.setStatus(fmt.Sprintf("what waits for a decision is known once the journal is indexed (%d%%)", indexedPct(p)), false)
		} else if len(m.pending) == 0 {
			m.setStatus("nothing is pending in this journal", false)
		} else {
			m.setStatus(fmt.Sprintf("the selected event asks nothing: press p to list the %d pending item(s)", len(m.pending)), false)
		}
		return m, nil
	}
	deltaEngine := m.sess.F.Name() == model.DeltaEngine
	if deltaEngine && !approve {
		m.setStatus("a Delta Engine question is answered, not rejected: press a to answer it", false)
		return m, nil
	}
	if _, ok := m.sess.F.(model.Decider); !ok && !deltaEngine {
		m.setStatus("rewind cannot write decisions for the "+m.sess.F.Name()+" format", true)
		return m, nil
	}
	d := &decisionDialog{item: *item, approve: approve, answer: deltaEngine, opened: m.o.Now()}
	ti := textinput.New()
	ti.CharLimit = 2000
	ti.SetWidth(50)
	if deltaEngine {
		ti.Prompt = "answer: "
		if _, _, sens := app.AnswerGiven(m.sess); sens {
			d.sensitiv = true
			ti.EchoMode = textinput.EchoPassword
		}
	} else if !approve {
		ti.Prompt = "reason (optional): "
	}
	ti.Focus()
	d.input = ti
	m.dialog = d
	return m, nil
}

func (m Model) dialogKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	d := m.dialog
	k := m.keys.Dialog
	if d.busy {
		return m, nil
	}
	if m.o.Now().Sub(d.opened) < guardDelay {
		return m, nil // too soon: not a deliberate key
	}
	if key.Matches(msg, k.Cancel) {
		m.dialog = nil
		m.setStatus("nothing written", false)
		return m, nil
	}
	if d.confirm {
		if msg.String() == "y" {
			d.busy = true
			return m, m.writeDecision()
		}
		if msg.String() == "n" {
			d.confirm = false
		}
		return m, nil
	}
	usesInput := d.answer || !d.approve
	switch {
	case key.Matches(msg, k.Confirm):
		if d.answer && strings.TrimSpace(d.input.Value()) == "" {
			m.setStatus("type an answer first", false)
			return m, nil
		}
		d.confirm = true
		return m, nil
	case !usesInput && key.Matches(msg, k.NextOption):
		if d.opt < len(d.item.Options)-1 {
			d.opt++
		}
		return m, nil
	case !usesInput && key.Matches(msg, k.PrevOption):
		if d.opt > 0 {
			d.opt--
		}
		return m, nil
	}
	if usesInput {
		var cmd tea.Cmd
		d.input, cmd = d.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

// writeDecision runs the decision path off the UI goroutine.
func (m *Model) writeDecision() tea.Cmd {
	d := m.dialog
	// Now stays zero: the record is stamped when it is built, under the
	// journal's lock, so its time never goes backwards in the file.
	dec := model.Decision{ID: d.item.ID, Approve: d.approve || d.answer, By: m.o.As}
	if d.approve && !d.answer && d.opt < len(d.item.Options) {
		dec.Option = d.item.Options[d.opt].ID
	}
	if d.answer || !d.approve {
		dec.Reason = d.input.Value()
	}
	s, item, approve := m.sess, d.item, d.approve
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 35*time.Second)
		defer cancel()
		w, err := app.Decide(ctx, s, dec, writer.Options{})
		return decisionMsg{item: item, approve: approve, written: w, err: err}
	}
}

func (m Model) decisionDone(msg decisionMsg) (tea.Model, tea.Cmd) {
	m.dialog = nil
	if msg.err != nil {
		m.setStatus("not written: "+msg.err.Error(), true)
		return m, nil
	}
	verb := "rejected"
	if msg.approve {
		verb = "approved"
	}
	if msg.written.Offset < 0 {
		m.setStatus(fmt.Sprintf("answered %s: wrote %s; the run resumes on `delta continue`", msg.item.ID, msg.written.Path), false)
	} else {
		m.setStatus(fmt.Sprintf("%s %s: appended at offset %d", verb, msg.item.ID, msg.written.Offset), false)
	}
	return m, m.recompute()
}

func (d *decisionDialog) view(st render.Styles, w int) string {
	inner := 64
	if w-8 < inner {
		inner = w - 8
	}
	var b strings.Builder
	title := "Approve"
	switch {
	case d.answer:
		title = "Answer"
	case !d.approve:
		title = "Reject"
	}
	b.WriteString(st.DialogTitle.Render(fmt.Sprintf("%s %s %s", title, render.Line(d.item.Kind), render.Line(d.item.ID))) + "\n\n")
	prompt := d.item.Prompt
	if len(prompt) > maxDialogPrompt {
		prompt = firstLine(prompt, maxDialogPrompt) + fmt.Sprintf(" … %d more bytes (see the state pane)", len(d.item.Prompt)-maxDialogPrompt)
	}
	b.WriteString(wrap(render.Line(prompt), inner) + "\n")
	if d.item.RequestedBy != "" {
		b.WriteString(st.Dim.Render("requested by "+render.Line(d.item.RequestedBy)+" at "+render.Line(d.item.RequestedAt)) + "\n")
	}
	b.WriteString("\n")
	if d.approve && !d.answer {
		if len(d.item.Options) == 0 {
			b.WriteString(st.Dim.Render("(no options: approve as asked)") + "\n")
		}
		for i, o := range d.item.Options {
			line := fmt.Sprintf(" %s  %s", render.Line(o.ID), render.Line(o.Label))
			line = render.Fit(line, inner)
			if i == d.opt {
				b.WriteString(st.OptionActive.Render("›"+line) + "\n")
			} else {
				b.WriteString(st.Option.Render(" "+line) + "\n")
			}
		}
	} else {
		b.WriteString(d.input.View() + "\n")
		if d.sensitiv {
			b.WriteString(st.Dim.Render("sensitive: the answer is not shown") + "\n")
		}
	}
	b.WriteString("\n")
	if d.busy {
		b.WriteString(st.StatusInfo.Render("writing under the journal's lock…"))
	} else if d.confirm {
		what := "approve"
		switch {
		case d.answer:
			what = "send this answer to"
		case !d.approve:
			what = "reject"
		}
		b.WriteString(st.StatusWarn.Render(fmt.Sprintf("Press y to %s %s, n to go back, esc to cancel", what, render.Line(d.item.ID))))
	} else {
		hint := "enter: next step · esc: cancel"
		if d.approve && !d.answer && len(d.item.Options) > 1 {
			hint = "↑/↓: option · " + hint
		}
		b.WriteString(st.Dim.Render(hint))
	}
	return st.Dialog.Render(b.String())
}

// wrap breaks s into lines of at most w cells (on spaces where possible).
func wrap(s string, w int) string {
	if w < 10 {
		w = 10
	}
	var out []string
	for render.Width(s) > w {
		cut := render.Truncate(s, w)
		cut = strings.TrimSuffix(cut, "…")
		if i := strings.LastIndex(cut, " "); i > w/2 {
			cut = cut[:i]
		}
		if cut == "" {
			break
		}
		out = append(out, cut)
		s = strings.TrimPrefix(s[len(cut):], " ")
	}
	return strings.Join(append(out, s), "\n")
}
