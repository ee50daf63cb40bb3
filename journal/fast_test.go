package journal

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/demo"
)

// FuzzFastClassify checks the single-pass validator against the tokenizer:
// every line it accepts is a valid JSON object and gets the type, key and
// timestamp the tokenizer reads; every strictly valid object it refuses has
// an escape or deep nesting, which the tokenizer then handles.
func FuzzFastClassify(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"type":"A","timestamp":"2026-11-21T22:29:47.177Z"}`,
		`{"id":"evt_1","type":"execution.text_delta","payload":{"t":"a\"b\\c\u00e9"},"timestamp":1795300187177}`,
		`{"a":[1,-2.5e+3,true,false,null,{},[]],"type":"x"}`,
		`{"type":"\ud83d\ude00"}`, `{"seq":01}`, `{"seq":1,}`, `{"x":"` + "\x01" + `"}`,
		`{"Type":1,"type":2}`, `{"type":"a","type":"b"}`, "{\"x\":\"\xc3\x28\"}", `{"a":1} x`, ` { } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fast := newClassifier()
		var got Record
		ok := fast.fastClassify(line, &got)
		strict := jsontext.Value(line).IsValid()
		isObject := len(bytes.TrimLeft(line, " \t\r\n")) > 0 && bytes.TrimLeft(line, " \t\r\n")[0] == '{'
		if ok && !jsontext.Value(line).IsValid(jsontext.AllowDuplicateNames(true)) {
			t.Fatalf("accepted an invalid line: %q", line)
		}
		if ok && !isObject {
			t.Fatalf("accepted a non-object: %q", line)
		}
		if !ok && strict && isObject && bytes.IndexByte(line, '\\') < 0 && bytes.Count(line, []byte{'['})+bytes.Count(line, []byte{'{'}) < maxFastDepth {
			t.Fatalf("refused a valid object without escapes: %q", line)
		}
		if !ok {
			return
		}
		slow := newClassifier()
		var want Record
		if err := slow.scan(line, &want, strictOpts); err != nil {
			t.Fatalf("accepted a line the tokenizer refuses (%v): %q", err, line)
		}
		if got.Type() != want.Type() || got.TS != want.TS || got.KeyIn(line) != want.KeyIn(line) {
			t.Fatalf("fast %q %q %d, tokenizer %q %q %d: %q", got.Type(), got.KeyIn(line), got.TS, want.Type(), want.KeyIn(line), want.TS, line)
		}
	})
}

// BenchmarkClassify measures one core validating and indexing the lines of
// a generated journal (the per-line work of Scan, without reading).
func BenchmarkClassify(b *testing.B) {
	for _, f := range []string{"durable-stream", "delta-engine"} {
		b.Run(f, func(b *testing.B) {
			var buf bytes.Buffer
			if err := demo.Generate(&buf, f, 20000, 1); err != nil {
				b.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
			c := newClassifier()
			b.SetBytes(int64(buf.Len()))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, l := range lines {
					var r Record
					c.classify(l, &r)
				}
			}
		})
	}
}
