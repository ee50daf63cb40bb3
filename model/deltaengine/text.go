package deltaengine

import (
	"strconv"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/model"
)

// The items of StreamView's Parts, which rewind state writes, are
// Appenders (model.Appender): a message or an action writes its JSON text
// itself, from the literals of its events' lines, instead of being made
// as an object of boxed literals that the writer walks member by member.
// On a 1 GB journal the messages alone took 0.5 s of the 4.4 s of CPU
// that rewind state takes (see BENCHMARKS.md). Each still gives the
// objects (messageObject, actionField), which View's lists hold.

// messageText is a message of StreamView's Parts that writes itself: the
// bytes an indenting writer writes for messageObject's object. Its
// literals point into a reader's buffer, and its calls are the reader's:
// valid until the reader reads the next message.
type messageText struct {
	role     string    // "user", "assistant" or "tool"
	content  []byte    // as the line holds it (a literal, or anything else for "")
	null     bool      // content is null: an assistant's that decodes empty
	callID   []byte    // a tool message's tool_call_id, as content
	hasCalls bool      // an assistant's message with tool_calls (maybe none)
	calls    []rawCall // its tool calls
}

// appendLit appends v, a string field as parseLine keeps it, as
// scratch.literal's value is written: a literal with w.Literal, the empty
// string when it is absent or not a string.
func appendLit(b, v []byte, w model.Strings) []byte {
	if len(v) == 0 || v[0] != '"' {
		return append(b, `""`...)
	}
	return w.Literal(b, v)
}

// AppendIndented appends the message as messageObject's members, in their
// order (see model.Appender), its strings written by w.
func (m *messageText) AppendIndented(b []byte, depth int, w model.Strings) []byte {
	in := depth + 1
	b = append(model.AppendMember(append(b, '{'), in, `"role": "`, true), m.role...)
	b = model.AppendMember(append(b, '"'), in, `"content": `, false)
	if m.null {
		b = append(b, "null"...)
	} else {
		b = appendLit(b, m.content, w)
	}
	switch {
	case m.role == "tool":
		b = appendLit(model.AppendMember(b, in, `"tool_call_id": `, false), m.callID, w)
	case m.hasCalls:
		b = model.AppendMember(b, in, `"tool_calls": [`, false)
		for i, c := range m.calls {
			b = model.AppendMember(b, in+1, "{", i == 0)
			b = appendLit(model.AppendMember(b, in+2, `"id": `, true), c.id, w)
			b = appendLit(model.AppendMember(b, in+2, `"type": `, false), c.typ, w)
			b = model.AppendMember(b, in+2, `"function": {`, false)
			b = appendLit(model.AppendMember(b, in+3, `"name": `, true), c.name, w)
			b = appendLit(model.AppendMember(b, in+3, `"arguments": `, false), c.args, w)
			b = append(model.AppendLine(b, in+2), '}')
			b = append(model.AppendLine(b, in+1), '}')
		}
		if len(m.calls) > 0 {
			b = model.AppendLine(b, in)
		}
		b = append(b, ']')
	}
	return append(model.AppendLine(b, depth), '}')
}

// readMessage reads the message of entry j into r's scratch (valid until
// its next item), its literals pointing into r's buffer. ok is false when
// the event cannot be read back as the fold read it (the caller decodes
// the message then).
func (r *reader) readMessage(j int) (m *messageText, ok bool) {
	e := r.get(j)
	t := tActionResult
	switch e.kind() {
	case kUser:
		t = tUserMessage
	case kThought:
		t = tThought
	}
	sc := r.scratch()
	l, bad := r.lineCalls(e, t, &sc.calls)
	if bad != "" {
		return nil, false
	}
	m, p := &sc.msg, &l.p
	switch t {
	case tActionResult:
		*m = messageText{role: "tool", content: p.s[2], callID: p.s[0]}
	case tUserMessage:
		*m = messageText{role: "user", content: p.s[0]}
	default:
		*m = messageText{role: "assistant", content: p.s[0], null: decodesEmpty(p.s[0])}
		if p.hasCalls() {
			m.hasCalls, m.calls = true, sc.calls
		}
	}
	return m, true
}

// messageText is message(j) as a messageText made in r (valid until its
// next item), or as message(j).object() gives it when the event cannot
// be read back as the fold read it.
func (r *reader) messageText(j int) any {
	m, ok := r.readMessage(j)
	if !ok {
		return r.message(j).object()
	}
	return m
}

// object returns m's object as View's messages hold it, its strings
// model.Literal values made in sc (valid until its next item).
func (m *messageText) object(sc *scratch) model.Object {
	literal := sc.literal
	switch {
	case m.role == "tool":
		return sc.object(
			model.Field{Key: "role", Value: "tool"},
			model.Field{Key: "content", Value: literal(m.content)},
			model.Field{Key: "tool_call_id", Value: literal(m.callID)})
	case m.role == "user":
		return sc.object(model.Field{Key: "role", Value: "user"}, model.Field{Key: "content", Value: literal(m.content)})
	}
	var content any
	if !m.null {
		content = literal(m.content)
	}
	if !m.hasCalls {
		return sc.object(model.Field{Key: "role", Value: "assistant"}, model.Field{Key: "content", Value: content})
	}
	calls := sc.items[:0]
	for _, c := range m.calls {
		calls = append(calls, sc.object(
			model.Field{Key: "id", Value: literal(c.id)},
			model.Field{Key: "type", Value: literal(c.typ)},
			model.Field{Key: "function", Value: sc.object(
				model.Field{Key: "name", Value: literal(c.name)},
				model.Field{Key: "arguments", Value: literal(c.args)})}))
	}
	sc.items = calls
	return sc.object(
		model.Field{Key: "role", Value: "assistant"},
		model.Field{Key: "content", Value: content},
		model.Field{Key: "tool_calls", Value: calls})
}

// actionText is an action of StreamView's Parts that writes itself: the
// bytes an indenting writer writes for the object of actionField's
// member. Its literals point into readers' buffers: valid until they read
// the next action.
type actionText struct {
	toolName, command, status, obs []byte // as the lines hold them (see appendLit)
	hasObs                         bool   // obs is the result's; else null
	// args is the request's tool_args as written (nil: none, {}); list,
	// their members as eachArg reads them (readArgs), which AppendIndented
	// writes.
	args                    []byte
	list                    []arg
	requested, result       int64
	hasRequested, hasResult bool
}

// arg is a member of tool_args as eachArg gives it: its name, quoted, and
// its value, both as written.
type arg struct{ name, val []byte }

// readArgs reads a's arguments into a.list (in buf's space), and reports
// whether AppendIndented can write them: whether eachArg reads them.
func (a *actionText) readArgs(buf []arg) bool {
	list := buf[:0]
	ok := eachArg(a.args, func(name, val []byte) { list = append(list, arg{name, val}) })
	a.list = list
	return ok
}

// pendingLit is the status of an action requested and not answered.
var pendingLit = []byte(`"PENDING"`)

// AppendIndented appends the action as actionField's object, its members
// in their order (see model.Appender), its strings written by w; its
// arguments are a.list (readArgs).
func (a *actionText) AppendIndented(b []byte, depth int, w model.Strings) []byte {
	in := depth + 1
	b = appendLit(model.AppendMember(append(b, '{'), in, `"tool_name": `, true), a.toolName, w)
	b = model.AppendMember(b, in, `"tool_args": {`, false)
	for k, m := range a.list {
		b = append(w.Literal(model.AppendMember(b, in+1, "", k == 0), m.name), ": "...)
		if m.val[0] == '"' {
			b = w.Literal(b, m.val)
		} else {
			b = append(b, m.val...) // a number, true, false or null, as written
		}
	}
	if len(a.list) > 0 {
		b = model.AppendLine(b, in)
	}
	b = append(b, '}')
	b = appendLit(model.AppendMember(b, in, `"resolved_command": `, false), a.command, w)
	b = appendLit(model.AppendMember(b, in, `"status": `, false), a.status, w)
	b = model.AppendMember(b, in, `"observation": `, false)
	if a.hasObs {
		b = appendLit(b, a.obs, w)
	} else {
		b = append(b, "null"...)
	}
	b = appendSeq(model.AppendMember(b, in, `"requested_at": `, false), a.requested, a.hasRequested)
	b = appendSeq(model.AppendMember(b, in, `"result_at": `, false), a.result, a.hasResult)
	return append(model.AppendLine(b, depth), '}')
}

// appendSeq appends n, or null when it has none.
func appendSeq(b []byte, n int64, has bool) []byte {
	if !has {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, n, 10)
}

// object returns a's object as View's actions hold it, its strings
// model.Literal values made in sc (valid until its next item).
func (a *actionText) object(sc *scratch) model.Object {
	literal := sc.literal
	var args any = model.Object{}
	if len(a.args) > 0 {
		if o, ok := argsObject(a.args, sc); ok {
			args = o
		} else if v, err := model.FromRaw(a.args); err == nil {
			args = v
		}
	}
	var obs, requested, result any
	if a.hasObs {
		obs = literal(a.obs)
	}
	if a.hasRequested {
		requested = a.requested
	}
	if a.hasResult {
		result = a.result
	}
	return sc.object(
		model.Field{Key: "tool_name", Value: literal(a.toolName)},
		model.Field{Key: "tool_args", Value: args},
		model.Field{Key: "resolved_command", Value: literal(a.command)},
		model.Field{Key: "status", Value: literal(a.status)},
		model.Field{Key: "observation", Value: obs},
		model.Field{Key: "requested_at", Value: requested},
		model.Field{Key: "result_at", Value: result},
	)
}

// eachArg calls fn with each member of v, the tool_args of a request as
// written, when argsObject reads it (the usual arguments: an object of
// strings, numbers, booleans and nulls under distinct names written
// without escapes): the member's name and its value as written, the name
// quoted. It reports whether argsObject reads v; when it does not, fn may
// have been called for members before the one it does not read. An empty
// v is an object without members.
func eachArg(v []byte, fn func(name, val []byte)) bool {
	if len(v) == 0 {
		return true
	}
	if v[0] != '{' {
		return false
	}
	var buf [8][]byte
	names := buf[:0]
	end := members(v, 0, nil, func(name []byte, _, vs int) int {
		if !plainName(name) {
			return -1
		}
		for _, n := range names {
			if string(n) == string(name) {
				return -1
			}
		}
		names = append(names, name)
		e := -1
		switch c := v[vs]; {
		case c == '"':
			if e = skipString(v, vs); e > 0 && !strictLiteral(v[vs+1:e-1]) {
				e = -1
			}
		case c == 't', c == 'f', c == 'n':
			for _, w := range []string{"true", "false", "null"} {
				if len(v)-vs >= len(w) && string(v[vs:vs+len(w)]) == w {
					e = vs + len(w)
				}
			}
		case c == '-' || c >= '0' && c <= '9':
			e = rawjson.NumberEnd(v, vs)
		}
		if e > 0 && e < len(v) && !delim(v[e]) {
			e = -1 // "true1", "1x"
		}
		if e > 0 {
			// The name as written, quotes included: members gives it
			// without them, from within v.
			at := cap(v) - cap(name)
			fn(v[at-1:at+len(name)+1], v[vs:e])
		}
		return e
	})
	return end == len(v)
}
