package deltaengine

// This file keeps the fold as it was before issue 6 (every payload decoded
// whole with model.Unmarshal, every text held as a Go string) as the
// reference the fast fold is compared with, event by event, in
// reference_equiv_test.go. Only the names differ.

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/benbjohnson/immutable"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/md"
)

// refFold is the reference Format.
var refFold model.Format = refFormat{}

type refFormat struct{}

var (
	refEmptyStrings = immutable.NewList[string]()
	refEmptyMsgs    = immutable.NewList[refMessage]()
	refEmptyActions = immutable.NewMap[string, refAction](immutable.NewHasher(""))
	refEmptyCounts  = immutable.NewMap[string, int](immutable.NewHasher(""))
	refEmptySeqs    = immutable.NewMap[int64, int](immutable.NewHasher(int64(0)))
)

func (refFormat) Describe(ev model.Event) model.Row { return Format.Describe(ev) }

// refMessage is one entry of the conversation processJournalSource rebuilds.
type refMessage struct {
	role       string // "user", "assistant" or "tool"
	content    string
	null       bool // content is null (an assistant refMessage with empty text)
	toolCalls  []toolCall
	hasCalls   bool // the THOUGHT carried a tool_calls key
	toolCallID string
	at         int // position of the event
}

// refAction is one ACTION_REQUEST and its ACTION_RESULT. Values are replaced,
// never modified, once in a refState.
type refAction struct {
	id         string
	toolName   string
	toolArgs   []byte // raw JSON, nil when absent
	command    string
	status     string // "PENDING" until a result arrives
	obs        string
	hasObs     bool
	requested  int64 // seq of the ACTION_REQUEST, when it had one
	hasReq     bool
	result     int64
	hasResult  bool
	requestPos int
}

// refAsk is the pending ask_human call.
type refAsk struct {
	id     string
	prompt string
	at     int
	when   string
}

// refState is the immutable result of folding a journal prefix. Collections are
// persistent, so states share structure with their predecessors.
type refState struct {
	events      int // events folded (including ones the fold ignores)
	runID, task string
	runEnd      string // status of a RUN_END not followed by more work
	interrupted bool
	iterations  int

	messages *immutable.List[refMessage]
	actions  *immutable.Map[string, refAction]
	order    *immutable.List[string] // refAction ids in request order

	sysLevels *immutable.List[string] // system refMessage levels, first appearance order
	sysCounts *immutable.Map[string, int]

	lastSeq     string // last line's seq as written
	lastSeqN    int64
	lastSeqOK   bool
	maxSeq      int64 // highest integer seq so far
	seqSeen     *immutable.Map[int64, int]
	seqProblems *immutable.List[string]

	pending *refAsk
}

func (refFormat) Name() string { return model.DeltaEngine }

func (refFormat) Init() model.State {
	return &refState{
		messages: refEmptyMsgs, actions: refEmptyActions, order: refEmptyStrings,
		sysLevels: refEmptyStrings, sysCounts: refEmptyCounts,
		seqSeen: refEmptySeqs, seqProblems: refEmptyStrings,
	}
}

func (refFormat) Docs() []string { return []string{Doc} }

// Apply folds one journal line. A line that is not an envelope with an
// object payload, or whose payload fields have the wrong JSON types, leaves
// the refState unchanged.
func (f refFormat) Apply(s model.State, ev model.Event) model.State {
	st, ok := s.(*refState)
	if !ok || st == nil {
		st = f.Init().(*refState)
		s = st
	}
	env, ok := decodeEnvelope(ev.Raw)
	if !ok {
		return s
	}
	n := *st // shallow copy: every collection is persistent
	switch env.Type {
	case RunStart:
		var p runStartPayload
		if model.Unmarshal(env.Payload, &p) != nil {
			return s
		}
		n.runID, n.task = p.RunID, p.Task
		n.runEnd, n.interrupted = "", false
	case RunEnd:
		var p statusPayload
		if model.Unmarshal(env.Payload, &p) != nil {
			return s
		}
		n.runEnd = p.Status
		if n.runEnd == "" {
			n.runEnd = StatusCompleted // a RUN_END without status still ends the run
		}
	case UserMessage:
		var p contentPayload
		if model.Unmarshal(env.Payload, &p) != nil {
			return s
		}
		n.messages = n.messages.Append(refMessage{role: "user", content: p.Content, at: ev.Pos})
		n.resumed()
	case Thought:
		var p thoughtPayload
		if model.Unmarshal(env.Payload, &p) != nil {
			return s
		}
		m := refMessage{role: "assistant", content: p.Content, null: p.Content == "", at: ev.Pos}
		if p.ToolCalls != nil {
			m.hasCalls, m.toolCalls = true, *p.ToolCalls
		}
		n.messages = n.messages.Append(m)
		n.iterations++
		n.resumed()
	case ActionRequest:
		var p actionRequestPayload
		if model.Unmarshal(env.Payload, &p) != nil {
			return s
		}
		a, known := n.actions.Get(p.ActionID)
		if !known {
			n.order = n.order.Append(p.ActionID)
		}
		a.id, a.toolName, a.command = p.ActionID, p.ToolName, p.ResolvedCommand
		a.toolArgs = nil
		if len(p.ToolArgs) > 0 {
			a.toolArgs = bytes.Clone(p.ToolArgs)
		}
		a.status, a.obs, a.hasObs, a.hasResult = "PENDING", "", false, false
		a.requested, a.hasReq = refSeqInt(env)
		a.requestPos = ev.Pos
		n.actions = n.actions.Set(p.ActionID, a)
		if p.ToolName == AskHuman {
			var args struct {
				Prompt any `json:"prompt"`
			}
			_ = model.Unmarshal(p.ToolArgs, &args)
			prompt, _ := args.Prompt.(string)
			n.pending = &refAsk{id: p.ActionID, prompt: prompt, at: ev.Pos, when: model.FormatTime(timeOf(env.Timestamp))}
		}
		n.resumed()
	case ActionResult:
		var p actionResultPayload
		if model.Unmarshal(env.Payload, &p) != nil {
			return s
		}
		a, known := n.actions.Get(p.ActionID)
		if !known {
			a.id = p.ActionID
			a.requestPos = -1
			n.order = n.order.Append(p.ActionID)
		}
		a.status, a.obs, a.hasObs = p.Status, p.ObservationContent, true
		a.result, a.hasResult = refSeqInt(env)
		n.actions = n.actions.Set(p.ActionID, a)
		n.messages = n.messages.Append(refMessage{role: "tool", content: p.ObservationContent, toolCallID: p.ActionID, at: ev.Pos})
		if n.pending != nil && n.pending.id == p.ActionID {
			n.pending = nil
		}
		n.resumed()
	case SystemMessage:
		var p systemPayload
		if model.Unmarshal(env.Payload, &p) != nil {
			return s
		}
		c, seen := n.sysCounts.Get(p.Level)
		if !seen {
			n.sysLevels = n.sysLevels.Append(p.Level)
		}
		n.sysCounts = n.sysCounts.Set(p.Level, c+1)
		if p.Content == InterruptedMessage {
			n.interrupted = true
		}
	case HookExecutionAudit:
		var p hookPayload
		if model.Unmarshal(env.Payload, &p) != nil {
			return s
		}
	default:
		// Unknown types (for example legacy trace.jsonl lines) are counted
		// for seq checks only.
	}
	n.events++
	n.checkSeq(env, ev.Pos)
	return &n
}

// resumed records that the run did work after an interruption or a RUN_END
// (delta continue), so neither describes its status any more.
func (s *refState) resumed() {
	s.runEnd, s.interrupted = "", false
}

func refSeqInt(env envelope) (int64, bool) {
	n, _, ok := seqOf(env.Seq)
	return n, ok
}

// checkSeq records seq problems of the event at pos. Seqs must run 1, 2, 3…
// in file order; problems are reported, never repaired.
func (s *refState) checkSeq(env envelope, pos int) {
	v, text, ok := seqOf(env.Seq)
	s.lastSeq, s.lastSeqN, s.lastSeqOK = text, v, ok
	if !ok {
		if text == "" {
			s.seqProblems = s.seqProblems.Append(fmt.Sprintf("seq missing at position %d", pos))
		} else {
			s.seqProblems = s.seqProblems.Append(fmt.Sprintf("seq %s is not an integer at position %d", text, pos))
		}
		return
	}
	if first, dup := s.seqSeen.Get(v); dup {
		s.seqProblems = s.seqProblems.Append(fmt.Sprintf("seq %d repeated at position %d (first at position %d)", v, pos, first))
		return
	}
	s.seqSeen = s.seqSeen.Set(v, pos)
	switch {
	case v < s.maxSeq:
		s.seqProblems = s.seqProblems.Append(fmt.Sprintf("seq %d out of order at position %d (after seq %d)", v, pos, s.maxSeq))
		return
	case v == s.maxSeq+1:
	case v == s.maxSeq+2:
		s.seqProblems = s.seqProblems.Append(fmt.Sprintf("seq %d missing before position %d", s.maxSeq+1, pos))
	case v > s.maxSeq+2:
		s.seqProblems = s.seqProblems.Append(fmt.Sprintf("seq %d-%d missing before position %d", s.maxSeq+1, v-1, pos))
	}
	s.maxSeq = v
}

// status derives the run status from the journal alone: a RUN_END's status;
// else WAITING_FOR_INPUT while an ask_human call has no result; else
// INTERRUPTED after the engine's interrupt refMessage; else RUNNING. Work after
// a RUN_END or an interruption (delta continue) makes the run RUNNING again.
// An empty journal has status "".
func (s *refState) status() string {
	switch {
	case s.events == 0:
		return ""
	case s.runEnd != "":
		return s.runEnd
	case s.pending != nil:
		return StatusWaitingForInput
	case s.interrupted:
		return StatusInterrupted
	}
	return StatusRunning
}

// Pending returns the ask_human call still waiting for an answer, if any.
func (s *refState) Pending() []model.Pending {
	if s.pending == nil {
		return nil
	}
	return []model.Pending{{
		ID: s.pending.id, Kind: AskHuman, Prompt: s.pending.prompt, Options: []model.Option{},
		RequestedAt: s.pending.when, RequestedBy: "agent", At: s.pending.at,
	}}
}

// View returns run_id, task, status, iterations, messages, actions,
// system_messages, last_seq and seq_problems, in that order.
func (s *refState) View() model.Object {
	msgs := make([]any, 0, s.messages.Len())
	for it := s.messages.Iterator(); !it.Done(); {
		_, m := it.Next()
		msgs = append(msgs, m.object())
	}
	actions := model.Object{}
	for it := s.order.Iterator(); !it.Done(); {
		_, id := it.Next()
		a, _ := s.actions.Get(id)
		actions = append(actions, model.Field{Key: id, Value: a.object()})
	}
	sys := model.Object{}
	for it := s.sysLevels.Iterator(); !it.Done(); {
		_, lvl := it.Next()
		c, _ := s.sysCounts.Get(lvl)
		sys = append(sys, model.Field{Key: lvl, Value: c})
	}
	problems := make([]any, 0, s.seqProblems.Len())
	for it := s.seqProblems.Iterator(); !it.Done(); {
		_, p := it.Next()
		problems = append(problems, p)
	}
	var last any
	if s.lastSeqOK {
		last = s.lastSeqN
	} else if s.lastSeq != "" {
		last = s.lastSeq
	}
	return model.Object{
		{Key: "run_id", Value: s.runID},
		{Key: "task", Value: s.task},
		{Key: "status", Value: s.status()},
		{Key: "iterations", Value: s.iterations},
		{Key: "messages", Value: msgs},
		{Key: "actions", Value: actions},
		{Key: "system_messages", Value: sys},
		{Key: "last_seq", Value: last},
		{Key: "seq_problems", Value: problems},
	}
}

// object returns the refMessage as the OpenAI refMessage processJournalSource
// builds.
func (m refMessage) object() model.Object {
	var content any = m.content
	if m.null {
		content = nil
	}
	o := model.Object{{Key: "role", Value: m.role}, {Key: "content", Value: content}}
	switch {
	case m.role == "tool":
		o = append(o, model.Field{Key: "tool_call_id", Value: m.toolCallID})
	case m.hasCalls:
		calls := make([]any, 0, len(m.toolCalls))
		for _, c := range m.toolCalls {
			calls = append(calls, model.Object{
				{Key: "id", Value: c.ID}, {Key: "type", Value: c.Type},
				{Key: "function", Value: model.Object{{Key: "name", Value: c.Function.Name}, {Key: "arguments", Value: c.Function.Arguments}}},
			})
		}
		o = append(o, model.Field{Key: "tool_calls", Value: calls})
	}
	return o
}

func (a refAction) object() model.Object {
	var args any = model.Object{}
	if a.toolArgs != nil {
		if v, err := model.FromRaw(a.toolArgs); err == nil {
			args = v
		}
	}
	var req, res, obs any
	if a.hasReq {
		req = a.requested
	}
	if a.hasResult {
		res = a.result
	}
	if a.hasObs {
		obs = a.obs
	}
	return model.Object{
		{Key: "tool_name", Value: a.toolName},
		{Key: "tool_args", Value: args},
		{Key: "resolved_command", Value: a.command},
		{Key: "status", Value: a.status},
		{Key: "observation", Value: obs},
		{Key: "requested_at", Value: req},
		{Key: "result_at", Value: res},
	}
}

// refToolName returns the tool_name of refAction id as requested in s (a Delta
// Engine refState), or "" when s has no such ACTION_REQUEST.
func refToolName(s model.State, id string) string {
	st, ok := s.(*refState)
	if !ok || st == nil {
		return ""
	}
	a, _ := st.actions.Get(id)
	return a.toolName
}

// Render returns the CONVERSATION projection of s: a "Waiting for you"
// block when an ask_human call is pending, the run's heading, task, status
// and iterations, then the conversation as processJournalSource rebuilds it.
// Any other doc name yields "".
func (refFormat) Render(s model.State, doc string) string {
	st, ok := s.(*refState)
	if !ok || st == nil || doc != Doc {
		return ""
	}
	var b strings.Builder
	if st.pending != nil {
		b.WriteString("> **Waiting for you:** ")
		b.WriteString(md.QuoteLines(st.pending.prompt))
		b.WriteString("\n>\n> ask_human ")
		b.WriteString(md.CodeSpan(st.pending.id))
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
	b.WriteString("**Status:** " + md.Or(st.status(), "(empty)") + "  \n")
	b.WriteString("**Iterations:** " + model.Itoa(int64(st.iterations)) + "\n")
	for it := st.messages.Iterator(); !it.Done(); {
		_, m := it.Next()
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
					st.writeCall(&b, c)
				}
			} else if m.null {
				b.WriteString("*(no text)*\n")
			}
		case "tool":
			var head []string
			if name := refToolName(st, m.toolCallID); name != "" {
				head = append(head, md.CodeSpan(name))
			}
			if a, ok := st.actions.Get(m.toolCallID); ok && a.status != "" && a.status != "SUCCESS" {
				head = append(head, "**"+a.status+"**")
			}
			if len(head) > 0 {
				b.WriteString(strings.Join(head, " ") + "\n\n")
			}
			b.WriteString(md.Fence("", cutLines(m.content, maxObservationLines)))
		}
	}
	return b.String()
}

// writeCall writes one tool call as a list item: the tool name, then the
// command the engine resolved (or, before the ACTION_REQUEST, the JSON
// arguments the model gave).
func (s *refState) writeCall(b *strings.Builder, c toolCall) {
	cmd := c.Function.Arguments
	if a, ok := s.actions.Get(c.ID); ok && a.requestPos > 0 {
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
