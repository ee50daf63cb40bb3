package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// pendingList is the overlay that lists every decision the journal still
// waits on, oldest first, with how long each has waited.
type pendingList struct {
	items []model.Pending
	sel   int
	now   time.Time
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
		line := fmt.Sprintf("#%-5d %-10s %-26s waited %-8s %s", it.At, render.Line(it.Kind), fit(render.Line(it.ID), 26), waited(it, p.now), render.Line(it.Prompt))
		line = render.PadRight(render.Truncate(line, inner), inner)
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
			m.tl.selectEvent(p.items[p.sel].At)
			m.pend = nil
			return m, m.moved()
		}
	case key.Matches(msg, g.Approve), key.Matches(msg, g.Reject):
		if p.sel < len(p.items) {
			it := p.items[p.sel]
			m.pend = nil
			return m.openDialog(key.Matches(msg, g.Approve), &it)
		}
	}
	return m, nil
}
