package main

import (
	"bufio"
	"encoding/json"
	"io"
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
	}
	return writeScalar(w, v, depth)
}

// writeScalar writes one value with encoding/json (a nested value of
// another type is indented by re-encoding), escaped by render.SafeJSON.
func writeScalar(w *bufio.Writer, v any, depth int) error {
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
