package deltaengine

import (
	"github.com/rewind-tui/rewind/model/md"
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// maxObservationLines is how many lines of a tool observation the
// CONVERSATION projection shows before it cuts.
const maxObservationLines = 40

// keepInfos is how many entries back RenderParts keeps the action events
// it decoded (a tool call's request, a result): a message looks up the
// actions of the entries around it, and a conversation's observations
// kept to its end would hold about the journal's size. A var for the
// tests.
var keepInfos = 1024

// maxInlineCommand is the longest resolved command shown in an inline code
// span; longer or multi-line commands get a code block.
const maxInlineCommand = 48

// Render returns the CONVERSATION projection of s: a "Waiting for you"
// block when an ask_human call is pending, the run's heading, task, status
// and iterations, then the conversation as processJournalSource rebuilds it.
// Any other doc name yields "".
func (f format) Render(s model.State, doc string) string { return model.JoinParts(f, s, doc) }

// RenderParts calls yield with the parts of the CONVERSATION projection of
// s (model.DocParts): what writeHeader writes, at place -1, then each
// message as writeMessage writes it, at its entry's index in the log, so
// that a diff of two states compares the conversation message by message.
// It
// holds one message at a time, and the action events of the last
// keepInfos entries; any other doc name yields nothing.
func (format) RenderParts(s model.State, doc string, yield func(place int64, part string) bool) {
	st, ok := s.(*state)
	if !ok || st == nil || doc != Doc {
		return
	}
	var b strings.Builder
	writeHeader(&b, st)
	if !yield(-1, b.String()) || st.log == nil {
		return
	}
	sn := st.log.snapshot(st.nLog)
	infos := make([]*actEvent, st.nLog)
	seqr, lookr := sn.reader(readBlock, infos), sn.reader(readBlock, infos)
	defer seqr.release()
	defer lookr.release()
	for i := range st.nLog {
		if i >= keepInfos {
			// A cache: an action looked up again is decoded again.
			infos[i-keepInfos] = nil
		}
		if sn.get(i).isMessage() {
			b.Reset()
			writeMessage(&b, seqr, lookr, i)
			if !yield(int64(i), b.String()) {
				return
			}
		}
	}
}

// writeHeader writes what the CONVERSATION projection shows before the
// messages: the "Waiting for you" block when an ask_human call is pending,
// the run's heading, task, status and iterations.
func writeHeader(b *strings.Builder, st *state) {
	if p := st.x.pending; p != nil {
		b.WriteString("> **Waiting for you:** ")
		b.WriteString(md.QuoteLines(p.prompt))
		b.WriteString("\n>\n> ask_human ")
		b.WriteString(md.CodeSpan(p.id))
		b.WriteString("\n\n")
	}
	id := st.x.runID
	if id == "" {
		id = "(no RUN_START)"
	}
	b.WriteString("# Run " + oneLine(id) + "\n\n")
	if task := st.x.task.String(); task != "" {
		b.WriteString("**Task:** " + task + "\n\n")
	}
	b.WriteString("**Status:** " + md.Or(st.status(), "(empty)") + "  \n")
	b.WriteString("**Iterations:** " + model.Itoa(int64(st.iterations)) + "\n")
}

// writeMessage writes message entry i of the conversation, read with seqr;
// lookr reads the actions its tool calls and its result refer to. What it
// writes depends only on the entry and the state's log, so the projection
// is the header followed by every message's part, and the pane can render
// just the last ones (PaneRender).
func writeMessage(b *strings.Builder, seqr, lookr *reader, i int) {
	m := seqr.message(i)
	b.WriteString("\n### " + m.role + "\n\n")
	switch m.role {
	case "user":
		b.WriteString(md.Or(m.content, "*(empty)*") + "\n")
	case "assistant":
		if !m.null {
			b.WriteString(m.content + "\n")
		}
		if len(m.toolCalls) > 0 {
			if !m.null {
				b.WriteString("\n")
			}
			for _, c := range m.toolCalls {
				writeCall(b, lookr, c)
			}
		} else if m.null {
			b.WriteString("*(no text)*\n")
		}
	case "tool":
		var head []string
		a, ok := lookr.actionMeta(m.toolCallID)
		if a.toolName != "" {
			head = append(head, md.CodeSpan(a.toolName))
		}
		if ok && a.status != "" && a.status != "SUCCESS" {
			head = append(head, "**"+a.status+"**")
		}
		if len(head) > 0 {
			b.WriteString(strings.Join(head, " ") + "\n\n")
		}
		b.WriteString(md.Fence("", cutLines(m.content, maxObservationLines)))
	}
}

// writeCall writes one tool call as a list item: the tool name, then the
// command the engine resolved (or, before the ACTION_REQUEST, the JSON
// arguments the model gave).
func writeCall(b *strings.Builder, r *reader, c toolCall) {
	cmd := c.Function.Arguments
	if a, ok := r.actionMeta(c.ID); ok && a.requestPos > 0 {
		cmd = a.command
	}
	b.WriteString("- " + md.CodeSpan(md.Or(c.Function.Name, "?")))
	if cmd == "" {
		b.WriteString("\n")
		return
	}
	if !strings.Contains(cmd, "\n") && len([]rune(cmd)) <= maxInlineCommand {
		b.WriteString(" " + md.CodeSpan(cmd) + "\n")
		return
	}
	b.WriteString("\n\n")
	for line := range strings.SplitSeq(md.Fence("", cutLines(cmd, maxObservationLines)), "\n") {
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
