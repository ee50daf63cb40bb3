package durablestream

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/model"
)

// The member readers are internal/rawjson's (model.Unmarshal's rules).
func name(n []byte) []byte                               { return rawjson.Name(n) }
func isStr(v []byte) bool                                { return rawjson.IsStr(v) }
func strVal(v []byte) (string, bool)                     { return rawjson.Str(v) }
func integer(v []byte) (int64, bool, bool)               { return rawjson.Int(v) }
func optInt(v []byte) (opt, bool)                        { return rawjson.OptInt(v) }
func elements(arr []byte, fn func(v []byte) bool) bool   { return rawjson.Elements(arr, fn) }
func strList(v []byte) ([]string, bool)                  { return rawjson.StrList(v) }
func object(v []byte, fn func(name, v []byte) bool) bool { return rawjson.Object(v, fn) }

// opt is an optional integer (a *int64 field of the old decoding).
type opt = rawjson.Opt

// strText is strVal for text that may be long: the Text of a JSON string
// (kept in the journal when it is long), or the empty Text for null.
func strText(ev model.Event, v []byte) (text, bool) {
	if len(v) > 0 && v[0] == 'n' {
		return text{}, true
	}
	if len(v) == 0 || v[0] != '"' {
		return text{}, false
	}
	return textOf(ev, v), true
}

// anyText returns a payload value of any JSON type as display text: a
// string as it is, null or absent as "", anything else as its compact JSON.
func anyText(ev model.Event, v []byte) text {
	switch {
	case len(v) == 0 || v[0] == 'n':
		return text{}
	case v[0] == '"':
		return textOf(ev, v)
	}
	c := jsontext.Value(bytes.Clone(v))
	if c.Compact() != nil {
		return text{s: string(v)}
	}
	return text{s: string(c)}
}

// text is a string of the journal that a state keeps: held decoded when
// it is short, or as a model.Text that re-reads it from the journal when
// its JSON literal is longer than model.InlineText. It is half the size
// of a model.Text, which matters for the many short strings of a state.
type text struct {
	s    string
	long *model.Text
}

// textOf returns the text of the JSON string literal lit, a sub-slice of
// ev.Raw (see model.TextOf).
func textOf(ev model.Event, lit []byte) text {
	if len(lit) <= model.InlineText || ev.Src == nil {
		s, _ := rawjson.Unquote(lit)
		return text{s: s}
	}
	t := model.TextOf(ev, lit)
	return text{long: &t}
}

// String returns the text, reading it from the journal when it was left
// there.
func (t text) String() string {
	if t.long != nil {
		return t.long.String()
	}
	return t.s
}

// IsEmpty reports whether the text is "".
func (t text) IsEmpty() bool { return t.long == nil && t.s == "" }
