package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
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

// A long lazy list (read ahead on a second goroutine, in batches cut by
// count and by size) is written item for item as the same list held in
// memory, in order, nested lazy lists included.
func TestWriteJSONReadAheadKeepsOrder(t *testing.T) {
	var msgs []any
	for i := range 5000 {
		content := strings.Repeat("x", i%97)
		if i%1000 == 7 {
			content = strings.Repeat("big\n", 100<<10) // 400 KiB: a batch of its own
		}
		msgs = append(msgs, model.Object{{Key: "i", Value: i}, {Key: "content", Value: content},
			{Key: "calls", Value: []any{fmt.Sprint("call_", i)}}})
	}
	state := model.Object{{Key: "messages", Value: msgs}}
	var plain, lazy bytes.Buffer
	if err := writeJSON(&plain, state); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(&lazy, model.Object{{Key: "messages", Value: lazyOf(msgs)}}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lazy.Bytes(), plain.Bytes()) {
		t.Fatalf("read-ahead output differs from the list held in memory (%d bytes against %d)", lazy.Len(), plain.Len())
	}
}

// failAfter accepts n bytes, then fails every write, as a closed pipe does.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errors.New("broken pipe")
	}
	f.n -= len(p)
	return len(p), nil
}

// When the output fails (rewind state | head), writing stops with the
// error, and the list stops being read: the items made are a few batches
// past what was written, not the whole journal.
func TestWriteJSONReadAheadStopsOnError(t *testing.T) {
	var made atomic.Int64
	list := model.Lazy{Len: 1_000_000, Each: func(yield func(any) bool) {
		for i := range 1_000_000 {
			made.Add(1)
			if !yield(model.Object{{Key: "content", Value: strings.Repeat("y", 100)}, {Key: "i", Value: i}}) {
				return
			}
		}
	}}
	err := writeJSON(&failAfter{n: 200 << 10}, model.Object{{Key: "messages", Value: list}})
	if err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("writeJSON to a failing writer: %v, want the write error", err)
	}
	if n := made.Load(); n > 10_000 {
		t.Fatalf("%d items made after the output failed at about 1,500: the list was not told to stop", n)
	}
}
