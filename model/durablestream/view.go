package durablestream

import (
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

func (c *checkpoint) object() model.Object {
	opts := make([]any, len(c.options))
	for i, o := range c.options {
		oo := obj("id", o.ID, "label", o.Label)
		if o.Description != "" {
			oo = append(oo, model.Field{Key: "description", Value: o.Description})
		}
		opts[i] = oo
	}
	return obj("id", c.id, "decision_point", c.decisionPoint.String(), "options", opts,
		"requested_by", c.requestedBy, "requested_at", c.requestedAt, "expires_at", c.expiresAt.Value(),
		"stream_id", c.streamID, "at", c.at)
}

// View returns the state's fields in this order:
//
//   - "pending_checkpoints": the Checkpoint payloads still pending, oldest
//     first, each {id, decision_point, options [{id, label, description?}],
//     requested_by, requested_at (ms), expires_at (ms or null), stream_id,
//     at}, where at is the position of checkpoint.requested.
//   - "active_intents": the Intent payloads of agent.spawned not yet
//     completed, failed or aborted, each {id, description, agent, prompt,
//     parent_session_id, timeout_ms, status ("running", as resume() forces
//     it), created_at, stream_id, at}.
//   - "decided_checkpoints": every checkpoint.approved and
//     checkpoint.rejected, each {id, decision_point, approved, by, option,
//     reason, at, decided_at (ms), matched}; matched is false for a
//     decision on a checkpoint that was not pending.
//   - "finished_intents": each {id, agent, description, status (completed,
//     failed, aborted), result, error, duration, at, finished_at (ms)}.
//   - "ledger": {epics, tasks, directives, assumptions, learnings, handoffs}
//     from the ledger.* events; epics {id, title, status, result, error,
//     at} and tasks {id, title, epic_id, agent, status, result, error, at}
//     hold their latest status (the event type's last word).
//   - "sessions": each {id, title, directory, status, error, created_at,
//     updated_at, at} from lifecycle.session.* events.
//   - "events_replayed" and "last_event_at" (ms), as resume() reports them.
//   - "counts": the number of events of each type, by type name.
func (s *state) View() model.Object { return s.viewOf(nil) }

// KeyView is View with only the members named in keys
// (model.KeyViews): the lists of the others are not built.
func (format) KeyView(st model.State, keys []string) model.Object {
	s, ok := st.(*state)
	if !ok {
		return nil
	}
	return s.viewOf(keys)
}

// StreamKeyView is KeyView with the lists that grow with the journal
// (decided_checkpoints, finished_intents and sessions) as model.Lazy
// values with At (model.StreamKeyViews): blame's lookup of one session
// makes that session, not every one. Each item is made when it is asked
// for, under the lineage's lock, so the Lazy values may be read while the
// lineage grows.
func (format) StreamKeyView(st model.State, keys []string) model.Object {
	s, ok := st.(*state)
	if !ok {
		return nil
	}
	return s.membersOf(keys, true)
}

// viewOf is View's members named in keys (all of them for nil keys).
func (s *state) viewOf(keys []string) model.Object { return s.membersOf(keys, false) }

// membersOf is viewOf, with the decisions, finished intents and sessions
// as model.Lazy values when lazy is set (StreamKeyView).
func (s *state) membersOf(keys []string, lazy bool) model.Object {
	want := func(k string) bool { return keys == nil || slices.Contains(keys, k) }
	l, ver := s.lin, s.n
	l.mu.Lock()
	defer l.mu.Unlock()
	var pend, act, dec, fin, epics, tasks, directives, assumptions, learnings, handoffs, sess any
	if want("pending_checkpoints") {
		pend = mapAll(&l.pending, ver, (*checkpoint).object)
	}
	if want("active_intents") {
		act = mapAll(&l.active, ver, (*intent).object)
	}
	if want("decided_checkpoints") {
		if lazy {
			dec = listLazy(l, &l.decided, s.lens.nDecided, (*decision).object)
		} else {
			dec = listAll(l.decided[:s.lens.nDecided], (*decision).object)
		}
	}
	if want("finished_intents") {
		if lazy {
			fin = listLazy(l, &l.finished, s.lens.nFinished, (*finished).object)
		} else {
			fin = listAll(l.finished[:s.lens.nFinished], (*finished).object)
		}
	}
	if want("ledger") {
		epics = mapAll(&l.epics, ver, (*ledgerItem).epicObject)
		tasks = mapAll(&l.tasks, ver, (*ledgerItem).taskObject)
		directives = listAll(l.directives[:s.lens.nDirectives], (*directive).object)
		assumptions = listAll(l.assumptions[:s.lens.nAssumptions], (*assumption).object)
		learnings = listAll(l.learnings[:s.lens.nLearnings], (*learning).object)
		handoffs = listAll(l.handoffs[:s.lens.nHandoffs], (*handoff).object)
	}
	if want("sessions") {
		if lazy {
			sess = slotsLazy(l, &l.sessions, ver, (*session).object)
		} else {
			sess = mapAll(&l.sessions, ver, (*session).object)
		}
	}
	v := s.view(pend, act, dec, fin, epics, tasks, directives, assumptions, learnings, handoffs, sess)
	if keys == nil {
		return v
	}
	out := v[:0]
	for _, f := range v {
		if want(f.Key) {
			out = append(out, f)
		}
	}
	return out
}

// listLazy is listAll of the first n entries of *list as a model.Lazy
// (lazyItems) that reads *list under l's lock for each item (the list may
// grow meanwhile; its first n entries never change). The caller holds l's
// lock.
func listLazy[T any](l *lineage, list *[]T, n int32, object func(*T) model.Object) model.Lazy {
	return lazyItems(int(n), func(i int) any {
		l.mu.Lock()
		e := (*list)[i]
		l.mu.Unlock()
		return object(&e)
	})
}

// slotsLazy is mapAll of m, a map whose entries are never deleted (so
// entry i is slot i), as of version ver, as a model.Lazy like listLazy's.
// The caller holds l's lock.
func slotsLazy[V any](l *lineage, m *omap[V], ver int64, object func(V) model.Object) model.Lazy {
	return lazyItems(m.count(ver), func(i int) any {
		l.mu.Lock()
		v, _ := m.slots[i].value(ver)
		l.mu.Unlock()
		return object(v)
	})
}

// lazyItems is the model.Lazy list of n items made by at, one at a time.
func lazyItems(n int, at func(i int) any) model.Lazy {
	return model.Lazy{Len: n, At: at, Each: func(yield func(any) bool) {
		for i := range n {
			if !yield(at(i)) {
				return
			}
		}
	}}
}

// view returns the view with the given lists (whole or windows). The
// caller holds the lineage's mu.
func (s *state) view(pend, act, dec, fin, epics, tasks, directives, assumptions, learnings, handoffs, sess any) model.Object {
	return obj(
		"pending_checkpoints", pend,
		"active_intents", act,
		"decided_checkpoints", dec,
		"finished_intents", fin,
		"ledger", obj("epics", epics, "tasks", tasks, "directives", directives,
			"assumptions", assumptions, "learnings", learnings, "handoffs", handoffs),
		"sessions", sess,
		"events_replayed", s.n,
		"last_event_at", s.lastEventAt,
		"counts", s.lin.types.object(s.n),
	)
}

func (in *intent) object() model.Object {
	return obj("id", in.id, "description", in.description.String(), "agent", in.agent,
		"prompt", in.prompt.String(), "parent_session_id", in.parentSessionID, "timeout_ms", in.timeoutMs.Value(),
		"status", "running", "created_at", in.createdAt.Value(), "stream_id", in.streamID, "at", in.at)
}

func (d *decision) object() model.Object {
	return obj("id", d.id, "decision_point", d.decisionPoint.String(), "approved", d.approved,
		"by", d.by, "option", d.option, "reason", d.reason.String(), "at", d.at, "decided_at", d.decidedAt,
		"matched", d.matched)
}

func (f *finished) object() model.Object {
	return obj("id", f.id, "agent", f.agent, "description", f.description.String(),
		"status", f.status, "result", f.result.String(), "error", f.err.String(), "duration", f.duration.Value(),
		"at", f.at, "finished_at", f.finishedAt)
}

func (e *ledgerItem) epicObject() model.Object {
	return obj("id", e.id, "title", e.title, "status", e.status,
		"result", e.result.String(), "error", e.err.String(), "at", e.at)
}

func (t *ledgerItem) taskObject() model.Object {
	return obj("id", t.id, "title", t.title, "epic_id", t.epicID, "agent", t.agent,
		"status", t.status, "result", t.result.String(), "error", t.err.String(), "at", t.at)
}

func (d *directive) object() model.Object { return obj("content", d.content.String(), "at", d.at) }

func (a *assumption) object() model.Object {
	return obj("content", a.content.String(), "source", a.source, "rationale", a.rationale.String(), "at", a.at)
}

func (le *learning) object() model.Object {
	return obj("type", le.typ, "content", le.content.String(), "at", le.at)
}

func (h *handoff) object() model.Object {
	strs := func(v []string) []any {
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	}
	return obj("status", h.status, "epic_id", h.epicID, "reason", h.reason.String(),
		"command", h.command.String(), "files_modified", strs(h.filesModified),
		"whats_done", strs(h.whatsDone), "whats_next", strs(h.next),
		"key_context", strs(h.keyCtx), "at", h.at)
}

func (se *session) object() model.Object {
	return obj("id", se.id, "title", se.title, "directory", se.directory,
		"status", se.status, "error", se.err.String(), "created_at", se.createdAt, "updated_at", se.updatedAt, "at", se.at)
}

// Describe returns the timeline row of one event: Key its id, Type its
// type, Actor its actor, Time its timestamp, and a one-line Summary of its
// payload. Failed agents and session errors are problems. Fields of the
// wrong type are left out.
func (format) Describe(ev model.Event) model.Row {
	var fields map[string]jsontext.Value
	if model.Unmarshal(ev.Raw, &fields) != nil {
		return model.Row{Summary: "not a JSON object", Problem: true}
	}
	row := model.Row{Key: str(fields, "id"), Type: str(fields, "type"), Actor: str(fields, "actor")}
	var ms int64
	if v, ok := fields["timestamp"]; ok && v.Kind() == '0' && model.Unmarshal(v, &ms) == nil {
		row.Time = model.MillisTime(ms)
	}
	var p map[string]jsontext.Value
	if v, ok := fields["payload"]; ok && v.Kind() == '{' {
		_ = model.Unmarshal(v, &p)
	}
	join := func(parts ...string) string {
		var out []string
		for _, s := range parts {
			if s != "" {
				out = append(out, s)
			}
		}
		return strings.Join(out, ": ")
	}
	switch t := row.Type; {
	case t == "checkpoint.requested":
		row.Summary = str(p, "decision_point")
	case t == "checkpoint.approved":
		row.Summary = join(str(p, "checkpoint_id")+" by "+str(p, "approved_by"), str(p, "selected_option"))
	case t == "checkpoint.rejected":
		row.Summary = join(str(p, "checkpoint_id")+" by "+str(p, "rejected_by"), str(p, "reason"))
	case t == "agent.spawned":
		what := str(p, "description")
		if what == "" {
			what = str(p, "prompt")
		}
		row.Summary = join(str(p, "agent"), what)
	case t == "agent.completed":
		row.Summary = shown(p["result"])
	case t == "agent.failed":
		row.Summary, row.Problem = shown(p["error"]), true
	case t == "lifecycle.session.error":
		row.Summary, row.Problem = shown(p["error"]), true
	case t == "lifecycle.session.created":
		row.Summary = join(str(p, "id"), str(p, "title"))
	case strings.HasSuffix(t, "_delta"):
		row.Summary = str(p, "delta")
	case strings.HasSuffix(t, "_snapshot"):
		row.Summary = str(p, "text")
	case t == "files.changed" || t == "files.patched":
		row.Summary = str(p, "file")
	case strings.HasPrefix(t, "ledger."):
		row.Summary = join(str(p, "epicId"), str(p, "epicTitle"))
		if id := str(p, "taskId"); id != "" {
			row.Summary = join(id, str(p, "taskTitle"))
		}
		for _, k := range []string{"directiveContent", "assumptionContent", "learningContent", "handoffReason"} {
			if s := str(p, k); s != "" {
				row.Summary = join(row.Summary, s)
			}
		}
		if e := shown(p["error"]); e != "" {
			row.Summary, row.Problem = join(row.Summary, e), true
		}
	}
	if row.Summary == "" && !strings.HasPrefix(row.Type, "checkpoint.") {
		if v, ok := fields["payload"]; ok {
			row.Summary = shown(v)
		}
	}
	row.Summary = cut(row.Summary, 200)
	return row
}

// shown returns a payload value as display text: a string as it is, null or
// absent as "", anything else as its compact JSON.
func shown(v jsontext.Value) string {
	switch v.Kind() {
	case 0, 'n':
		return ""
	case '"':
		var s string
		if model.Unmarshal(v, &s) == nil {
			return s
		}
	}
	c := v.Clone()
	if c.Compact() != nil {
		return string(v)
	}
	return string(c)
}

func str(m map[string]jsontext.Value, k string) string {
	var s string
	if v, ok := m[k]; ok && v.Kind() == '"' {
		_ = model.Unmarshal(v, &s)
	}
	return s
}
