package deltaengine

import (
	"strings"
	"unicode/utf8"

	"github.com/rewind-tui/rewind/model"
)

// maxSummary is the length in runes at which a Row.Summary is cut.
const maxSummary = 240

// Describe returns the timeline row of one journal line: Key is the seq as
// written, Actor is "agent" for THOUGHT and ACTION_REQUEST and "user" for
// USER_MESSAGE. Describe sees one line only, so an ACTION_RESULT's Actor
// (its tool name) is left empty; DescribeIn fills it from a state.
func (format) Describe(ev model.Event) model.Row {
	env, ok := decodeEnvelope(ev.Raw)
	if !ok {
		var loose struct {
			Seq  any `json:"seq"`
			Type any `json:"type"`
		}
		_ = model.Unmarshal(ev.Raw, &loose)
		typ, _ := loose.Type.(string)
		return model.Row{Key: anyText(loose.Seq), Type: typ, Summary: "(not a Delta Engine event)", Problem: true}
	}
	_, key, _ := seqOf(env.Seq)
	row := model.Row{Key: key, Type: env.Type, Time: timeOf(env.Timestamp)}
	switch env.Type {
	case RunStart:
		var p runStartPayload
		_ = model.Unmarshal(env.Payload, &p)
		row.Summary = p.Task
	case RunEnd:
		var p statusPayload
		_ = model.Unmarshal(env.Payload, &p)
		row.Summary = p.Status
		row.Problem = p.Status == StatusFailed
	case UserMessage:
		var p contentPayload
		_ = model.Unmarshal(env.Payload, &p)
		row.Actor, row.Summary = "user", p.Content
	case Thought:
		var p thoughtPayload
		_ = model.Unmarshal(env.Payload, &p)
		row.Actor, row.Summary = "agent", p.Content
		if strings.TrimSpace(p.Content) == "" && p.ToolCalls != nil {
			calls := make([]string, 0, len(*p.ToolCalls))
			for _, c := range *p.ToolCalls {
				calls = append(calls, "→ "+c.Function.Name+"("+c.Function.Arguments+")")
			}
			row.Summary = strings.Join(calls, " ")
		}
	case ActionRequest:
		var p actionRequestPayload
		_ = model.Unmarshal(env.Payload, &p)
		row.Actor, row.Summary = "agent", p.ToolName+": "+p.ResolvedCommand
	case ActionResult:
		var p actionResultPayload
		_ = model.Unmarshal(env.Payload, &p)
		row.Summary = p.Status + ": " + ObservationLine(p.ObservationContent)
		row.Problem = p.Status != "SUCCESS"
	case SystemMessage:
		var p systemPayload
		_ = model.Unmarshal(env.Payload, &p)
		row.Summary = p.Level + " " + p.Content
		row.Problem = p.Level == "ERROR" || p.Level == "WARN"
	case HookExecutionAudit:
		var p hookPayload
		_ = model.Unmarshal(env.Payload, &p)
		row.Summary = p.HookName + " " + p.Status
		row.Problem = p.Status == "FAILED"
	}
	row.Summary = oneLine(row.Summary)
	return row
}

// DescribeIn is Describe with the state before the event at hand: it also
// names the tool of an ACTION_RESULT (Row.Actor) from the ACTION_REQUEST
// folded into s.
func DescribeIn(s model.State, ev model.Event) model.Row {
	row := Format.Describe(ev)
	if row.Type == ActionResult {
		if env, ok := decodeEnvelope(ev.Raw); ok {
			var p actionResultPayload
			if model.Unmarshal(env.Payload, &p) == nil {
				row.Actor = ToolName(s, p.ActionID)
			}
		}
	}
	return row
}

// ObservationLine returns the first meaningful line of an ACTION_RESULT's
// observation_content: the first non-empty line that is not a "=== STDOUT
// ===", "=== STDERR ===" or other "=== … ===" header of the engine; when
// there is none, the first other header (such as "=== EXIT CODE: 0 ===").
func ObservationLine(obs string) string {
	other := ""
	for line := range strings.SplitSeq(obs, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "===") && strings.HasSuffix(t, "===") {
			if other == "" && !strings.HasPrefix(t, "=== STD") {
				other = t
			}
			continue
		}
		return t
	}
	return other
}

// oneLine collapses whitespace runs (newlines included) to one space and
// cuts s to maxSummary runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	r := []rune(s)
	return string(r[:maxSummary-1]) + "…"
}

func anyText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return model.Itoa(int64(x))
	}
	return ""
}
