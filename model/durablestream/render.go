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
	l, n := s.lin, s.n
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
		b.WriteByte('\n')
	}
	w("# Durable Stream")
	w()
	w("> Events: ", strconv.FormatInt(s.n, 10), " | Pending: ", strconv.Itoa(int(s.lens.nPending)),
		" | Active intents: ", strconv.Itoa(int(s.lens.nActive)))
	if s.n > 0 {
		w("> Last event: ", ms(s.lastEventAt))
	}
	w()
	w("## Pending checkpoints")
	w()
	cps := l.pending.values(n)
	if len(cps) == 0 {
		w("None.")
		w()
	}
	for _, c := range cps {
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
		if c.expiresAt.set {
			w("- Expires at: ", ms(c.expiresAt.v), " (not enforced on replay)")
		}
		w("- Waiting since: event ", strconv.Itoa(c.at))
		w()
	}
	w("## Active intents")
	w()
	ins := l.active.values(n)
	if len(ins) == 0 {
		w("None.")
	}
	for _, in := range ins {
		what := in.description.String()
		if what == "" {
			what = in.prompt.String()
		}
		w("- **", in.id, "**: ", what)
		if in.agent != "" {
			w("  - Agent: ", in.agent)
		}
		if in.createdAt.set {
			w("  - Since: ", ms(in.createdAt.v), ", event ", strconv.Itoa(in.at))
		}
	}
	w()
	w("## Ledger")
	w()
	epics, tasks := l.epics.values(n), l.tasks.values(n)
	if len(epics)+len(tasks) == 0 {
		w("None.")
		w()
	}
	if len(epics) > 0 {
		w("### Epics")
		w()
		for _, e := range epics {
			w(ledgerLine(e))
		}
		w()
	}
	if len(tasks) > 0 {
		w("### Tasks")
		w()
		for _, t := range tasks {
			w(ledgerLine(t))
			if t.epicID != "" {
				w("  - Epic: ", t.epicID)
			}
		}
		w()
	}
	w("## Recently decided")
	w()
	if s.lens.nDecided == 0 {
		w("None.")
	}
	for i, k := int(s.lens.nDecided)-1, 0; i >= 0 && k < recentDecisions; i, k = i-1, k+1 {
		d := l.decided[i]
		verb, why := "Rejected", d.reason.String()
		if d.approved {
			verb, why = "Approved", d.option
		}
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
	}
	return b.String()
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
