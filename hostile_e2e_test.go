package main

// End-to-end hostile-input tests for the headless commands (reliability.md
// §1.5): every one of the 66 payloads of internal/hostile is written into
// journals of every format — as string values in the fields each format
// displays, as JSON object keys, as event types, and in file and directory
// names — and every headless command is run on them with the real binary.
// Headless output carries no colours, so the bytes on stdout and stderr must
// hold no ESC at all, no C0 control but '\n' (and '\t' where render.Plain
// keeps it on purpose), no DEL, no C1, no bidi control, no tag character and
// no invalid UTF-8; JSON output must still decode to the journal's values.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rewind-tui/rewind/internal/hostile"
	"github.com/rewind-tui/rewind/render"
)

// hxBinPath is the rewind binary that hxRun runs; TestHostileHeadless
// builds it.
var hxBinPath string

// hxBuild builds the rewind binary into a temporary directory of t (removed
// when t ends) and makes hxRun use it.
func hxBuild(t testing.TB) {
	t.Helper()
	hxBinPath = filepath.Join(t.TempDir(), "rewind")
	if runtime.GOOS == "windows" {
		hxBinPath += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", hxBinPath, ".").CombinedOutput(); err != nil {
		t.Fatalf("building rewind: %v\n%s", err, out)
	}
}

// hxResult is what one run of the binary produced.
type hxResult struct {
	args           []string
	stdout, stderr []byte
	code           int
}

// hxRun runs the binary with args (in dir, when not empty) and returns its
// output and exit status; it fails t only when the process cannot start.
func hxRun(t testing.TB, dir string, args ...string) hxResult {
	t.Helper()
	cmd := exec.Command(hxBinPath, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=", "TERM=xterm-256color", "COLORTERM=truecolor")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running rewind %s: %v", hxShort(args), err)
	}
	return hxResult{args: args, stdout: out.Bytes(), stderr: errb.Bytes(), code: code}
}

// hxShort returns args quoted and shortened, for failure messages.
func hxShort(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if len(a) > 60 {
			a = a[:60] + "…"
		}
		b.WriteString(strconv.Quote(a))
	}
	return b.String()
}

// hxExpect runs the binary, checks both of its output streams with
// hxCheckBytes, and fails t when the exit status is not one of codes.
func hxExpect(t testing.TB, allowTab bool, codes []int, dir string, args ...string) hxResult {
	t.Helper()
	r := hxRun(t, dir, args...)
	hxCheckBytes(t, "stdout of rewind "+hxShort(args), r.stdout, allowTab)
	hxCheckBytes(t, "stderr of rewind "+hxShort(args), r.stderr, false)
	ok := false
	for _, c := range codes {
		ok = ok || c == r.code
	}
	if !ok {
		t.Errorf("rewind %s: exit status %d, want one of %v; stderr: %s", hxShort(args), r.code, codes, hxClip(r.stderr))
	}
	return r
}

// hxClip returns the start of b for failure messages.
func hxClip(b []byte) string {
	if len(b) > 300 {
		return strconv.Quote(string(b[:300])) + "…"
	}
	return strconv.Quote(string(b))
}

// hxBadRune reports why the character r must never reach a terminal from
// headless output, or "" when it may.
func hxBadRune(r rune, allowTab bool) string {
	switch {
	case r == 0x1b:
		return "ESC"
	case r == '\n', r == '\t' && allowTab:
		return ""
	case r < 0x20:
		return "C0 control"
	case r == 0x7f:
		return "DEL"
	case r >= 0x80 && r <= 0x9f:
		return "C1 control"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return "bidi control"
	case r >= 0xe0000 && r <= 0xe007f:
		return "tag character"
	}
	return ""
}

// hxCheckBytes fails t when out holds invalid UTF-8 (which covers raw 8-bit
// C1 bytes 0x80–0x9F) or a character hxBadRune rejects. It reports the first
// offence with its context.
func hxCheckBytes(t testing.TB, what string, out []byte, allowTab bool) {
	t.Helper()
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		why := ""
		if r == utf8.RuneError && n <= 1 {
			why = fmt.Sprintf("invalid UTF-8 byte %#x", out[i])
		} else {
			why = hxBadRune(r, allowTab)
		}
		if why != "" {
			lo, hi := max(0, i-40), min(len(out), i+40)
			t.Errorf("%s: %s at byte %d: …%q…", what, why, i, out[lo:hi])
			return
		}
		i += n
	}
}

// hxFFFD returns s as a JSON encoder that follows JSON.stringify or Go's
// json.Marshal leaves it: every byte that is not part of valid UTF-8
// becomes U+FFFD.
func hxFFFD(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hxArg returns s as it can be passed in argv: a NUL byte cannot be, so it
// becomes "␀" (the id then no longer matches and rewind must refuse).
func hxArg(s string) string { return strings.ReplaceAll(s, "\x00", "␀") }

// hxName returns a payload as a file or directory name: '/' and NUL, which
// no Linux name can hold, become '_', and names are cut (at a character
// boundary when valid) to 200 bytes, below NAME_MAX with room for a suffix.
// Only payloads 40 (csi-param-dos) and 53 (combining-flood) are cut.
func hxName(s string) string {
	s = strings.NewReplacer("/", "_", "\x00", "_").Replace(s)
	if len(s) > 200 {
		n := 200
		if utf8.ValidString(s) {
			for !utf8.RuneStart(s[n]) {
				n--
			}
		}
		s = s[:n]
	}
	return s
}

// The fixture JSON writer is shared with the other hostile-input suite.
type (
	hxKV  = hostile.KV
	hxObj = hostile.Obj
)

var (
	hxEncode = hostile.AppendJSON
	hxQuote  = hostile.AppendString
)

// hxJournal collects the lines of a journal under construction and
// remembers which of them rewind must treat as events.
type hxJournal struct {
	lines [][]byte
	good  []bool
}

// add appends v as one line. When v holds invalid UTF-8 (payloads 27 and
// 55), a second line with the raw bytes follows: rewind must show it as a
// bad line without passing its bytes on.
func (j *hxJournal) add(v any) {
	std := hxEncode(nil, v, false)
	j.lines = append(j.lines, std)
	j.good = append(j.good, true)
	if raw := hxEncode(nil, v, true); !bytes.Equal(raw, std) {
		j.lines = append(j.lines, raw)
		j.good = append(j.good, false)
	}
}

// addBad appends line as it is: a line rewind must count as bad.
func (j *hxJournal) addBad(line []byte) {
	j.lines = append(j.lines, line)
	j.good = append(j.good, false)
}

// bytes returns the journal's content, one line per record.
func (j *hxJournal) bytes() []byte {
	var b bytes.Buffer
	for _, l := range j.lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// events returns the event lines decoded with encoding/json, in order.
func (j *hxJournal) events(t testing.TB) []any {
	t.Helper()
	var out []any
	for i, l := range j.lines {
		if !j.good[i] {
			continue
		}
		var v any
		if err := json.Unmarshal(l, &v); err != nil {
			t.Fatalf("fixture line %d does not decode: %v", i+1, err)
		}
		out = append(out, v)
	}
	return out
}

// write stores the journal at path, creating its directory.
func (j *hxJournal) write(t testing.TB, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, j.bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hxBaseMS is the Unix-millisecond time of the generated events.
const hxBaseMS = int64(1795300146798)

// hxISO returns the ISO-8601 time i seconds after hxBaseMS, as
// Date.toISOString writes it.
func hxISO(i int) string {
	return time.UnixMilli(hxBaseMS + int64(i)*1000).UTC().Format("2006-01-02T15:04:05.000Z")
}

// hxDurableStream returns a Durable Stream journal holding every payload in
// every field the format displays: the event id, stream_id and actor;
// checkpoint id, decision_point, options (id, label, description) and
// requested_by; agent.spawned id, description, agent and prompt; text
// deltas; agent.failed errors; ledger task titles and directives; a decided
// checkpoint's rejected_by and reason; and, at the end, events whose type
// and payload keys are the payloads.
func hxDurableStream() *hxJournal {
	j := &hxJournal{}
	ev := func(typ, streamID, actor, id string, ts int64, payload hxObj) hxObj {
		return hxObj{{"type", typ}, {"stream_id", streamID}, {"correlation_id", "926ee8db3accf11b"},
			{"actor", actor}, {"payload", payload}, {"id", id}, {"timestamp", ts}}
	}
	for i, p := range hostile.Payloads {
		ts := hxBaseMS + int64(i)*1000
		j.add(ev("agent.spawned", p.Value, p.Value, p.Value, ts, hxObj{
			{"description", p.Value}, {"agent", p.Value}, {"prompt", p.Value},
			{"parent_session_id", p.Value}, {"timeout_ms", 600000},
			{"id", p.Value}, {"status", "pending"}, {"created_at", ts}}))
		j.add(ev("checkpoint.requested", p.Value, p.Value, p.Value, ts+1, hxObj{
			{"id", p.Value}, {"decision_point", p.Value},
			{"options", []any{
				hxObj{{"id", p.Value}, {"label", p.Value}, {"description", p.Value}},
				hxObj{{"id", "ok"}, {"label", "OK"}},
			}},
			{"requested_by", p.Value}, {"requested_at", ts + 1}, {"expires_at", ts + 300001}}))
		j.add(ev("execution.text_delta", p.Value, "system", p.Value, ts+2, hxObj{
			{"sessionID", p.Value}, {"messageID", p.Value}, {"partID", p.Value}, {"delta", p.Value}}))
		done := fmt.Sprintf("cp_done_%02d", p.N)
		j.add(ev("checkpoint.requested", "ses_1", "chief-of-staff", done, ts+3, hxObj{
			{"id", done}, {"decision_point", p.Value}, {"options", []any{}},
			{"requested_by", "chief-of-staff"}, {"requested_at", ts + 3}}))
		j.add(ev("checkpoint.rejected", "926ee8db3accf11b", p.Value, done+"_r", ts+4, hxObj{
			{"checkpoint_id", done}, {"rejected_by", p.Value}, {"reason", p.Value}}))
		fail := fmt.Sprintf("intent_fail_%02d", p.N)
		j.add(ev("agent.spawned", "ses_1", "orchestrator", fail, ts+5, hxObj{
			{"description", "job"}, {"agent", "a"}, {"prompt", "x"}, {"id", fail}, {"status", "pending"}, {"created_at", ts + 5}}))
		j.add(ev("agent.failed", "ses_1", "orchestrator", fail+"_f", ts+6, hxObj{
			{"intent_id", fail}, {"error", p.Value}}))
		j.add(ev("ledger.task.created", "ledger-events", "ledger", p.Value, ts+7, hxObj{
			{"taskId", p.Value}, {"taskTitle", p.Value}, {"epicId", p.Value}}))
		j.add(ev("ledger.governance.directive_added", "ledger-events", "ledger", p.Value, ts+8, hxObj{
			{"directiveContent", p.Value}}))
	}
	// Types and keys: after the first 50 lines, so detection still sees
	// Durable Stream.
	for i, p := range hostile.Payloads {
		ts := hxBaseMS + 100000 + int64(i)
		j.add(ev(p.Value, "ses_1", "system", fmt.Sprintf("type_%02d", p.N), ts, hxObj{{p.Value, p.Value}}))
	}
	return j
}

// hxDeltaEngine returns a Delta Engine journal with every payload in
// RUN_START-like tasks, USER_MESSAGE and THOUGHT content, tool call names and
// arguments, ACTION_REQUEST tool_name, tool_args (keys and values),
// resolved_command and action ids, ACTION_RESULT observation_content,
// SYSTEM_MESSAGE content and hook audits; it ends with events typed by the
// payloads and an ask_human call, whose action id is payload 57
// (fake-prompt-bottom) and whose prompt joins all 66 payloads, left
// pending.
func hxDeltaEngine() (*hxJournal, string, string) {
	j := &hxJournal{}
	seq := 0
	ev := func(typ string, payload hxObj) {
		seq++
		j.add(hxObj{{"seq", seq}, {"timestamp", hxISO(seq)}, {"type", typ}, {"payload", payload}})
	}
	ev("RUN_START", hxObj{{"run_id", "run-hostile"}, {"task", hostile.Payloads[0].Value}, {"agent_ref", hostile.Payloads[10].Value}})
	for _, p := range hostile.Payloads {
		id := "call_" + p.Value
		args := string(hxEncode(nil, hxObj{{"prompt", p.Value}}, false))
		ev("USER_MESSAGE", hxObj{{"content", p.Value}})
		ev("THOUGHT", hxObj{{"content", p.Value}, {"llm_invocation_ref", p.Value},
			{"tool_calls", []any{hxObj{{"id", id}, {"type", "function"},
				{"function", hxObj{{"name", p.Value}, {"arguments", args}}}}}}})
		ev("ACTION_REQUEST", hxObj{{"action_id", id}, {"tool_name", p.Value},
			{"tool_args", hxObj{{"cmd", p.Value}, {p.Value, p.Value}}}, {"resolved_command", p.Value}})
		ev("ACTION_RESULT", hxObj{{"action_id", id}, {"status", "FAILED"},
			{"observation_content", "=== STDOUT ===\n" + p.Value + "\n=== EXIT CODE: 1 ==="}, {"execution_ref", p.Value}})
		ev("THOUGHT", hxObj{{"content", ""}, {"llm_invocation_ref", "x"},
			{"tool_calls", []any{hxObj{{"id", "ask_" + p.Value}, {"type", "function"},
				{"function", hxObj{{"name", "ask_human"}, {"arguments", args}}}}}}})
		ev("ACTION_REQUEST", hxObj{{"action_id", "ask_" + p.Value}, {"tool_name", "ask_human"},
			{"tool_args", hxObj{{"prompt", p.Value}}}, {"resolved_command", "ask_human " + p.Value}})
		ev("ACTION_RESULT", hxObj{{"action_id", "ask_" + p.Value}, {"status", "SUCCESS"},
			{"observation_content", p.Value}, {"execution_ref", "ask_" + p.Value}})
		ev("SYSTEM_MESSAGE", hxObj{{"level", "WARN"}, {"content", p.Value}})
		ev("HOOK_EXECUTION_AUDIT", hxObj{{"hook_name", p.Value}, {"status", p.Value}, {"io_path_ref", p.Value}})
	}
	for _, p := range hostile.Payloads {
		ev(p.Value, hxObj{{"content", p.Value}})
	}
	var all []string
	for _, p := range hostile.Payloads {
		all = append(all, p.Value)
	}
	prompt := strings.Join(all, "\n---\n")
	askID := hostile.Payloads[56].Value
	ev("THOUGHT", hxObj{{"content", ""}, {"llm_invocation_ref", "y"},
		{"tool_calls", []any{hxObj{{"id", askID}, {"type", "function"},
			{"function", hxObj{{"name", "ask_human"}, {"arguments", string(hxEncode(nil, hxObj{{"prompt", prompt}}, false))}}}}}}})
	ev("ACTION_REQUEST", hxObj{{"action_id", askID}, {"tool_name", "ask_human"},
		{"tool_args", hxObj{{"prompt", prompt}}}, {"resolved_command", "ask_human " + prompt}})
	ev("SYSTEM_MESSAGE", hxObj{{"level", "INFO"}, {"content", "Agent pausing for human input"}})
	return j, askID, prompt
}

// hxDeltaRun writes a paused Delta Engine run into runDir: journal j,
// metadata.json with task (hostile) and status WAITING_FOR_INPUT, and
// interaction/request.json asking prompt.
func hxDeltaRun(t testing.TB, runDir string, j *hxJournal, runID, task, prompt string, start int) {
	t.Helper()
	j.write(t, filepath.Join(runDir, "journal.jsonl"))
	meta := hxObj{{"run_id", runID}, {"start_time", hxISO(start)}, {"agent_ref", task}, {"task", task},
		{"status", "WAITING_FOR_INPUT"}, {"iterations_completed", 0}}
	if err := os.WriteFile(filepath.Join(runDir, "metadata.json"), hxEncode(nil, meta, false), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(runDir, "interaction"), 0o755); err != nil {
		t.Fatal(err)
	}
	req := hxObj{{"request_id", "00000000-0000-4000-8000-000000000000"}, {"timestamp", hxISO(start)},
		{"prompt", prompt}, {"input_type", "text"}, {"sensitive", false}}
	if err := os.WriteFile(filepath.Join(runDir, "interaction", "request.json"), hxEncode(nil, req, false), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hxDeltaMind returns a DeltaMind provenance log with every payload as item
// ids, summaries, source turn ids, revision modes, resolutions, branch
// alternatives, supersede and rejection reasons, and as the type of lines
// the fold ignores.
func hxDeltaMind() *hxJournal {
	j := &hxJournal{}
	seq := 0
	acc := func(kind, id string, fields hxObj) {
		seq++
		d := hxObj{{"kind", kind}, {"timestamp", hxISO(seq)}}
		d = append(d, fields...)
		j.add(hxObj{{"type", "accepted"}, {"seq", seq}, {"timestamp", hxISO(seq)}, {"delta", d},
			{"itemId", id}, {"resultingStatus", "active"}})
	}
	for _, p := range hostile.Payloads {
		v := p.Value
		turns := []any{hxObj{{"turnId", v}}}
		acc("goal_set", "g-"+v, hxObj{{"id", "g-" + v}, {"summary", v}, {"confidence", "high"}, {"sourceTurns", turns}})
		acc("decision_made", v, hxObj{{"id", v}, {"summary", v}, {"confidence", "medium"}, {"sourceTurns", turns}})
		acc("constraint_added", "c-"+v, hxObj{{"id", "c-" + v}, {"summary", v}, {"hard", p.N%2 == 0}, {"sourceTurns", turns}})
		acc("constraint_revised", "c-"+v, hxObj{{"targetId", "c-" + v}, {"summary", v}, {"mode", v}, {"sourceTurns", turns}})
		acc("task_opened", "t-"+v, hxObj{{"id", "t-" + v}, {"summary", v}, {"sourceTurns", turns}})
		if p.N%2 == 1 {
			acc("task_closed", "t-"+v, hxObj{{"targetId", "t-" + v}, {"resolution", v}, {"sourceTurns", turns}})
		}
		acc("branch_created", "b-"+v, hxObj{{"id", "b-" + v}, {"alternatives", []string{v, "plain"}}, {"sourceTurns", turns}})
		acc("decision_made", "s-"+v, hxObj{{"id", "s-" + v}, {"summary", v}, {"confidence", "low"}, {"sourceTurns", turns}})
		acc("item_superseded", "s-"+v, hxObj{{"targetId", "s-" + v}, {"reason", v}, {"sourceTurns", turns}})
		seq++
		j.add(hxObj{{"type", "rejected"}, {"seq", seq}, {"timestamp", hxISO(seq)},
			{"delta", hxObj{{"kind", "decision_revised"}, {"targetId", "missing-" + v}, {"summary", v},
				{"timestamp", hxISO(seq)}, {"sourceTurns", turns}}},
			{"reason", v}})
	}
	for _, p := range hostile.Payloads {
		seq++
		j.add(hxObj{{"type", p.Value}, {"seq", seq}, {"delta", hxObj{{p.Value, p.Value}}}})
	}
	seq++
	j.add(hxObj{{"type", "checkpoint"}, {"seq", seq}, {"timestamp", hxISO(1)}, {"totalItems", 1},
		{"totalDeltas", 2}, {"totalTurns", 3}, {"contextChars", 4}, {"rawChars", 5}})
	return j
}

// hxGeneric returns a generic JSONL journal: per payload a
// "<payload>.requested" event (so the pending item's kind is the payload)
// and an "approval.requested" event with the payload as id, actor, prompt,
// option and message; decisions for odd payloads; notes whose type and
// payload keys are the payload; one record whose top-level keys are all 66
// payloads; and bad lines whose only JSON error follows a hostile key.
func hxGeneric() *hxJournal {
	j := &hxJournal{}
	for _, p := range hostile.Payloads {
		v := p.Value
		j.add(hxObj{{"type", "approval.requested"}, {"id", v}, {"seq", p.N}, {"actor", v}, {"timestamp", hxISO(p.N)},
			{"payload", hxObj{{"id", v}, {"prompt", v}, {"options", []any{hxObj{{"id", v}, {"label", v}}}},
				{"requested_by", v}, {"message", v}}}})
		j.add(hxObj{{"type", v + ".requested"}, {"id", fmt.Sprintf("req_%02d", p.N)}, {"actor", v},
			{"payload", hxObj{{"question", v}}}})
		if p.N%2 == 1 {
			j.add(hxObj{{"type", "approval.rejected"}, {"actor", v},
				{"payload", hxObj{{"approval_id", v}, {"rejected_by", v}, {"reason", v}}}})
		}
		j.add(hxObj{{"type", v}, {"actor", v}, {"payload", hxObj{{v, v}, {"content", v}}}})
	}
	keys := hxObj{{"type", "keys"}}
	for _, p := range hostile.Payloads {
		keys = append(keys, hxKV{p.Value, p.Value})
	}
	j.add(keys)
	for _, p := range hostile.Payloads {
		bad := hxQuote([]byte("{"), p.Value, true)
		j.addBad(append(bad, `: [1, }`...))
	}
	return j
}

// hxStrings collects every string value and every object key of a decoded
// JSON value.
func hxStrings(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		into[x] = true
	case []any:
		for _, e := range x {
			hxStrings(e, into)
		}
	case map[string]any:
		for k, e := range x {
			into[k] = true
			hxStrings(e, into)
		}
	}
}

// hxDecodeJSON fails t unless out is one JSON value, and returns it.
func hxDecodeJSON(t testing.TB, what string, out []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s: output is not JSON: %v: %s", what, err, hxClip(out))
	}
	return v
}

// hxWantAll fails t for each payload whose value (as the fixture encoded
// it) is not among the strings and keys of v: the escaping must be
// lossless.
func hxWantAll(t testing.TB, what string, v any, wrap func(string) string) {
	t.Helper()
	got := map[string]bool{}
	hxStrings(v, got)
	for _, p := range hostile.Payloads {
		want := hxFFFD(p.Value)
		if wrap != nil {
			want = wrap(want)
		}
		if !got[want] {
			t.Errorf("%s: payload %d (%s) does not decode back from the output", what, p.N, p.Name)
		}
	}
}

// hxCheckEvents checks `rewind events` output against the journal: one
// line per event, each decoding to the same value as the journal line.
func hxCheckEvents(t testing.TB, what string, out []byte, j *hxJournal) {
	t.Helper()
	want := j.events(t)
	lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	if len(lines) != len(want) {
		t.Fatalf("%s: %d lines, want %d events", what, len(lines), len(want))
	}
	for i, l := range lines {
		var v any
		if err := json.Unmarshal(l, &v); err != nil {
			t.Errorf("%s: line %d is not JSON: %v: %s", what, i+1, err, hxClip(l))
			continue
		}
		if !reflect.DeepEqual(v, want[i]) {
			t.Errorf("%s: line %d decodes to a different value than the journal's event %d: %s", what, i+1, i+1, hxClip(l))
		}
	}
}

// hxNeedle returns the start of what a user must see for payload s in a
// Markdown rendering or a message: the first line of render.Plain(s),
// spaces trimmed, cut to 24 bytes at a character boundary. Text from the
// first tab on is left out, since tabs expand by column.
func hxNeedle(s string) string {
	if i := strings.IndexByte(s, '\t'); i > 0 {
		s = s[:i]
	}
	n := render.Plain(s)
	if i := strings.IndexByte(n, '\n'); i >= 0 {
		n = n[:i]
	}
	n = strings.TrimSpace(n)
	if len(n) > 24 {
		k := 24
		for !utf8.RuneStart(n[k]) {
			k--
		}
		n = n[:k]
	}
	return n
}

// hxWantVisible fails t for each payload whose needle (hxNeedle) is not in
// out: something must remain visible where the payload was.
func hxWantVisible(t testing.TB, what string, out []byte, wrap func(string) string) {
	t.Helper()
	for _, p := range hostile.Payloads {
		v := hxFFFD(p.Value)
		if wrap != nil {
			v = wrap(v)
		}
		if n := hxNeedle(v); !bytes.Contains(out, []byte(n)) {
			t.Errorf("%s: nothing visible is left of payload %d (%s): %q not found", what, p.N, p.Name, n)
		}
	}
}

// hxHeadlessReads runs state (at the end, at 0 and halfway, and past the
// end), pending, events and render (every document in docs) on path and
// checks every output: safe bytes, lossless JSON, visible Markdown.
func hxHeadlessReads(t *testing.T, path string, j *hxJournal, docs []string, stateWrap func(string) string) {
	n := len(j.events(t))
	st := hxExpect(t, false, []int{0}, "", "state", "--", path)
	hxWantAll(t, "state", hxDecodeJSON(t, "state", st.stdout), stateWrap)
	for _, at := range []int{0, n / 2} {
		r := hxExpect(t, false, []int{0}, "", "state", "--at", strconv.Itoa(at), "--", path)
		hxDecodeJSON(t, "state --at", r.stdout)
	}
	hxExpect(t, false, []int{2}, "", "state", "--at", strconv.Itoa(n+5), "--", path)
	pd := hxExpect(t, false, []int{0}, "", "pending", "--", path)
	hxDecodeJSON(t, "pending", pd.stdout)
	ev := hxExpect(t, false, []int{0}, "", "events", "--", path)
	hxCheckEvents(t, "events", ev.stdout, j)
	var md []byte
	for _, d := range docs {
		args := []string{"render", "--", path}
		if d != "" {
			args = []string{"render", "--doc", d, "--", path}
		}
		r := hxExpect(t, true, []int{0}, "", args...)
		md = append(md, r.stdout...)
	}
	if docs != nil {
		hxWantVisible(t, "render", md, nil)
	}
	hxVerify(t, path)
}

// hxVerify runs `rewind verify` (text and --json) on path: exit status 0
// (no problem) or 1 (problems listed), safe bytes, and JSON that decodes.
func hxVerify(t *testing.T, path string) {
	t.Helper()
	hxExpect(t, false, []int{0, 1}, "", "verify", "--", path)
	r := hxExpect(t, false, []int{0, 1}, "", "verify", "--json", "--", path)
	hxDecodeJSON(t, "verify --json", r.stdout)
}

// TestHostileHeadless runs every headless command on journals that carry
// all 66 hostile payloads and checks every byte the commands print.
func TestHostileHeadless(t *testing.T) {
	if len(hostile.Payloads) != 66 {
		t.Fatalf("hostile.Payloads has %d payloads, want 66", len(hostile.Payloads))
	}
	hxBuild(t)
	root := t.TempDir()

	t.Run("durable-stream", func(t *testing.T) {
		t.Parallel()
		j := hxDurableStream()
		path := filepath.Join(root, "ds", "durable_stream.jsonl")
		j.write(t, path)
		hxHeadlessReads(t, path, j, []string{""}, nil)
		pd := hxRun(t, "", "pending", "--", path)
		hxWantAll(t, "pending", hxDecodeJSON(t, "pending", pd.stdout), nil)
	})

	t.Run("durable-stream-decide", func(t *testing.T) {
		t.Parallel()
		j := hxDurableStream()
		path := filepath.Join(root, "ds-decide", "durable_stream.jsonl")
		j.write(t, path)
		var reasons []string
		for _, p := range hostile.Payloads {
			id, arg := hxFFFD(p.Value), hxArg(p.Value)
			first, second := "reject", "approve"
			if p.N%2 == 0 {
				first, second = second, first
			}
			want := 0
			if arg != id {
				want = 1 // NUL (42) cannot be passed; invalid UTF-8 (55) is U+FFFD in the journal
			}
			for k, verb := range []string{first, second} {
				args := []string{verb, "--wait=5s", "--as=" + arg}
				if verb == "reject" {
					args = append(args, "--reason="+arg)
				} else {
					args = append(args, "--option="+arg)
				}
				code := 1 // the second decision on an item is refused
				if k == 0 {
					code = want
				}
				r := hxExpect(t, false, []int{code}, "", append(args, "--", path, arg)...)
				if r.code != 0 {
					continue
				}
				rec := r.stdout[bytes.IndexByte(r.stdout, '{'):]
				v := hxDecodeJSON(t, verb+" record", rec)
				hxWantOne(t, verb+" record", v, id)
				if verb == "reject" {
					reasons = append(reasons, p.Value)
				}
			}
		}
		if len(reasons) != 31 {
			// 33 odd payloads are rejected first; 27 and 55 (invalid
			// UTF-8) cannot name their checkpoint from argv.
			t.Errorf("%d rejections were written, want 31", len(reasons))
		}
		// The decided journal, read back.
		ev := hxExpect(t, false, []int{0}, "", "events", "--", path)
		if bytes.Count(ev.stdout, []byte("\n")) <= len(j.events(t)) {
			t.Errorf("no decision was appended")
		}
		st := hxExpect(t, false, []int{0}, "", "state", "--", path)
		hxWantAll(t, "state after decisions", hxDecodeJSON(t, "state", st.stdout), nil)
		hxExpect(t, true, []int{0}, "", "render", "--", path)
		hxExpect(t, false, []int{0}, "", "pending", "--", path)
	})

	t.Run("delta-engine", func(t *testing.T) {
		t.Parallel()
		j, askID, prompt := hxDeltaEngine()
		runDir := filepath.Join(root, "de", ".delta", "run-hostile")
		hxDeltaRun(t, runDir, j, "run-hostile", prompt, prompt, 0)
		if err := os.WriteFile(filepath.Join(root, "de", ".delta", "VERSION"), []byte("1.2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(runDir, "journal.jsonl")
		hxHeadlessReads(t, path, j, []string{""}, nil)
		pd := hxExpect(t, false, []int{0}, "", "pending", "--", path)
		got := map[string]bool{}
		hxStrings(hxDecodeJSON(t, "pending", pd.stdout), got)
		if !got[askID] || !got[hxFFFD(prompt)] {
			t.Errorf("pending: the ask_human id or prompt does not decode back: %s", hxClip(pd.stdout))
		}
		// The directory forms: a .delta/ directory and the run directory.
		hxExpect(t, false, []int{0}, "", "pending", "--", filepath.Join(root, "de", ".delta"))
		hxExpect(t, false, []int{0}, "", "state", "--", filepath.Join(root, "de", ".delta"))
		hxExpect(t, true, []int{0}, "", "render", "--", runDir)
		// answer: wrong id refused, then the real answer (every payload), then refused again.
		answer := strings.Join([]string{hostile.Payloads[0].Value, hostile.Payloads[10].Value, hostile.Payloads[56].Value}, "\n")
		r := hxExpect(t, false, []int{0}, "", "answer", "--", runDir, hxArg(prompt))
		if !bytes.HasPrefix(r.stdout, []byte("answered: wrote ")) {
			t.Errorf("answer: unexpected output %s", hxClip(r.stdout))
		}
		b, err := os.ReadFile(filepath.Join(runDir, "interaction", "response.txt"))
		if err != nil || string(b) != hxArg(prompt) {
			t.Errorf("answer: response.txt does not hold the answer exactly (err %v)", err)
		}
		hxExpect(t, false, []int{1}, "", "answer", "--", runDir, answer)
		// approve/reject are for other formats: the message must stay clean.
		hxExpect(t, false, []int{1, 2}, "", "reject", "--reason="+answer, "--", path, hxArg(askID))
		hxExpect(t, false, []int{0, 1, 2}, "", "approve", "--", path, hxArg(askID))
	})

	t.Run("deltamind", func(t *testing.T) {
		t.Parallel()
		j := hxDeltaMind()
		path := filepath.Join(root, "dm", ".deltamind", "provenance.jsonl")
		j.write(t, path)
		hxHeadlessReads(t, path, j, []string{"ACTIVE_STATE", "DECISIONS", "TASKS", "CONSTRAINTS"}, nil)
		for _, doc := range []string{"active_state.md", "Decisions"} {
			hxExpect(t, true, []int{0}, "", "render", "--doc", doc, "--", path)
		}
		hxExpect(t, false, []int{1, 2}, "", "approve", "--", path, hxArg(hostile.Payloads[0].Value))
	})

	t.Run("generic", func(t *testing.T) {
		t.Parallel()
		j := hxGeneric()
		path := filepath.Join(root, "gen", "events.jsonl")
		j.write(t, path)
		hxHeadlessReads(t, path, j, []string{""}, nil)
		pd := hxExpect(t, false, []int{0}, "", "pending", "--", path)
		hxWantAll(t, "pending", hxDecodeJSON(t, "pending", pd.stdout), nil)
		// Decide on a copy: the pending kind "<payload>" and id are hostile.
		for _, p := range hostile.Payloads {
			if p.N%2 == 1 {
				continue // rejected in the journal already
			}
			hxExpect(t, false, []int{0, 1}, "", "approve", "--wait=5s", "--as="+hxArg(p.Value), "--option="+hxArg(p.Value), "--", path, hxArg(p.Value))
		}
		for _, p := range hostile.Payloads[:6] {
			hxExpect(t, false, []int{1}, "", "reject", "--reason="+hxArg(p.Value), "--", path, hxArg(p.Value))
		}
		st := hxExpect(t, false, []int{0}, "", "state", "--", path)
		hxDecodeJSON(t, "state after decisions", st.stdout)
	})

	t.Run("usage-errors", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(root, "usage", "durable_stream.jsonl")
		hxDurableStream().write(t, path)
		for _, p := range hostile.Payloads {
			a := hxArg(p.Value)
			hxExpect(t, false, []int{2}, "", "--format="+a, "state", "--", path)
			hxExpect(t, false, []int{2}, "", "render", "--doc="+a, "--", path)
			hxExpect(t, false, []int{2}, "", "state", "--", filepath.Join(root, "usage", hxName(p.Value)))
		}
	})

	t.Run("file-and-directory-names", func(t *testing.T) {
		t.Parallel()
		for _, p := range hostile.Payloads {
			t.Run(p.Name, func(t *testing.T) {
				t.Parallel()
				name := hxName(p.Value)
				dir := filepath.Join(root, "names", fmt.Sprintf("%02d", p.N), name)
				path := filepath.Join(dir, name+".jsonl")
				j := &hxJournal{}
				j.add(hxObj{{"type", "checkpoint.requested"}, {"stream_id", "ses_1"}, {"correlation_id", "926ee8db3accf11b"},
					{"actor", "chief-of-staff"}, {"payload", hxObj{{"id", "cp_1"}, {"decision_point", "Ship it?"},
						{"options", []any{hxObj{{"id", "yes"}, {"label", "Yes"}}}}, {"requested_by", "chief-of-staff"},
						{"requested_at", hxBaseMS}}}, {"id", "0mwqzcqyi_6b81e7cf87162c30"}, {"timestamp", hxBaseMS}})
				j.write(t, path)
				hxExpect(t, false, []int{0}, "", "state", "--", path)
				hxExpect(t, false, []int{0}, "", "pending", "--", path)
				hxExpect(t, false, []int{0}, "", "events", "--", path)
				hxExpect(t, true, []int{0}, "", "render", "--", path)
				hxVerify(t, path)
				// Error messages that quote the path.
				visible := hxNeedle(name)
				hxExpect(t, false, []int{1}, "", "approve", "--wait=5s", "--", path, "cp_unknown")
				for _, args := range [][]string{
					{"state", "--at", "9", "--", path},
					{"state", "--", path + ".missing"},
					{"pending", "--", dir}, // no journal found in the directory
				} {
					r := hxExpect(t, false, []int{1, 2}, "", args...)
					if !bytes.Contains(r.stderr, []byte(visible)) {
						t.Errorf("rewind %s: the message does not show the path's name %q: %s", hxShort(args), visible, hxClip(r.stderr))
					}
				}
				r := hxExpect(t, false, []int{0}, "", "approve", "--wait=5s", "--", path, "cp_1")
				if !bytes.Contains(r.stdout, []byte(visible)) {
					t.Errorf("approve: the output does not show the path's name %q: %s", visible, hxClip(r.stdout))
				}
				hxExpect(t, false, []int{1}, "", "reject", "--wait=5s", "--", path, "cp_1")
			})
		}
	})

	t.Run("delta-runs-named-by-payloads", func(t *testing.T) {
		t.Parallel()
		delta := filepath.Join(root, "runs", ".delta")
		if err := os.MkdirAll(delta, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(delta, "VERSION"), []byte("1.2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range hostile.Payloads {
			j := &hxJournal{}
			j.add(hxObj{{"seq", 1}, {"timestamp", hxISO(p.N)}, {"type", "RUN_START"},
				{"payload", hxObj{{"run_id", p.Value}, {"task", p.Value}, {"agent_ref", p.Value}}}})
			j.add(hxObj{{"seq", 2}, {"timestamp", hxISO(p.N)}, {"type", "ACTION_REQUEST"},
				{"payload", hxObj{{"action_id", "call_" + p.Value}, {"tool_name", "ask_human"},
					{"tool_args", hxObj{{"prompt", p.Value}}}, {"resolved_command", "ask_human " + p.Value}}}})
			hxDeltaRun(t, filepath.Join(delta, hxName(p.Value)), j, p.Value, p.Value, p.Value, p.N)
		}
		pd := hxExpect(t, false, []int{0}, "", "pending", "--", delta)
		hxWantAll(t, "pending of every run", hxDecodeJSON(t, "pending", pd.stdout), nil)
		hxExpect(t, false, []int{0}, "", "state", "--", delta)
		hxExpect(t, true, []int{0}, "", "render", "--", delta)
		hxExpect(t, false, []int{0}, "", "events", "--", delta)
		hxVerify(t, delta)
		for _, p := range hostile.Payloads {
			hxVerify(t, filepath.Join(delta, hxName(p.Value)))
		}
		for _, p := range hostile.Payloads {
			runDir := filepath.Join(delta, hxName(p.Value))
			r := hxExpect(t, false, []int{0}, "", "answer", "--", runDir, hxArg(p.Value))
			if !bytes.Contains(r.stdout, []byte(hxNeedle(hxName(p.Value)))) {
				t.Errorf("answer %d: the output does not show the run directory: %s", p.N, hxClip(r.stdout))
			}
			b, err := os.ReadFile(filepath.Join(runDir, "interaction", "response.txt"))
			if err != nil || string(b) != hxArg(p.Value) {
				t.Errorf("answer %d: response.txt does not hold the answer exactly (err %v)", p.N, err)
			}
			hxExpect(t, false, []int{1}, "", "answer", "--", runDir, hxArg(p.Value))
		}
	})
}

// hxWantOne fails t unless s is among the strings of v.
func hxWantOne(t testing.TB, what string, v any, s string) {
	t.Helper()
	got := map[string]bool{}
	hxStrings(v, got)
	if !got[s] {
		t.Errorf("%s: %q does not decode back from the output", what, s)
	}
}
