package deltamind

import (
	"strconv"
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// Render returns projection doc of s exactly as DeltaMind's projections.ts
// writes it (renderActiveState, renderDecisions, renderTasks,
// renderConstraints): lines joined by "\n", each section present only when
// it has items, items in creation order. An unknown doc renders as "".
func (format) Render(st model.State, doc string) string {
	s, ok := st.(*state)
	if !ok {
		return ""
	}
	l := s.lin
	l.mu.Lock()
	defer l.mu.Unlock()
	lines, secs, ok := s.plan(doc)
	if !ok {
		return ""
	}
	for _, sec := range secs {
		var body []string
		for i := range s.nItems {
			v := l.at(i, s.v)
			if sec.keep(v) {
				body = append(body, sec.line(&l.mem, v))
			}
		}
		if len(body) > 0 {
			lines = append(lines, sec.title, "")
			lines = append(lines, body...)
			lines = append(lines, "")
		}
	}
	return strings.Join(lines, "\n")
}

// A section of a projection: its title and the items it lists, each
// written as one line (which may hold several).
type section struct {
	title string
	keep  func(*item) bool
	line  func(*store, *item) string
}

// plan returns the lines projection doc starts with and its sections, in
// order; ok is false for an unknown doc. Each section is written only when
// it has items: its title, "", its items, "".
func (s *state) plan(doc string) (head []string, secs []section, ok bool) {
	index := func(names []string, name string) int {
		for i, n := range names {
			if n == name {
				return i
			}
		}
		return -1
	}
	is := func(kind, status string) func(*item) bool {
		k, st := index(itemKinds[:], kind), uint8(index(itemStatuses[:], status))
		if k < 0 {
			return func(it *item) bool { return it.status == st }
		}
		return func(it *item) bool { return it.kind == uint8(k) && it.status == st }
	}
	short := func(title string, keep func(*item) bool) section { return section{title, keep, renderItem} }
	long := func(title string, keep func(*item) bool) section { return section{title, keep, renderItemDetailed} }
	switch doc {
	case DocActiveState:
		head = []string{"# Active State", "",
			"> Sequence: " + strconv.FormatInt(s.seq, 10) + " | Items: " + strconv.Itoa(int(s.nItems)) +
				" | Deltas: " + strconv.FormatInt(s.seq, 10), ""}
		secs = []section{
			short("## Goals", is("goal", "active")),
			short("## Decisions", is("decision", "active")),
			short("## Constraints", is("constraint", "active")),
			short("## Open Tasks", is("task", "active")),
			short("## Unresolved Branches", func(it *item) bool {
				return it.kind == kHypothesis && it.status == sTentative && it.branch
			}),
			short("## Superseded", is("", "superseded")),
		}
	case DocDecisions:
		head = []string{"# Decisions", ""}
		secs = []section{long("## Active", is("decision", "active")), long("## Superseded", is("decision", "superseded"))}
	case DocTasks:
		head = []string{"# Tasks", ""}
		secs = []section{long("## Open", is("task", "active")), long("## Resolved", is("task", "resolved"))}
	case DocConstraints:
		head = []string{"# Constraints", ""}
		secs = []section{long("## Active", is("constraint", "active"))}
	default:
		return nil, nil, false
	}
	return head, secs, true
}

// suffix is the " [confidence]" and " (tags)" ending of both item forms.
func suffix(m *store, it *item) string {
	var b strings.Builder
	if c := m.s(it.confidence); c != "high" {
		b.WriteString(" [" + c + "]")
	}
	if tags := m.tagList(it.tags); len(tags) > 0 {
		b.WriteString(" (")
		for i, t := range tags {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m.s(t))
		}
		b.WriteString(")")
	}
	return b.String()
}

// renderItem is projections.ts renderItem.
func renderItem(m *store, it *item) string {
	return "- **" + m.s(it.id) + "**: " + m.s(it.summary) + suffix(m, it)
}

// renderItemDetailed is projections.ts renderItemDetailed: a heading, a
// blank line, four list lines and a final empty line.
func renderItemDetailed(m *store, it *item) string {
	ts := m.turnList(it.turns)
	turns := make([]string, len(ts))
	for i, t := range ts {
		turns[i] = m.s(t.id)
	}
	return strings.Join([]string{
		"### " + m.s(it.id) + ": " + m.s(it.summary) + suffix(m, it),
		"",
		"- Status: " + it.statusName(),
		"- Confidence: " + m.s(it.confidence),
		"- Source turns: " + strings.Join(turns, ", "),
		"- Last touched: " + m.s(it.lastTouched),
		"",
	}, "\n")
}
