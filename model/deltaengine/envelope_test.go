package deltaengine

import (
	"bytes"
	"testing"

	"github.com/rewind-tui/rewind/demo"
)

// A line laid out as Delta Engine writes it is read by writtenEnvelope
// without a member walk; what the fold gets must be what the walk gives,
// whatever the bytes: the same fields, the same calls, the same verdict.
func FuzzWrittenEnvelope(f *testing.F) {
	var j bytes.Buffer
	if err := demo.Generate(&j, "delta-engine", 40, 3); err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(j.Bytes()), []byte("\n")) {
		f.Add(l)
	}
	for _, s := range []string{
		`{"seq":1,"timestamp":"t","type":"USER_MESSAGE","payload":{"content":"x"}}`,
		`{"seq":01,"timestamp":"t","type":"USER_MESSAGE","payload":{"content":"x"}}`,
		`{"seq":1,"timestamp":"t","type":"USER_MESSAGE","payload":{"content":"x"},"type":"THOUGHT"}`,
		`{"seq":1,"timestamp":"t","type":"USER_MESSAGE","payload":{"content":1}}`,
		`{"seq":1,"timestamp":"t","type":"USER_MESSAGE","payload":{"content":"x"`,
		`{"seq":1,"timestamp":"t","type":"US\u0045R_MESSAGE","payload":{"content":"x"}}`,
		`{"seq":1,"timestamp":null,"type":"USER_MESSAGE","payload":{"content":"x"}}`,
		`{"seq":1,"timestamp":"t","type":"THOUGHT","payload":{"content":"","tool_calls":[{"id":"a","function":{"name":"n"}}]}} `,
		`{"seq":1,"timestamp":"t","type":"THOUGHT","payload":[]}`,
		`{"seq":-1,"timestamp":"t","type":"RUN_END","payload":{"status":"COMPLETED"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fast, walked []rawCall
		gl, gok := parseLineCalls(raw, &fast)
		wl, wok := walkLine(raw, &walked)
		if gok != wok {
			t.Fatalf("%s: read %v, walked %v", raw, gok, wok)
		}
		if !gok {
			return
		}
		if !sameLine(gl, wl) {
			t.Fatalf("%s:\nread   %q\nwalked %q", raw, gl, wl)
		}
		if len(fast) != len(walked) {
			t.Fatalf("%s: %d calls read, %d walked", raw, len(fast), len(walked))
		}
		for i := range fast {
			a, b := fast[i], walked[i]
			if !bytes.Equal(a.id, b.id) || !bytes.Equal(a.typ, b.typ) || !bytes.Equal(a.name, b.name) || !bytes.Equal(a.args, b.args) {
				t.Fatalf("%s: call %d read %q, walked %q", raw, i, a, b)
			}
		}
	})
}

func sameLine(a, b line) bool {
	if !bytes.Equal(a.seq, b.seq) || !bytes.Equal(a.ts, b.ts) || a.typ != b.typ || !bytes.Equal(a.p.x, b.p.x) {
		return false
	}
	for k := range a.p.s {
		if !bytes.Equal(a.p.s[k], b.p.s[k]) {
			return false
		}
	}
	return true
}

// walkLine is parseLineCalls through the general walk of the envelope
// only (walkEnvelope), never through writtenEnvelope.
func walkLine(raw []byte, calls *[]rawCall) (line, bool) {
	p := payload{calls: calls}
	l, _, ok := walkEnvelope(raw, &p)
	if !ok {
		return line{}, false
	}
	return l.checked(&p)
}
