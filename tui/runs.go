package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/model/deltaengine"
	"github.com/rewind-tui/rewind/render"
)

// runPicker lists the runs of a .delta/ directory, newest first, with the
// status from each run's metadata.json, and re-reads them every second so
// new runs and status changes show without a restart.
type runPicker struct {
	st    render.Styles
	dir   string
	runs  []deltaengine.Run
	sel   int
	err   error
	ready bool
	// gen counts load calls: a runsMsg of an earlier load (a re-read
	// still on its way when a run was opened) is dropped, so that going
	// back to the list starts one re-read loop, not one more each time.
	gen int
}

// runsMsg is sent when the run list of a .delta/ directory was read.
type runsMsg struct {
	dir  string
	gen  int
	runs []deltaengine.Run
	err  error
}

func newRunPicker(st render.Styles, dir string) *runPicker {
	return &runPicker{st: st, dir: dir}
}

// load reads the run list now, and starts a new re-read loop (see gen).
func (p *runPicker) load() tea.Cmd {
	p.gen++
	dir, gen := p.dir, p.gen
	return func() tea.Msg {
		runs, err := deltaengine.ListRuns(dir)
		return runsMsg{dir, gen, runs, err}
	}
}

// reload reads the run list again in a second.
func (p *runPicker) reload() tea.Cmd {
	dir, gen := p.dir, p.gen
	return tea.Tick(time.Second, func(time.Time) tea.Msg {
		runs, err := deltaengine.ListRuns(dir)
		return runsMsg{dir, gen, runs, err}
	})
}

// set shows the run list of msg, the cursor staying on the run it was on.
// It reports false for a message of an earlier load, which it drops.
func (p *runPicker) set(msg runsMsg) bool {
	if msg.dir != p.dir || msg.gen != p.gen {
		return false
	}
	cur := ""
	if p.sel < len(p.runs) {
		cur = p.runs[p.sel].ID
	}
	p.runs, p.err, p.ready = msg.runs, msg.err, true
	for i, r := range p.runs {
		if r.ID == cur {
			p.sel = i
		}
	}
	if p.sel >= len(p.runs) {
		p.sel = len(p.runs) - 1
	}
	if p.sel < 0 {
		p.sel = 0
	}
	return true
}

func (p *runPicker) view(w, h int) string {
	var b strings.Builder
	b.WriteString(p.st.TitleFocused.Render("Runs in "+render.Line(p.dir)) + p.st.Dim.Render("  newest first · enter opens · q quits") + "\n\n")
	if p.err != nil {
		b.WriteString(p.st.StatusErr.Render(render.Line(p.err.Error())) + "\n")
	}
	if !p.ready {
		b.WriteString(p.st.Dim.Render("Reading runs…"))
	} else if len(p.runs) == 0 {
		b.WriteString(p.st.Dim.Render("No runs yet: waiting for one to appear."))
	}
	for i, r := range p.runs {
		if i > h-4 {
			break
		}
		start := ""
		if !r.Start.IsZero() {
			start = r.Start.Local().Format("2006-01-02 15:04:05")
		}
		line := fmt.Sprintf("%-28s %-18s %-19s %3d it  %s", render.Fit(render.Line(r.ID), 28), render.Fit(render.Line(r.Status), 18), start, r.Iterations, render.Line(r.Task))
		line = render.Fit(line, w)
		style := p.st.Row
		switch r.Status {
		case "WAITING_FOR_INPUT":
			style = p.st.PendingBadge
		case "FAILED", "UNKNOWN":
			style = p.st.RowBad
		case "RUNNING":
			style = p.st.Follow
		}
		if i == p.sel {
			style = p.st.RowSelected
		}
		b.WriteString(style.Render(line) + "\n")
	}
	return strings.TrimRight(b.String(), "\n") + strings.Repeat("\n", max(0, h-strings.Count(b.String(), "\n")-1))
}

func (m Model) runsKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	g := m.keys.Global
	p := m.runs
	switch {
	case key.Matches(msg, g.Quit):
		return m, tea.Quit
	case key.Matches(msg, g.Help):
		m.showHelp = true
	case key.Matches(msg, g.Down):
		if p.sel < len(p.runs)-1 {
			p.sel++
		}
	case key.Matches(msg, g.Up):
		if p.sel > 0 {
			p.sel--
		}
	case key.Matches(msg, m.keys.Runs.Open):
		if p.sel >= len(p.runs) || m.o.Open == nil {
			return m, nil
		}
		m.setStatus("opening "+p.runs[p.sel].ID+"…", false)
		return m, m.openRun(app.RunTarget(p.dir, p.runs[p.sel].Dir), openedMsg{})
	}
	return m, nil
}
