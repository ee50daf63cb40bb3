package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal"
)

// at is a problem's line and kind, what the fixture tests compare.
type at struct {
	Line int
	Kind string
}

func check(t *testing.T, path string, o app.Options) Report {
	t.Helper()
	s, err := app.OpenPath(path, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := Check(s)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// CheckProgress says how far it is: at the end, the position of the
// journal's last event, with what Check reports.
func TestCheckProgressCountsTheEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "{\"type\":\"step\",\"seq\":%d}\n", i)
		if i == 2000 {
			b.WriteString("{not json\n")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := app.OpenPath(path, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer func(n int) { scanChunk = n }(scanChunk)
	scanChunk = 100 // thirty chunks, checked in order as they are scanned
	var checked atomic.Int64
	rep, err := CheckProgress(s, &checked)
	if err != nil {
		t.Fatal(err)
	}
	if got := checked.Load(); got != 3000 {
		t.Errorf("checked %d events at the end, want 3000", got)
	}
	if want := kindsOf(check(t, path, app.Options{})); !reflect.DeepEqual(kindsOf(rep), want) {
		t.Errorf("CheckProgress found %v, Check %v", kindsOf(rep), want)
	}
	if len(rep.Problems) == 0 {
		t.Errorf("the bad line was not reported")
	}
}

func kindsOf(rep Report) []at {
	out := []at{}
	for _, p := range rep.Problems {
		out = append(out, at{p.Line, p.Kind})
	}
	return out
}

func TestFixtureProblems(t *testing.T) {
	tests := []fixtureCase{
		{"malformed.jsonl", "delta-engine", "jsonl", 4, 3, 1,
			[]at{{3, KindNotJSON}}, []string{"not JSON: invalid character at byte 0 of the line"}},
		{"not-object.jsonl", "delta-engine", "jsonl", 5, 2, 3,
			[]at{{2, KindNotObject}, {3, KindNotObject}, {4, KindNotObject}},
			[]string{"JSON array", "JSON string", "JSON null"}},
		{"torn-tail.jsonl", "delta-engine", "jsonl", 3, 3, 1,
			[]at{{4, KindIncomplete}}, []string{"no newline at the end of the file"}},
		{"nul.jsonl", "delta-engine", "jsonl", 5, 3, 2,
			[]at{{2, KindNUL}, {3, KindNUL}},
			[]string{"4096 NUL bytes before a record on the same line", "16 NUL bytes"}},
		{"invalid-utf8.jsonl", "delta-engine", "jsonl", 3, 2, 1,
			[]at{{2, KindInvalidUTF8}, {3, KindSeqGap}},
			[]string{"first invalid byte at byte 95", "seq 2 missing before seq 3"}},
		{"bom-crlf.jsonl", "delta-engine", "jsonl", 3, 3, 0,
			[]at{{1, KindBOM}}, []string{"byte order mark"}},
		{"blank-lines.jsonl", "delta-engine", "jsonl", 5, 2, 3,
			[]at{{2, KindBlankLine}, {3, KindBlankLine}, {5, KindBlankLine}}, nil},
		{"dup-keys.jsonl", "delta-engine", "jsonl", 3, 3, 0,
			[]at{{2, KindDuplicateKeys}}, []string{"the last one counts"}},
		{"case-keys.jsonl", "delta-engine", "jsonl", 2, 2, 0,
			[]at{{1, KindCaseKeys}}, []string{"differ only in case"}},
		{"seq-problems.jsonl", "delta-engine", "jsonl", 9, 9, 0,
			[]at{{3, KindSeqDuplicate}, {5, KindSeqGap}, {7, KindSeqOutOfOrder}, {8, KindTimeBackwards}},
			[]string{
				"seq 2 repeated (first at line 2)",
				"seq 4-6 missing before seq 7",
				"seq 8 after seq 9",
				"timestamp 2026-11-21T22:40:00.001Z is 5ms earlier than the one before it (line 7, 2026-11-21T22:40:00.006Z)",
			}},
		{"array/journal.jsonl", "delta-engine", "json-array", 3, 3, 0,
			[]at{{0, KindJSONArray}},
			[]string{"this file is a JSON array, not JSONL", "jq -c '.[]' FILE > journal.jsonl"}},
		{"renamed/journal.json", "delta-engine", "jsonl", 2, 2, 0,
			[]at{{0, KindFileName}}, []string{`journal file is named "journal.json"`}},
		{"bad-version/.delta/run-1/journal.jsonl", "delta-engine", "jsonl", 2, 2, 0,
			[]at{{0, KindDeltaVersion}}, []string{`unsupported .delta schema version "2.0"`}},
		{"durable/durable_stream.jsonl", "durable-stream", "jsonl", 6, 6, 0,
			[]at{{3, KindEnvelope}, {4, KindIDDuplicate}, {5, KindEnvelope}, {6, KindTimeBackwards}},
			[]string{
				"correlation_id missing; timestamp is a string, want a number",
				"event id 0mwqzcqy6_516ef74a4e53aef3 repeated (first at line 1)",
				"actor is a number, want a string; payload is an array, want an object",
				"5ms earlier",
			}},
		{"deltamind/provenance.jsonl", "deltamind", "jsonl", 4, 4, 0,
			[]at{{0, KindSnapshotVersion}, {4, KindSeqOutOfOrder}},
			[]string{"snapshot.json version is 2, want 1", "seq 5 after seq 6"}},
	}
	// The events are scanned a chunk at a time on every CPU and checked
	// in file order: a problem that spans two events (a repeat, a
	// timestamp that goes back) is found across the chunks' ends too.
	defer func(n int) { scanChunk = n }(scanChunk)
	for _, chunk := range []int{4096, 2, 1} {
		scanChunk = chunk
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/chunks of %d", tt.path, chunk), func(t *testing.T) { tt.check(t) })
		}
	}
}

// fixtureCase is a fixture of brokenDir and what verify reports on it.
type fixtureCase struct {
	path                      string
	format, form              string
	records, events, badLines int
	want                      []at
	message                   []string // substrings of the messages, in order
}

func (tt fixtureCase) check(t *testing.T) {
	rep := check(t, filepath.Join(brokenDir, filepath.FromSlash(tt.path)), app.Options{})
	if rep.Format != tt.format || rep.Form != tt.form {
		t.Errorf("format, form = %s, %s; want %s, %s", rep.Format, rep.Form, tt.format, tt.form)
	}
	if rep.Records != tt.records || rep.Events != tt.events || rep.BadLines != tt.badLines {
		t.Errorf("records, events, bad lines = %d, %d, %d; want %d, %d, %d",
			rep.Records, rep.Events, rep.BadLines, tt.records, tt.events, tt.badLines)
	}
	if got := kindsOf(rep); !reflect.DeepEqual(got, tt.want) {
		t.Errorf("problems = %v\nwant %v", got, tt.want)
	}
	for i, sub := range tt.message {
		if i < len(rep.Problems) && !strings.Contains(rep.Problems[i].Message, sub) {
			t.Errorf("problem %d message = %q, want it to contain %q", i, rep.Problems[i].Message, sub)
		}
	}
	if rep.OK() {
		t.Error("OK() = true for a broken journal")
	}
	for _, p := range rep.Problems {
		if strings.ContainsAny(p.Message, "\x1b\x07\x00") {
			t.Errorf("message quotes control bytes: %q", p.Message)
		}
	}
}

// TestPositions checks offsets and lengths against the bytes of the file.
func TestPositions(t *testing.T) {
	path := filepath.Join(brokenDir, "nul.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := check(t, path, app.Options{})
	first := int64(strings.IndexByte(string(data), '\n') + 1)
	if p := rep.Problems[0]; p.Offset != first || p.Length != 4096 {
		t.Errorf("NUL run at offset %d, %d bytes; want %d, 4096", p.Offset, p.Length, first)
	}
	for _, p := range rep.Problems {
		b := data[p.Offset : p.Offset+p.Length]
		if strings.Trim(string(b), "\x00") != "" {
			t.Errorf("problem %v covers bytes other than NULs", p)
		}
	}

	path = filepath.Join(brokenDir, "torn-tail.jsonl")
	data, _ = os.ReadFile(path)
	rep = check(t, path, app.Options{})
	p := rep.Problems[0]
	if p.Offset+p.Length != int64(len(data)) || !strings.HasPrefix(string(data[p.Offset:]), `{"seq":4`) {
		t.Errorf("torn tail at offset %d, %d bytes; the file has %d", p.Offset, p.Length, len(data))
	}
}

func TestPretty(t *testing.T) {
	path := filepath.Join(brokenDir, "pretty", "journal.jsonl")
	data, _ := os.ReadFile(path)
	rep := check(t, path, app.Options{})
	lines := strings.Count(string(data), "\n")
	if len(rep.Problems) != lines+1 || rep.BadLines != lines || rep.Events != 0 {
		t.Fatalf("%d problems, %d bad lines, %d events; want %d, %d, 0", len(rep.Problems), rep.BadLines, rep.Events, lines+1, lines)
	}
	if p := rep.Problems[0]; p.Kind != KindPretty || p.Line != 0 || !strings.Contains(p.Message, "jq -c . FILE") {
		t.Errorf("first problem = %+v", p)
	}
	for i, p := range rep.Problems[1:] {
		if p.Line != i+1 || (p.Kind != KindNotJSON && p.Kind != KindNotObject) {
			t.Errorf("problem %d = %+v, want a bad line %d", i+1, p, i+1)
		}
	}
}

func write(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestClean(t *testing.T) {
	path := write(t, "clean.jsonl", lines(
		de(1, 0, "RUN_START", runStart),
		de(2, 1, "USER_MESSAGE", `{"content":"hello"}`),
		de(3, 1, "RUN_END", `{"status":"COMPLETED"}`),
	))
	rep := check(t, path, app.Options{})
	if !rep.OK() || rep.Events != 3 || rep.Problems == nil {
		t.Errorf("report = %+v, want OK with 3 events and an empty, non-nil problem list", rep)
	}
}

func TestTooLong(t *testing.T) {
	path := write(t, "long.jsonl", lines(
		de(1, 0, "RUN_START", runStart),
		de(2, 1, "USER_MESSAGE", `{"content":"`+strings.Repeat("x", 3000)+`"}`),
		de(3, 2, "RUN_END", `{"status":"COMPLETED"}`),
	))
	rep := check(t, path, app.Options{MaxRecord: 1024})
	want := []at{{2, KindTooLong}, {3, KindSeqGap}}
	if got := kindsOf(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("problems = %v, want %v", got, want)
	}
	if !strings.Contains(rep.Problems[0].Message, "skipped (limit 1.0 KiB)") {
		t.Errorf("message = %q", rep.Problems[0].Message)
	}
}

func TestGenericSeq(t *testing.T) {
	path := write(t, "generic.jsonl", lines(
		`{"type":"a","seq":1}`,
		`{"type":"b","seq":3}`,
		`{"type":"c","seq":3}`,
		`{"type":"d","seq":2}`,
		`{"type":"e","seq":"x"}`,
		`{"type":"f"}`,
		`{"type":"g","seq":10}`,
	))
	rep := check(t, path, app.Options{})
	if rep.Format != "generic" {
		t.Fatalf("format = %s", rep.Format)
	}
	want := []at{{3, KindSeqDuplicate}, {4, KindSeqOutOfOrder}}
	if got := kindsOf(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("problems = %v, want %v (gaps and non-numeric seqs are fine in generic journals)", got, want)
	}
}

// TestHostileText checks that journal text in messages is made visible,
// never passed through.
func TestHostileText(t *testing.T) {
	path := write(t, "durable_stream.jsonl", lines(
		ds(`\u001b]0;pwned\u0007\u202e`+strings.Repeat("z", 100), 1795300146798, ""),
		ds(`\u001b]0;pwned\u0007\u202e`+strings.Repeat("z", 100), 1795300146799, ""),
	))
	rep := check(t, path, app.Options{})
	if got := kindsOf(rep); !reflect.DeepEqual(got, []at{{2, KindIDDuplicate}}) {
		t.Fatalf("problems = %v", got)
	}
	msg := rep.Problems[0].Message
	if strings.ContainsAny(msg, "\x1b\x07\u202e") || strings.Contains(msg, strings.Repeat("z", 60)) {
		t.Errorf("message = %q: raw control characters or an unbounded quote", msg)
	}
}

// TestLock checks that a writer's lock is a note, not a problem, and that
// it explains an incomplete last line.
func TestLock(t *testing.T) {
	path := write(t, "journal.jsonl", lines(`{"type":"a"}`)+`{"type":"b"`)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(real+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	rep := check(t, path, app.Options{})
	if got := kindsOf(rep); !reflect.DeepEqual(got, []at{{2, KindIncomplete}}) {
		t.Fatalf("problems = %v", got)
	}
	if !strings.Contains(rep.Problems[0].Message, "a writer holds the journal's lock") {
		t.Errorf("message = %q", rep.Problems[0].Message)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "a writer holds the journal's lock") {
		t.Errorf("notes = %q", rep.Notes)
	}
}

func TestMissing(t *testing.T) {
	tests := []struct {
		sorted []int64
		lo, hi int64
		want   string
	}{
		{nil, 3, 6, "3-6"},
		{[]int64{1, 2, 5, 7}, 3, 6, "3-4, 6"},
		{[]int64{3, 4, 5, 6}, 3, 6, ""},
		{[]int64{4}, 4, 4, ""},
		{nil, 1, 1, "1"},
		{[]int64{2, 4, 6, 8, 10}, 1, 11, "1, 3, 5, 7 and 2 more range(s)"},
		{nil, 2, 1 << 40, "2-1099511627776"},
	}
	for _, tt := range tests {
		if got := missing(tt.sorted, tt.lo, tt.hi); got != tt.want {
			t.Errorf("missing(%v, %d, %d) = %q, want %q", tt.sorted, tt.lo, tt.hi, got, tt.want)
		}
	}
}

func TestInteger(t *testing.T) {
	for text, want := range map[string]int64{"1": 1, "1.0": 1, "1e3": 1000, "-2": -2} {
		if got, ok := integer(text); !ok || got != want {
			t.Errorf("integer(%s) = %d, %v", text, got, ok)
		}
	}
	for _, text := range []string{"1.5", "1e400", "99999999999999999999999"} {
		if _, ok := integer(text); ok {
			t.Errorf("integer(%s) ok", text)
		}
	}
}

func TestKind(t *testing.T) {
	for p := journal.Problem(1); p < 32; p++ {
		if p.String() == "problem "+strconv.Itoa(int(p)) {
			continue
		}
		if k := Kind(p); k == "" || strings.Contains(k, " ") {
			t.Errorf("Kind(%v) = %q", p, k)
		}
	}
	if Kind(journal.OK) != "" {
		t.Error("Kind(OK) is not empty")
	}
}

// Durable Stream ids are compared by hash and confirmed against the first
// event's id read back: when every id has the same hash, repeats are
// still found exactly, and different ids are not called repeats.
func TestIDRepeatsWhenHashesCollide(t *testing.T) {
	defer func(h func(string) uint64) { hashID = h }(hashID)
	hashID = func(string) uint64 { return 42 }
	rep := check(t, filepath.Join(brokenDir, "durable", "durable_stream.jsonl"), app.Options{})
	if got, want := kindsOf(rep), []at{{3, KindEnvelope}, {4, KindIDDuplicate}, {5, KindEnvelope}, {6, KindTimeBackwards}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("problems with colliding hashes = %v\nwant %v (as without collisions)", got, want)
	}
	for _, p := range rep.Problems {
		if p.Kind == KindIDDuplicate && !strings.Contains(p.Message, "0mwqzcqy6_516ef74a4e53aef3 repeated (first at line 1)") {
			t.Errorf("repeat reported as %q", p.Message)
		}
	}

	// An id repeated whose hash an earlier, different id took first.
	var b strings.Builder
	for i, id := range []string{"a", "b", "c", "b", "a"} {
		fmt.Fprintf(&b, `{"type":"agent.completed","stream_id":"s","correlation_id":"c","actor":"o","payload":{},"id":"%s","timestamp":%d}`+"\n", id, 1795300146798+i)
	}
	path := filepath.Join(t.TempDir(), "durable_stream.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	rep = check(t, path, app.Options{})
	var msgs []string
	for _, p := range rep.Problems {
		msgs = append(msgs, p.Message)
	}
	if len(msgs) != 2 || !strings.Contains(msgs[0], "event id b repeated (first at line 2)") ||
		!strings.Contains(msgs[1], "event id a repeated (first at line 1)") {
		t.Fatalf("problems = %q, want b repeated at line 4 (first at 2) and a at line 5 (first at 1)", msgs)
	}
}
