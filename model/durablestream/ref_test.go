package durablestream_test

// This file is the Durable Stream fold as it was before it read events
// with rawjson (commit a7c85d4: durablestream.go, view.go and render.go,
// without Sniff and the decision writer), kept as the reference that
// TestMatchesReference compares the current fold with, byte for byte. Only
// the package name and the Format variable (refFormat) differ.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benbjohnson/immutable"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// Format is the Durable Stream format (model.DurableStream). It also
// implements model.Decider.
var refFormat model.Format = format{}

// DocCheckpoints is the name of the only Markdown projection: pending
// checkpoints, active intents, the ledger and recent decisions.
const DocCheckpoints = "CHECKPOINTS"

type format struct{}

// Name returns "durable-stream".
func (format) Name() string { return model.DurableStream }

// Init returns the state before the first event.
func (format) Init() model.State { return empty }

// Docs returns CHECKPOINTS.
func (format) Docs() []string { return []string{DocCheckpoints} }

// omap is an immutable map that iterates in first-insertion order, like a
// JavaScript Map: setting an existing key keeps its place.
type omap[V any] struct {
	byID  *immutable.Map[string, oentry[V]]
	order *immutable.SortedMap[int64, string]
}

type oentry[V any] struct {
	ord int64
	v   V
}

func newOmap[V any]() omap[V] {
	return omap[V]{immutable.NewMap[string, oentry[V]](nil), immutable.NewSortedMap[int64, string](nil)}
}

func (m omap[V]) get(id string) (V, bool) {
	e, ok := m.byID.Get(id)
	return e.v, ok
}

func (m omap[V]) set(id string, v V, ord int64) omap[V] {
	if e, ok := m.byID.Get(id); ok {
		return omap[V]{m.byID.Set(id, oentry[V]{e.ord, v}), m.order}
	}
	return omap[V]{m.byID.Set(id, oentry[V]{ord, v}), m.order.Set(ord, id)}
}

func (m omap[V]) del(id string) omap[V] {
	e, ok := m.byID.Get(id)
	if !ok {
		return m
	}
	return omap[V]{m.byID.Delete(id), m.order.Delete(e.ord)}
}

func (m omap[V]) len() int { return m.byID.Len() }

func (m omap[V]) values() []V {
	out := make([]V, 0, m.byID.Len())
	for it := m.order.Iterator(); !it.Done(); {
		_, id, _ := it.Next()
		e, _ := m.byID.Get(id)
		out = append(out, e.v)
	}
	return out
}

// option is one CheckpointOption {id, label, description?}.
type option struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Description string `json:"description"`
}

// checkpoint is a pending Checkpoint payload plus where it was asked.
type checkpoint struct {
	id, decisionPoint, requestedBy, streamID string
	options                                  []option
	requestedAt                              int64
	expiresAt                                *int64
	at                                       int
}

// intent is an active Intent payload (agent.spawned).
type intent struct {
	id, description, agent, prompt, parentSessionID, streamID string
	timeoutMs, createdAt                                      *int64
	at                                                        int
}

// decision is a checkpoint.approved or checkpoint.rejected event.
type decision struct {
	id, decisionPoint, by, option, reason string
	approved                              bool
	matched                               bool // it removed a pending checkpoint
	at                                    int
	decidedAt                             int64
}

// finished is an agent.completed, agent.failed or agent.aborted event.
type finished struct {
	id, agent, description, status, result, err string
	duration                                    *int64
	at                                          int
	finishedAt                                  int64
}

// ledgerItem is an epic or a task of the event-driven ledger.
type ledgerItem struct {
	id, title, epicID, agent, status, result, err string
	at                                            int
}

// session is an OpenCode session seen through lifecycle.session.* events.
type session struct {
	id, title, directory, status, err string
	createdAt, updatedAt              int64
	at                                int
}

// state is the fold after some events. It is immutable.
type state struct {
	n           int64 // events folded; also the insertion counter
	lastEventAt int64
	pending     omap[*checkpoint]
	active      omap[*intent]
	decided     *immutable.List[*decision]
	verdicts    *immutable.Map[string, int] // checkpoint id -> index in decided
	finished    *immutable.List[*finished]
	epics       omap[*ledgerItem]
	tasks       omap[*ledgerItem]
	directives  *immutable.List[model.Object]
	assumptions *immutable.List[model.Object]
	learnings   *immutable.List[model.Object]
	handoffs    *immutable.List[model.Object]
	sessions    omap[*session]
	counts      *immutable.SortedMap[string, int64]
}

var empty = &state{
	pending:     newOmap[*checkpoint](),
	active:      newOmap[*intent](),
	decided:     immutable.NewList[*decision](),
	verdicts:    immutable.NewMap[string, int](nil),
	finished:    immutable.NewList[*finished](),
	epics:       newOmap[*ledgerItem](),
	tasks:       newOmap[*ledgerItem](),
	directives:  immutable.NewList[model.Object](),
	assumptions: immutable.NewList[model.Object](),
	learnings:   immutable.NewList[model.Object](),
	handoffs:    immutable.NewList[model.Object](),
	sessions:    newOmap[*session](),
	counts:      immutable.NewSortedMap[string, int64](nil),
}

// envelope is a StreamEvent with the fields rewind reads.
type envelope struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	StreamID  string         `json:"stream_id"`
	Actor     string         `json:"actor"`
	Timestamp int64          `json:"timestamp"`
	Payload   jsontext.Value `json:"payload"`
}

func decodeEnvelope(raw []byte) (*envelope, bool) {
	var e envelope
	if model.Unmarshal(raw, &e) != nil || e.Type == "" || e.Payload.Kind() != '{' {
		return nil, false
	}
	return &e, true
}

type checkpointPayload struct {
	ID            string   `json:"id"`
	DecisionPoint string   `json:"decision_point"`
	Options       []option `json:"options"`
	RequestedBy   string   `json:"requested_by"`
	RequestedAt   *int64   `json:"requested_at"`
	ExpiresAt     *int64   `json:"expires_at"`
}

type decisionPayload struct {
	CheckpointID   string `json:"checkpoint_id"`
	ApprovedBy     string `json:"approved_by"`
	RejectedBy     string `json:"rejected_by"`
	SelectedOption string `json:"selected_option"`
	Reason         string `json:"reason"`
}

type intentPayload struct {
	ID              string `json:"id"`
	Description     string `json:"description"`
	Agent           string `json:"agent"`
	Prompt          string `json:"prompt"`
	ParentSessionID string `json:"parent_session_id"`
	TimeoutMs       *int64 `json:"timeout_ms"`
	CreatedAt       *int64 `json:"created_at"`
}

type finishPayload struct {
	IntentID string         `json:"intent_id"`
	Result   jsontext.Value `json:"result"`
	Error    jsontext.Value `json:"error"`
	Reason   jsontext.Value `json:"reason"`
	Duration *int64         `json:"duration"`
}

type ledgerPayload struct {
	EpicID               string         `json:"epicId"`
	EpicTitle            string         `json:"epicTitle"`
	TaskID               string         `json:"taskId"`
	TaskTitle            string         `json:"taskTitle"`
	Agent                string         `json:"agent"`
	Result               jsontext.Value `json:"result"`
	Summary              jsontext.Value `json:"summary"`
	Error                jsontext.Value `json:"error"`
	DirectiveContent     string         `json:"directiveContent"`
	AssumptionContent    string         `json:"assumptionContent"`
	AssumptionSource     string         `json:"assumptionSource"`
	AssumptionRationale  string         `json:"assumptionRationale"`
	LearningType         string         `json:"learningType"`
	LearningContent      string         `json:"learningContent"`
	HandoffReason        string         `json:"handoffReason"`
	HandoffCommand       string         `json:"handoffCommand"`
	HandoffFilesModified []string       `json:"handoffFilesModified"`
	HandoffWhatsDone     []string       `json:"handoffWhatsDone"`
	HandoffWhatsNext     []string       `json:"handoffWhatsNext"`
	HandoffKeyContext    []string       `json:"handoffKeyContext"`
}

type sessionPayload struct {
	ID        string         `json:"id"`
	Title     string         `json:"title"`
	Directory string         `json:"directory"`
	Error     jsontext.Value `json:"error"`
}

// text returns a payload value as display text: a string as it is, null or
// absent as "", anything else as its compact JSON.
func text(v jsontext.Value) string {
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

func (s *state) clone() *state { c := *s; return &c }

// Apply folds one event into s. Lines that are not StreamEvent envelopes
// (type missing, timestamp not an integer, payload not an object) and
// events whose payload fields have the wrong JSON types leave s unchanged.
func (format) Apply(st model.State, ev model.Event) model.State {
	s, ok := st.(*state)
	if !ok {
		return st
	}
	e, ok := decodeEnvelope(ev.Raw)
	if !ok {
		return s
	}
	ns := s.clone()
	ns.n++
	ns.lastEventAt = e.Timestamp
	c, _ := s.counts.Get(e.Type)
	ns.counts = s.counts.Set(e.Type, c+1)
	if !ns.fold(e, ev.Pos) {
		return s
	}
	return ns
}

// fold applies the event's effect on ns (a fresh copy). It returns false
// when the payload does not fit.
func (ns *state) fold(e *envelope, pos int) bool {
	p := e.Payload
	switch t := e.Type; {
	case t == "checkpoint.requested":
		var c checkpointPayload
		if model.Unmarshal(p, &c) != nil {
			return false
		}
		at := e.Timestamp
		if c.RequestedAt != nil {
			at = *c.RequestedAt
		}
		ns.pending = ns.pending.set(c.ID, &checkpoint{
			id: c.ID, decisionPoint: c.DecisionPoint, requestedBy: c.RequestedBy, streamID: e.StreamID,
			options: c.Options, requestedAt: at, expiresAt: c.ExpiresAt, at: pos,
		}, ns.n)
		ns.verdicts = ns.verdicts.Delete(c.ID)
	case t == "checkpoint.approved" || t == "checkpoint.rejected":
		var d decisionPayload
		if model.Unmarshal(p, &d) != nil {
			return false
		}
		dec := &decision{id: d.CheckpointID, approved: t == "checkpoint.approved", at: pos, decidedAt: e.Timestamp}
		if dec.approved {
			dec.by, dec.option = d.ApprovedBy, d.SelectedOption
		} else {
			dec.by, dec.reason = d.RejectedBy, d.Reason
		}
		if cp, ok := ns.pending.get(d.CheckpointID); ok {
			dec.decisionPoint, dec.matched = cp.decisionPoint, true
			ns.pending = ns.pending.del(d.CheckpointID)
			ns.verdicts = ns.verdicts.Set(d.CheckpointID, ns.decided.Len())
		} else if i, ok := ns.verdicts.Get(d.CheckpointID); ok {
			dec.decisionPoint = ns.decided.Get(i).decisionPoint
		}
		ns.decided = ns.decided.Append(dec)
	case t == "agent.spawned":
		var in intentPayload
		if model.Unmarshal(p, &in) != nil {
			return false
		}
		if in.ID != "" {
			ns.active = ns.active.set(in.ID, &intent{
				id: in.ID, description: in.Description, agent: in.Agent, prompt: in.Prompt,
				parentSessionID: in.ParentSessionID, streamID: e.StreamID, timeoutMs: in.TimeoutMs,
				createdAt: in.CreatedAt, at: pos,
			}, ns.n)
		}
	case t == "agent.completed" || t == "agent.failed" || t == "agent.aborted":
		var f finishPayload
		if model.Unmarshal(p, &f) != nil {
			return false
		}
		if f.IntentID == "" {
			return true
		}
		fin := &finished{id: f.IntentID, status: strings.TrimPrefix(t, "agent."), result: text(f.Result),
			err: text(f.Error), duration: f.Duration, at: pos, finishedAt: e.Timestamp}
		if t == "agent.aborted" && fin.err == "" {
			fin.err = text(f.Reason)
		}
		if in, ok := ns.active.get(f.IntentID); ok {
			fin.agent, fin.description = in.agent, in.description
			if fin.description == "" {
				fin.description = in.prompt
			}
		}
		ns.active = ns.active.del(f.IntentID)
		ns.finished = ns.finished.Append(fin)
	case strings.HasPrefix(t, "ledger."):
		var l ledgerPayload
		if model.Unmarshal(p, &l) != nil {
			return false
		}
		ns.ledger(t, &l, pos)
	case strings.HasPrefix(t, "lifecycle.session."):
		var sp sessionPayload
		if model.Unmarshal(p, &sp) != nil {
			return false
		}
		status := strings.TrimPrefix(t, "lifecycle.session.")
		id := e.StreamID
		if status == "created" && sp.ID != "" {
			id = sp.ID
		}
		se := &session{id: id, status: status, createdAt: e.Timestamp, at: pos}
		if old, ok := ns.sessions.get(id); ok {
			cp := *old
			se = &cp
			se.status = status
		}
		if sp.Title != "" {
			se.title = sp.Title
		}
		if sp.Directory != "" {
			se.directory = sp.Directory
		}
		if status == "error" {
			se.err = text(sp.Error)
		}
		se.updatedAt = e.Timestamp
		ns.sessions = ns.sessions.set(id, se, ns.n)
	}
	return true
}

// ledger applies one ledger.* event (EventDrivenLedger.emit).
func (ns *state) ledger(t string, l *ledgerPayload, pos int) {
	kind, _, _ := strings.Cut(strings.TrimPrefix(t, "ledger."), ".")
	status := t[strings.LastIndexByte(t, '.')+1:]
	update := func(m omap[*ledgerItem], id, title string) omap[*ledgerItem] {
		it := &ledgerItem{id: id}
		if old, ok := m.get(id); ok {
			cp := *old
			it = &cp
		}
		if title != "" {
			it.title = title
		}
		if kind == "task" && l.EpicID != "" {
			it.epicID = l.EpicID
		}
		if l.Agent != "" {
			it.agent = l.Agent
		}
		if r := text(l.Result); r != "" {
			it.result = r
		} else if r := text(l.Summary); r != "" {
			it.result = r
		}
		if e := text(l.Error); e != "" {
			it.err = e
		}
		it.status, it.at = status, pos
		return m.set(id, it, ns.n)
	}
	strs := func(v []string) []any {
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	}
	switch kind {
	case "epic":
		ns.epics = update(ns.epics, l.EpicID, l.EpicTitle)
	case "task":
		ns.tasks = update(ns.tasks, l.TaskID, l.TaskTitle)
	case "governance":
		if status == "directive_added" {
			ns.directives = ns.directives.Append(obj("content", l.DirectiveContent, "at", pos))
		} else if status == "assumption_added" {
			ns.assumptions = ns.assumptions.Append(obj("content", l.AssumptionContent,
				"source", l.AssumptionSource, "rationale", l.AssumptionRationale, "at", pos))
		}
	case "learning":
		ns.learnings = ns.learnings.Append(obj("type", l.LearningType, "content", l.LearningContent, "at", pos))
	case "handoff":
		ns.handoffs = ns.handoffs.Append(obj("status", status, "epic_id", l.EpicID, "reason", l.HandoffReason,
			"command", l.HandoffCommand, "files_modified", strs(l.HandoffFilesModified),
			"whats_done", strs(l.HandoffWhatsDone), "whats_next", strs(l.HandoffWhatsNext),
			"key_context", strs(l.HandoffKeyContext), "at", pos))
	}
}

// obj builds a model.Object from alternating keys and values.
func obj(kv ...any) model.Object {
	o := make(model.Object, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, model.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return o
}

// Pending returns one item per pending checkpoint, in the order they were
// first requested: Kind "checkpoint", Prompt the decision_point, Options
// the checkpoint's options (id, label), RequestedAt requested_at as RFC
// 3339, RequestedBy requested_by, At the position of checkpoint.requested.
func (s *state) Pending() []model.Pending {
	cps := s.pending.values()
	out := make([]model.Pending, 0, len(cps))
	for _, c := range cps {
		opts := make([]model.Option, len(c.options))
		for i, o := range c.options {
			opts[i] = model.Option{ID: o.ID, Label: o.Label}
		}
		out = append(out, model.Pending{
			ID: c.id, Kind: "checkpoint", Prompt: c.decisionPoint, Options: opts,
			RequestedAt: model.FormatTime(model.MillisTime(c.requestedAt)),
			RequestedBy: c.requestedBy, At: c.at,
		})
	}
	return out
}

// Verdict reports how checkpoint id was decided in s: the approval or
// rejection that removed it from the pending checkpoints.
func (format) Verdict(st model.State, id string) (model.Verdict, bool) {
	s, ok := st.(*state)
	if !ok {
		return model.Verdict{}, false
	}
	i, ok := s.verdicts.Get(id)
	if !ok {
		return model.Verdict{}, false
	}
	d := s.decided.Get(i)
	return model.Verdict{ID: d.id, Approved: d.approved, By: d.by, Option: d.option, Reason: d.reason, At: d.at}, true
}

// cut shortens s to at most n runes, ending with "…" when it was cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func num(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func (c *checkpoint) object() model.Object {
	opts := make([]any, len(c.options))
	for i, o := range c.options {
		oo := obj("id", o.ID, "label", o.Label)
		if o.Description != "" {
			oo = append(oo, model.Field{Key: "description", Value: o.Description})
		}
		opts[i] = oo
	}
	return obj("id", c.id, "decision_point", c.decisionPoint, "options", opts,
		"requested_by", c.requestedBy, "requested_at", c.requestedAt, "expires_at", num(c.expiresAt),
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
func (s *state) View() model.Object {
	pend := []any{}
	for _, c := range s.pending.values() {
		pend = append(pend, c.object())
	}
	act := []any{}
	for _, in := range s.active.values() {
		act = append(act, obj("id", in.id, "description", in.description, "agent", in.agent,
			"prompt", in.prompt, "parent_session_id", in.parentSessionID, "timeout_ms", num(in.timeoutMs),
			"status", "running", "created_at", num(in.createdAt), "stream_id", in.streamID, "at", in.at))
	}
	dec := []any{}
	for it := s.decided.Iterator(); !it.Done(); {
		_, d := it.Next()
		dec = append(dec, obj("id", d.id, "decision_point", d.decisionPoint, "approved", d.approved,
			"by", d.by, "option", d.option, "reason", d.reason, "at", d.at, "decided_at", d.decidedAt,
			"matched", d.matched))
	}
	fin := []any{}
	for it := s.finished.Iterator(); !it.Done(); {
		_, f := it.Next()
		fin = append(fin, obj("id", f.id, "agent", f.agent, "description", f.description,
			"status", f.status, "result", f.result, "error", f.err, "duration", num(f.duration),
			"at", f.at, "finished_at", f.finishedAt))
	}
	epics := []any{}
	for _, e := range s.epics.values() {
		epics = append(epics, obj("id", e.id, "title", e.title, "status", e.status,
			"result", e.result, "error", e.err, "at", e.at))
	}
	tasks := []any{}
	for _, t := range s.tasks.values() {
		tasks = append(tasks, obj("id", t.id, "title", t.title, "epic_id", t.epicID, "agent", t.agent,
			"status", t.status, "result", t.result, "error", t.err, "at", t.at))
	}
	list := func(l interface {
		Len() int
		Get(int) model.Object
	}) []any {
		out := make([]any, l.Len())
		for i := range out {
			out[i] = l.Get(i)
		}
		return out
	}
	sess := []any{}
	for _, se := range s.sessions.values() {
		sess = append(sess, obj("id", se.id, "title", se.title, "directory", se.directory,
			"status", se.status, "error", se.err, "created_at", se.createdAt, "updated_at", se.updatedAt, "at", se.at))
	}
	counts := model.Object{}
	for it := s.counts.Iterator(); !it.Done(); {
		k, v, _ := it.Next()
		counts = append(counts, model.Field{Key: k, Value: v})
	}
	return obj(
		"pending_checkpoints", pend,
		"active_intents", act,
		"decided_checkpoints", dec,
		"finished_intents", fin,
		"ledger", obj("epics", epics, "tasks", tasks, "directives", list(s.directives),
			"assumptions", list(s.assumptions), "learnings", list(s.learnings), "handoffs", list(s.handoffs)),
		"sessions", sess,
		"events_replayed", s.n,
		"last_event_at", s.lastEventAt,
		"counts", counts,
	)
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
		row.Summary = text(p["result"])
	case t == "agent.failed":
		row.Summary, row.Problem = text(p["error"]), true
	case t == "lifecycle.session.error":
		row.Summary, row.Problem = text(p["error"]), true
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
		if e := text(p["error"]); e != "" {
			row.Summary, row.Problem = join(row.Summary, e), true
		}
	}
	if row.Summary == "" && !strings.HasPrefix(row.Type, "checkpoint.") {
		if v, ok := fields["payload"]; ok {
			row.Summary = text(v)
		}
	}
	row.Summary = cut(row.Summary, 200)
	return row
}

func str(m map[string]jsontext.Value, k string) string {
	var s string
	if v, ok := m[k]; ok && v.Kind() == '"' {
		_ = model.Unmarshal(v, &s)
	}
	return s
}

// recentDecisions is how many decisions the CHECKPOINTS document lists.
const recentDecisions = 10

func ms(t int64) string {
	if s := model.FormatTime(model.MillisTime(t)); s != "" {
		return s
	}
	return "unknown"
}

// Render returns the CHECKPOINTS document of s: a summary line, then the
// sections "Pending checkpoints" (each with its id, decision point,
// options, requester, request and expiry times, and the event it has been
// waiting since), "Active intents", "Ledger" (epics and tasks) and
// "Recently decided" (newest first, at most ten). Empty sections say
// "None.". An unknown doc renders as "".
func (format) Render(st model.State, doc string) string {
	s, ok := st.(*state)
	if !ok || doc != DocCheckpoints {
		return ""
	}
	var b strings.Builder
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
		b.WriteByte('\n')
	}
	w("# Durable Stream")
	w()
	w("> Events: ", strconv.FormatInt(s.n, 10), " | Pending: ", strconv.Itoa(s.pending.len()),
		" | Active intents: ", strconv.Itoa(s.active.len()))
	if s.n > 0 {
		w("> Last event: ", ms(s.lastEventAt))
	}
	w()
	w("## Pending checkpoints")
	w()
	cps := s.pending.values()
	if len(cps) == 0 {
		w("None.")
		w()
	}
	for _, c := range cps {
		w("### ", c.id)
		w()
		w(c.decisionPoint)
		w()
		if len(c.options) == 0 {
			w("- Options: none (free answer)")
		} else {
			w("- Options:")
			for _, o := range c.options {
				line := "  - `" + o.ID + "`: " + o.Label
				if o.Description != "" {
					line += " (" + o.Description + ")"
				}
				w(line)
			}
		}
		w("- Requested by: ", c.requestedBy)
		w("- Requested at: ", ms(c.requestedAt))
		if c.expiresAt != nil {
			w("- Expires at: ", ms(*c.expiresAt), " (not enforced on replay)")
		}
		w("- Waiting since: event ", strconv.Itoa(c.at))
		w()
	}
	w("## Active intents")
	w()
	ins := s.active.values()
	if len(ins) == 0 {
		w("None.")
	}
	for _, in := range ins {
		what := in.description
		if what == "" {
			what = in.prompt
		}
		w("- **", in.id, "**: ", what)
		if in.agent != "" {
			w("  - Agent: ", in.agent)
		}
		if in.createdAt != nil {
			w("  - Since: ", ms(*in.createdAt), ", event ", strconv.Itoa(in.at))
		}
	}
	w()
	w("## Ledger")
	w()
	epics, tasks := s.epics.values(), s.tasks.values()
	if len(epics)+len(tasks) == 0 {
		w("None.")
		w()
	}
	if len(epics) > 0 {
		w("### Epics")
		w()
		for _, e := range epics {
			w(ledgerLine(e))
		}
		w()
	}
	if len(tasks) > 0 {
		w("### Tasks")
		w()
		for _, t := range tasks {
			w(ledgerLine(t))
			if t.epicID != "" {
				w("  - Epic: ", t.epicID)
			}
		}
		w()
	}
	w("## Recently decided")
	w()
	if s.decided.Len() == 0 {
		w("None.")
	}
	for i, n := s.decided.Len()-1, 0; i >= 0 && n < recentDecisions; i, n = i-1, n+1 {
		d := s.decided.Get(i)
		verb, why := "Rejected", d.reason
		if d.approved {
			verb, why = "Approved", d.option
		}
		if d.decisionPoint != "" {
			w("- **", d.id, "**: ", d.decisionPoint)
		} else {
			w("- **", d.id, "**")
		}
		line := "  - " + verb + " by " + d.by
		if why != "" {
			line += ": " + why
		}
		w(line)
		w("  - At: ", ms(d.decidedAt), ", event ", strconv.Itoa(d.at))
	}
	return b.String()
}

// ledgerLine returns an epic's or task's entry: its id and title, then
// its status with the error or result on a second line.
func ledgerLine(it *ledgerItem) string {
	line := "- **" + it.id + "**"
	if it.title != "" {
		line += ": " + it.title
	}
	line += "\n  - " + it.status
	if it.err != "" {
		line += ": " + it.err
	} else if it.result != "" {
		line += ": " + it.result
	}
	return line
}
