package durablestream

import (
	"strconv"
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// recentDecisions is how many decisions the CHECKPOINTS document lists.
const recentDecisions = 10

func ms(t int64) string {
	if s := model.FormatTime(model.MillisTime(t)); s != "" {
		return s
	}
	return "unknown"
}

// Render returns the CHECKPOINTS document of s: a summary line, then the
// sections "Pending checkpoints" (each with its id, decision point,
// options, requester, request and expiry times, and the event it has been
// waiting since), "Active intents", "Ledger" (epics and tasks) and
// "Recently decided" (newest first, at most ten). Empty sections say
// "None.". An unknown doc renders as "".
func (format) Render(st model.State, doc string) string {
	s, ok := st.(*state)
	if !ok || doc != DocCheckpoints {
		return ""
	}
	s.lin.mu.Lock()
	defer s.lin.mu.Unlock()
	p := page{max: -1}
	s.render(&p)
	return p.b.String()
}

// A page is the document being written, up to max bytes when max is not
// negative: lines and entries (a checkpoint, an intent, an epic, a task, a
// decision, several lines each) are written whole or not at all, and once
// one does not fit the page is full and takes nothing more.
type page struct {
	b     strings.Builder
	max   int
	item  strings.Builder
	in    bool // writing an entry into item
	head  bool // writing the document's head, which is always written
	full  bool
	shown int // entries written
}

// w writes one line made of parts.
func (p *page) w(parts ...string) {
	if p.full {
		return
	}
	b := &p.b
	if p.in {
		b = &p.item
	} else if p.max >= 0 && !p.head {
		size := 1
		for _, s := range parts {
			size += len(s)
		}
		if b.Len()+size > p.max {
			p.full = true
			return
		}
	}
	for _, s := range parts {
		b.WriteString(s)
	}
	b.WriteByte('\n')
}

// begin starts an entry; end writes it when it fits.
func (p *page) begin() { p.in = true; p.item.Reset() }

func (p *page) end() {
	p.in = false
	if p.full {
		return
	}
	if p.max >= 0 && p.b.Len()+p.item.Len() > p.max {
		p.full = true
		return
	}
	p.b.WriteString(p.item.String())
	p.shown++
}

// entries returns the number of entries of the document of s.
func (s *state) entries() int {
	l := s.lin
	return int(s.lens.nPending) + int(s.lens.nActive) + l.epics.count(s.n) + l.tasks.count(s.n) +
		min(int(s.lens.nDecided), recentDecisions)
}

// render writes the CHECKPOINTS document of s on p, stopping once p is
// full. The caller holds the lineage's mu.
func (s *state) render(p *page) {
	l, n := s.lin, s.n
	w := p.w
	p.head = true
	w("# Durable Stream")
	w()
	w("> Events: ", strconv.FormatInt(s.n, 10), " | Pending: ", strconv.Itoa(int(s.lens.nPending)),
		" | Active intents: ", strconv.Itoa(int(s.lens.nActive)))
	if s.n > 0 {
		w("> Last event: ", ms(s.lastEventAt))
	}
	w()
	p.head = false
	w("## Pending checkpoints")
	w()
	if s.lens.nPending == 0 {
		w("None.")
		w()
	}
	l.pending.eachUntil(n, func(c *checkpoint) bool {
		p.begin()
		w("### ", c.id)
		w()
		w(c.decisionPoint.String())
		w()
		if len(c.options) == 0 {
			w("- Options: none (free answer)")
		} else {
			w("- Options:")
			for _, o := range c.options {
				line := "  - `" + o.ID + "`: " + o.Label
				if o.Description != "" {
					line += " (" + o.Description + ")"
				}
				w(line)
			}
		}
		w("- Requested by: ", c.requestedBy)
		w("- Requested at: ", ms(c.requestedAt))
		if c.expiresAt.Set {
			w("- Expires at: ", ms(c.expiresAt.V), " (not enforced on replay)")
		}
		w("- Waiting since: event ", strconv.Itoa(c.at))
		w()
		p.end()
		return !p.full
	})
	w("## Active intents")
	w()
	if s.lens.nActive == 0 {
		w("None.")
	}
	l.active.eachUntil(n, func(in *intent) bool {
		p.begin()
		what := in.description.String()
		if what == "" {
			what = in.prompt.String()
		}
		w("- **", in.id, "**: ", what)
		if in.agent != "" {
			w("  - Agent: ", in.agent)
		}
		if in.createdAt.Set {
			w("  - Since: ", ms(in.createdAt.V), ", event ", strconv.Itoa(in.at))
		}
		p.end()
		return !p.full
	})
	w()
	w("## Ledger")
	w()
	nEpics, nTasks := l.epics.count(n), l.tasks.count(n)
	if nEpics+nTasks == 0 {
		w("None.")
		w()
	}
	if nEpics > 0 {
		w("### Epics")
		w()
		l.epics.eachUntil(n, func(e *ledgerItem) bool {
			p.begin()
			w(ledgerLine(e))
			p.end()
			return !p.full
		})
		w()
	}
	if nTasks > 0 {
		w("### Tasks")
		w()
		l.tasks.eachUntil(n, func(t *ledgerItem) bool {
			p.begin()
			w(ledgerLine(t))
			if t.epicID != "" {
				w("  - Epic: ", t.epicID)
			}
			p.end()
			return !p.full
		})
		w()
	}
	w("## Recently decided")
	w()
	if s.lens.nDecided == 0 {
		w("None.")
	}
	for i, k := int(s.lens.nDecided)-1, 0; i >= 0 && k < recentDecisions && !p.full; i, k = i-1, k+1 {
		d := l.decided[i]
		verb, why := "Rejected", d.reason.String()
		if d.approved {
			verb, why = "Approved", d.option
		}
		p.begin()
		if dp := d.decisionPoint.String(); dp != "" {
			w("- **", d.id, "**: ", dp)
		} else {
			w("- **", d.id, "**")
		}
		line := "  - " + verb + " by " + d.by
		if why != "" {
			line += ": " + why
		}
		w(line)
		w("  - At: ", ms(d.decidedAt), ", event ", strconv.Itoa(d.at))
		p.end()
	}
}

// ledgerLine returns an epic's or task's entry: its id and title, then
// its status with the error or result on a second line.
func ledgerLine(it *ledgerItem) string {
	line := "- **" + it.id + "**"
	if it.title != "" {
		line += ": " + it.title
	}
	line += "\n  - " + it.status
	if !it.err.IsEmpty() {
		line += ": " + it.err.String()
	} else if !it.result.IsEmpty() {
		line += ": " + it.result.String()
	}
	return line
}
