package deltaengine

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/internal/strscan"
)

// The fold reads journal lines with rawjson: it walks the envelope's and
// the payload's top-level members, checks the JSON kind of the fields it
// knows and keeps the bytes of their last occurrence, without decoding
// anything else. The rules are model.Unmarshal's (the go-json-experiment
// decoder the fold used before, with JSON.parse semantics), which the
// reference test checks line by line:
//   - names match case-sensitively, after their escapes are decoded;
//   - of repeated names the last one counts, but every occurrence must have
//     the right kind (a string field takes a string or null, null meaning
//     ""); a wrong kind anywhere rejects the whole line;
//   - unknown members are ignored.

// evType is a journal type as a small number.
type evType uint8

const (
	tOther evType = iota // a type the fold does not know (or a null type)
	tRunStart
	tRunEnd
	tUserMessage
	tThought
	tActionRequest
	tActionResult
	tSystemMessage
	tHook
)

// typeOf returns the evType of a decoded type name.
func typeOf(name []byte) evType {
	switch string(name) {
	case RunStart:
		return tRunStart
	case RunEnd:
		return tRunEnd
	case UserMessage:
		return tUserMessage
	case Thought:
		return tThought
	case ActionRequest:
		return tActionRequest
	case ActionResult:
		return tActionResult
	case SystemMessage:
		return tSystemMessage
	case HookExecutionAudit:
		return tHook
	}
	return tOther
}

// line is one journal line as the fold reads it: the envelope's fields as
// raw JSON (nil when absent) and the payload's known fields.
type line struct {
	seq, ts []byte
	typ     evType
	p       fields
}

// fields holds the last occurrence of each payload field a type defines
// (see specs), as raw JSON; nil when absent.
type fields struct {
	s [3][]byte // the string fields, in the order of spec.str
	x []byte    // the raw field (tool_calls or tool_args)
}

// Payload member names the fold knows, over all types.
const (
	nNone = iota
	nRunID
	nTask
	nStatus
	nContent
	nToolCalls
	nActionID
	nToolName
	nResolvedCommand
	nToolArgs
	nObservation
	nLevel
	nHookName
	nNames
)

// unescapedName decodes a member name written with escapes.
func unescapedName(n []byte) []byte {
	s, _ := rawjson.Unquote(append(append([]byte{'"'}, n...), '"'))
	return []byte(s)
}

// payloadName returns the n… constant of a payload member name as
// written, or nNone.
func payloadName(n []byte) int {
	if bytes.IndexByte(n, '\\') >= 0 {
		n = unescapedName(n)
	}
	switch string(n) {
	case "run_id":
		return nRunID
	case "task":
		return nTask
	case "status":
		return nStatus
	case "content":
		return nContent
	case "tool_calls":
		return nToolCalls
	case "action_id":
		return nActionID
	case "tool_name":
		return nToolName
	case "resolved_command":
		return nResolvedCommand
	case "tool_args":
		return nToolArgs
	case "observation_content":
		return nObservation
	case "level":
		return nLevel
	case "hook_name":
		return nHookName
	}
	return nNone
}

// Envelope member names.
const (
	eNone = iota
	eSeq
	eTimestamp
	eType
	ePayload
)

func envelopeName(n []byte) int {
	if bytes.IndexByte(n, '\\') >= 0 {
		n = unescapedName(n)
	}
	switch string(n) {
	case "seq":
		return eSeq
	case "timestamp":
		return eTimestamp
	case "type":
		return eType
	case "payload":
		return ePayload
	}
	return eNone
}

// spec names the payload fields of one journal type.
type spec struct {
	str [3]int // string fields (n… constants; nNone for none)
	raw int    // a field kept as raw JSON: tool_calls or tool_args
}

// specs gives each type's fields; the fold and the views read them by
// index (for example ACTION_RESULT's observation_content is s[2]).
var specs = [...]spec{
	tOther:         {},
	tRunStart:      {str: [3]int{nRunID, nTask}},
	tRunEnd:        {str: [3]int{nStatus}},
	tUserMessage:   {str: [3]int{nContent}},
	tThought:       {str: [3]int{nContent}, raw: nToolCalls},
	tActionRequest: {str: [3]int{nActionID, nToolName, nResolvedCommand}, raw: nToolArgs},
	tActionResult:  {str: [3]int{nActionID, nStatus, nObservation}},
	tSystemMessage: {str: [3]int{nLevel, nContent}},
	tHook:          {str: [3]int{nHookName, nStatus}},
}

// payload is what one pass over a payload object finds: the last value of
// every member the fold knows (for any type, since the type may come after
// the payload), and which of them had a value of the wrong kind.
type payload struct {
	v   [nNames][]byte
	bad uint32 // bit n: a member n was not a string or null (tool_calls: not null or tool calls)
	// calls, when not nil, gets the calls of the last tool_calls read.
	calls *[]rawCall
	// long, when not empty, is where the fold found the line's longest
	// value (entry.long): a member whose value starts there ends there
	// without a scan of it, when the line still has such a value there.
	long span
}

// parseLine reads raw, one journal line, in one pass: the payload's
// members are picked as the envelope walk goes through them. ok is false
// when the fold ignores the line: raw is not an object, its type is not a
// string (or null), its last payload is not an object, or a payload field
// the type defines has the wrong kind.
func parseLine(raw []byte) (l line, ok bool) { return parseLineCalls(raw, nil) }

// parseLineCalls is parseLine that also leaves in calls (when not nil)
// the tool calls of the last tool_calls it read, their fields as written
// (a THOUGHT's, when it returns such a line), so that they are not walked
// again.
func parseLineCalls(raw []byte, calls *[]rawCall) (l line, ok bool) {
	return parseLineLong(raw, calls, span{})
}

// parseLineLong is parseLineCalls of a line whose longest value the fold
// found at long.
func parseLineLong(raw []byte, calls *[]rawCall, long span) (l line, ok bool) {
	p := payload{calls: calls, long: long}
	if l, _, ok = readLine(raw, &p); !ok {
		return line{}, false
	}
	return l.checked(&p)
}

// readLine is parseLineCalls before l.checked(p): it reads the envelope
// into l, its type as written (nil when absent) into typ, and the last
// payload's members into p, whose calls (when not nil) it empties first.
// ok is false when the fold ignores raw whatever its payload holds.
func readLine(raw []byte, p *payload) (l line, typ []byte, ok bool) {
	if p.calls != nil {
		*p.calls = (*p.calls)[:0]
	}
	if l, typ, end, ok := writtenEnvelope(raw, p); ok {
		return l, typ, end >= 0
	}
	return walkEnvelope(raw, p)
}

// walkEnvelope is readLine for a line laid out any way: it walks the
// envelope's members.
func walkEnvelope(raw []byte, p *payload) (l line, typ []byte, ok bool) {
	calls, long := p.calls, p.long
	*p = payload{calls: calls, long: long}
	if calls != nil {
		*calls = (*calls)[:0]
	}
	isObject := false
	i := rawjson.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return line{}, nil, false
	}
	end := members(raw, i, nil, func(name []byte, _, vs int) int {
		switch envelopeName(name) {
		case eSeq:
			e := skipValue(raw, vs)
			if e >= 0 {
				l.seq = raw[vs:e]
			}
			return e
		case eTimestamp:
			e := skipValue(raw, vs)
			if e >= 0 {
				l.ts = raw[vs:e]
			}
			return e
		case eType:
			if raw[vs] != '"' && raw[vs] != 'n' {
				return -1
			}
			e := skipValue(raw, vs)
			if e >= 0 {
				typ = raw[vs:e]
			}
			return e
		case ePayload:
			isObject = raw[vs] == '{'
			if !isObject {
				return skipValue(raw, vs)
			}
			*p = payload{calls: calls, long: long}
			if calls != nil {
				*calls = (*calls)[:0]
			}
			return p.read(raw, vs, tOther) // the type may come after the payload
		}
		return skipValue(raw, vs)
	})
	if end < 0 || !isObject {
		return line{}, nil, false
	}
	l.typ = typeOfLiteral(typ)
	return l, typ, true
}

// typeOfLiteral returns the evType of the type member's value as written
// (tOther for nil and null).
func typeOfLiteral(typ []byte) evType {
	if typ != nil && typ[0] == '"' {
		if s, ok := rawjson.Plain(typ); ok {
			return typeOf(s)
		} else if s, ok := rawjson.Unquote(typ); ok {
			return typeOf([]byte(s))
		}
	}
	return tOther
}

// checked returns l with the payload fields its type defines taken from
// p, and false when one of them had the wrong kind.
func (l line) checked(p *payload) (line, bool) {
	sp := &specs[l.typ]
	for k, n := range sp.str {
		if n != nNone {
			if p.bad&(1<<n) != 0 {
				return line{}, false
			}
			l.p.s[k] = p.v[n]
		}
	}
	if sp.raw != nNone {
		if p.bad&(1<<sp.raw) != 0 {
			return line{}, false
		}
		l.p.x = p.v[sp.raw]
	}
	return l, true
}

// The envelope as Delta Engine writes it (JSON.stringify of an object
// built in this order, no whitespace).
const (
	wSeq       = `{"seq":`
	wTimestamp = `,"timestamp":`
	wType      = `,"type":`
	wPayload   = `,"payload":`
)

// writtenEnvelope reads raw when its envelope is laid out exactly as Delta
// Engine writes it: seq a plain integer, then timestamp and type strings,
// then the payload object, and nothing else. Such a line has each member
// once, so the general walk would find what this finds, and it costs a
// few comparisons instead of a member walk. ok is false when raw is laid
// out otherwise (the caller walks it then, from scratch); when ok is true,
// end is -1 if the payload is not a valid object (the line is ignored).
// The payload is read into p, and typ is the type as written.
func writtenEnvelope(raw []byte, p *payload) (l line, typ []byte, end int, ok bool) {
	if !bytes.HasPrefix(raw, []byte(wSeq)) {
		return l, nil, 0, false
	}
	i := len(wSeq)
	e := i
	for e < len(raw) && raw[e] >= '0' && raw[e] <= '9' {
		e++
	}
	if e == i || raw[i] == '0' && e > i+1 {
		return l, nil, 0, false
	}
	l.seq = raw[i:e]
	if l.ts, e, ok = writtenString(raw, e, wTimestamp); !ok {
		return l, nil, 0, false
	}
	if typ, e, ok = writtenString(raw, e, wType); !ok {
		return l, nil, 0, false
	}
	i = e + len(wPayload)
	if !bytes.HasPrefix(raw[e:], []byte(wPayload)) || i >= len(raw) || raw[i] != '{' {
		return l, nil, 0, false
	}
	l.typ = typeOfLiteral(typ)
	if e = p.read(raw, i, l.typ); e < 0 {
		return l, typ, -1, true
	}
	if e >= len(raw) || raw[e] != '}' {
		return l, nil, 0, false
	}
	return l, typ, e + 1, true
}

// writtenString reads the member written as name (its comma, quoted name
// and colon) at raw[i] when its value is a string, and returns the value
// as written and the index after it.
func writtenString(raw []byte, i int, name string) (v []byte, end int, ok bool) {
	if !bytes.HasPrefix(raw[i:], []byte(name)) {
		return nil, 0, false
	}
	i += len(name)
	if end = skipString(raw, i); end < 0 {
		return nil, 0, false
	}
	return raw[i:end], end, true
}

// read walks the payload object at b[i], of a line of type t, and returns
// the index after it, or -1. The members Delta Engine writes for t, where
// it writes them, are known by their bytes (writtenPayloads).
func (p *payload) read(b []byte, i int, t evType) int {
	var want []writtenKey
	if int(t) < len(writtenPayloads) {
		want = writtenPayloads[t]
	}
	return members(b, i, want, func(name []byte, n, vs int) int {
		if n < 0 {
			n = payloadName(name)
		}
		return p.member(b, vs, n)
	})
}

// member reads the value at b[vs] of the payload member n (an n…
// constant) and returns the index after it, or -1.
func (p *payload) member(b []byte, vs, n int) int {
	if n == nToolCalls {
		return p.readCalls(b, vs)
	}
	e := p.long.end(b, vs)
	if e < 0 {
		e = skipValue(b, vs)
	}
	if e < 0 {
		return -1
	}
	if n == nNone {
		return e
	}
	v := b[vs:e]
	if n != nToolArgs && v[0] != '"' && v[0] != 'n' {
		p.bad |= 1 << n
	}
	p.v[n] = v
	return e
}

// writtenKey is a member name as Delta Engine writes it (quoted,
// with its colon) and its n… constant.
type writtenKey struct {
	lit string
	n   int
}

// writtenPayloads are the payload members of each type in the order
// Delta Engine writes them (formats.md, and the samples its code wrote).
var writtenPayloads = [...][]writtenKey{
	tRunStart:      {{`"run_id":`, nRunID}, {`"task":`, nTask}},
	tRunEnd:        {{`"status":`, nStatus}},
	tUserMessage:   {{`"content":`, nContent}},
	tThought:       {{`"content":`, nContent}, {`"llm_invocation_ref":`, nNone}, {`"tool_calls":`, nToolCalls}},
	tActionRequest: {{`"action_id":`, nActionID}, {`"tool_name":`, nToolName}, {`"tool_args":`, nToolArgs}, {`"resolved_command":`, nResolvedCommand}},
	tActionResult:  {{`"action_id":`, nActionID}, {`"status":`, nStatus}, {`"observation_content":`, nObservation}},
	tSystemMessage: {{`"level":`, nLevel}, {`"content":`, nContent}},
	tHook:          {{`"hook_name":`, nHookName}, {`"status":`, nStatus}},
}

// readCalls reads the tool_calls value at b[vs] (one pass over the array
// when its calls have the right kinds) and returns the index after it, or
// -1.
func (p *payload) readCalls(b []byte, vs int) int {
	const n = nToolCalls
	var keep func(rawCall)
	if p.calls != nil {
		*p.calls = (*p.calls)[:0]
		keep = func(c rawCall) { *p.calls = append(*p.calls, c) }
	}
	e := -1
	if b[vs] != 'n' {
		e = walkCallsAt(b, vs, keep)
	}
	if e < 0 {
		if e = skipValue(b, vs); e < 0 {
			return -1
		}
		if b[vs] != 'n' {
			p.bad |= 1 << n
		}
	}
	p.v[n] = b[vs:e]
	return e
}

// members walks the object that starts at b[i] ('{'): for each member it
// calls fn with the name as written, the index where the value starts and
// n, and fn returns the index just after the value (or -1 to stop).
// members returns the index just after the closing brace, or -1. want,
// when not nil, are the members expected in order: a member written as
// want[k] (its quoted name and colon) where the k-th member starts is
// known by comparing those bytes, without scanning its name, and n is
// want[k].n; n is -1 for any other.
func members(b []byte, i int, want []writtenKey, fn func(name []byte, n, vs int) int) int {
	i = rawjson.SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for k := 0; ; k++ {
		var name []byte
		n := -1
		if k < len(want) && len(b)-i > len(want[k].lit) && string(b[i:i+len(want[k].lit)]) == want[k].lit {
			name, n = b[i+1:i+len(want[k].lit)-2], want[k].n
			i = rawjson.SkipWS(b, i+len(want[k].lit))
		} else {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			end := skipString(b, i)
			if end < 0 {
				return -1
			}
			name = b[i+1 : end-1]
			if i = rawjson.SkipWS(b, end); i >= len(b) || b[i] != ':' {
				return -1
			}
			i = rawjson.SkipWS(b, i+1)
		}
		if i >= len(b) {
			return -1
		}
		if i = fn(name, n, i); i < 0 {
			return -1
		}
		if i = rawjson.SkipWS(b, i); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = rawjson.SkipWS(b, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// is reports whether the member name n (as written; plain when it has no
// backslash) is name.
func is(n []byte, plain bool, name string) bool {
	if plain {
		return string(n) == name
	}
	return rawjson.NameIs(n, name)
}

// hasCalls reports whether THOUGHT fields carry a tool_calls array (the
// key is present and not null).
func (f *fields) hasCalls() bool { return f.x != nil && f.x[0] != 'n' }

// rawCall is one tool call of a THOUGHT as written: its string fields as
// JSON string literals, nil for absent or null ("" once decoded).
type rawCall struct {
	id, typ, name, args []byte
}

// decode returns c with its fields decoded.
func (c rawCall) decode() toolCall {
	var t toolCall
	t.ID, t.Type, t.Function.Name, t.Function.Arguments = str(c.id), str(c.typ), str(c.name), str(c.args)
	return t
}

// parseCalls reads a THOUGHT's tool_calls array as model.Unmarshal fills a
// []toolCall: null elements are zero calls, a repeated "function" merges
// into the one before (null resets it). With decode false it only checks
// the kinds and returns nil. When an element has the wrong kinds, it
// returns the calls before it and false.
func parseCalls(v []byte, decode bool) ([]toolCall, bool) {
	if !decode {
		return nil, walkCalls(v, nil)
	}
	calls := []toolCall{}
	ok := walkCalls(v, func(c rawCall) { calls = append(calls, c.decode()) })
	return calls, ok
}

// walkCalls is parseCalls without the decoding: it calls fn (when not nil)
// with each call of the tool_calls array v, its string fields as written,
// and reports whether every element had the right kinds.
func walkCalls(v []byte, fn func(c rawCall)) bool {
	return walkCallsAt(v, 0, fn) == len(v)
}

// walkCallsAt walks the tool_calls array at b[i] in one pass, calling fn
// (when not nil) with each call, and returns the index just after it, or
// -1 when it is not an array of calls with the right kinds (null elements
// are zero calls; in a call, id, type, function.name and
// function.arguments are strings or null, function an object or null; a
// repeated member counts last, a null function resetting name and
// arguments).
func walkCallsAt(b []byte, i int, fn func(c rawCall)) int {
	if i >= len(b) || b[i] != '[' {
		return -1
	}
	i = rawjson.SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for i < len(b) {
		var c rawCall
		var e int
		switch b[i] {
		case 'n':
			e = rawjson.SkipValue(b, i)
		case '{':
			e = members(b, i, nil, func(name []byte, _, vs int) int {
				plain := bytes.IndexByte(name, '\\') < 0
				switch {
				case is(name, plain, "id"):
					return strField(b, vs, &c.id)
				case is(name, plain, "type"):
					return strField(b, vs, &c.typ)
				case is(name, plain, "function"):
					switch b[vs] {
					case 'n':
						c.name, c.args = nil, nil
						return rawjson.SkipValue(b, vs)
					case '{':
						return members(b, vs, nil, func(name []byte, _, vs int) int {
							plain := bytes.IndexByte(name, '\\') < 0
							switch {
							case is(name, plain, "name"):
								return strField(b, vs, &c.name)
							case is(name, plain, "arguments"):
								return strField(b, vs, &c.args)
							}
							return skipValue(b, vs)
						})
					}
					return -1
				}
				return skipValue(b, vs)
			})
		default:
			return -1
		}
		if e < 0 {
			return -1
		}
		if fn != nil {
			fn(c)
		}
		i = rawjson.SkipWS(b, e)
		if i >= len(b) {
			return -1
		}
		if b[i] == ']' {
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = rawjson.SkipWS(b, i+1)
	}
	return -1
}

// strField reads the value at b[vs], which must be a string or null, into
// dst (nil for null), and returns the index after it, or -1.
func strField(b []byte, vs int, dst *[]byte) int {
	switch b[vs] {
	case '"':
		e := skipString(b, vs)
		if e > 0 {
			*dst = b[vs:e]
		}
		return e
	case 'n':
		*dst = nil
		return rawjson.SkipValue(b, vs)
	}
	return -1
}

// skipString returns the index just after the JSON string that starts at
// b[i] (a '"'), or -1, as rawjson.SkipString does: the first quote after
// an even number of backslashes ends it. Its first 32 bytes are scanned
// eight at a time, escapes taken as they come (most strings are short);
// the rest of a longer string 64 bytes at a time (strscan.Skip).
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	j := i + 1
	for end := min(len(b), j+32); j < end; {
		if j+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[j:])
			q, bs := x^(lo8*'"'), x^(lo8*'\\')
			if m := ((q-lo8)&^q | (bs-lo8)&^bs) & hi8; m != 0 {
				j += bits.TrailingZeros64(m) >> 3
			} else {
				j += 8
				continue
			}
		}
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j += 2
		default:
			j++
		}
	}
	if j >= len(b) {
		return -1
	}
	return strscan.Skip(b, j)
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// skipValue is rawjson.SkipValue with strings skipped by skipString.
func skipValue(b []byte, i int) int {
	if i < len(b) && b[i] == '"' {
		return skipString(b, i)
	}
	return rawjson.SkipValue(b, i)
}

// str decodes a string field: "" for an absent or null field.
func str(v []byte) string {
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	s, _ := unquote(v)
	return s
}

// strBytes is str without a copy when the literal has no escapes: the
// bytes are only valid as long as v.
func strBytes(v []byte) []byte {
	if len(v) == 0 || v[0] != '"' {
		return nil
	}
	if s, ok := rawjson.Plain(v); ok && utf8.Valid(s) {
		return s
	}
	s, _ := unquote(v)
	return []byte(s)
}

// seqNum reads a seq as seqOf does (the integer, whether it is one, and
// its text when it is not), without allocating for the usual plain
// positive integer.
func seqNum(v []byte) (n int64, ok bool, text string) {
	if len(v) > 0 && len(v) <= 18 && v[0] >= '1' && v[0] <= '9' {
		for _, c := range v {
			if c < '0' || c > '9' {
				goto slow
			}
			n = n*10 + int64(c-'0')
		}
		return n, true, ""
	}
slow:
	n, text, ok = seqOf(jsontext.Value(v))
	if ok {
		text = ""
	}
	return n, ok, text
}

// unquote decodes the JSON string literal v as rawjson.Unquote does
// (JSON.parse's rules: a lone surrogate becomes U+FFFD), several times
// faster on the long texts with escapes the views decode. Anything it does
// not expect (invalid UTF-8, a bad escape) goes to rawjson.Unquote.
func unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return rawjson.Unquote(v)
	}
	s := v[1 : len(v)-1]
	i := special(s)
	if i == len(s) || !utf8.Valid(s) {
		return rawjson.Unquote(v)
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		b.Write(s[:i])
		s = s[i:]
		if s[0] != '\\' || len(s) < 2 {
			return rawjson.Unquote(v) // an unescaped quote or control character
		}
		n := 2
		switch c := s[1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := rawjson.Hex4(s)
			if !ok {
				return rawjson.Unquote(v)
			}
			n = 6
			if utf16.IsSurrogate(r) {
				r2, ok := rawjson.Hex4(s[6:])
				if ok && r < 0xdc00 && r2 >= 0xdc00 && r2 <= 0xdfff {
					r = utf16.DecodeRune(r, r2)
					n = 12
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			return rawjson.Unquote(v)
		}
		s = s[n:]
		if i = special(s); i == len(s) {
			b.Write(s)
			return b.String(), true
		}
	}
}

// decodesEmpty reports whether the string field v (a JSON string literal
// as parseLine keeps it, null or absent) decodes to "" with str, without
// decoding it: it is absent, null, "", or not a literal unquote accepts.
func decodesEmpty(v []byte) bool {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return str(v) == "" // not as parseLine keeps a literal
	}
	return len(v) == 2 || !validLiteral(v[1:len(v)-1])
}

// validLiteral reports whether unquote accepts the JSON string literal
// whose contents are s (its quotes taken off): one without a backslash
// that is valid UTF-8 is taken as it is, whatever it holds; any other
// must have valid escapes and no raw quote or control character (invalid
// UTF-8 becomes U+FFFD).
func validLiteral(s []byte) bool {
	return strictLiteral(s) || bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// strictLiteral reports whether s, the contents of a string literal
// (quotes taken off), is one a JSON decoder accepts (model.FromRaw's, or
// unquote's for a literal with escapes): no raw quote or control
// character, only valid escapes (invalid UTF-8 and lone surrogates become
// U+FFFD). 64 bytes at a time (strscan.End); a literal with a \u escape of
// a surrogate, or a bad escape, is judged by strictEscapes.
func strictLiteral(s []byte) bool {
	end, f := strscan.End(s, 0)
	switch {
	case end >= 0 || f&strscan.Control != 0: // a raw quote, a control character
		return false
	case f&strscan.BadEscape != 0:
		return strictEscapes(s)
	}
	return true
}

// strictEscapes is strictLiteral eight bytes at a time between escapes.
func strictEscapes(s []byte) bool {
	for i := 0; ; {
		i += special(s[i:])
		if i >= len(s) {
			return true
		}
		if s[i] != '\\' || i+1 >= len(s) {
			return false
		}
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if _, ok := rawjson.Hex4(s[i:]); !ok {
				return false
			}
			i += 6
		default:
			return false
		}
	}
}

// special returns the index of the first byte of s that a JSON string
// cannot hold as it is (a quote, a backslash or a control character), or
// len(s); eight bytes at a time.
func special(s []byte) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		q, bs := x^('"'*lo), x^('\\'*lo)
		m := ((q - lo) &^ q) | ((bs - lo) &^ bs) | ((x - 0x20*lo) &^ x)
		if m &= hi; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}
