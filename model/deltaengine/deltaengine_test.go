package deltaengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	ws    = "testdata/workspace.delta"
	runA  = ws + "/20261121_222941_a7f3c2"
	runB  = ws + "/20261121_222947_b91d0a"
	runC  = ws + "/20261121_222957_c4d5e6"
	runD  = ws + "/20261121_223100_e1f2a3"
	runE  = ws + "/20261121_223200_f0e1d2"
	contB = "testdata/continue-b.jsonl"
)

// readEvents splits a JSONL file into events the way the journal reader
// hands them to a fold (positions and lines 1-based, blank lines skipped).
func readEvents(t *testing.T, paths ...string) []model.Event {
	t.Helper()
	var evs []model.Event
	line := 0
	var off int64
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for l := range bytes.SplitSeq(raw, []byte("\n")) {
			line++
			if len(bytes.TrimSpace(l)) > 0 {
				evs = append(evs, model.Event{Pos: len(evs) + 1, Line: line, Off: off, Raw: bytes.Clone(l)})
			}
			off += int64(len(l)) + 1
		}
	}
	return evs
}

func fold(evs []model.Event) model.State {
	s := Format.Init()
	for _, ev := range evs {
		s = Format.Apply(s, ev)
	}
	return s
}

func get(t *testing.T, s model.State, key string) any {
	t.Helper()
	v, ok := s.View().Get(key)
	if !ok {
		t.Fatalf("view has no %q", key)
	}
	return v
}

func compact(t *testing.T, v any) string {
	t.Helper()
	raw, err := model.Indent(v)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestFoldPositions(t *testing.T) {
	a := readEvents(t, runA+"/journal.jsonl")
	b := readEvents(t, runB+"/journal.jsonl", contB)
	tests := []struct {
		name       string
		evs        []model.Event
		at         int
		status     string
		iterations int
		messages   int
		pending    string
		lastSeq    any
	}{
		{"empty", a, 0, "", 0, 0, "", nil},
		{"A after RUN_START", a, 1, StatusRunning, 0, 0, "", int64(1)},
		{"A after first THOUGHT", a, 4, StatusRunning, 1, 2, "", int64(4)},
		{"A after FAILED result", a, 9, StatusRunning, 2, 5, "", int64(9)},
		{"A complete", a, 13, StatusCompleted, 3, 7, "", int64(13)},
		{"B ask_human requested", b, 4, StatusWaitingForInput, 1, 2, "call_AskW3lc0me01", int64(4)},
		{"B paused", b, 5, StatusWaitingForInput, 1, 2, "call_AskW3lc0me01", int64(5)},
		{"B answer as user message", b, 6, StatusWaitingForInput, 1, 3, "call_AskW3lc0me01", int64(6)},
		{"B answer as tool result", b, 7, StatusRunning, 1, 4, "", int64(7)},
		{"B complete", b, 12, StatusCompleted, 3, 7, "", int64(12)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fold(tt.evs[:tt.at])
			if got := get(t, s, "status"); got != tt.status {
				t.Errorf("status = %v, want %v", got, tt.status)
			}
			if got := get(t, s, "iterations"); got != tt.iterations {
				t.Errorf("iterations = %v, want %v", got, tt.iterations)
			}
			if got := len(get(t, s, "messages").([]any)); got != tt.messages {
				t.Errorf("%d messages, want %d", got, tt.messages)
			}
			if got := get(t, s, "last_seq"); got != tt.lastSeq {
				t.Errorf("last_seq = %#v, want %#v", got, tt.lastSeq)
			}
			p := s.Pending()
			switch {
			case tt.pending == "" && len(p) != 0:
				t.Errorf("pending = %+v, want none", p)
			case tt.pending != "" && (len(p) != 1 || p[0].ID != tt.pending):
				t.Errorf("pending = %+v, want %s", p, tt.pending)
			}
		})
	}
}

func TestViewOrderAndStateJSON(t *testing.T) {
	s := fold(readEvents(t, runA+"/journal.jsonl"))
	var keys []string
	for _, f := range model.StateJSON(Format, s, 13) {
		keys = append(keys, f.Key)
	}
	want := []string{"format", "at", "pending", "run_id", "task", "status", "iterations", "messages", "actions", "system_messages", "last_seq", "seq_problems"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys = %v, want %v", keys, want)
	}
	if got := get(t, s, "run_id"); got != "20261121_222941_a7f3c2" {
		t.Errorf("run_id = %v", got)
	}
	if got := get(t, s, "task"); got != "Summarise build.log into summary.md" {
		t.Errorf("task = %v", got)
	}
	actions := compact(t, get(t, s, "actions"))
	wantActions := `{"call_ReadL0g00001":{"tool_name":"read_log","tool_args":{"path":"build.log"},"resolved_command":"cat build.log","status":"SUCCESS",` +
		`"observation":` + jsonString(t, observation(t, runA, 6)) + `,"requested_at":5,"result_at":6},` +
		`"call_Wr1teSum0002":{"tool_name":"write_summary","tool_args":{"filename":"/readonly/summary.md","content":"45 steps, all ok"},"resolved_command":"tee /readonly/summary.md","status":"FAILED",` +
		`"observation":"=== STDERR ===\ntee: /readonly/summary.md: Permission denied\n\n=== EXIT CODE: 1 ===","requested_at":8,"result_at":9},` +
		`"call_L1stF1les0003":{"tool_name":"list_files","tool_args":{},"resolved_command":"ls -la","status":"SUCCESS",` +
		`"observation":"=== STDOUT ===\nbuild.log\n\n=== EXIT CODE: 0 ===","requested_at":10,"result_at":11}}`
	if actions != wantActions {
		t.Errorf("actions =\n%s\nwant\n%s", actions, wantActions)
	}
	// A pending action before its result.
	mid := fold(readEvents(t, runA+"/journal.jsonl")[:8])
	if got := compact(t, get(t, mid, "actions")); !strings.Contains(got, `"call_Wr1teSum0002":{"tool_name":"write_summary","tool_args":{"filename":"/readonly/summary.md","content":"45 steps, all ok"},"resolved_command":"tee /readonly/summary.md","status":"PENDING","observation":null,"requested_at":8,"result_at":null}`) {
		t.Errorf("actions at 8 = %s", got)
	}
	if got := compact(t, get(t, s, "system_messages")); got != `{}` {
		t.Errorf("system_messages = %s", got)
	}
}

func observation(t *testing.T, run string, seq int) string {
	t.Helper()
	ev := readEvents(t, run+"/journal.jsonl")[seq-1]
	var e struct {
		Payload struct {
			Obs string `json:"observation_content"`
		} `json:"payload"`
	}
	if err := model.Unmarshal(ev.Raw, &e); err != nil {
		t.Fatal(err)
	}
	return e.Payload.Obs
}

func jsonString(t *testing.T, s string) string {
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestMessages compares the conversation with the one Delta Engine's
// processJournalSource builds (testdata/messages-*.json).
func TestMessages(t *testing.T) {
	tests := []struct {
		golden string
		paths  []string
	}{
		{"messages-a.json", []string{runA + "/journal.jsonl"}},
		{"messages-b-paused.json", []string{runB + "/journal.jsonl"}},
		{"messages-b-continued.json", []string{runB + "/journal.jsonl", contB}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			var wb bytes.Buffer
			if err := json.Compact(&wb, want); err != nil {
				t.Fatal(err)
			}
			got := compact(t, get(t, fold(readEvents(t, tt.paths...)), "messages"))
			if got != wb.String() {
				t.Errorf("messages =\n%s\nwant\n%s", got, wb.String())
			}
		})
	}
}

func TestAskHuman(t *testing.T) {
	evs := readEvents(t, runB+"/journal.jsonl", contB)
	paused := fold(evs[:5])
	want := model.Pending{
		ID: "call_AskW3lc0me01", Kind: "ask_human", Prompt: "Who is joining the team?", Options: []model.Option{},
		RequestedAt: "2026-11-21T22:29:47.195Z", RequestedBy: "agent", At: 4,
	}
	if p := paused.Pending(); len(p) != 1 || compact(t, p[0].Object()) != compact(t, want.Object()) {
		t.Errorf("pending = %+v, want %+v", p, want)
	}
	req, err := ReadRequest(runB)
	if err != nil {
		t.Fatal(err)
	}
	if req.Prompt != want.Prompt || req.InputType != "text" || req.Sensitive || req.RequestID == "" || req.Timestamp != "2026-11-21T22:29:47.196Z" {
		t.Errorf("request = %+v", req)
	}
	if _, err := ReadRequest(runA); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRequest(run A) error = %v, want ErrNotExist", err)
	}

	done := fold(evs)
	if p := done.Pending(); len(p) != 0 {
		t.Errorf("pending after the answer = %+v", p)
	}
	// The answer appears twice: as the user message and as the tool message.
	msgs := get(t, done, "messages").([]any)
	var answers []string
	for _, m := range msgs {
		o := m.(model.Object)
		if c, _ := o.Get("content"); c == "Alice" {
			r, _ := o.Get("role")
			answers = append(answers, r.(string))
		}
	}
	if !slices.Equal(answers, []string{"user", "tool"}) {
		t.Errorf("answer roles = %v, want [user tool]", answers)
	}
	// A result for some other call does not clear the pending ask_human.
	other := Format.Apply(paused, model.Event{Pos: 6, Raw: []byte(`{"seq":6,"timestamp":"2026-11-21T22:29:48.000Z","type":"ACTION_RESULT","payload":{"action_id":"call_other","status":"SUCCESS","observation_content":"x","execution_ref":"call_other"}}`)})
	if len(other.Pending()) != 1 {
		t.Errorf("pending cleared by another action's result")
	}
}

func TestStatuses(t *testing.T) {
	tests := []struct {
		run, status string
		system      string
	}{
		{runA, StatusCompleted, `{}`},
		{runB, StatusWaitingForInput, `{"INFO":1}`},
		{runC, StatusFailed, `{"ERROR":1}`},
		{runD, StatusInterrupted, `{"INFO":1}`},
		{runE, StatusRunning, `{}`},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.run), func(t *testing.T) {
			s := fold(readEvents(t, tt.run+"/journal.jsonl"))
			if got := get(t, s, "status"); got != tt.status {
				t.Errorf("status = %v, want %v", got, tt.status)
			}
			if got := compact(t, get(t, s, "system_messages")); got != tt.system {
				t.Errorf("system_messages = %s, want %s", got, tt.system)
			}
		})
	}
	// delta continue after an interruption or a RUN_END runs again.
	for _, run := range []string{runC, runD} {
		evs := readEvents(t, run+"/journal.jsonl")
		s := Format.Apply(fold(evs), model.Event{Pos: len(evs) + 1, Raw: []byte(`{"seq":99,"timestamp":"2026-11-21T23:00:00.000Z","type":"USER_MESSAGE","payload":{"content":"go on"}}`)})
		if got := get(t, s, "status"); got != StatusRunning {
			t.Errorf("%s continued: status = %v, want RUNNING", filepath.Base(run), got)
		}
	}
	// The interrupted run's action stays PENDING.
	s := fold(readEvents(t, runD+"/journal.jsonl"))
	if got := compact(t, get(t, s, "actions")); !strings.Contains(got, `"status":"PENDING"`) {
		t.Errorf("actions = %s", got)
	}
}

func TestSeqProblems(t *testing.T) {
	s := fold(readEvents(t, "testdata/seq-problems.jsonl"))
	got := get(t, s, "seq_problems").([]any)
	want := []any{
		"seq 2 repeated at position 3 (first at position 2)",
		"seq 3-6 missing before position 4",
		"seq 5 out of order at position 5 (after seq 7)",
		"seq 9 is not an integer at position 7",
		"seq missing at position 8",
		"seq 9 missing before position 9",
	}
	if !slices.Equal(got, want) {
		t.Errorf("seq_problems =\n%q\nwant\n%q", got, want)
	}
	if got := get(t, s, "last_seq"); got != int64(10) {
		t.Errorf("last_seq = %#v", got)
	}
	// The lines are still folded, not repaired or dropped.
	if got := compact(t, get(t, s, "system_messages")); got != `{"WARN":1,"INFO":5}` {
		t.Errorf("system_messages = %s", got)
	}
	clean := fold(readEvents(t, runA+"/journal.jsonl"))
	if got := get(t, clean, "seq_problems").([]any); len(got) != 0 {
		t.Errorf("run A seq_problems = %v", got)
	}
}

func TestImmutability(t *testing.T) {
	evs := readEvents(t, runB+"/journal.jsonl", contB)
	states := []model.State{Format.Init()}
	views := []string{compact(t, model.StateJSON(Format, states[0], 0))}
	for i, ev := range evs {
		states = append(states, Format.Apply(states[i], ev))
		views = append(views, compact(t, model.StateJSON(Format, states[i+1], i+1)))
	}
	// Re-render every earlier state: nothing may have changed.
	for i, s := range states {
		if got := compact(t, model.StateJSON(Format, s, i)); got != views[i] {
			t.Errorf("state %d changed after later Apply calls:\n%s\nwas\n%s", i, got, views[i])
		}
	}
	// Apply on a shared prefix state from two branches.
	base := states[5]
	x := Format.Apply(base, evs[5])
	y := Format.Apply(base, model.Event{Pos: 6, Raw: []byte(`{"seq":6,"timestamp":"2026-11-21T22:29:50.000Z","type":"USER_MESSAGE","payload":{"content":"Bob"}}`)})
	if compact(t, get(t, x, "messages")) == compact(t, get(t, y, "messages")) {
		t.Error("branches share their appended message")
	}
	if compact(t, model.StateJSON(Format, base, 5)) != views[5] {
		t.Error("base state changed by branching")
	}
}

func TestHostile(t *testing.T) {
	evs := readEvents(t, "testdata/hostile.jsonl")
	s := Format.Init()
	for _, ev := range evs {
		before := compact(t, model.StateJSON(Format, s, 0))
		s2 := Format.Apply(s, ev)
		_ = Format.Describe(ev)
		_ = DescribeIn(s, ev)
		_ = Format.Render(s2, Doc)
		if compact(t, model.StateJSON(Format, s, 0)) != before {
			t.Fatalf("line %d modified the state passed in", ev.Line)
		}
		s = s2
	}
	// Lines with wrongly typed fields leave the state unchanged.
	if got := get(t, s, "messages").([]any); len(got) != 0 {
		t.Errorf("messages = %s", compact(t, got))
	}
	if got := get(t, s, "run_id"); got != "" {
		t.Errorf("run_id = %v", got)
	}
	if len(s.Pending()) != 0 {
		t.Errorf("pending = %+v", s.Pending())
	}
	// Not a state of this format.
	if got := Format.Render(nil, Doc); got != "" {
		t.Errorf("Render(nil) = %q", got)
	}
	if got := Format.Apply(nil, evs[0]); got == nil {
		t.Error("Apply(nil) = nil")
	}
}

func TestDescribe(t *testing.T) {
	a := readEvents(t, runA+"/journal.jsonl")
	b := readEvents(t, runB+"/journal.jsonl", contB)
	c := readEvents(t, runC+"/journal.jsonl")
	tests := []struct {
		ev      model.Event
		want    model.Row
		problem bool
	}{
		{a[0], model.Row{Key: "1", Type: "RUN_START", Summary: "Summarise build.log into summary.md"}, false},
		{a[1], model.Row{Key: "2", Type: "USER_MESSAGE", Actor: "user", Summary: "Summarise build.log into summary.md"}, false},
		{a[2], model.Row{Key: "3", Type: "HOOK_EXECUTION_AUDIT", Summary: "pre_llm_req SUCCESS"}, false},
		{a[3], model.Row{Key: "4", Type: "THOUGHT", Actor: "agent", Summary: "Let me read the log first."}, false},
		{a[4], model.Row{Key: "5", Type: "ACTION_REQUEST", Actor: "agent", Summary: "read_log: cat build.log"}, false},
		{a[5], model.Row{Key: "6", Type: "ACTION_RESULT", Summary: "SUCCESS: step 1: ok"}, false},
		{a[6], model.Row{Key: "7", Type: "THOUGHT", Actor: "agent", Summary: `→ write_summary({"filename":"/readonly/summary.md","content":"45 steps, all ok"}) → list_files({})`}, false},
		{a[8], model.Row{Key: "9", Type: "ACTION_RESULT", Summary: "FAILED: tee: /readonly/summary.md: Permission denied"}, true},
		{a[12], model.Row{Key: "13", Type: "RUN_END", Summary: "COMPLETED"}, false},
		{b[4], model.Row{Key: "5", Type: "SYSTEM_MESSAGE", Summary: "INFO Agent pausing for human input"}, false},
		{b[6], model.Row{Key: "7", Type: "ACTION_RESULT", Summary: "SUCCESS: Alice"}, false},
		{c[2], model.Row{Key: "3", Type: "SYSTEM_MESSAGE", Summary: "ERROR Fatal error: OpenAI API error: Connection error. (Status: undefined, Type: undefined)"}, true},
		{c[3], model.Row{Key: "4", Type: "RUN_END", Summary: "FAILED"}, true},
	}
	for _, tt := range tests {
		got := Format.Describe(tt.ev)
		tt.want.Problem = tt.problem
		tt.want.Time = got.Time
		if got != tt.want {
			t.Errorf("Describe(line %d) =\n%+v\nwant\n%+v", tt.ev.Line, got, tt.want)
		}
		if got.Time.IsZero() {
			t.Errorf("Describe(line %d): no time", tt.ev.Line)
		}
	}
	if got := Format.Describe(a[0]).Time; model.FormatTime(got) != "2026-11-21T22:29:41.432Z" {
		t.Errorf("time = %v", got)
	}
	// DescribeIn names the tool of a result from the state before it.
	if got := DescribeIn(fold(a[:8]), a[8]).Actor; got != "write_summary" {
		t.Errorf("DescribeIn actor = %q", got)
	}
	if got := DescribeIn(fold(b[:6]), b[6]).Actor; got != "ask_human" {
		t.Errorf("DescribeIn actor = %q", got)
	}
}

func TestObservationLine(t *testing.T) {
	tests := map[string]string{
		"=== STDOUT ===\nhello\n=== EXIT CODE: 0 ===":        "hello",
		"=== STDERR ===\n\n  boom  \n\n=== EXIT CODE: 2 ===": "boom",
		"=== STDOUT ===\n\n=== EXIT CODE: 0 ===":             "=== EXIT CODE: 0 ===",
		"Alice":                                              "Alice",
		"":                                                   "",
		"Error: Tool 'nope' not found":                       "Error: Tool 'nope' not found",
		"=== STDOUT ===\n=== STDERR ===\nwarn\n=== EXIT CODE: 1": "warn",
	}
	for in, want := range tests {
		if got := ObservationLine(in); got != want {
			t.Errorf("ObservationLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRender(t *testing.T) {
	b := readEvents(t, runB+"/journal.jsonl", contB)
	tests := []struct {
		golden string
		state  model.State
	}{
		{"conversation-a.md", fold(readEvents(t, runA+"/journal.jsonl"))},
		{"conversation-b-paused.md", fold(b[:5])},
		{"conversation-b-continued.md", fold(b)},
		{"conversation-d-interrupted.md", fold(readEvents(t, runD+"/journal.jsonl"))},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got := Format.Render(tt.state, Doc)
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("Render =\n%s\nwant\n%s", got, want)
			}
		})
	}
	paused := Format.Render(fold(b[:5]), Doc)
	if !strings.HasPrefix(paused, "> **Waiting for you:** Who is joining the team?\n") {
		t.Errorf("paused render does not start with the question:\n%s", paused)
	}
	a := Format.Render(fold(readEvents(t, runA+"/journal.jsonl")), Doc)
	if !strings.Contains(a, "… 8 more lines") {
		t.Errorf("long observation not cut:\n%s", a)
	}
	if Format.Render(fold(b), "OTHER") != "" {
		t.Error("unknown doc rendered")
	}
	if got := Format.Docs(); !slices.Equal(got, []string{"CONVERSATION"}) {
		t.Errorf("Docs = %v", got)
	}
}

func TestRenderBackticks(t *testing.T) {
	s := Format.Init()
	for i, line := range []string{
		`{"seq":1,"timestamp":"2026-11-21T22:29:41.432Z","type":"THOUGHT","payload":{"content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"run","arguments":"{}"}}]}}`,
		"{\"seq\":2,\"timestamp\":\"2026-11-21T22:29:41.432Z\",\"type\":\"ACTION_REQUEST\",\"payload\":{\"action_id\":\"c1\",\"tool_name\":\"run\",\"tool_args\":{},\"resolved_command\":\"echo `date`\"}}",
		"{\"seq\":3,\"timestamp\":\"2026-11-21T22:29:41.432Z\",\"type\":\"ACTION_RESULT\",\"payload\":{\"action_id\":\"c1\",\"status\":\"SUCCESS\",\"observation_content\":\"```\\nfenced\\n```\"}}",
	} {
		s = Format.Apply(s, model.Event{Pos: i + 1, Raw: []byte(line)})
	}
	got := Format.Render(s, Doc)
	for _, want := range []string{"- `run` `` echo `date` ``\n", "````\n```\nfenced\n```\n````\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, ev := range readEvents(t, runA+"/journal.jsonl", runB+"/journal.jsonl") {
		if !Sniff(ev.Raw) {
			t.Errorf("Sniff(%s) = false", ev.Raw)
		}
	}
	for _, raw := range []string{
		`{"type":"ENGINE_START","run_id":"x","timestamp":"2026-11-21T22:29:41.432Z"}`,
		`{"timestamp":"2026-11-21T22:29:41.432Z","runId":"x","type":"LLM_REQUEST"}`,
		`{"id":"0mwqzcqy6_516ef74a4e53aef3","type":"checkpoint.requested","stream_id":"s","correlation_id":"c","actor":"a","timestamp":1795300146798,"payload":{}}`,
		`{"seq":1,"timestamp":"2026-11-21T22:29:41.432Z","type":"accepted","payload":{}}`,
		`{"seq":"1","timestamp":"2026-11-21T22:29:41.432Z","type":"THOUGHT","payload":{}}`,
		`[1,2]`, `null`, ``, `{"seq":`,
	} {
		if Sniff([]byte(raw)) {
			t.Errorf("Sniff(%s) = true", raw)
		}
	}
}

func TestListRuns(t *testing.T) {
	runs, err := ListRuns(ws)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.ID+" "+r.Status)
	}
	want := []string{
		"20261121_223200_f0e1d2 UNKNOWN",
		"20261121_223100_e1f2a3 INTERRUPTED",
		"20261121_222957_c4d5e6 FAILED",
		"20261121_222947_b91d0a WAITING_FOR_INPUT",
		"20261121_222941_a7f3c2 COMPLETED",
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	e := runs[0]
	if e.MetaErr == nil || e.Task != "Tidy the docs folder" || model.FormatTime(e.Start) != "2026-11-21T22:32:00.100Z" {
		t.Errorf("broken-metadata run = %+v", e)
	}
	a := runs[4]
	if a.MetaErr != nil || a.Iterations != 2 || a.Task != "Summarise build.log into summary.md" ||
		a.Meta.PID != 4242 || a.Meta.Hostname != "devbox" || a.Meta.ProcessName != "node" ||
		a.Meta.StartTimeUnix != 1795300181430 || a.Meta.EndTime != "2026-11-21T22:29:41.496Z" ||
		a.Meta.AgentRef != "/home/dev/agents/log-reader" || model.FormatTime(a.Start) != "2026-11-21T22:29:41.430Z" ||
		a.Dir != runA || a.Journal() != runA+"/journal.jsonl" {
		t.Errorf("run A = %+v", a)
	}
	if runs[2].Meta.Error != "OpenAI API error: Connection error." {
		t.Errorf("run C error = %q", runs[2].Meta.Error)
	}
	if _, err := ListRuns("testdata/nope"); err == nil {
		t.Error("ListRuns of a missing dir: no error")
	}
}

func TestCheckVersion(t *testing.T) {
	v, err := CheckVersion(ws)
	if err != nil || v != "1.2" {
		t.Errorf("CheckVersion = %q, %v", v, err)
	}
	dir := t.TempDir()
	if _, err := CheckVersion(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing VERSION: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte("2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckVersion(dir); !errors.Is(err, ErrVersion) {
		t.Errorf("VERSION 2.0: %v", err)
	}
}

func TestCheckJournalFile(t *testing.T) {
	tests := []struct {
		path, head string
		want       int
	}{
		{"x/journal.jsonl", `{"seq":1,"timestamp":"2026`, 0},
		{"x/journal.jsonl", ``, 0},
		{"x/journal.json", `{"seq":1}`, 1},
		{"x/journal.json", "[\n  {\n    \"seq\": 1", 3},
		{"x/journal.jsonl", "{\n  \"seq\": 1,", 1},
		{"x/journal.jsonl", "{\"a\":1}\n{\"b\":2}", 1},
		{"x/journal.jsonl", "{\"seq\":1,\"timestamp\":\"x\"}\n{", 0},
	}
	for _, tt := range tests {
		got := CheckJournalFile(tt.path, []byte(tt.head))
		if len(got) != tt.want {
			t.Errorf("CheckJournalFile(%q, %q) = %q, want %d problems", tt.path, tt.head, got, tt.want)
		}
	}
}

// TestSharing checks that Apply appends to persistent collections instead of
// copying them: one more event on a long conversation costs a bounded
// number of allocations, whatever the conversation's length.
func TestSharing(t *testing.T) {
	s := Format.Init()
	for i := 1; i <= 5000; i++ {
		raw := `{"seq":` + model.Itoa(int64(i)) + `,"timestamp":"2026-11-21T22:29:41.432Z","type":"USER_MESSAGE","payload":{"content":"m"}}`
		s = Format.Apply(s, model.Event{Pos: i, Raw: []byte(raw)})
	}
	ev := model.Event{Pos: 5001, Raw: []byte(`{"seq":5001,"timestamp":"2026-11-21T22:29:41.432Z","type":"USER_MESSAGE","payload":{"content":"m"}}`)}
	if n := testing.AllocsPerRun(100, func() { _ = Format.Apply(s, ev) }); n > 40 {
		t.Errorf("Apply on a 5000-message state: %v allocations", n)
	}
}
