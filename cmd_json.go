package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// writeJSON prints v (an Object or any value of the kinds Object holds)
// indented by two spaces and terminal-safe, streaming it: a state of a
// gigabyte journal is written without building its JSON text in memory.
func writeJSON(w io.Writer, v any) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := writeIndented(bw, v, 0); err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

func writeIndented(w *bufio.Writer, v any, depth int) error {
	switch x := v.(type) {
	case model.Object:
		l := list{w: w, depth: depth, object: true}
		for _, f := range x {
			if !l.field(f.Key, f.Value) {
				break
			}
		}
		return l.end()
	case []any:
		l := list{w: w, depth: depth}
		for _, e := range x {
			if !l.item(e) {
				break
			}
		}
		return l.end()
	case model.Lazy:
		each := x.Each
		if x.Len >= aheadMin {
			each = readAhead(x.Each)
		}
		l := list{w: w, depth: depth, object: x.Object}
		each(func(v any) bool {
			if x.Object {
				f := v.(model.Field)
				return l.field(f.Key, f.Value)
			}
			return l.item(v)
		})
		return l.end()
	}
	return writeScalar(w, v, depth)
}

// list writes the items of one JSON array, or the members of one object,
// one per line at depth+1, as they come: this is how a model.Lazy list of
// a million messages is written holding one at a time.
type list struct {
	w      *bufio.Writer
	depth  int
	object bool
	n      int // items written
	err    error
}

// next writes what goes before an item: the opening bracket or a comma,
// a newline and the indentation.
func (l *list) next() {
	switch {
	case l.n > 0:
		l.w.WriteByte(',')
	case l.object:
		l.w.WriteByte('{')
	default:
		l.w.WriteByte('[')
	}
	l.n++
	l.w.WriteByte('\n')
	writeIndent(l.w, l.depth+1)
}

// item writes one element of an array; false when writing failed.
func (l *list) item(v any) bool {
	l.next()
	l.err = writeIndented(l.w, v, l.depth+1)
	return l.err == nil
}

// field writes one member of an object; false when writing failed.
func (l *list) field(key string, v any) bool {
	l.next()
	l.w.Write(render.AppendJSONString(l.w.AvailableBuffer(), key))
	l.w.WriteString(": ")
	l.err = writeIndented(l.w, v, l.depth+1)
	return l.err == nil
}

// end closes the list ([] or {} when it had no item) and returns the
// first write error.
func (l *list) end() error {
	if l.err != nil {
		return l.err
	}
	closing := byte(']')
	if l.object {
		closing = '}'
	}
	if l.n == 0 {
		if l.object {
			l.w.WriteByte('{')
		} else {
			l.w.WriteByte('[')
		}
	} else {
		l.w.WriteByte('\n')
		writeIndent(l.w, l.depth)
	}
	return l.w.WriteByte(closing)
}

// writeIndent writes two spaces per depth.
func writeIndent(w *bufio.Writer, depth int) {
	const spaces = "                                                                "
	for n := 2 * depth; n > 0; n -= len(spaces) {
		w.WriteString(spaces[:min(n, len(spaces))])
	}
}

// writeScalar writes one value as encoding/json would, escaped as by
// render.SafeJSON: strings, integers, booleans and null directly, other
// values with encoding/json (a nested value of another type is indented by
// re-encoding).
func writeScalar(w *bufio.Writer, v any, depth int) error {
	switch x := v.(type) {
	case string:
		_, err := w.Write(render.AppendJSONString(w.AvailableBuffer(), x))
		return err
	case int:
		_, err := w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(x), 10))
		return err
	case int64:
		_, err := w.Write(strconv.AppendInt(w.AvailableBuffer(), x, 10))
		return err
	case bool:
		_, err := w.Write(strconv.AppendBool(w.AvailableBuffer(), x))
		return err
	case nil:
		_, err := w.WriteString("null")
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		parsed, err := model.FromRaw(b)
		if err == nil {
			if _, isObj := parsed.(model.Object); isObj {
				return writeIndented(w, parsed, depth)
			}
		}
	}
	_, err = w.Write(render.SafeJSON(b))
	return err
}

// Read-ahead of long lazy lists: their items are made (read back from the
// journal and decoded) on a second goroutine while the first escapes and
// writes the ones before, so that `rewind state` uses both CPUs.
const (
	aheadMin   = 64        // shorter lists are written as they come
	aheadItems = 64        // items per batch at most
	aheadBytes = 256 << 10 // string bytes per batch, about, at most
)

// readAhead returns an each that yields what each yields, in order, while
// each runs on its own goroutine up to two batches ahead (a batch ends at
// aheadItems items or aheadBytes of their strings, so that large items do
// not pile up). each must not depend on the calling goroutine: Lazy.Each
// reads through its own reader. When yield returns false, each is told
// to stop and readAhead returns once it has.
func readAhead(each func(yield func(any) bool)) func(yield func(any) bool) {
	return func(yield func(any) bool) {
		batches := make(chan []any, 1)
		stop := make(chan struct{})
		go func() {
			defer close(batches)
			var batch []any
			size := 0
			send := func() bool {
				select {
				case batches <- batch:
					batch, size = make([]any, 0, aheadItems), 0
					return true
				case <-stop:
					return false
				}
			}
			each(func(v any) bool {
				batch = append(batch, v)
				if size += stringBytes(v); len(batch) >= aheadItems || size >= aheadBytes {
					return send()
				}
				return true
			})
			if len(batch) > 0 {
				send()
			}
		}()
		defer func() {
			close(stop)
			for range batches { // wait for each to return
			}
		}()
		for b := range batches {
			for _, v := range b {
				if !yield(v) {
					return
				}
			}
		}
	}
}

// stringBytes is about how many bytes of text v holds: the lengths of its
// strings, its keys and its nested values' strings. A Lazy counts as empty
// (its items are made when it is written).
func stringBytes(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case model.Field:
		return len(x.Key) + stringBytes(x.Value)
	case model.Object:
		n := 0
		for _, f := range x {
			n += len(f.Key) + stringBytes(f.Value)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += stringBytes(e)
		}
		return n
	}
	return 8
}
