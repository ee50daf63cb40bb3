package deltaengine

import (
	"bytes"

	"github.com/rewind-tui/rewind/model"
)

// The views (View, Render, ToolName, and the panes' PaneView and
// PaneRender) decode the events a state's log entries point to, with the
// same reader as Apply.

// changed is the text a view shows for an event whose bytes are no longer
// what was folded (the journal was rewritten under the replay).
func changed(off int64) string {
	return "[event at offset " + model.Itoa(off) + " changed in the file since it was folded]"
}

// line reads back the event of e, which must be of type t.
func (r *reader) line(e entry, t evType) (line, string) { return r.lineCalls(e, t, nil) }

// lineCalls is line that leaves a THOUGHT's tool calls in calls (see
// parseLineCalls).
func (r *reader) lineCalls(e entry, t evType, calls *[]rawCall) (line, string) {
	raw, err := r.event(e)
	if err != nil {
		return line{}, err.Error()
	}
	l, ok := parseLineLong(raw, calls, e.long)
	if !ok || l.typ != t {
		return line{}, changed(e.off())
	}
	return l, ""
}

// message decodes the message of entry j.
func (r *reader) message(j int) message {
	e := r.get(j)
	if e.kind() == kResult {
		in := r.info(j)
		return message{role: "tool", content: in.obs, toolCallID: in.id}
	}
	if m, ok := r.a.cached(j).(*message); ok {
		return *m
	}
	var m message
	if e.kind() == kUser {
		l, bad := r.line(e, tUserMessage)
		if bad != "" {
			return message{role: "user", content: bad}
		}
		m = message{role: "user", content: str(l.p.s[0])}
	} else {
		l, bad := r.line(e, tThought)
		if bad != "" {
			return message{role: "assistant", content: bad}
		}
		m = message{role: "assistant", content: str(l.p.s[0])}
		m.null = m.content == ""
		if l.p.hasCalls() {
			m.hasCalls = true
			m.toolCalls, _ = parseCalls(l.p.x, true)
		}
	}
	size := len(m.content)
	for _, c := range m.toolCalls {
		size += len(c.ID) + len(c.Type) + len(c.Function.Name) + len(c.Function.Arguments)
	}
	r.a.keep(j, &m, size)
	return m
}

// actEvent is an ACTION_REQUEST's or ACTION_RESULT's fields, decoded.
type actEvent struct {
	id string
	// ACTION_REQUEST
	toolName, command string
	toolArgs          []byte
	// ACTION_RESULT
	status, obs string

	seq   int64
	seqOK bool
	bad   string // why the event could not be read back, if it could not
}

// info decodes the ACTION_REQUEST or ACTION_RESULT of entry j, once per
// view: the readers of one view share their decoded events, so each
// observation is decoded once for the message and the action that show it.
func (r *reader) info(j int) *actEvent {
	if a := r.viewed(j); a != nil {
		return a
	}
	if a, ok := r.a.cached(j).(*actEvent); ok {
		r.share(j, a) // from the log's cache: the view keeps it too
		return a
	}
	e := r.get(j)
	a := &actEvent{}
	if e.kind() == kRequest {
		if l, bad := r.line(e, tActionRequest); bad != "" {
			a.id, a.command, a.bad = bad, bad, bad
		} else {
			a.id, a.toolName, a.command = str(l.p.s[0]), str(l.p.s[1]), str(l.p.s[2])
			if len(l.p.x) > 0 {
				a.toolArgs = bytes.Clone(l.p.x)
			}
			a.seq, a.seqOK, _ = seqNum(l.seq)
		}
	} else {
		if l, bad := r.line(e, tActionResult); bad != "" {
			a.id, a.obs, a.bad = bad, bad, bad
		} else {
			a.id, a.status, a.obs = str(l.p.s[0]), str(l.p.s[1]), str(l.p.s[2])
			a.seq, a.seqOK, _ = seqNum(l.seq)
		}
	}
	r.share(j, a)
	if a.bad == "" {
		r.a.keep(j, a, len(a.id)+len(a.toolName)+len(a.command)+len(a.toolArgs)+len(a.status)+len(a.obs))
	}
	return a
}

// share keeps a, the decoded event of entry j, for the reader's view.
func (r *reader) share(j int, a *actEvent) {
	switch {
	case r.infos != nil:
		r.infos[j] = a
	case r.some != nil:
		r.some[j] = a
	}
}

// cacheBudget is how many bytes of decoded text a log keeps for its views,
// so that the views of a short journal (or of the start of a long one)
// decode each event once, not once per view.
const cacheBudget = 8 << 20

// cached returns the decoded event of entry j kept by keep, or nil.
func (a *arena) cached(j int) any {
	if j >= int(a.cacheEnd.Load()) {
		return nil
	}
	a.cmu.Lock()
	defer a.cmu.Unlock()
	return a.cache[j]
}

// keep keeps v, the decoded event of entry j holding size bytes of text,
// while the cache is under its budget.
func (a *arena) keep(j int, v any, size int) {
	a.cmu.Lock()
	defer a.cmu.Unlock()
	size += 64
	if a.cacheBytes+size > cacheBudget {
		return
	}
	if a.cache == nil {
		a.cache = map[int]any{}
	}
	a.cache[j] = v
	a.cacheBytes += size
	if int64(j) >= a.cacheEnd.Load() {
		a.cacheEnd.Store(int64(j) + 1)
	}
}

// request returns the entry of the last ACTION_REQUEST of action id, and
// the entry of the last ACTION_RESULT of id after it (-1 for none). ok is
// false when the snapshot has no event of id.
func (r *reader) request(id string) (req, res int, ok bool) {
	k := keyOf([]byte(id))
	j := r.lookup(k)
	if j < 0 {
		return -1, -1, false
	}
	res = -1
	for ; j >= 0; j = int(r.get(j).prev) - 1 {
		e := r.get(j)
		if e.check() != k.check {
			continue // another id with the same hash
		}
		if e.kind() == kRequest {
			return j, res, true
		}
		if res < 0 {
			res = j
		}
	}
	return -1, res, true
}

// toolName returns the tool_name of action id's last ACTION_REQUEST, or "".
func (r *reader) toolName(id string) string {
	req, _, _ := r.request(id)
	if req < 0 {
		return ""
	}
	in := r.info(req)
	if in.bad != "" {
		return ""
	}
	return in.toolName
}

// action returns action id as the state's prefix of the log leaves it: the
// fields of its last ACTION_REQUEST and, when one came after it, of the
// last ACTION_RESULT. ok is false when the prefix has no event of id.
func (r *reader) action(id string) (a action, ok bool) { return r.actionWith(id, true) }

// actionMeta is action without the observation (obs is left ""): what the
// CONVERSATION projection shows of an action, read without decoding the
// text of its result unless the reader has it decoded already.
func (r *reader) actionMeta(id string) (a action, ok bool) { return r.actionWith(id, false) }

// actionWith is action, with the observation only when withObs is set.
func (r *reader) actionWith(id string, withObs bool) (a action, ok bool) {
	a = action{id: id, requestPos: -1}
	req, res, ok := r.request(id)
	if !ok {
		return a, false
	}
	if req >= 0 {
		a.status, a.requestPos = "PENDING", 0
		if r.get(req).has(fPos) {
			a.requestPos = 1
		}
		in := r.info(req)
		a.toolName, a.command, a.toolArgs = in.toolName, in.command, in.toolArgs
		a.requested, a.hasReq = in.seq, in.seqOK
	}
	if res >= 0 {
		var in *actEvent
		if withObs {
			in = r.info(res)
		} else if in = r.decoded(res); in == nil {
			in = r.resultMeta(res)
		}
		a.hasObs, a.obs = true, in.obs
		if in.bad == "" {
			a.status = in.status
			a.result, a.hasResult = in.seq, in.seqOK
		}
	}
	return a, true
}

// viewed returns the action event of entry j that the reader's view has
// kept (share), or nil.
func (r *reader) viewed(j int) *actEvent {
	if r.infos != nil && r.infos[j] != nil {
		return r.infos[j]
	}
	return r.some[j]
}

// decoded returns the action event of entry j if the reader's view has
// decoded it already, or nil.
func (r *reader) decoded(j int) *actEvent {
	if a := r.viewed(j); a != nil {
		return a
	}
	if a, ok := r.a.cached(j).(*actEvent); ok {
		return a
	}
	return nil
}

// resultMeta is info for the ACTION_RESULT of entry j without its
// observation (obs is "" unless the event could not be read back), kept
// nowhere.
func (r *reader) resultMeta(j int) *actEvent {
	a := &actEvent{}
	if l, bad := r.line(r.get(j), tActionResult); bad != "" {
		a.id, a.obs, a.bad = bad, bad, bad
	} else {
		a.id, a.status = str(l.p.s[0]), str(l.p.s[1])
		a.seq, a.seqOK, _ = seqNum(l.seq)
	}
	return a
}
