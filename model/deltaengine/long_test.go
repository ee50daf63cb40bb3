package deltaengine

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/model"
)

// A line read back with the span the fold kept of its longest value reads
// as it does without one; a span that is not the value's (shifted, a byte
// short or long) is not used, whatever the line holds.
func TestLongSpanReadsTheSameLine(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, model.DeltaEngine, 600, 5); err != nil {
		t.Fatal(err)
	}
	raws := bytes.SplitAfter(b.Bytes(), []byte("\n"))
	for _, l := range hostileLines(rand.New(rand.NewSource(7)), 400) {
		raws = append(raws, []byte(l))
	}
	spanned := 0
	for _, raw := range raws {
		var calls0 []rawCall
		l0, ok0 := parseLineCalls(raw, &calls0)
		long := longest(raw, l0.p.s[0], l0.p.s[1], l0.p.s[2], l0.p.x)
		if long.n == 0 {
			continue
		}
		spanned++
		tries := []span{long, {long.at + 1, long.n}, {long.at - 1, long.n + 1}}
		if raw[long.at] == '"' {
			tries = append(tries, span{long.at, long.n - 1}, span{long.at, long.n + 1})
		}
		for _, s := range tries {
			var calls []rawCall
			l, ok := parseLineLong(raw, &calls, s)
			if ok != ok0 || !reflect.DeepEqual(l, l0) || !reflect.DeepEqual(calls, calls0) {
				t.Fatalf("with span %+v (the value's is %+v) line %.120q reads as %+v, %v; without, %+v, %v", s, long, raw, l, ok, l0, ok0)
			}
		}
	}
	if spanned < 300 {
		t.Fatalf("%d lines have a value of %d bytes or more, want 300", spanned, minLong)
	}
}

// Folding a line keeps the span of its longest payload value, the one its
// views read back: the tool output of an ACTION_RESULT, the content of a
// THOUGHT, the arguments of an ACTION_REQUEST. A value that is not in the
// line (copied) gives none.
func TestFoldKeepsTheLongestValue(t *testing.T) {
	obs := bytes.Repeat([]byte("x"), 200)
	lines := []string{
		`{"seq":1,"timestamp":"2026-01-01T00:00:00Z","type":"ACTION_REQUEST","payload":{"action_id":"a1","tool_name":"run_shell","tool_args":{"command":"` + string(obs[:100]) + `"},"resolved_command":"ls"}}`,
		`{"seq":2,"timestamp":"2026-01-01T00:00:01Z","type":"ACTION_RESULT","payload":{"action_id":"a1","status":"SUCCESS","observation_content":"` + string(obs) + `"}}`,
		`{"seq":3,"timestamp":"2026-01-01T00:00:02Z","type":"THOUGHT","payload":{"content":"` + string(obs[:70]) + `","llm_invocation_ref":"r","tool_calls":null}}`,
		`{"seq":4,"type":"USER_MESSAGE","payload":{"content":"short"}}`,
	}
	want := []string{`{"command":"` + string(obs[:100]) + `"}`, `"` + string(obs) + `"`, `"` + string(obs[:70]) + `"`, ""}
	raws := make([][]byte, len(lines))
	for i, l := range lines {
		raws[i] = []byte(l)
	}
	// As Apply, and as ApplyPrepared after Prepare read the batch.
	applied, prepared := Format.Init(), Format.Init()
	f := format{}
	batch := f.Prepare(raws, nil)
	for i, raw := range raws {
		ev := model.Event{Pos: i + 1, Raw: raw}
		applied = Format.Apply(applied, ev)
		prepared = f.ApplyPrepared(prepared, ev, batch, i)
	}
	for name, s := range map[string]model.State{"Apply": applied, "ApplyPrepared": prepared} {
		st := s.(*state)
		sn := st.log.snapshot(st.nLog)
		if sn.n != len(lines) {
			t.Fatalf("%s: %d entries, want %d", name, sn.n, len(lines))
		}
		for i, l := range lines {
			e := sn.get(i)
			if got := l[e.long.at : e.long.at+e.long.n]; got != want[i] {
				t.Errorf("%s: entry %d keeps %q, want %q", name, i, got, want[i])
			}
		}
	}
	copied := append([]byte(nil), obs...)
	if s := longest([]byte(lines[1]), copied); s.n != 0 {
		t.Errorf("a value not in the line gave %+v", s)
	}
}
