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
	var lines []string
	section := func(title string, short bool, keep func(*item) bool) {
		var body []string
		for i := range l.items[:s.nItems] {
			v := l.items[i].at(s.v)
			if !keep(v) {
				continue
			}
			if short {
				body = append(body, renderItem(v))
			} else {
				body = append(body, renderItemDetailed(v))
			}
		}
		if len(body) > 0 {
			lines = append(lines, title, "")
			lines = append(lines, body...)
			lines = append(lines, "")
		}
	}
	is := func(kind, status string) func(*item) bool {
		return func(it *item) bool {
			return (kind == "" || it.kindName() == kind) && it.statusName() == status
		}
	}
	switch doc {
	case DocActiveState:
		lines = append(lines, "# Active State", "",
			"> Sequence: "+strconv.FormatInt(s.seq, 10)+" | Items: "+strconv.Itoa(int(s.nItems))+
				" | Deltas: "+strconv.FormatInt(s.seq, 10), "")
		section("## Goals", true, is("goal", "active"))
		section("## Decisions", true, is("decision", "active"))
		section("## Constraints", true, is("constraint", "active"))
		section("## Open Tasks", true, is("task", "active"))
		section("## Unresolved Branches", true, func(it *item) bool {
			return it.kind == kHypothesis && it.status == sTentative && hasTag(it, "branch")
		})
		section("## Superseded", true, is("", "superseded"))
	case DocDecisions:
		lines = append(lines, "# Decisions", "")
		section("## Active", false, is("decision", "active"))
		section("## Superseded", false, is("decision", "superseded"))
	case DocTasks:
		lines = append(lines, "# Tasks", "")
		section("## Open", false, is("task", "active"))
		section("## Resolved", false, is("task", "resolved"))
	case DocConstraints:
		lines = append(lines, "# Constraints", "")
		section("## Active", false, is("constraint", "active"))
	default:
		return ""
	}
	return strings.Join(lines, "\n")
}

func hasTag(it *item, tag string) bool {
	for _, t := range it.tags {
		if t == tag {
			return true
		}
	}
	return false
}

// suffix is the " [confidence]" and " (tags)" ending of both item forms.
func suffix(it *item) string {
	var b strings.Builder
	if it.confidence != "high" {
		b.WriteString(" [" + it.confidence + "]")
	}
	if len(it.tags) > 0 {
		b.WriteString(" (" + strings.Join(it.tags, ", ") + ")")
	}
	return b.String()
}

// renderItem is projections.ts renderItem.
func renderItem(it *item) string {
	return "- **" + it.id + "**: " + it.summary + suffix(it)
}

// renderItemDetailed is projections.ts renderItemDetailed: a heading, a
// blank line, four list lines and a final empty line.
func renderItemDetailed(it *item) string {
	turns := make([]string, len(it.turns))
	for i, t := range it.turns {
		turns[i] = t.turnID
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
