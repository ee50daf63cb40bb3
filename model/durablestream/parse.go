package durablestream

import (
	"bytes"
	"strings"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/model"
)

// envelope is a StreamEvent with the fields the fold reads. A line is an
// envelope when its "type" is a non-empty string, its "timestamp" an
// int64 (or null, 0), its "payload" an object, and "id", "stream_id" and
// "actor" strings or null; other members are not looked at.
type envelope struct {
	typ      string
	known    int    // index of typ in knownTypes, or -1
	stream   []byte // the last "stream_id" value; see streamID
	ts       int64
	payload  []byte
	streamID string // stream decoded, by payload.parse for the types that keep it
}

// parse walks the top-level members of raw without decoding the payload.
func (e *envelope) parse(raw []byte) bool {
	var sp envSpans
	return e.parseSpans(raw, &sp)
}

// envSpans are the values of the members of a line that parse reads (the
// last of each name), as views of the line, and whether a name came twice.
type envSpans struct {
	typ, stream, ts, payload []byte
	dup                      bool
}

// parseSpans is parse, keeping in sp the values it read.
func (e *envelope) parseSpans(raw []byte, sp *envSpans) bool {
	ok := true
	var seen uint8
	// rawjson.Members itself, not object: this runs for every event.
	walked := rawjson.Members(raw, func(n, v []byte) bool {
		if bytes.IndexByte(n, '\\') >= 0 {
			n = name(n)
		}
		var bit uint8
		switch string(n) {
		case "type":
			sp.typ, ok, bit = v, isStr(v), 1
		case "stream_id":
			sp.stream, ok, bit = v, isStr(v), 2
		case "id":
			ok, bit = isStr(v), 4
		case "actor":
			ok, bit = isStr(v), 8
		case "timestamp":
			_, _, ok = integer(v)
			sp.ts, bit = v, 16
		case "payload":
			sp.payload, bit = v, 32
		}
		sp.dup = sp.dup || seen&bit != 0
		seen |= bit
		return ok
	})
	return walked && ok && e.fromSpans(sp)
}

// fromSpans sets e from the values sp of a line's members, and reports
// whether they make an envelope (the kinds of the other members checked
// already).
func (e *envelope) fromSpans(sp *envSpans) bool {
	typ := sp.typ
	if len(typ) == 0 || typ[0] != '"' || len(sp.payload) == 0 || sp.payload[0] != '{' {
		return false
	}
	e.stream, e.payload = sp.stream, sp.payload
	if sp.ts != nil {
		ts, _, ok := integer(sp.ts)
		if !ok {
			return false
		}
		e.ts = ts
	}
	e.known = -1
	if plain, ok := rawjson.Plain(typ); ok {
		if i, ok := knownIndex[string(plain)]; ok {
			e.typ, e.known = knownTypes[i], i
		}
	}
	if e.known < 0 {
		e.typ, _ = rawjson.Unquote(typ)
		if i, ok := knownIndex[e.typ]; ok {
			e.typ, e.known = knownTypes[i], i
		}
	}
	return e.typ != ""
}

// An envLayout is where parse finds its values in the lines of one of the
// index's layouts (model.LineScalars.Layout), learned from one of them.
type envLayout struct {
	typ, stream, ts, payload model.LayoutSpan
	hasStream, hasTS         bool
}

// learnLayout returns where the values sp of raw, a line whose scalars
// end at ends, are in the lines of its layout, or nil when a name came
// twice (a value check of the first would be lost) or a value does not
// fit ends.
func learnLayout(raw []byte, ends []uint32, sp *envSpans) *envLayout {
	if sp.dup || len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	l := &envLayout{hasStream: sp.stream != nil, hasTS: sp.ts != nil}
	fits := true
	span := func(v []byte, scalar bool) model.LayoutSpan {
		s, one := model.SpanOf(raw, ends, v)
		if scalar && !one {
			fits = false // not one scalar of ends
		}
		return s
	}
	l.typ, l.payload = span(sp.typ, true), span(sp.payload, false)
	if l.hasStream {
		l.stream = span(sp.stream, true)
	}
	if l.hasTS {
		l.ts = span(sp.ts, true)
	}
	if !fits {
		return nil
	}
	return l
}

// read sets sp from raw, a line of l's layout whose scalars end at ends,
// and reports false when ends do not fit it.
func (l *envLayout) read(raw []byte, ends []uint32, sp *envSpans) bool {
	*sp = envSpans{typ: l.typ.In(raw, ends), payload: l.payload.In(raw, ends)}
	if sp.typ == nil || sp.typ[len(sp.typ)-1] != '"' || sp.payload == nil || sp.payload[len(sp.payload)-1] != '}' {
		return false
	}
	if l.hasStream {
		if sp.stream = l.stream.In(raw, ends); sp.stream == nil {
			return false
		}
	}
	if l.hasTS {
		if sp.ts = l.ts.In(raw, ends); sp.ts == nil {
			return false
		}
	}
	return true
}

// kind is what an event does to the lineage.
type kind uint8

const (
	none kind = iota // it only counts
	requested
	approved
	rejected
	spawned
	completed
	failed
	aborted
	ledgerEvent
	sessionEvent
)

// payload is the decoded payload of an event that does more than count.
type payload struct {
	strs *interner
	kind kind
	cp   struct {
		id, requestedBy        string
		decisionPoint          text
		options                []option
		requestedAt, expiresAt opt
	}
	dec struct {
		checkpointID, approvedBy, rejectedBy, selectedOption string
		reason                                               text
	}
	in struct {
		id, agent, parentSessionID string
		description, prompt        text
		timeoutMs, createdAt       opt
	}
	fin struct {
		intentID            string
		result, err, reason text
		duration            opt
	}
	led ledgerPayload
	ses struct {
		id, title, directory string
		err                  text
	}
}

type ledgerPayload struct {
	epicID, epicTitle, taskID, taskTitle, agent string
	result, summary, err                        text
	directiveContent, assumptionContent         text
	assumptionSource, learningType              string
	assumptionRationale, learningContent        text
	handoffReason, handoffCommand               text
	handoffFilesModified, handoffWhatsDone      []string
	handoffWhatsNext, handoffKeyContext         []string
}

// parse decodes the payload fields the event's type needs, with the rules
// of the Go types the fold used to decode into. It reports false when a
// field has the wrong JSON type: the event is then ignored.
func (p *payload) parse(e *envelope, ev model.Event) bool {
	t := e.typ
	switch t {
	case "checkpoint.requested", "agent.spawned":
		e.streamID, _ = p.strs.str(e.stream)
	default:
		if strings.HasPrefix(t, "lifecycle.session.") {
			e.streamID, _ = p.strs.str(e.stream)
		}
	}
	switch {
	case t == "checkpoint.requested":
		p.kind = requested
		c := &p.cp
		return object(e.payload, func(n, v []byte) (ok bool) {
			switch string(n) {
			case "id":
				c.id, ok = strVal(v)
			case "decision_point":
				c.decisionPoint, ok = strText(ev, v)
			case "options":
				c.options, ok = options(v, p.strs)
			case "requested_by":
				c.requestedBy, ok = p.strs.str(v)
			case "requested_at":
				c.requestedAt, ok = optInt(v)
			case "expires_at":
				c.expiresAt, ok = optInt(v)
			default:
				ok = true
			}
			return ok
		})
	case t == "checkpoint.approved" || t == "checkpoint.rejected":
		p.kind = approved
		if t == "checkpoint.rejected" {
			p.kind = rejected
		}
		d := &p.dec
		return object(e.payload, func(n, v []byte) (ok bool) {
			switch string(n) {
			case "checkpoint_id":
				d.checkpointID, ok = strVal(v)
			case "approved_by":
				d.approvedBy, ok = p.strs.str(v)
			case "rejected_by":
				d.rejectedBy, ok = p.strs.str(v)
			case "selected_option":
				d.selectedOption, ok = p.strs.str(v)
			case "reason":
				d.reason, ok = strText(ev, v)
			default:
				ok = true
			}
			return ok
		})
	case t == "agent.spawned":
		p.kind = spawned
		in := &p.in
		return object(e.payload, func(n, v []byte) (ok bool) {
			switch string(n) {
			case "id":
				in.id, ok = strVal(v)
			case "description":
				in.description, ok = strText(ev, v)
			case "agent":
				in.agent, ok = p.strs.str(v)
			case "prompt":
				in.prompt, ok = strText(ev, v)
			case "parent_session_id":
				in.parentSessionID, ok = p.strs.str(v)
			case "timeout_ms":
				in.timeoutMs, ok = optInt(v)
			case "created_at":
				in.createdAt, ok = optInt(v)
			default:
				ok = true
			}
			return ok
		})
	case t == "agent.completed" || t == "agent.failed" || t == "agent.aborted":
		switch t {
		case "agent.completed":
			p.kind = completed
		case "agent.failed":
			p.kind = failed
		default:
			p.kind = aborted
		}
		f := &p.fin
		var result, err, reason []byte
		ok := object(e.payload, func(n, v []byte) (ok bool) {
			switch string(n) {
			case "intent_id":
				f.intentID, ok = strVal(v)
			case "result":
				result, ok = v, true
			case "error":
				err, ok = v, true
			case "reason":
				reason, ok = v, true
			case "duration":
				f.duration, ok = optInt(v)
			default:
				ok = true
			}
			return ok
		})
		if ok && f.intentID != "" {
			f.result, f.err, f.reason = anyText(ev, result), anyText(ev, err), anyText(ev, reason)
		}
		return ok
	case strings.HasPrefix(t, "ledger."):
		p.kind = ledgerEvent
		return p.led.parse(e.payload, ev, p.strs)
	case strings.HasPrefix(t, "lifecycle.session."):
		p.kind = sessionEvent
		sp := &p.ses
		var err []byte
		ok := object(e.payload, func(n, v []byte) (ok bool) {
			switch string(n) {
			case "id":
				sp.id, ok = p.strs.str(v)
			case "title":
				sp.title, ok = p.strs.str(v)
			case "directory":
				sp.directory, ok = p.strs.str(v)
			case "error":
				err, ok = v, true
			default:
				ok = true
			}
			return ok
		})
		if ok && t == "lifecycle.session.error" {
			sp.err = anyText(ev, err)
		}
		return ok
	}
	return true
}

func (l *ledgerPayload) parse(p []byte, ev model.Event, strs *interner) bool {
	var result, summary, err []byte
	ok := object(p, func(n, v []byte) (ok bool) {
		switch string(n) {
		case "epicId":
			l.epicID, ok = strs.str(v)
		case "epicTitle":
			l.epicTitle, ok = strs.str(v)
		case "taskId":
			l.taskID, ok = strVal(v)
		case "taskTitle":
			l.taskTitle, ok = strs.str(v)
		case "agent":
			l.agent, ok = strs.str(v)
		case "result":
			result, ok = v, true
		case "summary":
			summary, ok = v, true
		case "error":
			err, ok = v, true
		case "directiveContent":
			l.directiveContent, ok = strText(ev, v)
		case "assumptionContent":
			l.assumptionContent, ok = strText(ev, v)
		case "assumptionSource":
			l.assumptionSource, ok = strs.str(v)
		case "assumptionRationale":
			l.assumptionRationale, ok = strText(ev, v)
		case "learningType":
			l.learningType, ok = strs.str(v)
		case "learningContent":
			l.learningContent, ok = strText(ev, v)
		case "handoffReason":
			l.handoffReason, ok = strText(ev, v)
		case "handoffCommand":
			l.handoffCommand, ok = strText(ev, v)
		case "handoffFilesModified":
			l.handoffFilesModified, ok = strList(v)
		case "handoffWhatsDone":
			l.handoffWhatsDone, ok = strList(v)
		case "handoffWhatsNext":
			l.handoffWhatsNext, ok = strList(v)
		case "handoffKeyContext":
			l.handoffKeyContext, ok = strList(v)
		default:
			ok = true
		}
		return ok
	})
	if ok {
		l.result, l.summary, l.err = anyText(ev, result), anyText(ev, summary), anyText(ev, err)
	}
	return ok
}

// options decodes a Checkpoint's options: null gives none, each element is
// an object (or null, an empty option) of strings.
func options(v []byte, strs *interner) ([]option, bool) {
	if v[0] == 'n' {
		return nil, true
	}
	out := []option{}
	ok := elements(v, func(e []byte) bool {
		var o option
		ok := e[0] == 'n' || object(e, func(n, v []byte) (ok bool) {
			switch string(n) {
			case "id":
				o.ID, ok = strs.str(v)
			case "label":
				o.Label, ok = strs.str(v)
			case "description":
				o.Description, ok = strs.str(v)
			default:
				ok = true
			}
			return ok
		})
		out = append(out, o)
		return ok
	})
	return out, ok
}

// knownTypes are the event types of types.ts, counted without a map
// lookup per event.
var knownTypes = []string{
	"lifecycle.session.created", "lifecycle.session.idle", "lifecycle.session.compacted",
	"lifecycle.session.error", "lifecycle.session.deleted", "lifecycle.session.aborted",
	"execution.message.updated", "execution.step_start", "execution.step_finish", "execution.tool_start",
	"execution.tool_finish", "execution.agent", "execution.text_delta", "execution.text_snapshot",
	"execution.reasoning_delta", "execution.reasoning_snapshot", "execution.snapshot", "execution.retry",
	"agent.spawned", "agent.completed", "agent.failed", "agent.aborted", "agent.handoff", "agent.yield",
	"agent.resumed", "checkpoint.requested", "checkpoint.approved", "checkpoint.rejected",
	"files.changed", "files.patched", "learning.extracted",
	"ledger.epic.created", "ledger.epic.started", "ledger.epic.completed", "ledger.epic.failed",
	"ledger.epic.archived", "ledger.handoff.created", "ledger.handoff.resumed",
	"ledger.task.created", "ledger.task.started", "ledger.task.completed", "ledger.task.failed",
	"ledger.task.yielded", "ledger.governance.directive_added", "ledger.governance.assumption_added",
	"ledger.learning.extracted",
}

const nKnown = 46

var knownIndex = func() map[string]int {
	if len(knownTypes) != nKnown {
		panic("durablestream: nKnown is not the number of known types")
	}
	m := make(map[string]int, len(knownTypes))
	for i, t := range knownTypes {
		m[t] = i
	}
	return m
}()
