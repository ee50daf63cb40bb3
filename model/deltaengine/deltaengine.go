// Package deltaengine reads the journals of Delta Engine (`delta run`,
// agent-works/delta-engine v1.1 to v1.10): the append-only event log
// .delta/<run_id>/journal.jsonl, with the run's metadata.json and, while a run
// waits for an ask_human answer, interaction/request.json.
//
// Each journal line is an envelope {seq, timestamp, type, payload} written by
// JSON.stringify. The fold (Format.Apply) rebuilds what the engine itself
// rebuilds on resume: the conversation of processJournalSource (v1.6+), the
// pending ask_human call of handlePendingAskHuman, and the actions with their
// results. Status changes such as WAITING_FOR_INPUT live only in
// metadata.json, so the fold derives a status from the journal instead.
//
// The fold reads only the fields it needs from each line and keeps no text:
// a state is a few words plus its prefix of a log of 24-byte entries shared
// by every state of a replay, and View and Render read the conversation back
// from the journal file when they are called. The fold before this one,
// which decoded every payload whole, is kept in reference_test.go, and the
// tests compare the two after every event.
//
// The run helpers (ListRuns, ReadRequest, CheckVersion, CheckJournalFile) only
// read files; nothing in this package writes to a .delta directory.
package deltaengine

import (
	"bytes"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// Journal event types as Delta Engine writes them in the envelope's "type".
const (
	RunStart           = "RUN_START"
	RunEnd             = "RUN_END"
	UserMessage        = "USER_MESSAGE"
	Thought            = "THOUGHT"
	ActionRequest      = "ACTION_REQUEST"
	ActionResult       = "ACTION_RESULT"
	SystemMessage      = "SYSTEM_MESSAGE"
	HookExecutionAudit = "HOOK_EXECUTION_AUDIT"
)

// Run statuses (RunStatus in metadata.json and the derived "status" of the
// state view). StatusUnknown is rewind's own: a run whose metadata.json does
// not parse.
const (
	StatusRunning         = "RUNNING"
	StatusWaitingForInput = "WAITING_FOR_INPUT"
	StatusCompleted       = "COMPLETED"
	StatusFailed          = "FAILED"
	StatusInterrupted     = "INTERRUPTED"
	StatusUnknown         = "UNKNOWN"
)

// AskHuman is the tool_name of Delta Engine's built-in ask_human tool.
const AskHuman = "ask_human"

// InterruptedMessage is the SYSTEM_MESSAGE content the engine appends when
// SIGINT or SIGTERM stops a run (it writes no RUN_END then).
const InterruptedMessage = "Run interrupted by user"

// Doc is the name of the one Markdown projection: the conversation.
const Doc = "CONVERSATION"

var knownTypes = map[string]bool{
	RunStart: true, RunEnd: true, UserMessage: true, Thought: true,
	ActionRequest: true, ActionResult: true, SystemMessage: true, HookExecutionAudit: true,
}

// Sniff reports whether raw, one journal line, looks like a Delta Engine
// journal event: a JSON object with a numeric "seq", a string "timestamp",
// an object "payload" and one of the eight journal types.
func Sniff(raw []byte) bool {
	var env struct {
		Seq       jsontext.Value `json:"seq"`
		Timestamp jsontext.Value `json:"timestamp"`
		Type      jsontext.Value `json:"type"`
		Payload   jsontext.Value `json:"payload"`
	}
	if model.Unmarshal(raw, &env) != nil {
		return false
	}
	if env.Seq.Kind() != '0' || env.Timestamp.Kind() != '"' || env.Payload.Kind() != '{' || env.Type.Kind() != '"' {
		return false
	}
	var typ string
	if model.Unmarshal(env.Type, &typ) != nil {
		return false
	}
	return knownTypes[typ]
}

// envelope is the journal line's envelope with the payload left raw.
type envelope struct {
	Seq       jsontext.Value `json:"seq"`
	Timestamp jsontext.Value `json:"timestamp"`
	Type      string         `json:"type"`
	Payload   jsontext.Value `json:"payload"`
}

// decodeEnvelope decodes raw; ok is false when raw is not an object with a
// string type and an object payload.
func decodeEnvelope(raw []byte) (envelope, bool) {
	var env envelope
	if model.Unmarshal(raw, &env) != nil || env.Payload.Kind() != '{' {
		return envelope{}, false
	}
	return env, true
}

// seqOf reads a seq value: the integer, its text as written, and whether it
// is an integer.
func seqOf(v jsontext.Value) (int64, string, bool) {
	switch v.Kind() {
	case '0':
		text := string(v)
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, text, true
		}
		if f, err := strconv.ParseFloat(text, 64); err == nil && f == float64(int64(f)) {
			return int64(f), text, true
		}
		return 0, text, false
	case '"':
		var s string
		_ = model.Unmarshal(v, &s)
		return 0, s, false
	case 0:
		return 0, "", false
	}
	return 0, string(bytes.TrimSpace(v)), false
}

// timeOf reads an ISO timestamp value; the zero Time when it is not one.
func timeOf(v jsontext.Value) time.Time {
	if v.Kind() != '"' {
		return time.Time{}
	}
	var s string
	if model.Unmarshal(v, &s) != nil {
		return time.Time{}
	}
	return model.ParseTime(s)
}

// Payloads of the journal types, with only the fields the fold reads.
type (
	runStartPayload struct {
		RunID string `json:"run_id"`
		Task  string `json:"task"`
	}
	statusPayload struct {
		Status string `json:"status"`
	}
	contentPayload struct {
		Content string `json:"content"`
	}
	systemPayload struct {
		Level   string `json:"level"`
		Content string `json:"content"`
	}
	thoughtPayload struct {
		Content   string      `json:"content"`
		ToolCalls *[]toolCall `json:"tool_calls"`
	}
	actionRequestPayload struct {
		ActionID        string         `json:"action_id"`
		ToolName        string         `json:"tool_name"`
		ToolArgs        jsontext.Value `json:"tool_args"`
		ResolvedCommand string         `json:"resolved_command"`
	}
	actionResultPayload struct {
		ActionID           string `json:"action_id"`
		Status             string `json:"status"`
		ObservationContent string `json:"observation_content"`
	}
	hookPayload struct {
		HookName string `json:"hook_name"`
		Status   string `json:"status"`
	}
)

// toolCall is one entry of THOUGHT.tool_calls, an OpenAI tool call whose
// function.arguments is a JSON string.
type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}
