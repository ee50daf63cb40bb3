package deltaengine

import (
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// maxObservationLines is how many lines of a tool observation the
// CONVERSATION projection shows before it cuts.
const maxObservationLines = 40

// maxInlineCommand is the longest resolved command shown in an inline code
// span; longer or multi-line commands get a code block.
const maxInlineCommand = 48

// Render returns the CONVERSATION projection of s: a "Waiting for you"
// block when an ask_human call is pending, the run's heading, task, status
// and iterations, then the conversation as processJournalSource rebuilds it.
// Any other doc name yields "".
func (format) Render(s model.State, doc string) string {
	st, ok := s.(*state)
	if !ok || st == nil || doc != Doc {
		return ""
	}
	var b strings.Builder
	if st.pending != nil {
		b.WriteString("> **Waiting for you:** ")
		b.WriteString(quoteLines(st.pending.prompt))
		b.WriteString("\n>\n> ask_human ")
		b.WriteString(codeSpan(st.pending.id))
		b.WriteString("\n\n")
	}
	id := st.runID
	if id == "" {
		id = "(no RUN_START)"
	}
	b.WriteString("# Run " + oneLine(id) + "\n\n")
	if st.task != "" {
		b.WriteString("**Task:** " + st.task + "\n\n")
	}
	b.WriteString("**Status:** " + or(st.status(), "(empty)") + "  \n")
	b.WriteString("**Iterations:** " + model.Itoa(int64(st.iterations)) + "\n")
	for it := st.messages.Iterator(); !it.Done(); {
		_, m := it.Next()
		b.WriteString("\n### " + m.role + "\n\n")
		switch m.role {
		case "user":
			b.WriteString(or(m.content, "*(empty)*") + "\n")
		case "assistant":
			if !m.null {
				b.WriteString(m.content + "\n")
			}
			if len(m.toolCalls) > 0 {
				if !m.null {
					b.WriteString("\n")
				}
				for _, c := range m.toolCalls {
					st.writeCall(&b, c)
				}
			} else if m.null {
				b.WriteString("*(no text)*\n")
			}
		case "tool":
			var head []string
			if name := ToolName(st, m.toolCallID); name != "" {
				head = append(head, codeSpan(name))
			}
			if a, ok := st.actions.Get(m.toolCallID); ok && a.status != "" && a.status != "SUCCESS" {
				head = append(head, "**"+a.status+"**")
			}
			if len(head) > 0 {
				b.WriteString(strings.Join(head, " ") + "\n\n")
			}
			b.WriteString(fence(cutLines(m.content, maxObservationLines)))
		}
	}
	return b.String()
}

// writeCall writes one tool call as a list item: the tool name, then the
// command the engine resolved (or, before the ACTION_REQUEST, the JSON
// arguments the model gave).
func (s *state) writeCall(b *strings.Builder, c toolCall) {
	cmd := c.Function.Arguments
	if a, ok := s.actions.Get(c.ID); ok && a.requestPos > 0 {
		cmd = a.command
	}
	b.WriteString("- " + codeSpan(or(c.Function.Name, "?")))
	if cmd == "" {
		b.WriteString("\n")
		return
	}
	if !strings.Contains(cmd, "\n") && len([]rune(cmd)) <= maxInlineCommand {
		b.WriteString(" " + codeSpan(cmd) + "\n")
		return
	}
	b.WriteString("\n\n")
	for line := range strings.SplitSeq(fence(cutLines(cmd, maxObservationLines)), "\n") {
		if line != "" {
			b.WriteString("  " + line)
		}
		b.WriteString("\n")
	}
}

// cutLines keeps the first n lines of s and notes how many were left out.
func cutLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	more := len(lines) - n
	note := "… 1 more line"
	if more > 1 {
		note = "… " + model.Itoa(int64(more)) + " more lines"
	}
	return strings.Join(lines[:n], "\n") + "\n" + note
}

// fence returns s in a fenced code block whose fence is longer than any
// backtick run inside s.
func fence(s string) string {
	f := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return f + "\n" + s + "\n" + f + "\n"
}

// codeSpan returns s as an inline code span that survives backticks in s.
func codeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	f := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || f != "`" {
		return f + " " + s + " " + f
	}
	return f + s + f
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// quoteLines continues a Markdown block quote over the lines of s.
func quoteLines(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
