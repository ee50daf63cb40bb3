package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// Field is one member of an Object.
type Field struct {
	Key   string
	Value any
}

// Object is a JSON object that keeps its members in order. Values are nil,
// bool, string, Literal or *Literal, int, int64, float64, json.Number,
// Object or []any; anything else is marshalled with Marshal. The
// items of a Transient Lazy may also hold *string, a string boxed without
// allocating.
type Object []Field

// Literal is a string value still in the form a journal holds it: a JSON
// string literal, quotes included, as raw bytes. It stands for its decoded
// value, with JSON.parse's rules (a lone surrogate escape is U+FFFD), and
// for the empty string when it is not a JSON string literal; it is written
// as that string would be, without decoding it first (rewind state writes
// it with render.AppendJSONLiteral). A Literal usually points into a read
// buffer: one yielded by a Lazy with Transient set is valid only until the
// yield call that got it returns. A *Literal stands for the same string:
// a list that reuses its Literals boxes pointers to them, which does not
// allocate.
type Literal []byte

// String returns the decoded value of l.
func (l Literal) String() string {
	s, _ := rawjson.Unquote(l)
	return s
}

// MarshalJSON writes the decoded value of l as Marshal writes a string.
func (l Literal) MarshalJSON() ([]byte, error) { return Marshal(l.String()) }

// Get returns the value of the first member named key and whether it exists.
func (o Object) Get(key string) (any, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) { return marshalValue(o) }

func marshalValue(v any) ([]byte, error) { return AppendCompact(nil, v, math.MaxInt) }

// AppendCompact appends v (an Object or any JSON value of the kinds Object
// holds) to b as compact JSON, the way Object.MarshalJSON writes it, and
// stops once b holds limit bytes: then b ends with the start of that JSON,
// at least limit bytes in all, and nothing of it is made past that (the
// start of a large value costs the start). A string is cut at a character
// boundary without its closing quote; its JSON is its characters' one
// after another, so the cut is the start of the whole. The error is
// Marshal's, with the names of the members it is in.
func AppendCompact(b []byte, v any, limit int) ([]byte, error) {
	if len(b) >= limit {
		return b, nil
	}
	switch x := v.(type) {
	case Object:
		b = append(b, '{')
		for i, f := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendCompact(b, f.Key, limit); err != nil || len(b) >= limit {
				return b, err
			}
			b = append(b, ':')
			if b, err = AppendCompact(b, f.Value, limit); err != nil {
				return b, fmt.Errorf("field %q: %w", f.Key, err)
			}
			if len(b) >= limit {
				return b, nil
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendCompact(b, e, limit); err != nil || len(b) >= limit {
				return b, err
			}
		}
		return append(b, ']'), nil
	case string:
		cut := false
		if k := limit - len(b); len(x) > k {
			for k < len(x) && !utf8.RuneStart(x[k]) {
				k++ // the whole character: b then holds limit
			}
			x, cut = x[:k], k < len(x)
		}
		m, err := Marshal(x)
		if err != nil {
			return b, err
		}
		if cut {
			m = m[:len(m)-1] // the closing quote
		}
		return append(b, m...), nil
	}
	m, err := Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, m...), nil
}

// Marshal is json.Marshal without its HTML escaping: < > & are written as
// they are, as JSON.stringify (the journals' writers) and jq write them.
// rewind writes every JSON value it prints this way.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// Indent returns v (an Object or any JSON value of the kinds Object holds)
// as JSON indented by two spaces, with a final newline, the way
// `rewind state` prints it.
func Indent(v any) ([]byte, error) {
	raw, err := marshalValue(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// decodeOptions are the JSON semantics of the seed systems' readers (Node's
// JSON.parse): keys match case-sensitively, a duplicate key keeps the last
// value, and invalid UTF-8 is tolerated (the index reports such lines).
var decodeOptions = jsonv2.JoinOptions(
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// Unmarshal decodes raw into v with the same rules as the Node writers'
// JSON.parse: case-sensitive keys, the last of duplicate keys wins, unknown
// keys are ignored. Folds use it to read only the fields they need.
func Unmarshal(raw []byte, v any) error {
	return jsonv2.Unmarshal(raw, v, decodeOptions)
}

// FromRaw decodes raw JSON into the ordered form Object uses (Object, []any,
// string, json.Number, bool, nil), keeping member order as in the file. A
// duplicate key keeps its first position and its last value, as JSON.parse
// does.
func FromRaw(raw []byte) (any, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), decodeOptions)
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

const maxDepth = 1000

func readValue(dec *jsontext.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case '[':
		arr := []any{}
		for dec.PeekKind() != ']' {
			v, err := readValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.ReadToken()
		return arr, err
	case '{':
		obj := Object{}
		for dec.PeekKind() != '}' {
			kt, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			k := kt.String()
			v, err := readValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			replaced := false
			for i := range obj {
				if obj[i].Key == k {
					obj[i].Value = v
					replaced = true
					break
				}
			}
			if !replaced {
				obj = append(obj, Field{k, v})
			}
		}
		_, err := dec.ReadToken()
		return obj, err
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok.Kind())
}

// RawObject decodes raw into an Object, or returns an Object holding the
// error text under "error" when raw is not a JSON object.
func RawObject(raw []byte) Object {
	v, err := FromRaw(raw)
	if err != nil {
		return Object{{"error", err.Error()}}
	}
	if o, ok := v.(Object); ok {
		return o
	}
	return Object{{"value", v}}
}

// Itoa is strconv.Itoa for int64, for the many places that print seqs.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }
