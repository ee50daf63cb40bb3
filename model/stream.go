package model

import (
	"bytes"
	"io"
	"slices"
)

// Lazy is a JSON array, or with Object set a JSON object, whose items are
// made one at a time while it is written: `rewind state` prints a Delta
// Engine conversation of a million messages holding one message in memory,
// not all of them. Each may be called more than once (MarshalJSON and a
// writer each call it once); it decodes from the journal every time.
type Lazy struct {
	// Len is how many items Each yields.
	Len int
	// Object says that Each yields Field values, the members of an object.
	Object bool
	// Each calls yield with the items in order, and stops early when
	// yield returns false.
	Each func(yield func(any) bool)
	// Transient says that an item, and the Literal values in it, is valid
	// only until the yield call that got it returns: a writer must write
	// it before it returns, not keep it.
	Transient bool
	// Parts, when not nil, is Each cut into parts that may be made at the
	// same time, on several goroutines: it calls yield with consecutive
	// parts, each an Each of its own over the next items, until yield
	// returns false or there are no more. The parts' items, in order, are
	// Each's, or Appenders that write them. Parts runs on one goroutine,
	// and the parts it gives may run concurrently with it and with each
	// other.
	Parts func(yield func(part func(yield func(any) bool)) bool)
	// At, when not nil, returns item i (0 <= i < Len) of a list on its
	// own, made for the call and not Transient, as a whole View would
	// hold it: a lookup of one item of a long list (blame's) costs that
	// item.
	At func(i int) any
	// Get, when not nil, returns the member named key of an Object, as
	// At returns an item, and whether there is one.
	Get func(key string) (any, bool)
	// Rank, when not nil, returns a number that orders the members of an
	// Object as Each yields them (lower first), and whether key is one:
	// with Get, a diff of a few members puts them in the Object's order
	// without making the others.
	Rank func(key string) (int, bool)
}

// An Appender is an item of a Lazy's Parts that writes its own JSON text
// instead of being made as a value for a writer to walk: a list of
// millions of items whose members are all known (DeltaMind's) is written
// without building an Object, boxing its strings and switching on each
// member's type. It is valid as long as the item it stands for: until the
// yield call that got it returns, when the Lazy is Transient.
type Appender interface {
	// AppendIndented appends to b the JSON text of the item Each gives
	// in its place as an indenting writer writes it when the item is at
	// nesting depth depth: Indent's layout (two spaces a level, one member
	// or element a line, `"name": value`, [] and {} when empty), without
	// a newline or indentation before its first byte or after its last.
	// It writes each string that comes from the journal with w, the
	// writer's own string writers, and only names and values of its own,
	// plain ASCII, without them.
	AppendIndented(b []byte, depth int, w Strings) []byte
}

// Strings are a writer's own string writers, which an Appender writes the
// strings that come from a journal with (rewind's write them
// terminal-safe: render.AppendJSONString and render.AppendJSONLiteral).
// String appends s as a JSON string; Literal appends lit, a JSON string
// literal as a journal holds it (a Literal's bytes, quotes included), as
// String appends the string it decodes to.
type Strings struct {
	String  func(b []byte, s string) []byte
	Literal func(b, lit []byte) []byte
}

// AppendMember appends what an indenting writer writes before a member of
// an object (or an element of a list) at nesting depth depth: a comma
// unless it is the first, a newline and the indentation (AppendLine);
// then lit, the member's name as the Appender writes it (`"name": `).
func AppendMember(b []byte, depth int, lit string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	return append(AppendLine(b, depth), lit...)
}

// AppendLine appends a newline and the indentation of a line at nesting
// depth depth as Indent writes it: two spaces a level. It is what an
// indenting writer (rewind's, an Appender) writes before a member or an
// element, and before the bracket that closes a list that has some.
func AppendLine(b []byte, depth int) []byte {
	const line = "\n                                                                "
	if n := 1 + 2*depth; n <= len(line) {
		return append(b, line[:n]...) // one copy: it is called for every member
	}
	b = append(b, '\n')
	for n := 2 * depth; n > 0; n -= len(line) - 1 {
		b = append(b, line[1:min(n+1, len(line))]...)
	}
	return b
}

// MarshalJSON writes the items as marshalValue would write them held in a
// []any (or, with Object, in an Object). Prefer a streaming writer: this
// builds the whole text.
func (l Lazy) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	open, close := byte('['), byte(']')
	if l.Object {
		open, close = '{', '}'
	}
	b.WriteByte(open)
	var err error
	i := 0
	l.Each(func(v any) bool {
		if i > 0 {
			b.WriteByte(',')
		}
		i++
		if l.Object {
			f := v.(Field)
			var k []byte
			if k, err = marshalValue(f.Key); err != nil {
				return false
			}
			b.Write(k)
			b.WriteByte(':')
			v = f.Value
		}
		var ev []byte
		if ev, err = marshalValue(v); err != nil {
			return false
		}
		b.Write(ev)
		return true
	})
	if err != nil {
		return nil, err
	}
	b.WriteByte(close)
	return b.Bytes(), nil
}

// StreamViews may be implemented by a Format whose View holds everything
// the journal holds (every message of a conversation, every knowledge
// item). StreamView is View with those lists as Lazy values: written out
// (model.Indent, or rewind's streaming writer) it gives the same bytes as
// View, and it costs the memory of one item instead of all of them. It is
// for printing: the TUI, diffs and queries use View or PaneView.
type StreamViews interface {
	StreamView(s State) Object
}

// KeyViews may be implemented by a Format whose View builds every member
// whole each time (Durable Stream's): KeyView returns only View's members
// named in keys, in View's order and as View gives them, building nothing
// for the others. A query that reads a few members of every state of a
// journal then costs what those members cost.
type KeyViews interface {
	KeyView(s State, keys []string) Object
}

// StreamKeyViews may be implemented by a Format with KeyViews whose
// members include lists that grow with the journal (Durable Stream's
// sessions, decisions and finished intents): StreamKeyView is KeyView with
// those lists as Lazy values with At, so that a lookup of one item
// (blame's) costs that item and not the list.
type StreamKeyViews interface {
	StreamKeyView(s State, keys []string) Object
}

// StreamMembers is StateMembers for a caller that reads model.Lazy lists:
// a format's own members from its StreamKeyView when it has one, else as
// StateMembers(f, s, at, keys, StreamStateJSON) gives them.
func StreamMembers(f Format, s State, at int, keys []string) Object {
	skv, ok := f.(StreamKeyViews)
	if !ok {
		return StateMembers(f, s, at, keys, StreamStateJSON)
	}
	return members(f, s, at, keys, skv.StreamKeyView, nil)
}

// StateMembers returns the members of the state object (StateJSON) named
// in keys, in its order, making as little of the state as f allows: the
// head's members (format, at, pending) from stateHead, a format's own from
// its KeyView (KeyViews). For a format without KeyViews they are taken from
// view(f, s, at): StateJSON, or StreamStateJSON for a caller that reads
// model.Lazy lists. A search over every state of a journal that reads a
// few members (queries, blame) costs what those members cost.
func StateMembers(f Format, s State, at int, keys []string, view func(Format, State, int) Object) Object {
	var keyView func(State, []string) Object
	if kv, ok := f.(KeyViews); ok {
		keyView = kv.KeyView
	}
	return members(f, s, at, keys, keyView, view)
}

// members is StateMembers with the format's own members from keyView, or
// when it is nil from view.
func members(f Format, s State, at int, keys []string, keyView func(State, []string) Object, view func(Format, State, int) Object) Object {
	head, own := false, false
	for _, k := range keys {
		if k == "format" || k == "at" || k == "pending" {
			head = true
		} else {
			own = true
		}
	}
	var o Object
	switch {
	case own && keyView == nil:
		o = view(f, s, at)
	case own:
		if head {
			o = stateHead(f, s, at)
		}
		o = append(o, keyView(s, keys)...)
	case head:
		o = stateHead(f, s, at)
	}
	out := make(Object, 0, len(keys))
	for _, fl := range o {
		if slices.Contains(keys, fl.Key) {
			out = append(out, fl)
		}
	}
	return out
}

// StreamStateJSON is StateJSON with f's StreamView when f implements
// StreamViews, and StateJSON otherwise.
func StreamStateJSON(f Format, s State, at int) Object {
	sv, ok := f.(StreamViews)
	if !ok {
		return StateJSON(f, s, at)
	}
	return append(stateHead(f, s, at), sv.StreamView(s)...)
}

// WriteRender writes Render(s, doc) to w. When f implements DocParts
// (Delta Engine's CONVERSATION holds the whole journal), it writes the
// parts as they are made, in pieces of about 64 KiB, so that `rewind
// render` holds a few messages, not the document. The bytes are
// unsanitized Markdown, as Render's; it returns the first error of w.
func WriteRender(f Format, s State, doc string, w io.Writer) error {
	var (
		b   []byte
		err error
	)
	RenderParts(f, s, doc, func(_ int64, part string) bool {
		if len(b) == 0 && len(part) >= 64<<10 {
			_, err = io.WriteString(w, part) // a whole Render: not copied
			return err == nil
		}
		if b = append(b, part...); len(b) >= 64<<10 {
			_, err = w.Write(b)
			b = b[:0]
		}
		return err == nil
	})
	if err == nil && len(b) > 0 {
		_, err = w.Write(b)
	}
	return err
}
