package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func scanAll(t testing.TB, data []byte, max int64, steps []int) *Index {
	return scanChunked(t, data, max, steps, 0)
}

// scanChunked scans data growing by steps, reading chunk bytes at a time
// (0: the default), so lines cross read boundaries.
func scanChunked(t testing.TB, data []byte, max int64, steps []int, chunk int64) *Index {
	ix := NewIndex(max)
	ix.chunk = chunk
	r := bytes.NewReader(data)
	size := 0
	for _, s := range steps {
		size += s
		if size > len(data) {
			size = len(data)
		}
		if _, err := ix.Scan(r, int64(size)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ix.Scan(r, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestScanBrokenLines(t *testing.T) {
	long := `{"type":"big","text":"` + strings.Repeat("x", 3000) + `"}`
	input := "\xef\xbb\xbf" + `{"seq":1,"type":"A"}` + "\r\n" +
		"\n" +
		`{"seq":2,"type":` + "\n" +
		`[1,2]` + "\n" +
		`{"seq":3,"type":"B","bad":"` + "\xff" + `"}` + "\n" +
		`{"seq":4,"type":"C","type":"D"}` + "\n" +
		`{"seq":5,"SEQ":999,"type":"E"}` + "\n" +
		"\x00\x00\x00" + `{"seq":6,"type":"F"}` + "\n" +
		`{"seq":7,` + "\x00" + `"type":"G"}` + "\n" +
		long + "\n" +
		`{"seq":9,"type":"H","timestamp":"2026-11-21T22:29:47.177Z"}` + "\n" +
		`{"seq":10,"type":"torn`
	data := []byte(input)
	ix := scanAll(t, data, 1024, nil)
	type row struct {
		line    int32
		pos     int32
		problem Problem
		typ     string
		key     string
	}
	var got []row
	for _, r := range all(ix.Records()) {
		got = append(got, row{r.Line, r.Pos, r.Problem, r.Type(), r.KeyIn(data[r.Off : r.Off+r.Len])})
	}
	want := []row{
		{1, 1, WarnBOM, "A", "1"},
		{2, 0, ProblemBlank, "", ""},
		{3, 0, ProblemNotJSON, "", ""},
		{4, 0, ProblemNotObject, "", ""},
		{5, 0, ProblemInvalidUTF8, "", ""},
		{6, 2, WarnDuplicateKeys, "D", "4"},
		{7, 3, WarnCaseKeys, "E", "5"},
		{8, 0, ProblemNUL, "", ""},
		{8, 4, OK, "F", "6"},
		{9, 0, ProblemNUL, "", ""},
		{10, 0, ProblemTooLong, "", ""},
		{11, 5, OK, "H", "9"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("records:\n got %v\nwant %v", got, want)
	}
	if r := ix.Records().At(11); r.TimeIn(data[r.Off:r.Off+r.Len]).UnixMilli() != 1795300187177 {
		t.Errorf("timestamp = %v", r.TimeIn(data[r.Off:r.Off+r.Len]))
	}
	inc, ok := ix.Incomplete()
	if !ok || inc.Len != int64(len(`{"seq":10,"type":"torn`)) || inc.Line != 12 {
		t.Errorf("incomplete tail = %+v, %v", inc, ok)
	}
	// The BOM is not part of the first record.
	if r := ix.Records().At(0); r.Off != 3 || r.Len != int64(len(`{"seq":1,"type":"A"}`)) {
		t.Errorf("first record at %d+%d", r.Off, r.Len)
	}
	// Detail never quotes journal bytes.
	for _, r := range all(ix.Records()) {
		d := ix.Detail(r)
		if r.Problem.Bad() && r.Problem != ProblemBlank && d == "" {
			t.Errorf("bad line %d has no detail", r.Line)
		}
		if strings.IndexByte(d, 0xff) >= 0 || strings.IndexByte(d, 0) >= 0 || strings.Contains(d, "torn") {
			t.Errorf("detail quotes the line: %q", d)
		}
	}
}

func TestTornLineCompletesOnce(t *testing.T) {
	data := []byte(`{"type":"a"}` + "\n" + `{"type":"b"}` + "\n")
	// Grow the file one byte at a time: each line becomes one record, once.
	steps := make([]int, len(data))
	for i := range steps {
		steps[i] = 1
	}
	ix := scanAll(t, data, 0, steps)
	if r, e := ix.Counts(); r != 2 || e != 2 {
		t.Fatalf("records=%d events=%d, want 2 2", r, e)
	}
	if _, ok := ix.Incomplete(); ok {
		t.Error("no incomplete tail expected")
	}
}

func TestArrayJournalReadOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "journal.jsonl")
	content := "[\n  {\n    \"seq\": 1,\n    \"type\": \"RUN_START\"\n  },\n  {\"seq\": 2, \"type\": \"THOUGHT\"}\n]\n"
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Open(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Form() != FormArray {
		t.Fatalf("form = %v, want array", j.Form())
	}
	if !strings.Contains(j.Form().Warning(), "jq -c '.[]'") {
		t.Errorf("warning lacks the fix: %s", j.Form().Warning())
	}
	recs := all(j.Index.Records())
	if len(recs) != 2 || recs[0].Type() != "RUN_START" || j.Key(recs[1]) != "2" || recs[0].Line != 2 {
		t.Fatalf("records = %+v", recs)
	}
	ev, err := j.Event(1)
	if err != nil || !bytes.HasPrefix(ev.Raw, []byte("{")) || !bytes.HasSuffix(ev.Raw, []byte("}")) {
		t.Fatalf("event 1 = %q, %v", ev.Raw, err)
	}
}

// checkCoverage asserts that records, line endings, a leading BOM and the
// incomplete tail account for every byte of data exactly once.
func checkCoverage(t *testing.T, data []byte, ix *Index) {
	t.Helper()
	seen := make([]int, len(data))
	mark := func(off, n int64) {
		for i := off; i < off+n && i < int64(len(data)); i++ {
			seen[i]++
		}
	}
	for _, r := range all(ix.Records()) {
		mark(r.Off, r.Len)
	}
	if inc, ok := ix.Incomplete(); ok {
		mark(inc.Off, inc.Len)
	}
	if bytes.HasPrefix(data, bom) && ix.Records().Len() > 0 && ix.Records().At(0).Off == 3 {
		mark(0, 3)
	}
	for i, c := range seen {
		if c > 1 {
			t.Fatalf("byte %d covered %d times", i, c)
		}
		if c == 0 {
			// Only line endings may be uncovered: "\n" and a "\r" before it.
			if data[i] == '\n' || (data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n') {
				continue
			}
			t.Fatalf("byte %d (%q) not covered by any record", i, data[i])
		}
	}
}

// lineByLine returns the records of data's complete lines found as the
// index found them before reading a line's end with its object: each line
// cut at its "\n", then classified alone (lineRecords), lines longer than
// max marked too long.
func lineByLine(data []byte, max int64) []Record {
	c := newClassifier()
	var out []Record
	var n int32
	for off := 0; off < len(data); {
		k := bytes.IndexByte(data[off:], '\n')
		if k < 0 {
			break
		}
		n++
		if int64(k) > max {
			out = append(out, Record{Off: int64(off), Len: int64(k), Line: n, Problem: ProblemTooLong})
		} else {
			out, _ = lineRecords(c, out, nil, data[off:off+k], int64(off), n)
		}
		off += k + 1
	}
	return out
}

func FuzzSplitLines(f *testing.F) {
	seeds := []string{
		"", "\n", "{}\n", `{"type":"a"}` + "\n" + `{"type":"b"`,
		"\xef\xbb\xbf{\"seq\":1}\r\n\n\x00\x00{\"seq\":2}\n",
		"[1]\n\"s\"\nnull\n{\"a\":1,\"a\":2}\n",
		"{\"type\":\"\xff\"}\n" + strings.Repeat("y", 300) + "\n",
		"{\"type\":\"a\"} \t\r\n{\"type\":\"b\",\r\n\"x\":1}\n{\"type\":\"c\n\"}\n{\"a\":[1,\n2]}\n{}\r\r\n{\"Type\":1,\"type\":\"d\"}\n",
		"{}\n{\"type\":\"" + strings.Repeat("z", 245) + "\"}\r\n{\"type\":\"" + strings.Repeat("z", 244) + "\"}\n{\"a\":\"unterminated\n{\"type\":\"e\"}\n",
	}
	if fs, _ := filepath.Glob("../testdata/broken/*.jsonl"); len(fs) > 0 {
		for _, p := range fs {
			if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
				seeds = append(seeds, string(b))
			}
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		const max = 256
		whole := scanAll(t, data, max, nil)
		checkCoverage(t, data, whole)
		n := int(step%64) + 1
		var steps []int
		for i := 0; i < len(data); i += n {
			steps = append(steps, n)
		}
		// The fast path reads a line's end as it reads its object; it
		// must find what splitting at "\n" first and classifying each
		// line alone finds.
		got, want := all(whole.Records()), lineByLine(data, max)
		if len(got) != len(want) {
			t.Fatalf("%d records, %d lines found one by one", len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.Off != w.Off || g.Len != w.Len || g.Line != w.Line || g.Problem != w.Problem || g.Type() != w.Type() {
				t.Fatalf("record %d: %+v (type %q), line found alone: %+v (type %q)", i, g, g.Type(), w, w.Type())
			}
		}
		pieces := scanAll(t, data, max, steps)
		if !reflect.DeepEqual(all(whole.Records()), all(pieces.Records())) {
			t.Fatalf("scanning in pieces of %d gives other records", n)
		}
		// Reading in tiny chunks, lines cross every read boundary, and
		// blocks are classified by parallel workers.
		tiny := scanChunked(t, data, max, steps, int64(step%29)+3)
		if !reflect.DeepEqual(all(whole.Records()), all(tiny.Records())) {
			t.Fatalf("reading %d bytes at a time gives other records", step%29+3)
		}
		if !reflect.DeepEqual(whole.details, tiny.details) {
			t.Fatalf("reading %d bytes at a time gives other details", step%29+3)
		}
		// One goroutine, no workers: the same records.
		serial := NewIndex(max)
		serial.serial, serial.chunk = true, int64(step%13)+2
		if _, err := serial.Scan(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(all(whole.Records()), all(serial.Records())) {
			t.Fatal("the serial scan gives other records than the parallel one")
		}
	})
}
