// Package scalartest finds the scalars of JSON lines with a JSON tokenizer,
// as the tests' reference for what the index hands a model.EndsPreparer
// (journal.UpdateEachPreparedEnds).
package scalartest

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/rewind-tui/rewind/model"
)

// Bounds returns where each scalar (string, number, true, false, null;
// not a name) of the JSON object that starts at line's first byte starts
// and ends, as indexes from that byte, or the tokenizer's error.
func Bounds(line []byte) (starts, ends []uint32, err error) {
	if len(line) == 0 || line[0] != '{' {
		return nil, nil, errors.New("scalartest: the line does not start with its object")
	}
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		before := int(dec.InputOffset())
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return starts, ends, nil
		}
		if err != nil {
			return nil, nil, err
		}
		switch tok.Kind() {
		case '{', '}', '[', ']':
			continue
		}
		if k, n := dec.StackIndex(dec.StackDepth()); k == '{' && n%2 == 1 {
			continue // a name
		}
		for strings.IndexByte(" \t\r\n,:", line[before]) >= 0 {
			before++
		}
		starts, ends = append(starts, uint32(before)), append(ends, uint32(dec.InputOffset()))
	}
}

// Cut returns line with each of its scalars (starts and ends, from
// Bounds) replaced by its kind: '"', '0' (a number), 't', 'f' or 'n'.
// Lines with the same Cut have the same layout.
func Cut(line []byte, starts, ends []uint32) string {
	var b strings.Builder
	at := uint32(0)
	for i := range starts {
		b.Write(line[at:starts[i]])
		k := line[starts[i]]
		if k == '-' || k >= '0' && k <= '9' {
			k = '0'
		}
		b.WriteByte(k)
		at = ends[i]
	}
	b.Write(line[at:])
	return b.String()
}

// layouts intern the layouts LineScalars finds: one pointer each, as the
// index's skeletons are.
var layouts sync.Map

// LineScalars returns what the index finds of line's scalars (see Bounds):
// their ends, and as the layout a pointer that is the same for lines with
// the same Cut.
func LineScalars(line []byte) (model.LineScalars, error) {
	starts, ends, err := Bounds(line)
	if err != nil {
		return model.LineScalars{}, err
	}
	key, _ := layouts.LoadOrStore(Cut(line, starts, ends), new(int))
	return model.LineScalars{Layout: key, Ends: ends}, nil
}
