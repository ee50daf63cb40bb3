// Package durablestream reads the event log of Durable Stream, the
// OpenCode plugin module of swarmtool-addons (bangedorrunt/swarmtool-addons,
// src/durable-stream), kept in .opencode/durable_stream.jsonl: one
// StreamEvent envelope per line {type, stream_id, causation_id?,
// correlation_id, actor, payload, metadata?, id, timestamp}, timestamps in
// Unix milliseconds.
//
// The fold is the one of core.ts and the orchestrator's projections: pending
// checkpoints (set by checkpoint.requested, removed by checkpoint.approved
// or checkpoint.rejected) and active intents (set by agent.spawned, removed
// by agent.completed, agent.failed or agent.aborted). For the reader it also
// keeps the decided checkpoints, finished intents, the ledger built from
// ledger.* events, the sessions of lifecycle.session.* events and a count of
// events per type.
//
// Format also implements model.Decider: a decision on a pending checkpoint
// is written as the checkpoint.approved or checkpoint.rejected line that
// Durable Stream's own approveCheckpoint / rejectCheckpoint append.
package durablestream

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/benbjohnson/immutable"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// Format is the Durable Stream format (model.DurableStream). It also
// implements model.Decider.
var Format model.Format = format{}

// DocCheckpoints is the name of the only Markdown projection: pending
// checkpoints, active intents, the ledger and recent decisions.
const DocCheckpoints = "CHECKPOINTS"

type format struct{}

var _ model.Decider = format{}

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

var typeRE = regexp.MustCompile(`^[a-z_]+(\.[a-z_]+)+$`)

// Sniff reports whether raw, one journal line, looks like a Durable Stream
// event: an object with string "id", dotted lower-case "type", string
// "stream_id", "correlation_id" and "actor", a numeric "timestamp" (Unix
// ms) and a "payload".
func Sniff(raw []byte) bool {
	var e struct {
		ID            *string        `json:"id"`
		Type          string         `json:"type"`
		StreamID      *string        `json:"stream_id"`
		CorrelationID *string        `json:"correlation_id"`
		Actor         *string        `json:"actor"`
		Timestamp     jsontext.Value `json:"timestamp"`
		Payload       jsontext.Value `json:"payload"`
	}
	if model.Unmarshal(raw, &e) != nil {
		return false
	}
	return e.ID != nil && e.StreamID != nil && e.CorrelationID != nil && e.Actor != nil &&
		typeRE.MatchString(e.Type) && e.Timestamp.Kind() == '0' && len(e.Payload) > 0
}

// cut shortens s to at most n runes, ending with "…" when it was cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
