package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rewind-tui/rewind/demo"
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

// BenchmarkWriteState writes the state of a generated journal of each
// format (Delta Engine: 20,000 events, about 24 MB; DeltaMind: 100,000,
// about 30 MB; Durable Stream: 50,000, about 25 MB) as rewind state does,
// after the fold: what it measures is the writing (reading events back,
// rebuilding items, escaping the strings), in bytes of journal per second.
func BenchmarkWriteState(b *testing.B) {
	for _, c := range []struct {
		format string
		events int
	}{{model.DeltaEngine, 20_000}, {model.DeltaMind, 100_000}, {model.DurableStream, 50_000}} {
		b.Run(c.format, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "journal.jsonl")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := demo.Generate(f, c.format, c.events, 1); err != nil {
				b.Fatal(err)
			}
			f.Close()
			st, _ := os.Stat(path)
			g := &globalFlags{stderr: io.Discard}
			s, err := g.openLast(path)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			obj, err := s.R.StreamJSON(s.R.Events())
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			for b.Loop() {
				if err := writeJSON(io.Discard, obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A model.Literal (or a pointer to one) is written as the string it
// stands for, and a *string as its string: the same bytes, terminal
// controls escaped, whatever the literal holds.
func TestWriteJSONLiteral(t *testing.T) {
	for _, s := range []string{"", "plain", "line\nbreak \"q\" \\ <b>&", "\x1b[31mred\x1b[0m \u202e \u2028 \x7f \xff", "é 🎉 \U000e0041"} {
		lit, _ := json.Marshal(s)
		for _, l := range [][]byte{lit, []byte(strings.ReplaceAll(string(lit), `\u003c`, "<"))} {
			var orig string // what the literal stands for
			if err := json.Unmarshal(l, &orig); err != nil {
				t.Fatal(err)
			}
			var got, want bytes.Buffer
			ptr, str := model.Literal(l), orig
			if err := writeJSON(&got, model.Object{{Key: "v", Value: model.Literal(l)}, {Key: "list", Value: []any{model.Literal(l), &ptr, &str}}}); err != nil {
				t.Fatal(err)
			}
			if err := writeJSON(&want, model.Object{{Key: "v", Value: orig}, {Key: "list", Value: []any{orig, orig, orig}}}); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("literal %s written as\n%s\nwant\n%s", l, got.String(), want.String())
			}
			// Marshalled (model.Indent, Lazy.MarshalJSON), it is the same
			// string too.
			var back string
			m, err := json.Marshal(model.Object{{Key: "v", Value: model.Literal(l)}, {Key: "p", Value: &ptr}})
			if err == nil {
				var o struct{ V, P string }
				err = json.Unmarshal(m, &o)
				back = o.V
				if o.P != o.V {
					t.Errorf("*Literal(%s) marshals to %q, Literal to %q", l, o.P, o.V)
				}
			}
			if err != nil || back != orig {
				t.Errorf("Literal(%s) marshals to %s (%v), which decodes to %q, want %q", l, m, err, back, orig)
			}
		}
	}
}

// partsOf returns the list items as a Transient model.Lazy with Parts of
// size items each, as a format's StreamView hands a long list to
// writeJSON: each item a copy of its string made in a buffer the list
// reuses for the next item, so an item not written before the next one is
// made comes out wrong.
func partsOf(items []string, size int, object bool) model.Lazy {
	each := func(from, to int) func(yield func(any) bool) {
		return func(yield func(any) bool) {
			var buf []byte
			for i := from; i < to; i++ {
				buf = append(buf[:0], items[i]...)
				var v any = model.Object{{Key: "i", Value: i}, {Key: "text", Value: model.Literal(buf)}}
				if object {
					v = model.Field{Key: fmt.Sprint("k", i), Value: v}
				}
				if !yield(v) {
					return
				}
			}
		}
	}
	return model.Lazy{Len: len(items), Object: object, Transient: true, Each: each(0, len(items)),
		Parts: func(yield func(func(func(any) bool)) bool) {
			for from := 0; from < len(items); from += size {
				if !yield(each(from, min(from+size, len(items)))) {
					return
				}
			}
		}}
}

// A long list with Parts is made on several goroutines and written item
// for item, in order, as the same list held in memory: arrays and
// objects, parts of one item and of many, empty lists.
func TestWriteJSONPartsKeepOrder(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 3000} {
		var items []string
		var held []any
		heldObj := model.Object{}
		for i := range n {
			s, _ := json.Marshal(strings.Repeat(fmt.Sprint("item ", i, " <", i%7, ">\n"), i%13+1))
			items = append(items, string(s))
			o := model.Object{{Key: "i", Value: i}, {Key: "text", Value: model.Literal(s).String()}}
			held = append(held, o)
			heldObj = append(heldObj, model.Field{Key: fmt.Sprint("k", i), Value: o})
		}
		for _, size := range []int{1, 7, 1000} {
			for _, object := range []bool{false, true} {
				var want any = held
				if object {
					want = heldObj
				}
				var plain, parts bytes.Buffer
				if err := writeJSON(&plain, model.Object{{Key: "list", Value: want}, {Key: "after", Value: true}}); err != nil {
					t.Fatal(err)
				}
				if err := writeJSON(&parts, model.Object{{Key: "list", Value: partsOf(items, size, object)}, {Key: "after", Value: true}}); err != nil {
					t.Fatal(err)
				}
				if parts.String() != plain.String() {
					t.Fatalf("%d items in parts of %d (object %v): written\n%.2000s\nwant\n%.2000s", n, size, object, parts.String(), plain.String())
				}
			}
		}
	}
}

// When the output fails, the parts in flight are told to stop: the items
// made are a few parts past what was written, not the whole list.
func TestWriteJSONPartsStopOnError(t *testing.T) {
	var made atomic.Int64
	each := func(yield func(any) bool) {
		for i := range 1000 {
			made.Add(1)
			if !yield(model.Object{{Key: "content", Value: strings.Repeat("y", 100)}, {Key: "i", Value: i}}) {
				return
			}
		}
	}
	list := model.Lazy{Len: 1_000_000, Transient: true, Each: each, Parts: func(yield func(func(func(any) bool)) bool) {
		for range 1000 {
			if !yield(each) {
				return
			}
		}
	}}
	err := writeJSON(&failAfter{n: 200 << 10}, model.Object{{Key: "messages", Value: list}})
	if err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("writeJSON to a failing writer: %v, want the write error", err)
	}
	if n := made.Load(); n > 50_000 {
		t.Fatalf("%d items made after the output failed at about 1,500: the parts were not told to stop", n)
	}
}

// rewind state writes the streamed state (Delta Engine's and DeltaMind's
// lists made in parts; Delta Engine's strings as literals, DeltaMind's
// items writing themselves) byte for byte as the state held in memory:
// generated journals, which cut into several parts, and the fixtures,
// hostile ones included.
func TestWriteStreamedState(t *testing.T) {
	for _, c := range []struct {
		format string
		events int
		dir    string
	}{{model.DeltaEngine, 4000, "model/deltaengine/testdata"}, {model.DeltaMind, 12000, "model/deltamind/testdata"}} {
		t.Run(c.format, func(t *testing.T) { testWriteStreamedState(t, c.format, c.events, c.dir) })
	}
}

func testWriteStreamedState(t *testing.T, format string, events int, fixtures string) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := demo.Generate(&b, format, events, 7); err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, "journal.jsonl")
	if err := os.WriteFile(gen, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(fixtures + "/*.jsonl")
	for _, p := range append(paths, gen) {
		g := &globalFlags{stderr: io.Discard, format: format}
		s, err := g.open(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, pos := range []int{s.R.Events() / 2, s.R.Events()} {
			streamed, err := s.R.StreamJSON(pos)
			if err != nil {
				t.Fatal(err)
			}
			held, err := s.R.JSON(pos)
			if err != nil {
				t.Fatal(err)
			}
			var got, want bytes.Buffer
			if err := writeJSON(&got, streamed); err != nil {
				t.Fatal(err)
			}
			if err := writeJSON(&want, held); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s at %d: the streamed state is written as\n%.3000s\nthe state held in memory as\n%.3000s", p, pos, got.String(), want.String())
			}
		}
		s.Close()
	}
}
