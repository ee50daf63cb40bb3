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
// It is RenderParts' parts, one after another.
func (f format) Render(st model.State, doc string) string { return model.JoinParts(f, st, doc) }

// classBatch is how many items' classes the views read per lock of the
// lineage.
const classBatch = 4096

// classes appends to out the classes of items from to to-1 as of the first
// seq item versions.
func (l *lineage) classes(from, to int32, seq int64, out []uint8) []uint8 {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := from; i < to; i++ {
		out = append(out, l.classAt(i, seq))
	}
	return out
}

// A section of a projection: its title and the items it lists (by class),
// each written as one line (which may hold several).
type section struct {
	title string
	keep  func(class uint8) bool
	line  func(*itemVal) string
}

// plan returns the lines projection doc starts with and its sections, in
// order; ok is false for an unknown doc. Each section is written only when
// it has items: its title, "", its items, "".
func (s *state) plan(doc string) (head []string, secs []section, ok bool) {
	is := func(kind int, status uint8) func(uint8) bool {
		if kind < 0 {
			return func(c uint8) bool { return statusOfClass(c) == status }
		}
		return func(c uint8) bool { return kindOfClass(c) == uint8(kind) && statusOfClass(c) == status }
	}
	short := func(title string, keep func(uint8) bool) section { return section{title, keep, renderItem} }
	long := func(title string, keep func(uint8) bool) section { return section{title, keep, renderItemDetailed} }
	switch doc {
	case DocActiveState:
		head = []string{"# Active State", "",
			"> Sequence: " + strconv.FormatInt(s.seq, 10) + " | Items: " + strconv.Itoa(int(s.nItems)) +
				" | Deltas: " + strconv.FormatInt(s.seq, 10), ""}
		secs = []section{
			short("## Goals", is(kGoal, sActive)),
			short("## Decisions", is(kDecision, sActive)),
			short("## Constraints", is(kConstraint, sActive)),
			short("## Open Tasks", is(kTask, sActive)),
			short("## Unresolved Branches", func(c uint8) bool {
				return kindOfClass(c) == kHypothesis && statusOfClass(c) == sTentative && branchOfClass(c)
			}),
			short("## Superseded", is(-1, sSuperseded)),
		}
	case DocDecisions:
		head = []string{"# Decisions", ""}
		secs = []section{long("## Active", is(kDecision, sActive)), long("## Superseded", is(kDecision, sSuperseded))}
	case DocTasks:
		head = []string{"# Tasks", ""}
		secs = []section{long("## Open", is(kTask, sActive)), long("## Resolved", is(kTask, sResolved))}
	case DocConstraints:
		head = []string{"# Constraints", ""}
		secs = []section{long("## Active", is(kConstraint, sActive))}
	default:
		return nil, nil, false
	}
	return head, secs, true
}

// suffix is the " [confidence]" and " (tags)" ending of both item forms.
func suffix(it *itemVal) string {
	var b strings.Builder
	if it.confidence != "high" {
		b.WriteString(" [" + it.confidence + "]")
	}
	if len(it.tags) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(it.tags, ", "))
		b.WriteString(")")
	}
	return b.String()
}

// renderItem is projections.ts renderItem.
func renderItem(it *itemVal) string {
	return "- **" + it.id + "**: " + it.summary + suffix(it)
}

// renderItemDetailed is projections.ts renderItemDetailed: a heading, a
// blank line, four list lines and a final empty line.
func renderItemDetailed(it *itemVal) string {
	turns := make([]string, len(it.turns))
	for i, t := range it.turns {
		turns[i] = t.id
	}
	return strings.Join([]string{
		"### " + it.id + ": " + it.summary + suffix(it),
		"",
		"- Status: " + it.statusName(),
		"- Confidence: " + it.confidence,
		"- Source turns: " + strings.Join(turns, ", "),
		"- Last touched: " + it.lastTouched,
		"",
	}, "\n")
}
