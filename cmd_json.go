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
	switch x := v.(type) {
	case model.Object:
		return writeItems(w, depth, true, func(yield func(any) bool) {
			for _, f := range x {
				if !yield(f) {
					return
				}
			}
		})
	case []any:
		return writeItems(w, depth, false, func(yield func(any) bool) {
			for _, e := range x {
				if !yield(e) {
					return
				}
			}
		})
	case model.Lazy:
		return writeItems(w, depth, x.Object, x.Each)
	}
	return writeScalar(w, v, depth)
}

// writeItems writes the items each yields as a JSON array, or with object
// as the members (model.Field) of an object, one per line at depth+1,
// holding one item at a time: this is how a model.Lazy list of a million
// messages is written without building it.
func writeItems(w *bufio.Writer, depth int, object bool, each func(yield func(any) bool)) error {
	open, close := "[", "]"
	if object {
		open, close = "{", "}"
	}
	var err error
	n := 0
	each(func(v any) bool {
		if n == 0 {
			w.WriteString(open)
		} else {
			w.WriteByte(',')
		}
		n++
		w.WriteByte('\n')
		w.WriteString(strings.Repeat("  ", depth+1))
		if object {
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
