package tui

// Hostile-input tests for the terminal UI (reliability.md §1.5): the real
// Model runs in a Bubble Tea program on journals of every format that carry
// all 66 payloads of internal/hostile (in the displayed fields, as keys, as
// event types, as Delta Engine run directory names, tasks and statuses). A
// script of keys walks through every event, the state pane, every Markdown
// document, the pending list and the decision dialog of every pending item,
// and every byte the program writes is kept. The test then classifies every
// control sequence in that output: nothing but what Bubble Tea's renderer
// writes for a benign journal may appear (learned from a control run), and
// never OSC, DCS, APC, PM, SOS, RIS, charset switches, DECALN, BEL, raw C1,
// bidi or tag characters, invalid UTF-8, or SGR conceal/blink.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/internal/hostile"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/keymap"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// The fixture JSON writer is shared with the other hostile-input suite.
type (
	hxKV  = hostile.KV
	hxObj = hostile.Obj
)

var (
	hxEncode = hostile.AppendJSON
	hxQuote  = hostile.AppendString
)

// hxLines builds a journal: add writes v as one line, followed by a
// raw-byte variant when v holds invalid UTF-8 (a bad line rewind must show
// without its bytes).
type hxLines struct{ b bytes.Buffer }

func (j *hxLines) add(v any) {
	std := hxEncode(nil, v, false)
	j.b.Write(std)
	j.b.WriteByte('\n')
	if raw := hxEncode(nil, v, true); !bytes.Equal(raw, std) {
		j.b.Write(raw)
		j.b.WriteByte('\n')
	}
}

// addBad appends line as it is.
func (j *hxLines) addBad(line []byte) {
	j.b.Write(line)
	j.b.WriteByte('\n')
}

// write stores the journal at path and returns the number of lines.
func (j *hxLines) write(t testing.TB, path string) int {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, j.b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return bytes.Count(j.b.Bytes(), []byte("\n"))
}

// hxWriteJSON writes v (an hxObj) to path.
func hxWriteJSON(t testing.TB, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, hxEncode(nil, v, false), 0o644); err != nil {
		t.Fatal(err)
	}
}

const hxBaseMS = int64(1795300146798)

// hxISO returns the ISO-8601 time i seconds after hxBaseMS.
func hxISO(i int) string {
	return time.UnixMilli(hxBaseMS + int64(i)*1000).UTC().Format("2006-01-02T15:04:05.000Z")
}

// hxDirName returns v as a directory name: '/' and NUL become '_' (no
// Linux name can hold them) and names are cut to 200 bytes (payloads 40
// and 53).
func hxDirName(v string) string {
	v = strings.NewReplacer("/", "_", "\x00", "_").Replace(v)
	if len(v) > 200 {
		n := 200
		if utf8.ValidString(v) {
			for !utf8.RuneStart(v[n]) {
				n--
			}
		}
		v = v[:n]
	}
	return v
}

// hxFixture is one journal to run the UI on, with what the key script
// needs to know about it.
type hxFixture struct {
	name    string
	target  journal.Target
	records int // lines in the journal: the timeline has one row each
	docs    int // Markdown documents (D cycles through them)
	pending int // pending items
	// pendingAt holds the event position of each pending item (a dialog
	// is opened for each); filled in by hxRun.
	pendingAt []int
	// noDialogs leaves the decision dialogs closed: for payloads 40 and
	// 53, whose dialog frames take over a second each (see
	// TestHostileDialogLargePrompt, which checks that dialog's output).
	noDialogs bool
	runs      int // for a .delta/ directory: runs in the picker
}

// hxFixtures writes journals of every format into dir, built from vals
// (the 66 payloads, or benign strings for the control run), and returns
// them.
func hxFixtures(t testing.TB, dir string, vals []string) []hxFixture {
	t.Helper()
	var out []hxFixture

	// Durable Stream: checkpoints (id, decision_point, options, actor,
	// requested_by, stream and event ids), intents, and events typed by the
	// values with the values as payload keys.
	ds := &hxLines{}
	for _, v := range vals {
		ds.add(hxObj{{"type", v}, {"stream_id", "s"}, {"correlation_id", "c"}, {"actor", "system"},
			{"payload", hxObj{{v, v}}}, {"id", "x"}, {"timestamp", hxBaseMS}})
	}
	for i, v := range vals {
		ts := hxBaseMS + int64(i)*1000
		env := func(typ, id string, ts int64, payload hxObj) hxObj {
			return hxObj{{"type", typ}, {"stream_id", v}, {"correlation_id", "926ee8db3accf11b"},
				{"actor", v}, {"payload", payload}, {"id", id}, {"timestamp", ts}}
		}
		ds.add(env("checkpoint.requested", v, ts, hxObj{{"id", v}, {"decision_point", v},
			{"options", []any{hxObj{{"id", v}, {"label", v}, {"description", v}}, hxObj{{"id", "ok"}, {"label", "OK"}}}},
			{"requested_by", v}, {"requested_at", ts}, {"expires_at", ts + 300000}}))
		ds.add(env("agent.spawned", v, ts+1, hxObj{{"description", v}, {"agent", v}, {"prompt", v},
			{"id", v}, {"status", "pending"}, {"created_at", ts + 1}}))
		ds.add(env("execution.text_delta", v, ts+2, hxObj{{"sessionID", v}, {"delta", v}}))
	}
	p := filepath.Join(dir, "ds", "durable_stream.jsonl")
	out = append(out, hxFixture{name: "durable-stream", target: journal.Target{Journal: p},
		records: ds.write(t, p), docs: 1, pending: len(vals)})

	// Delta Engine: thoughts, tool calls (name, arguments, tool_args keys
	// and values, resolved_command), observations, and a pending ask_human
	// whose id is the 57th value and whose prompt joins them all.
	de := &hxLines{}
	seq := 0
	dev := func(typ string, payload hxObj) {
		seq++
		de.add(hxObj{{"seq", seq}, {"timestamp", hxISO(seq)}, {"type", typ}, {"payload", payload}})
	}
	dev("RUN_START", hxObj{{"run_id", "run"}, {"task", vals[0]}, {"agent_ref", vals[0]}})
	for _, v := range vals {
		args := string(hxEncode(nil, hxObj{{"prompt", v}}, false))
		dev("THOUGHT", hxObj{{"content", v}, {"llm_invocation_ref", "r"},
			{"tool_calls", []any{hxObj{{"id", "call_" + v}, {"type", "function"}, {"function", hxObj{{"name", v}, {"arguments", args}}}}}}})
		dev("ACTION_REQUEST", hxObj{{"action_id", "call_" + v}, {"tool_name", v},
			{"tool_args", hxObj{{"cmd", v}, {v, v}}}, {"resolved_command", v}})
		dev("ACTION_RESULT", hxObj{{"action_id", "call_" + v}, {"status", "FAILED"},
			{"observation_content", v}, {"execution_ref", v}})
	}
	askID := vals[len(vals)/2]
	prompt := strings.Join(vals, "\n---\n")
	dev("ACTION_REQUEST", hxObj{{"action_id", askID}, {"tool_name", "ask_human"},
		{"tool_args", hxObj{{"prompt", prompt}}}, {"resolved_command", "ask_human " + prompt}})
	runDir := filepath.Join(dir, "de", ".delta", "run-1")
	p = filepath.Join(runDir, "journal.jsonl")
	n := de.write(t, p)
	hxWriteJSON(t, filepath.Join(runDir, "metadata.json"), hxObj{{"run_id", "run-1"}, {"start_time", hxISO(0)},
		{"agent_ref", "a"}, {"task", prompt}, {"status", "WAITING_FOR_INPUT"}, {"iterations_completed", 0}})
	hxWriteJSON(t, filepath.Join(runDir, "interaction", "request.json"), hxObj{{"request_id", "r"},
		{"timestamp", hxISO(0)}, {"prompt", prompt}, {"input_type", "text"}, {"sensitive", false}})
	out = append(out, hxFixture{name: "delta-engine", target: app.RunTarget(filepath.Join(dir, "de", ".delta"), runDir),
		records: n, docs: 1, pending: 1})

	// DeltaMind: decisions, constraints, tasks (ids, summaries, turn ids)
	// and rejected deltas with the values as reasons.
	dm := &hxLines{}
	seq = 0
	for _, v := range vals {
		turns := []any{hxObj{{"turnId", v}}}
		for _, d := range []hxObj{
			{{"kind", "decision_made"}, {"id", v}, {"summary", v}, {"confidence", "medium"}},
			{{"kind", "constraint_added"}, {"id", "c-" + v}, {"summary", v}, {"hard", true}},
			{{"kind", "task_opened"}, {"id", "t-" + v}, {"summary", v}},
		} {
			seq++
			d = append(d, hxKV{"timestamp", hxISO(seq)}, hxKV{"sourceTurns", turns})
			dm.add(hxObj{{"type", "accepted"}, {"seq", seq}, {"timestamp", hxISO(seq)}, {"delta", d},
				{"itemId", v}, {"resultingStatus", "active"}})
		}
		seq++
		dm.add(hxObj{{"type", "rejected"}, {"seq", seq}, {"timestamp", hxISO(seq)},
			{"delta", hxObj{{"kind", "task_closed"}, {"targetId", v}, {"resolution", v}, {"sourceTurns", turns}}},
			{"reason", v}})
	}
	p = filepath.Join(dir, "dm", ".deltamind", "provenance.jsonl")
	out = append(out, hxFixture{name: "deltamind", target: journal.Target{Journal: p, Hint: "deltamind"},
		records: dm.write(t, p), docs: 4})

	// Generic: requests (id, prompt, options, actor), requests whose kind is
	// the value, events typed by the values with the values as keys, one
	// record whose keys are all the values, and bad lines.
	gen := &hxLines{}
	for i, v := range vals {
		gen.add(hxObj{{"type", "approval.requested"}, {"id", v}, {"seq", i + 1}, {"actor", v},
			{"payload", hxObj{{"id", v}, {"prompt", v}, {"options", []any{hxObj{{"id", v}, {"label", v}}}}}}})
		gen.add(hxObj{{"type", v + ".requested"}, {"id", fmt.Sprintf("req_%02d", i)}, {"payload", hxObj{{"question", v}}}})
		gen.add(hxObj{{"type", v}, {"actor", v}, {"payload", hxObj{{v, v}}}})
	}
	keys := hxObj{{"type", "keys"}}
	for _, v := range vals {
		keys = append(keys, hxKV{v, v})
	}
	gen.add(keys)
	for _, v := range vals[:min(8, len(vals))] {
		gen.addBad(append(hxQuote([]byte("{"), v, true), `: [1, }`...))
	}
	p = filepath.Join(dir, "gen", "events.jsonl")
	out = append(out, hxFixture{name: "generic", target: journal.Target{Journal: p},
		records: gen.write(t, p), docs: 1, pending: 2 * len(vals)})

	// A .delta/ directory whose runs are named by the values, with the
	// values as metadata task and status and as the ask_human prompt.
	delta := filepath.Join(dir, "runs", ".delta")
	if err := os.MkdirAll(delta, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(delta, "VERSION"), []byte("1.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		rd := filepath.Join(delta, hxDirName(v))
		j := &hxLines{}
		j.add(hxObj{{"seq", 1}, {"timestamp", hxISO(i)}, {"type", "RUN_START"}, {"payload", hxObj{{"run_id", v}, {"task", v}, {"agent_ref", v}}}})
		j.add(hxObj{{"seq", 2}, {"timestamp", hxISO(i)}, {"type", "ACTION_REQUEST"}, {"payload", hxObj{{"action_id", "call_" + v},
			{"tool_name", "ask_human"}, {"tool_args", hxObj{{"prompt", v}}}, {"resolved_command", "ask_human " + v}}}})
		j.write(t, filepath.Join(rd, "journal.jsonl"))
		hxWriteJSON(t, filepath.Join(rd, "metadata.json"), hxObj{{"run_id", v}, {"start_time", hxISO(i)},
			{"agent_ref", v}, {"task", v}, {"status", v}, {"iterations_completed", i}})
	}
	out = append(out, hxFixture{name: "delta-runs", target: journal.Target{DeltaDir: delta, Hint: "delta-engine"},
		runs: len(vals)})
	return out
}

// hxBuffer is a goroutine-safe output buffer.
type hxBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *hxBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// Len returns the number of bytes written so far.
func (w *hxBuffer) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Len()
}

// Bytes returns a copy of everything written.
func (w *hxBuffer) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.b.Bytes())
}

// hxDriver runs the real root Model in a tea.Program (100×30, TrueColor,
// TERM=xterm-256color) writing into a buffer, and sends it keys.
type hxDriver struct {
	t    testing.TB
	p    *tea.Program
	out  *hxBuffer
	done chan struct{}
	// since is the output length when the last keys or send call began.
	since int
}

// hxStart opens f and starts the program on it.
func hxStart(t testing.TB, f hxFixture) *hxDriver {
	t.Helper()
	var sess *app.Session
	if f.target.Journal != "" {
		s, err := app.Open(f.target, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		sess = s
	}
	// Each call is one second later: the decision dialog's guard delay
	// (keys within 250 ms are ignored) is always over.
	var tick atomic.Int64
	now := func() time.Time {
		return time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC).Add(time.Duration(tick.Add(1)) * time.Second)
	}
	m := New(f.target, sess, Options{
		Dark: true, Keys: keymap.Default(), Poll: time.Second, As: "tester", Now: now,
		Open: func(t journal.Target) (*app.Session, error) { return app.Open(t, app.Options{}) },
	})
	d := &hxDriver{t: t, out: &hxBuffer{}, done: make(chan struct{})}
	d.p = tea.NewProgram(m,
		tea.WithInput(&bytes.Buffer{}),
		tea.WithOutput(d.out),
		tea.WithWindowSize(100, 30),
		tea.WithColorProfile(colorprofile.TrueColor),
		tea.WithEnvironment([]string{"TERM=xterm-256color", "COLORTERM=truecolor"}),
		tea.WithoutSignals(),
		tea.WithFPS(120),
	)
	go func() {
		defer close(d.done)
		if _, err := d.p.Run(); err != nil {
			t.Errorf("program: %v", err)
		}
	}()
	return d
}

// hxKey returns the key press for a key name of keymap.Default.
func hxKey(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r, _ := utf8.DecodeRuneInString(k)
	return tea.KeyPressMsg{Code: r, Text: k}
}

// waitFor waits until the output written since the last keys or send call
// began contains s (a word the UI draws in one style, so no escape
// sequence splits it).
func (d *hxDriver) waitFor(s string) {
	d.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !bytes.Contains(d.out.Bytes()[d.since:], []byte(s)) {
		if time.Now().After(deadline) {
			d.t.Fatalf("the screen never showed %q", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// keys sends each key and waits until the program has written something
// (a frame), or 30 ms when the key changes nothing on the screen.
func (d *hxDriver) keys(keys ...string) {
	d.since = d.out.Len()
	for _, k := range keys {
		n := d.out.Len()
		d.p.Send(hxKey(k))
		deadline := time.Now().Add(30 * time.Millisecond)
		for d.out.Len() == n && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
}

// idle waits until the program has written nothing for 200 ms (the
// states requested while walking have arrived), at most 2 s.
func (d *hxDriver) idle() {
	deadline := time.Now().Add(2 * time.Second)
	for n := -1; time.Now().Before(deadline); {
		if m := d.out.Len(); m != n {
			n = m
			time.Sleep(200 * time.Millisecond)
			continue
		}
		return
	}
}

// send sends keys without waiting for frames.
func (d *hxDriver) send(keys ...string) {
	d.since = d.out.Len()
	for _, k := range keys {
		d.p.Send(hxKey(k))
	}
}

// quit ends the program (esc, then q) and returns every byte it wrote.
func (d *hxDriver) quit() []byte {
	d.send("esc", "esc", "q")
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		d.p.Kill()
		<-d.done
		d.t.Errorf("the program did not quit")
	}
	return d.out.Bytes()
}

// hxRepeat returns k n times.
func hxRepeat(k string, n int) []string {
	out := make([]string, max(n, 0))
	for i := range out {
		out[i] = k
	}
	return out
}

// hxScript drives the UI through everything f holds: every timeline row
// (with the decision dialog of each pending item opened on its row), the
// unfolded state pane, every document of the projection pane, help, the
// pending list, and reject dialogs opened from it.
func hxScript(d *hxDriver, f hxFixture) {
	if f.runs > 0 {
		// The rows, not only the title: keys before the runs are read
		// do nothing, as for a person who pressed them that early.
		d.waitFor("Runs in")
		d.waitFor(" it  ")
		d.keys(hxRepeat("j", f.runs)...)
		d.keys(hxRepeat("k", f.runs)...)
		for i := 0; i < 3; i++ {
			d.send(hxRepeat("j", i*7)...)
			d.keys("enter")
			d.waitFor("Timeline")
			// The run's own item, known once its fold is done, is the
			// one p selects (and keeps as every run's fill in), so a
			// opens its dialog in every run: the control run's output
			// then has the same kinds of sequence as the others.
			d.waitFor("1 pending (p)")
			keys := []string{"j", "k", "tab", "L", "tab", "f", "tab", "p", "a", "esc", "R"}
			if f.noDialogs {
				keys = []string{"j", "k", "tab", "L", "tab", "f", "tab", "p", "esc", "R"}
			}
			d.keys(keys...)
			d.waitFor("Runs in")
			d.send(hxRepeat("k", f.runs)...)
		}
		return
	}
	d.waitFor("Timeline")
	d.keys("g")
	d.keys(hxRepeat("j", f.records-1)...)
	d.idle()
	if f.noDialogs {
		// Payloads 40 and 53: every frame that shows them is slow, so
		// a short tour: state pane unfolded, every document, the list.
		d.keys("tab", "L", "tab")
		d.keys(hxRepeat("D", f.docs)...)
		d.keys("tab", "p", "esc")
		return
	}
	// The decision dialog of every pending item, opened on its event
	// (":N enter" selects position N; a opens the dialog there).
	for _, at := range f.pendingAt {
		if f.noDialogs {
			break
		}
		d.send(":")
		d.send(strings.Split(strconv.Itoa(at), "")...)
		d.send("enter", "a")
		d.keys("down")
		d.send("esc")
	}
	d.idle()
	d.keys("g", "tab", "L")
	d.keys(hxRepeat("f", 4)...)
	d.keys("G", "L")
	d.keys(hxRepeat("f", 4)...)
	d.keys("tab")
	for i := 0; i < f.docs; i++ {
		d.keys(hxRepeat("f", 3)...)
		d.keys("D")
	}
	d.keys("tab", "?", "x", "p")
	d.keys(hxRepeat("j", f.pending)...)
	d.keys("esc")
	for i := 0; i < min(f.pending, 3) && !f.noDialogs; i++ {
		d.send("p")
		d.send(hxRepeat("j", i)...)
		d.keys("r")
		d.keys("esc")
	}
	d.keys("G", "]", "[", "#", "x", "enter", ":", "9", "9", "9", "9", "enter")
}

// hxRun runs the script on f and returns the program's output.
func hxRun(t *testing.T, f hxFixture) []byte {
	start := time.Now()
	defer func() { t.Logf("%s: %d records, %d pending: %v", f.name, f.records, f.pending, time.Since(start)) }()
	if f.target.Journal != "" {
		s, err := app.Open(f.target, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.R.StateAt(s.R.Events())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range st.Pending() {
			f.pendingAt = append(f.pendingAt, p.At)
		}
		s.Close()
		if len(f.pendingAt) != f.pending {
			t.Errorf("%s: %d pending items, want %d", f.name, len(f.pendingAt), f.pending)
		}
	}
	d := hxStart(t, f)
	hxScript(d, f)
	return d.quit()
}

// hxSeq is what hxClassify found in an output: the kind of every control
// sequence and character, and the problems (things that must never appear).
type hxSeq struct {
	kinds    map[string]int
	problems []string
}

// hxClassify walks out and names every escape sequence and control
// character: "CSI <private><intermediates><final>" (with the mode numbers
// for DEC private set/reset), "SGR <attribute>" for each attribute of an
// SGR sequence (extended colours as "38;2", "48;5", …), "ESC <byte>" for
// other escapes and "C0 0xNN" for controls. OSC, DCS, APC, PM, SOS, RIS,
// charset switches, DECALN, BEL, C1 (raw or UTF-8), bidi controls, tag
// characters, invalid UTF-8, SGR blink/conceal and over-long CSI
// parameters are recorded as problems.
func hxClassify(out []byte) hxSeq {
	s := hxSeq{kinds: map[string]int{}}
	bad := func(i int, what string) {
		if len(s.problems) < 20 {
			lo, hi := max(0, i-30), min(len(out), i+30)
			s.problems = append(s.problems, fmt.Sprintf("%s at byte %d: …%q…", what, i, out[lo:hi]))
		}
	}
	for i := 0; i < len(out); {
		c := out[i]
		if c == 0x1b {
			if i+1 >= len(out) {
				bad(i, "lone ESC at the end")
				break
			}
			switch e := out[i+1]; e {
			case '[':
				j := i + 2
				for j < len(out) && out[j] >= 0x30 && out[j] <= 0x3f {
					j++
				}
				params := string(out[i+2 : j])
				k := j
				for k < len(out) && out[k] >= 0x20 && out[k] <= 0x2f {
					k++
				}
				if k >= len(out) || out[k] < 0x40 || out[k] > 0x7e {
					bad(i, "malformed CSI")
					i = k
					continue
				}
				if len(params) > 64 {
					bad(i, "CSI with over-long parameters")
				}
				final := out[k]
				inter := string(out[j:k])
				switch {
				case final == 'm' && inter == "":
					for _, a := range hxSGR(params) {
						s.kinds["SGR "+a]++
						if a == "5" || a == "6" || a == "8" {
							bad(i, "SGR blink or conceal")
						}
					}
				case strings.HasPrefix(params, "?") && (final == 'h' || final == 'l'):
					s.kinds["CSI "+params+inter+string(final)]++
				default:
					prefix := strings.TrimLeft(params, "0123456789;:")
					s.kinds["CSI "+prefix+inter+string(final)]++
				}
				i = k + 1
				continue
			case ']':
				bad(i, "OSC")
			case 'P':
				bad(i, "DCS")
			case '_':
				bad(i, "APC")
			case '^':
				bad(i, "PM")
			case 'X':
				bad(i, "SOS")
			case 'c':
				bad(i, "RIS")
			case '(', ')', '*', '+', '-', '.', '/':
				bad(i, "charset switch")
			case '#':
				bad(i, "DECALN / line attributes")
			}
			s.kinds[fmt.Sprintf("ESC %q", out[i+1])]++
			i += 2
			continue
		}
		if c < 0x20 || c == 0x7f {
			if c == 0x07 {
				bad(i, "BEL")
			}
			s.kinds[fmt.Sprintf("C0 %#02x", c)]++
			i++
			continue
		}
		r, n := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			bad(i, fmt.Sprintf("invalid UTF-8 byte %#x", c))
		case r >= 0x80 && r <= 0x9f:
			bad(i, fmt.Sprintf("C1 control U+%04X", r))
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			bad(i, fmt.Sprintf("bidi control U+%04X", r))
		case r >= 0xe0000 && r <= 0xe007f:
			bad(i, fmt.Sprintf("tag character U+%04X", r))
		}
		i += n
	}
	return s
}

// hxSGR splits SGR parameters into attributes; extended colours count as
// one attribute named by their form ("38;2", "48;5", "38:2").
func hxSGR(params string) []string {
	if params == "" {
		return []string{"0"}
	}
	ps := strings.Split(params, ";")
	var out []string
	for i := 0; i < len(ps); i++ {
		p := ps[i]
		switch {
		case strings.Contains(p, ":"):
			f := strings.SplitN(p, ":", 3)
			out = append(out, f[0]+":"+f[min(1, len(f)-1)])
		case (p == "38" || p == "48" || p == "58") && i+1 < len(ps) && ps[i+1] == "5":
			out = append(out, p+";5")
			i += 2
		case (p == "38" || p == "48" || p == "58") && i+1 < len(ps) && ps[i+1] == "2":
			out = append(out, p+";2")
			i += 4
		default:
			if p == "" {
				p = "0"
			}
			out = append(out, p)
		}
	}
	return out
}

// hxBenign returns n harmless values of various lengths, with runs of
// repeated characters and spaces, so the control run makes the renderer
// use every optimisation the hostile run may trigger.
func hxBenign(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("benign value %02d %s end", i, strings.Repeat("9", 20+i*40)+"          "+strings.Repeat("x", i))
	}
	return out
}

// TestHostileTUI runs the UI over hostile journals of every format and
// checks every byte written to the terminal against a control run.
func TestHostileTUI(t *testing.T) {
	if len(hostile.Payloads) != 66 {
		t.Fatalf("hostile.Payloads has %d payloads, want 66", len(hostile.Payloads))
	}
	// The two largest payloads (40, 100 kB; 53, 10 kB) get journals of
	// their own: every view that shows them is slow (see
	// TestHostileDialogLargePrompt), and walking 200 events with them on
	// the screen would take minutes.
	var vals, big []string
	for _, p := range hostile.Payloads {
		if len(p.Value) > 4096 {
			big = append(big, p.Value)
		} else {
			vals = append(vals, p.Value)
		}
	}
	ctrl := hxFixtures(t, t.TempDir(), hxBenign(6))
	hot := hxFixtures(t, t.TempDir(), vals)
	large := hxFixtures(t, t.TempDir(), big)
	for i := range large {
		large[i].noDialogs = true
	}

	for i := range ctrl {
		t.Run(ctrl[i].name, func(t *testing.T) {
			t.Parallel()
			c := hxClassify(hxRun(t, ctrl[i]))
			for _, p := range c.problems {
				t.Errorf("control run (benign journal): %s", p)
			}
			hxCompare(t, "64 payloads", c, hxRun(t, hot[i]), "␛", "␇", "⟨U+")
			hxCompare(t, "payloads 40 and 53", c, hxRun(t, large[i]), "␛", "⟨+")
			if t.Failed() {
				t.Logf("control kinds: %v", hxKinds(c.kinds))
			}
		})
	}
}

// hxCompare checks the output of a hostile run against the control run c:
// no problem (see hxClassify), no sequence kind that neither the control
// run nor only the renderer writes (hxRendererKind), each terminal mode set
// and reset as often as in the control run, and every placeholder in want
// somewhere on the screen, so a user sees that something was there.
func hxCompare(t *testing.T, what string, c hxSeq, out []byte, want ...string) {
	t.Helper()
	h := hxClassify(out)
	for _, p := range h.problems {
		t.Errorf("%s: %s", what, p)
	}
	var extra []string
	for k, n := range h.kinds {
		if c.kinds[k] == 0 && !hxRendererKind(k) {
			extra = append(extra, fmt.Sprintf("%s (%d×)", k, n))
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("%s: the output holds sequences the renderer does not write for a benign journal: %s", what, strings.Join(extra, ", "))
	}
	for k, n := range h.kinds {
		if strings.HasPrefix(k, "CSI ?") && n != c.kinds[k] {
			t.Errorf("%s: mode sequence %q written %d times, %d times in the control run", what, k, n, c.kinds[k])
		}
	}
	screen := ansi.Strip(string(out))
	for _, w := range want {
		if !strings.Contains(screen, w) {
			t.Errorf("%s: the screen never showed the placeholder %q", what, w)
		}
	}
	if t.Failed() {
		t.Logf("%s: kinds: %v", what, hxKinds(h.kinds))
	}
}

// TestHostileDialogLargePrompt opens the decision dialog on the payloads
// over 4 KiB (40, csi-param-dos, 100 kB; 53, 10 kB) as a checkpoint's
// decision point and option: its frame holds no escape the terminal would
// act on, and payload 40's ESC shows as its placeholder. How long a frame
// takes (the dialog once froze for seconds on payload 40) is
// BenchmarkDialogLargePrompt's.
func TestHostileDialogLargePrompt(t *testing.T) {
	st := render.NewStyles(true)
	for _, p := range largePayloads() {
		v := render.Filter(largeDialog(p.Value).view(st, 100)) // as Model.View filters it
		for _, pr := range hxClassify([]byte(v)).problems {
			t.Errorf("payload %d (%s): dialog: %s", p.N, p.Name, pr)
		}
		if !strings.Contains(ansi.Strip(v), "␛") && p.N == 40 {
			t.Errorf("payload %d (%s): the dialog does not show the ESC placeholder", p.N, p.Name)
		}
	}
}

// BenchmarkDialogLargePrompt is one frame of the decision dialog on each
// payload over 4 KiB, as Model.View filters it. The dialog wraps the
// whole sanitized prompt (64 KiB at most); a frame must stay well under a
// key's patience (500 ms): wrap once measured the whole rest of the text
// for every line it cut, and a frame took seconds.
func BenchmarkDialogLargePrompt(b *testing.B) {
	st := render.NewStyles(true)
	for _, p := range largePayloads() {
		b.Run(p.Name, func(b *testing.B) {
			d := largeDialog(p.Value)
			for b.Loop() {
				_ = render.Filter(d.view(st, 100))
			}
		})
	}
}

// largePayloads returns the hostile payloads over 4 KiB.
func largePayloads() []hostile.Payload {
	var out []hostile.Payload
	for _, p := range hostile.Payloads {
		if len(p.Value) > 4096 {
			out = append(out, p)
		}
	}
	return out
}

// largeDialog returns the approve dialog of a checkpoint whose prompt and
// only option are v.
func largeDialog(v string) *decisionDialog {
	return &decisionDialog{item: model.Pending{ID: "cp_1", Kind: "checkpoint", Prompt: v,
		Options: []model.Option{{ID: v, Label: v}}}, approve: true}
}

// hxRendererKind reports whether kind is one that only Bubble Tea's cell
// renderer can write, whatever a journal holds, even when the control run
// happened not to need it: cursor movement, erase, insert/delete, scroll,
// repeat and margins (render.Filter turns every ESC but SGR into "␛", so
// these cannot come from content), and SGR attributes that rewind's styles
// and glamour's use (bold, faint, italic, underline, reverse, strike, their
// resets, default colours and 256/true colours). Basic 16 colours, blink,
// conceal and every other kind must have appeared in the control run.
func hxRendererKind(kind string) bool {
	if f, ok := strings.CutPrefix(kind, "CSI "); ok {
		return len(f) == 1 && strings.Contains("ABCDEFGHJKLMPSTXbdfr@", f)
	}
	if a, ok := strings.CutPrefix(kind, "SGR "); ok {
		switch a {
		case "0", "1", "2", "3", "4", "7", "9", "22", "23", "24", "27", "29", "39", "49", "59",
			"38;2", "48;2", "58;2", "38;5", "48;5", "58;5", "4:0", "4:1", "4:2", "4:3", "4:4", "4:5":
			return true
		}
	}
	switch kind {
	case "ESC 'M'", "ESC '7'", "ESC '8'":
		return true
	}
	return false
}

// hxKinds lists the kinds of a classification, sorted, for logs.
func hxKinds(m map[string]int) string {
	var ks []string
	for k, n := range m {
		ks = append(ks, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}
