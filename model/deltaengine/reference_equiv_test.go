package deltaengine

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// The fast fold must be the reference fold (reference_test.go) to the byte:
// the same state JSON, the same CONVERSATION projection, the same pending
// items and timeline rows after every event of every journal below. The
// events come from package journal, so they carry their file (ev.Src) and
// long texts are really read back from it.

// views returns everything a caller can see of a state at pos.
func views(t *testing.T, f model.Format, s model.State, pos int) (string, string) {
	t.Helper()
	js, err := model.StateJSON(f, s, pos).MarshalJSON()
	if err != nil {
		t.Fatalf("position %d: %v", pos, err)
	}
	return string(js), f.Render(s, Doc)
}

// checkSame folds the events of the journal file at path through both
// folds and compares them after every event. It returns the fast fold's
// states (index = position).
func checkSame(t *testing.T, path string) []model.State {
	t.Helper()
	return checkSameAt(t, path, func(int, model.State) bool { return true })
}

// checkSameAt is checkSame comparing the views only at the positions where
// at (given the fast fold's state there) is true, and at the last one;
// pending items and timeline rows are still compared at every position.
func checkSameAt(t *testing.T, path string, at func(pos int, s model.State) bool) []model.State {
	t.Helper()
	j, err := journal.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ref, got := refFold.Init(), Format.Init()
	states := []model.State{got}
	fails := 0
	compare := func(pos int) {
		wantJ, wantR := views(t, refFold, ref, pos)
		gotJ, gotR := views(t, Format, got, pos)
		if gotJ != wantJ {
			t.Errorf("%s position %d: state JSON differs\n got %s\nwant %s", filepath.Base(path), pos, clip(gotJ), clip(wantJ))
			fails++
		}
		if gotR != wantR {
			t.Errorf("%s position %d: Render differs\n got %q\nwant %q", filepath.Base(path), pos, clip(gotR), clip(wantR))
			fails++
		}
	}
	compare(0)
	_, events := j.Index.Counts()
	err = j.Each(1, events, func(ev model.Event) error {
		if ev.Src == nil {
			t.Fatal("event without Src")
		}
		wantRow := Format.Describe(ev)
		if wantRow.Type == ActionResult {
			if env, ok := decodeEnvelope(ev.Raw); ok {
				var p actionResultPayload
				if model.Unmarshal(env.Payload, &p) == nil {
					wantRow.Actor = refToolName(ref, p.ActionID)
				}
			}
		}
		if gotRow := DescribeIn(got, ev); gotRow != wantRow {
			t.Errorf("position %d: DescribeIn = %+v, want %+v", ev.Pos, gotRow, wantRow)
		}
		prev := got
		ref, got = refFold.Apply(ref, ev), Format.Apply(got, ev)
		states = append(states, got)
		if at(ev.Pos, got) || ev.Pos == events {
			compare(ev.Pos)
			if got != prev {
				checkTouched(t, prev, got, ev.Pos)
			}
		} else if g, w := fmt.Sprint(got.Pending()), fmt.Sprint(ref.Pending()); g != w {
			t.Errorf("position %d: Pending = %s, want %s", ev.Pos, g, w)
		}
		if fails > 5 {
			t.FailNow()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return states
}

// checkTouched compares Touched with the diff of the two views.
func checkTouched(t *testing.T, prev, s model.State, pos int) {
	t.Helper()
	var want, got []string
	for _, c := range replay.Diff(replay.StateView(Format, prev), replay.StateView(Format, s)) {
		want = append(want, c.Path.String())
	}
	for _, p := range s.(*state).Touched(prev) {
		got = append(got, p.String())
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("position %d: Touched = %q, the views differ at %q", pos, got, want)
	}
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:1500] + " … " + s[len(s)-1500:]
	}
	return s
}

func TestSameAsReferenceFixtures(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.jsonl")
	runs, _ := filepath.Glob(ws + "/*/journal.jsonl")
	paths = append(paths, runs...)
	// run B paused, then continued: the file as it was at both times.
	both := filepath.Join(t.TempDir(), "b-continued.jsonl")
	writeFile(t, both, cat(t, runB+"/journal.jsonl", contB))
	paths = append(paths, both)
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), func(t *testing.T) {
			checkSame(t, p)
		})
	}
}

func TestSameAsReferenceGenerated(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 250
	}
	for _, seed := range []int64{1, 2, 3, 4} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "gen.jsonl")
			var b bytes.Buffer
			if err := demo.Generate(&b, "delta-engine", n, seed); err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, b.Bytes())
			checkSame(t, p)
		})
	}
}

// TestSameAsReferenceLong compares a journal long enough to fill several
// chunks of the log, around the chunk boundaries and at every 151st
// position elsewhere (the views of a long journal are long: comparing them
// all takes minutes).
func TestSameAsReferenceLong(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	p := filepath.Join(t.TempDir(), "long.jsonl")
	var b bytes.Buffer
	if err := demo.Generate(&b, "delta-engine", 3*chunkSize+100, 11); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, b.Bytes())
	checkSameAt(t, p, func(pos int, s model.State) bool {
		k := s.(*state).nLog % chunkSize
		return pos%151 == 0 || k <= 1 || k == chunkSize-1
	})
}

func TestSameAsReferenceHostile(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 200
	}
	for seed := int64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			lines := hostileLines(rand.New(rand.NewSource(seed)), n)
			p := filepath.Join(t.TempDir(), "hostile.jsonl")
			writeFile(t, p, []byte(strings.Join(lines, "\n")+"\n"))
			checkSame(t, p)

			// The same lines without a file (a JSON array journal's
			// elements, tests): the fold keeps their bytes instead.
			ref, got := refFold.Init(), Format.Init()
			pos := 0
			for _, l := range lines {
				raw := []byte(l)
				if !utf8.Valid(raw) || !jsontext.Value(raw).IsValid(jsontext.AllowDuplicateNames(true)) {
					continue
				}
				pos++
				ev := model.Event{Pos: pos, Line: pos, Raw: raw}
				ref, got = refFold.Apply(ref, ev), Format.Apply(got, ev)
				raw[0] = 'x' // Raw is only valid during Apply
				wantJ, wantR := views(t, refFold, ref, pos)
				gotJ, gotR := views(t, Format, got, pos)
				if gotJ != wantJ || gotR != wantR {
					t.Fatalf("without a file, position %d (%s): differs\n got %s\nwant %s", pos, l, clip(gotJ), clip(wantJ))
				}
			}
		})
	}
}

// TestRefoldAndBranch folds again from earlier states, as a replay does
// from its keyframes (the log is shared, nothing is copied), concurrently,
// and branches: a state that takes a different event than the one already
// folded after it forks the log, and neither branch sees the other.
func TestRefoldAndBranch(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, "delta-engine", 800, 7); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "gen.jsonl")
	writeFile(t, p, b.Bytes())
	j, err := journal.Open(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	states := []model.State{Format.Init()}
	_ = j.Each(1, 1<<30, func(ev model.Event) error {
		states = append(states, Format.Apply(states[len(states)-1], ev))
		return nil
	})
	want := make([]string, len(states))
	for i, s := range states {
		want[i], _ = views(t, Format, s, i)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for range 20 {
				from := rng.Intn(len(states))
				to := min(len(states)-1, from+rng.Intn(300))
				s := states[from]
				_ = j.Each(from+1, to, func(ev model.Event) error {
					s = Format.Apply(s, ev)
					return nil
				})
				if got, _ := views(t, Format, s, to); got != want[to] {
					t.Errorf("refold %d..%d differs from the first fold", from, to)
				}
			}
		}()
	}
	wg.Wait()
	if a := states[len(states)-1].(*state).log; a.parent != nil {
		t.Error("refolding the same events forked the log")
	}

	// Branch: a different event at every 100th position.
	for from := 0; from < len(states)-1; from += 100 {
		ev := model.Event{Pos: from + 1, Raw: []byte(`{"seq":` + strconv.Itoa(from+1) + `,"timestamp":"2026-11-21T22:29:50.000Z","type":"ACTION_RESULT","payload":{"action_id":"call_branch","status":"FAILED","observation_content":"branch ` + strconv.Itoa(from) + `"}}`)}
		x := Format.Apply(states[from], ev)
		y := refFold.Init()
		_ = j.Each(1, from, func(ev model.Event) error {
			y = refFold.Apply(y, ev)
			return nil
		})
		y = refFold.Apply(y, ev)
		gotJ, gotR := views(t, Format, x, from+1)
		wantJ, wantR := views(t, refFold, y, from+1)
		if gotJ != wantJ || gotR != wantR {
			t.Errorf("branch at %d differs from the reference", from)
		}
		// Touched between branches, and across several events.
		checkTouched(t, states[from+1], x, from+1)
		checkTouched(t, x, states[from+1], from+1)
		checkTouched(t, states[from], states[min(from+37, len(states)-1)], from)
		// The fold that went on from states[from] is unchanged, and can
		// still be extended.
		if got, _ := views(t, Format, states[from+1], from+1); got != want[from+1] {
			t.Errorf("branch at %d changed the other branch", from)
		}
		if next, err := j.Event(from + 1); err == nil {
			if got, _ := views(t, Format, Format.Apply(states[from], next), from+1); got != want[from+1] {
				t.Errorf("refold after the branch at %d differs", from)
			}
		}
	}
}

// TestSeqStateIsSmall: a journal whose seqs run in order keeps one run,
// with nothing per event; a broken order costs one run per break.
func TestSeqStateIsSmall(t *testing.T) {
	s := Format.Init()
	for i := 1; i <= 10000; i++ {
		s = Format.Apply(s, model.Event{Pos: i, Raw: []byte(`{"seq":` + strconv.Itoa(i) + `,"timestamp":"t","type":"HOOK_EXECUTION_AUDIT","payload":{}}`)})
	}
	st := s.(*state)
	if st.x.runs.Len() != 0 || st.run.first != 1 || st.run.last != 10000 {
		t.Errorf("runs = %d, run = %+v", st.x.runs.Len(), st.run)
	}
	if st.log != nil {
		t.Error("hook audits were logged")
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func cat(t *testing.T, paths ...string) []byte {
	t.Helper()
	var out []byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// hostileLines returns n journal lines that mix well-formed events with
// everything the fold must read exactly as model.Unmarshal did: escaped
// names and values, repeated names (with the wrong kind first or last),
// nulls, wrong kinds, long texts with escapes on both sides of the 256-byte
// inline limit, payloads that are not objects, broken seq orders and seqs
// that are not integers, ask_human prompts of every kind, tool_calls of
// every shape, and a few lines that are not events at all.
func hostileLines(rng *rand.Rand, n int) []string {
	ids := []string{`"call_a"`, `"call_b"`, `"call\u005fa"`, `"call_c"`, `"ask_1"`, `""`, `"call_` + strings.Repeat("x", 300) + `"`}
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	text := func() string {
		switch rng.Intn(10) {
		case 0:
			return `""`
		case 1:
			return `"short \"quoted\" \u00e9 \ud83d\ude00"`
		case 2:
			return `"lone \ud800 surrogate \udc00 and \ud800\u0041"`
		case 3:
			return `"` + strings.Repeat("long line of output\n", 5+rng.Intn(40)) + `"`
		case 4:
			return `"` + strings.Repeat(`a\nb\t\"c\\d\/e\u00e9 `, 10+rng.Intn(30)) + `"`
		case 5:
			return `"` + strings.Repeat("x", 250+rng.Intn(12)) + `"` // about the inline limit
		case 6:
			return `"=== STDOUT ===\nok\n=== EXIT CODE: 0 ==="`
		case 7:
			return `"` + strings.Repeat("é😀", 100) + `"`
		}
		return `"plain text ` + strconv.Itoa(rng.Intn(1000)) + `"`
	}
	wrong := func() string { return pick(`1`, `true`, `{"a":1}`, `["x"]`, `1e400`, `-0.5`) }
	// field returns a member for a string field: mostly a string, some
	// nulls, escaped names, repeats, and rarely a wrong kind.
	field := func(name, val string) string {
		ename := name
		if rng.Intn(8) == 0 {
			ename = strings.Replace(name, name[:1], `\u00`+strconv.FormatInt(int64(name[0]), 16), 1)
		}
		switch rng.Intn(20) {
		case 0:
			return `"` + ename + `":null`
		case 1:
			return `"` + name + `":` + val + `,"` + ename + `":null`
		case 2:
			return `"` + name + `":null,"` + ename + `":` + val
		case 3:
			return `"` + name + `":` + text() + `,"` + ename + `":` + val
		case 4:
			if rng.Intn(3) == 0 {
				return `"` + name + `":` + wrong() + `,"` + ename + `":` + val
			}
		case 5:
			return `"` + strings.ToUpper(name) + `":` + val // another name
		case 6:
			return ""
		}
		return `"` + ename + `":` + val
	}
	join := func(parts ...string) string {
		var kept []string
		for _, p := range parts {
			if p != "" {
				kept = append(kept, p)
			}
		}
		if rng.Intn(6) == 0 {
			kept = append(kept, `"extra":{"content":[1,{"x":"}"}],"k":"\"}"}`)
		}
		rng.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
		sep := pick(",", ",", " , ", ",\t")
		return "{" + strings.Join(kept, sep) + "}"
	}
	call := func() string {
		switch rng.Intn(12) {
		case 0:
			return "null"
		case 1:
			return "{}"
		case 2:
			return `{"id":` + pick(ids...) + `,"function":{"name":"n","arguments":"{}"},"function":{"arguments":` + text() + `}}`
		case 3:
			return `{"id":` + pick(ids...) + `,"function":{"name":"n"},"function":null}`
		case 4:
			if rng.Intn(4) == 0 {
				return `{"id":` + wrong() + `}`
			}
		case 5:
			if rng.Intn(4) == 0 {
				return wrong()
			}
		case 6:
			return `{"i\u0064":` + pick(ids...) + `,"type":null,"function":{"n\u0061me":"run_shell","arguments":` + text() + `,"extra":[]}}`
		}
		return `{"id":` + pick(ids...) + `,"type":"function","function":{"name":` + pick(`"run_shell"`, `"ask_human"`, `""`, `"read_file"`) + `,"arguments":` + pick(`"{\"command\":\"ls\"}"`, `"{}"`, `""`, text()) + `}}`
	}
	calls := func() string {
		switch rng.Intn(8) {
		case 0:
			return "null"
		case 1:
			return "[]"
		case 2:
			if rng.Intn(3) == 0 {
				return wrong()
			}
		}
		var cs []string
		for range 1 + rng.Intn(3) {
			cs = append(cs, call())
		}
		return "[" + strings.Join(cs, ",") + "]"
	}
	args := func() string {
		return pick(`{"prompt":"What name?"}`, `{"prompt":5}`, `{"prompt":"x","prompt":1e400}`, `{"prompt":1,"prompt":"y"}`,
			`{"prompt":"a","prompt":{"b":1}}`, `"What?"`, `null`, `[1,2]`, `{}`, `{"command":"ls -la","n":[1,{"a":null}]}`,
			`{ "prompt" : "spaced" , "k" : [ 1 , 2 ] }`, `{"prompt":`+text()+`}`, `{"pro\u006dpt":"escaped name"}`)
	}
	types := []string{RunStart, RunEnd, UserMessage, Thought, Thought, ActionRequest, ActionRequest, ActionResult, ActionResult, ActionResult, SystemMessage, HookExecutionAudit}
	seq := 0
	var out []string
	for len(out) < n {
		seq++
		seqv := strconv.Itoa(seq)
		switch r := rng.Intn(40); {
		case r == 0:
			seqv = strconv.Itoa(seq - 1 - rng.Intn(5)) // repeat or go back
		case r == 1:
			seq += 1 + rng.Intn(3)
			seqv = strconv.Itoa(seq)
		case r == 2:
			seqv = pick(`"7"`, `null`, `1.5`, `2.0`, `1e400`, `-3`, `{ "a" : 1 }`, `true`, `9223372036854775807`, `-9223372036854775808`, `9223372036854775808`, `1e2`, `""`)
		case r == 3:
			seqv = ""
		}
		typ := pick(types...)
		ptype := `"` + typ + `"`
		switch rng.Intn(30) {
		case 0:
			ptype = `"THOUGH\u0054"`
		case 1:
			ptype = `null`
		case 2:
			ptype = `"FOO_BAR"`
		case 3:
			ptype = `7`
		case 4:
			ptype = `"RUN_END","type":` + ptype
		}
		var payload string
		switch typ {
		case RunStart:
			payload = join(field("run_id", pick(`"run-1"`, `"run\u002d2"`, text())), field("task", text()), `"agent_ref":"/a"`)
		case RunEnd:
			payload = join(field("status", pick(`"COMPLETED"`, `"FAILED"`, `""`, `"INTERRUPTED"`)))
		case UserMessage:
			payload = join(field("content", text()))
		case Thought:
			tc := ""
			if rng.Intn(3) > 0 {
				tc = `"tool_calls":` + calls()
				if rng.Intn(10) == 0 {
					tc = `"tool_calls":` + calls() + `,"tool_calls":` + calls()
				}
			}
			payload = join(field("content", text()), `"llm_invocation_ref":"x"`, tc)
		case ActionRequest:
			name := pick(`"run_shell"`, `"ask_human"`, `"ask\u005fhuman"`, `"read_file"`)
			ta := ""
			if rng.Intn(8) > 0 {
				ta = `"tool_args":` + args()
			}
			payload = join(field("action_id", pick(ids...)), field("tool_name", name), ta, field("resolved_command", pick(`"ls -la"`, `""`, `"line1\nline2"`, text())))
		case ActionResult:
			payload = join(field("action_id", pick(ids...)), field("status", pick(`"SUCCESS"`, `"FAILED"`, `"ERROR"`, `""`)), field("observation_content", text()), `"execution_ref":"x"`)
		case SystemMessage:
			payload = join(field("level", pick(`"INFO"`, `"WARN"`, `"ERROR"`, `"I\u004eFO"`)), field("content", pick(`"Run interrupted by user"`, `"Run interrupted by us\u0065r"`, text())))
		case HookExecutionAudit:
			payload = join(field("hook_name", `"pre_llm_req"`), field("status", `"SUCCESS"`))
		}
		switch rng.Intn(25) {
		case 0:
			payload = pick(`"hi"`, `null`, `[]`, `1`)
		case 1:
			payload = `"not this one",` + `"payload":` + payload
		case 2:
			payload = payload + `,"payload":` + pick(`"hi"`, `null`, `[]`)
		}
		parts := []string{`"timestamp":"2026-11-21T22:29:` + fmt.Sprintf("%02d", rng.Intn(60)) + `.000Z"`, `"type":` + ptype, `"payload":` + payload}
		if seqv != "" {
			parts = append([]string{`"seq":` + seqv}, parts...)
		}
		switch rng.Intn(50) {
		case 0:
			parts = append(parts, `"seq":`+strconv.Itoa(seq+100))
		case 1:
			parts = append(parts, `"s\u0065q":`+strconv.Itoa(seq))
		}
		out = append(out, "{"+strings.Join(parts, ",")+"}")
		switch rng.Intn(60) {
		case 0:
			out = append(out, pick(`[]`, `"str"`, `{"seq":`, `{"seq":1,"type":"USER_MESSAGE","payload":{"content":"x"},}`, `not json`))
		}
	}
	return out[:n]
}

// FuzzSameAsReference folds one line, after a short run with a pending
// ask_human call, through both folds (without a file) and compares them.
// Lines that are not valid JSON never reach a fold (the index rejects
// them) and are skipped.
func FuzzSameAsReference(f *testing.F) {
	for _, l := range hostileLines(rand.New(rand.NewSource(99)), 300) {
		f.Add([]byte(l))
	}
	prefix := []string{
		`{"seq":1,"timestamp":"2026-11-21T22:29:47.177Z","type":"RUN_START","payload":{"run_id":"r","task":"t"}}`,
		`{"seq":2,"timestamp":"2026-11-21T22:29:47.195Z","type":"THOUGHT","payload":{"content":"","tool_calls":[{"id":"call_a","type":"function","function":{"name":"ask_human","arguments":"{}"}}]}}`,
		`{"seq":3,"timestamp":"2026-11-21T22:29:47.195Z","type":"ACTION_REQUEST","payload":{"action_id":"call_a","tool_name":"ask_human","tool_args":{"prompt":"Who?"},"resolved_command":"ask_human Who?"}}`,
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !utf8.Valid(raw) || !jsontext.Value(raw).IsValid(jsontext.AllowDuplicateNames(true)) {
			return
		}
		ref, got := refFold.Init(), Format.Init()
		for i, l := range append(prefix, string(raw)) {
			ev := model.Event{Pos: i + 1, Line: i + 1, Raw: []byte(l)}
			ref, got = refFold.Apply(ref, ev), Format.Apply(got, ev)
		}
		wantJ, wantR := views(t, refFold, ref, 4)
		gotJ, gotR := views(t, Format, got, 4)
		if gotJ != wantJ || gotR != wantR {
			t.Errorf("%s:\n got %s\n%s\nwant %s\n%s", raw, gotJ, gotR, wantJ, wantR)
		}
	})
}

// TestViewAfterFileChanged: the views read texts back from the journal; a
// journal rewritten or truncated under a state gives notes, never a panic.
// Texts a view has decoded already are kept (within the cache's budget).
func TestViewAfterFileChanged(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	b := cat(t, runB+"/journal.jsonl", contB)
	fold := func() (model.State, func()) {
		writeFile(t, p, b)
		j, err := journal.Open(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := Format.Init()
		_ = j.Each(1, 1<<30, func(ev model.Event) error {
			s = Format.Apply(s, ev)
			return nil
		})
		return s, func() { j.Close() }
	}
	for _, change := range []func(){
		func() { writeFile(t, p, bytes.Repeat([]byte("x"), len(b))) }, // same size, other bytes
		func() { writeFile(t, p, b[:len(b)/2]) },                      // truncated
		func() { writeFile(t, p, nil) },
	} {
		s, done := fold()
		seen, _ := views(t, Format, s, 0)
		fresh, doneFresh := fold() // never viewed before the change
		change()
		if got, _ := views(t, Format, s, 0); got != seen {
			t.Errorf("a view decoded before the change changed:\n%s", clip(got))
		}
		got, md := views(t, Format, fresh, 0)
		if !strings.Contains(got, "[event at offset") || md == "" {
			t.Errorf("after the change, the view is\n%s", clip(got))
		}
		_ = ToolName(fresh, "call_AskHum4n0001")
		done()
		doneFresh()
	}
}

// TestSameAsReferenceHashCollisions folds with action_id keys whose hashes
// collide all the time (only the check bits tell the ids apart), so the
// log's chains hold several ids.
func TestSameAsReferenceHashCollisions(t *testing.T) {
	weak := func(id []byte) idKey {
		return idKey{h: uint64(len(id) % 2), check: uint16(crc32.ChecksumIEEE(id))}
	}
	defer func(k func([]byte) idKey) { keyOf = k }(keyOf)
	keyOf = weak
	dir := t.TempDir()
	var journals []string
	for seed := int64(1); seed <= 3; seed++ {
		p := filepath.Join(dir, fmt.Sprintf("hostile-%d.jsonl", seed))
		writeFile(t, p, []byte(strings.Join(hostileLines(rand.New(rand.NewSource(seed)), 300), "\n")+"\n"))
		journals = append(journals, p)
	}
	var b bytes.Buffer
	if err := demo.Generate(&b, "delta-engine", 300, 5); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "gen.jsonl")
	writeFile(t, p, b.Bytes())
	journals = append(journals, p)
	for _, p := range journals {
		// The weak keys must still tell this journal's ids apart.
		keys := map[idKey]string{}
		for l := range strings.SplitSeq(string(cat(t, p)), "\n") {
			if pl, ok := parseLine([]byte(l)); ok && (pl.typ == tActionRequest || pl.typ == tActionResult) {
				id := str(pl.p.s[0])
				if other, seen := keys[weak([]byte(id))]; seen && other != id {
					t.Fatalf("%s: ids %q and %q share a key", p, id, other)
				}
				keys[weak([]byte(id))] = id
			}
		}
		states := checkSame(t, p)
		// The stream views follow the chains of the same hashes.
		for _, pos := range []int{len(states) / 2, len(states) - 1} {
			checkPane(t, states[pos], pos)
		}
	}
}
