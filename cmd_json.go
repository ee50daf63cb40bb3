package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"

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
	nl := func(d int) {
		w.WriteByte('\n')
		w.WriteString(strings.Repeat("  ", d))
	}
	switch x := v.(type) {
	case model.Object:
		if len(x) == 0 {
			w.WriteString("{}")
			return nil
		}
		w.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				w.WriteByte(',')
			}
			nl(depth + 1)
			if err := writeScalar(w, f.Key, depth+1); err != nil {
				return err
			}
			w.WriteString(": ")
			if err := writeIndented(w, f.Value, depth+1); err != nil {
				return err
			}
		}
		nl(depth)
		return w.WriteByte('}')
	case []any:
		if len(x) == 0 {
			w.WriteString("[]")
			return nil
		}
		w.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.WriteByte(',')
			}
			nl(depth + 1)
			if err := writeIndented(w, e, depth+1); err != nil {
				return err
			}
		}
		nl(depth)
		return w.WriteByte(']')
	case model.Lazy:
		return writeLazy(w, x, depth)
	}
	return writeScalar(w, v, depth)
}

// writeLazy writes a Lazy array or object as writeIndented writes a []any
// or an Object, holding one item at a time.
func writeLazy(w *bufio.Writer, l model.Lazy, depth int) error {
	open, close := "[", "]"
	if l.Object {
		open, close = "{", "}"
	}
	var err error
	n := 0
	l.Each(func(v any) bool {
		if n == 0 {
			w.WriteString(open)
		} else {
			w.WriteByte(',')
		}
		n++
		w.WriteByte('\n')
		w.WriteString(strings.Repeat("  ", depth+1))
		if l.Object {
			f := v.(model.Field)
			if err = writeScalar(w, f.Key, depth+1); err != nil {
				return false
			}
			w.WriteString(": ")
			v = f.Value
		}
		err = writeIndented(w, v, depth+1)
		return err == nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		_, err = w.WriteString(open + close)
		return err
	}
	w.WriteByte('\n')
	w.WriteString(strings.Repeat("  ", depth))
	_, err = w.WriteString(close)
	return err
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
