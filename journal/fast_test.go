package journal

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/model"
)

// FuzzFastClassify checks the single-pass validator against the tokenizer:
// every line it accepts is a valid JSON object and gets the type the
// tokenizer reads, and LineKey and LineTime read the key and timestamp the
// tokenizer finds; every strictly valid object it refuses has an escape, a
// newline (which no line holds) or deep nesting, which the tokenizer then
// handles. The classifier reads prev first: a line with the top-level
// names of the line before is read through the classifier's shape.
func FuzzFastClassify(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"type":"A","timestamp":"2026-11-21T22:29:47.177Z"}`,
		`{"id":"evt_1","type":"execution.text_delta","payload":{"t":"a\"b\\c\u00e9"},"timestamp":1795300187177}`,
		`{"a":[1,-2.5e+3,true,false,null,{},[]],"type":"x"}`,
		`{"type":"\ud83d\ude00"}`, `{"seq":01}`, `{"seq":1,}`, `{"x":"` + "\x01" + `"}`,
		`{"Type":1,"type":2}`, `{"type":"a","type":"b"}`, "{\"x\":\"\xc3\x28\"}", `{"a":1} x`, ` { } `,
		`{"seq":null,"id":7,"timestamp":1.7e12}`, `{"seq":"a\/b","timestamp":"2026-11-21T22:29:47Z"}`,
	} {
		f.Add([]byte(nil), []byte(s))
	}
	for _, p := range [][2]string{
		{`{"seq":1,"type":"A"}`, `{"seq":2,"type":"B"}`},
		{`{"seq":1,"type":"A"}`, `{"seq":2,"type":"B","seq":3}`},
		{`{"seq":1,"type":"A"}`, `{"seq":2,"typ":"B"}`},
		{`{"seq":1,"type":"A"}`, `{"seq":2,"types":"B"}`},
		{`{"seq":1,"type":"A"}`, `{"seq":2,"seq":3}`},
		{`{"seq":1,"type":"A"}`, `{"seq" :2, "type":"B"}`},
		{`{"seq":1,"type":"A"}`, `{"seq":2,"type\u0000":"B"}`},
		{`{"seq":1,"Seq":"A"}`, `{"seq":2,"Seq":"B"}`},
		{`{"a":{"seq":1}}`, `{"a":{"seq":1,"seq":2}}`},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, prev, line []byte) {
		fast := newClassifier()
		var got Record
		fast.fastClassify(prev, &got)
		got = Record{}
		ok := fast.fastClassify(line, &got)
		strict := jsontext.Value(line).IsValid()
		isObject := len(bytes.TrimLeft(line, " \t\r\n")) > 0 && bytes.TrimLeft(line, " \t\r\n")[0] == '{'
		if ok && !jsontext.Value(line).IsValid(jsontext.AllowDuplicateNames(true)) {
			t.Fatalf("accepted an invalid line: %q", line)
		}
		if ok && !isObject {
			t.Fatalf("accepted a non-object: %q", line)
		}
		// A line holds no "\n" (the index cuts lines there): the fast
		// path refuses one, and the tokenizer takes it for whitespace.
		if !ok && strict && isObject && bytes.IndexByte(line, '\\') < 0 && bytes.IndexByte(line, '\n') < 0 && bytes.Count(line, []byte{'['})+bytes.Count(line, []byte{'{'}) < maxFastDepth {
			t.Fatalf("refused a valid object without escapes: %q", line)
		}
		if !ok {
			return
		}
		slow := newClassifier()
		var want Record
		if err := slow.scan(line, &want, strictOpts); err != nil {
			// The fast path checks the top-level names only: a name
			// repeated deeper (JSON.parse keeps the last) is not its
			// concern.
			var se *jsontext.SyntacticError
			if !errors.As(err, &se) || !errors.Is(err, jsontext.ErrDuplicateName) || strings.Count(string(se.JSONPointer), "/") < 2 {
				t.Fatalf("accepted a line the tokenizer refuses (%v): %q", err, line)
			}
			want = Record{}
			if err := slow.scan(line, &want, lenientOpts); err != nil {
				t.Fatalf("accepted a line the tokenizer refuses (%v): %q", err, line)
			}
		}
		key, ts := tokenKeyTime(t, line)
		if got.Type() != want.Type() || LineKey(line) != key || LineTime(line).UnixMilli() != ts {
			t.Fatalf("fast %q, LineKey %q, LineTime %d; tokenizer %q %q %d: %q", got.Type(), LineKey(line), LineTime(line).UnixMilli(), want.Type(), key, ts, line)
		}
	})
}

// A timestamp in the toISOString form is read as time.Parse reads it,
// and one it refuses (an hour 24 or 70, a 31st of April, a 29th of
// February outside a leap year, a 60th second) shows as no time, not as
// some other time.
func TestISOTimestampsAsTimeParse(t *testing.T) {
	for _, s := range []string{"2026-11-21T22:29:47.177Z", "2026-11-21T24:00:00.000Z", "0000-01-01T70:00:00.000Z",
		"2026-04-31T10:00:00.000Z", "2026-04-30T10:00:00.000Z", "2026-02-29T10:00:00.000Z", "2024-02-29T10:00:00.000Z",
		"2100-02-29T10:00:00.000Z", "2000-02-29T10:00:00.000Z", "2026-11-21T22:60:00.000Z", "2026-11-21T22:29:60.000Z",
		"2026-12-31T23:59:59.999Z", "2026-13-01T00:00:00.000Z", "2026-00-10T00:00:00.000Z", "2026-01-00T00:00:00.000Z"} {
		got := ParseTimestamp([]byte(`"` + s + `"`))
		want := model.ParseTime(s)
		if !got.Equal(want) && !(got.IsZero() && want.IsZero()) {
			t.Errorf("%s: %v, time.Parse %v", s, got, want)
		}
	}
}

// tokenKeyTime reads a line's key (the last top-level "seq" that is a
// string or number, else the last such "id") and timestamp (the last
// top-level "timestamp", in Unix ms; the zero time's when none) with the
// tokenizer, as LineKey and LineTime must.
func tokenKeyTime(t *testing.T, line []byte) (string, int64) {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		t.Fatal(err)
	}
	var seq, id *string
	var ms int64
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		name := tok.String() // before the next read reuses its buffer
		v, err := dec.ReadValue()
		if err != nil {
			t.Fatal(err)
		}
		lit := string(v)
		if v.Kind() == '"' {
			var s string
			if err := jsonv2.Unmarshal(v, &s); err != nil {
				t.Fatal(err)
			}
			lit = s
		}
		isKey := v.Kind() == '"' || v.Kind() == '0'
		switch name {
		case "seq":
			if isKey {
				seq = &lit
			}
		case "id":
			if isKey {
				id = &lit
			}
		case "timestamp":
			ms = 0
			switch v.Kind() {
			case '0':
				if f, err := strconv.ParseFloat(string(v), 64); err == nil && f >= 0 && f <= 1e16 {
					ms = int64(f)
				}
			case '"':
				if tm := model.ParseTime(lit); !tm.IsZero() {
					ms = tm.UnixMilli()
				}
			}
		}
	}
	if ms == 0 {
		ms = time.Time{}.UnixMilli()
	}
	switch {
	case seq != nil:
		return *seq, ms
	case id != nil:
		return *id, ms
	}
	return "", ms
}

// BenchmarkClassify measures one core validating and indexing the lines of
// a generated journal (the per-line work of Scan, without reading).
func BenchmarkClassify(b *testing.B) {
	for _, f := range []string{"durable-stream", "delta-engine", "deltamind"} {
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

// The classifier's cache of recent types never gives a line another
// line's type, however the types share its slots.
func TestRecentTypes(t *testing.T) {
	c := newClassifier()
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("t%d.%c", i*7919%1000, 'a'+i%26))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		name := names[rng.IntN(len(names))]
		var r Record
		c.classify([]byte(`{"type":"`+name+`","seq":1}`), &r)
		if r.Type() != name {
			t.Fatalf("a line of type %q classified as %q", name, r.Type())
		}
	}
}
