package main

import (
	"bytes"
	"testing"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// lazyOf returns v with every []any and Object below the top turned into
// model.Lazy, as a format's StreamView hands them to writeJSON.
func lazyOf(v any) any {
	switch x := v.(type) {
	case []any:
		return model.Lazy{Len: len(x), Each: func(yield func(any) bool) {
			for _, e := range x {
				if !yield(lazyOf(e)) {
					return
				}
			}
		}}
	case model.Object:
		return model.Lazy{Len: len(x), Object: true, Each: func(yield func(any) bool) {
			for _, f := range x {
				if !yield(model.Field{Key: f.Key, Value: lazyOf(f.Value)}) {
					return
				}
			}
		}}
	}
	return v
}

// rewind state writes a streamed state (model.Lazy lists, written one item
// at a time) exactly as the same state held in memory, and both decode to
// the state: indented by two spaces, terminal-safe.
func TestWriteJSONLazy(t *testing.T) {
	state := model.Object{
		{Key: "format", Value: "delta-engine"},
		{Key: "empty_list", Value: []any{}},
		{Key: "empty_object", Value: model.Object{}},
		{Key: "messages", Value: []any{
			model.Object{{Key: "role", Value: "user"}, {Key: "content", Value: "line\nbreak \x1b[31mred\x1b[0m <b>&</b> \u202e bidi \xff"}},
			model.Object{{Key: "role", Value: "tool"}, {Key: "n", Value: 42}, {Key: "big", Value: int64(1) << 60}, {Key: "ok", Value: true}, {Key: "none", Value: nil}, {Key: "f", Value: 1.5}},
			[]any{[]any{}, model.Object{}, "nested"},
		}},
		{Key: "actions", Value: model.Object{{Key: "call_\x1b]0;x\x07", Value: model.Object{{Key: "status", Value: "PENDING"}}}}},
	}
	var plain, lazy bytes.Buffer
	if err := writeJSON(&plain, state); err != nil {
		t.Fatal(err)
	}
	streamed := model.Object{}
	for _, f := range state {
		streamed = append(streamed, model.Field{Key: f.Key, Value: lazyOf(f.Value)})
	}
	if err := writeJSON(&lazy, streamed); err != nil {
		t.Fatal(err)
	}
	if lazy.String() != plain.String() {
		t.Fatalf("streamed state differs:\n%s\nheld in memory:\n%s", lazy.String(), plain.String())
	}
	want, err := model.Indent(state)
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.Bytes(); !bytes.Equal(got, render.SafeJSON(want)) {
		t.Fatalf("writeJSON:\n%s\nwant model.Indent, made safe:\n%s", got, render.SafeJSON(want))
	}
	if bytes.ContainsAny(plain.Bytes(), "\x1b\x07\u202e") {
		t.Fatalf("terminal controls written raw:\n%q", plain.String())
	}
}
