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
// The fold reads single members of each line with internal/rawjson and
// never decodes a whole line: most events (text and reasoning deltas,
// tool parts with their output) only count, so only their envelope is
// walked. Long text a state keeps (prompts, results, errors) stays in the
// journal as a text. The states of one replay share their history
// (see lineage), so a keyframe costs a few hundred bytes.
//
// Format also implements model.Decider: a decision on a pending checkpoint
// is written as the checkpoint.approved or checkpoint.rejected line that
// Durable Stream's own approveCheckpoint / rejectCheckpoint append.
package durablestream

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

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

// Init returns the state before the first event, with a lineage of its
// own.
func (format) Init() model.State { return &state{lin: newLineage(), lens: &lengths{}} }

// Docs returns CHECKPOINTS.
func (format) Docs() []string { return []string{DocCheckpoints} }

// option is one CheckpointOption {id, label, description?}.
type option struct {
	ID          string
	Label       string
	Description string
}

// checkpoint is a pending Checkpoint payload plus where it was asked.
type checkpoint struct {
	id, requestedBy, streamID string
	decisionPoint             text
	options                   []option
	requestedAt               int64
	expiresAt                 opt
	at                        int
}

// intent is an active Intent payload (agent.spawned).
type intent struct {
	id, agent, parentSessionID, streamID string
	description, prompt                  text
	timeoutMs, createdAt                 opt
	at                                   int
}

// decision is a checkpoint.approved or checkpoint.rejected event.
type decision struct {
	id, by, option        string
	decisionPoint, reason text
	approved              bool
	matched               bool // it removed a pending checkpoint
	at                    int
	decidedAt             int64
	n                     int64 // the version that recorded it
}

// finished is an agent.completed, agent.failed or agent.aborted event.
type finished struct {
	id, agent, status        string
	description, result, err text
	duration                 opt
	at                       int
	finishedAt               int64
}

// ledgerItem is an epic or a task of the event-driven ledger.
type ledgerItem struct {
	id, title, epicID, agent, status string
	result, err                      text
	at                               int
}

// directive, assumption, learning and handoff are the ledger's
// governance, learning and handoff events.
type directive struct {
	content text
	at      int
}

type assumption struct {
	source             string
	content, rationale text
	at                 int
}

type learning struct {
	typ     string
	content text
	at      int
}

type handoff struct {
	status, epicID                         string
	reason, command                        text
	filesModified, whatsDone, next, keyCtx []string
	at                                     int
}

// session is an OpenCode session seen through lifecycle.session.* events.
type session struct {
	id, title, directory, status string
	err                          text
	createdAt, updatedAt         int64
	at                           int
}

// state is the fold after n events: a version of its lineage, which holds
// the collections, plus what changes with every event. It is immutable.
//
// The fields below lin each change exactly when the part of the view they
// stand for may change, so that replay's blame, which compares states
// field by field, can tell which top-level fields an event touched.
type state struct {
	lin         *lineage
	lens        *lengths // shared with the states before it until a count changes
	n           int64    // events folded; the state's version of lin
	lastEventAt int64
	// Each mark changes (wrapping) with the part of the view it stands
	// for: pending and pending_checkpoints, active_intents,
	// decided_checkpoints, finished_intents, ledger and sessions.
	pendingMark, activeMark, decidedMark, finishedMark, ledgerMark, sessionsMark uint8
}

// lengths are the lengths of a lineage's lists, and the numbers of
// pending checkpoints and active intents, as a state sees them. A state
// is made for every event; most events only count, so the lengths are
// kept apart and shared, and a state is 40 bytes.
type lengths struct {
	nDecided, nFinished                              int32
	nDirectives, nAssumptions, nLearnings, nHandoffs int32
	nPending, nActive                                int32
}

// Apply folds one event into s. Lines that are not StreamEvent envelopes
// (type missing, timestamp not an integer, payload not an object) and
// events whose payload fields have the wrong JSON types leave s unchanged.
func (f format) Apply(st model.State, ev model.Event) model.State {
	s, ok := st.(*state)
	if !ok {
		return st
	}
	var e envelope
	if !e.parse(ev.Raw) {
		return s
	}
	return f.apply(s, ev, &e)
}

// Prepare reads the envelope of each line (model.Preparer): the walk of
// its members, over the payload's text, which is most of what folding a
// line costs, runs on the index's workers instead of the fold's goroutine
// (1 GB generated journal, rewind state, 5 runs alternated: median 1.66
// -> 1.25 s; the fold's goroutine had been the one the others waited on).
func (f format) Prepare(lines [][]byte, prev any) any { return f.PrepareEnds(lines, nil, prev) }

// PrepareEnds is Prepare reading each line's envelope where the first
// line of its layout had it (model.EndsPreparer), without walking the
// payload's text (1 GB, rewind state, six runs alternated: median 1.31 ->
// 1.10 s).
func (format) PrepareEnds(lines [][]byte, scalars []model.LineScalars, prev any) any {
	c := envCaches.Get().(*envCache)
	defer envCaches.Put(c)
	return model.PrepareLinesScalars(lines, scalars, prev, func(raw []byte, ls *model.LineScalars, pl *preparedLine) {
		*pl = preparedLine{}
		pl.ok = c.parse(&pl.e, raw, ls)
	})
}

// envCache is where the envelope is in the lines of the index's layouts a
// Prepare has seen. Not safe for concurrent use: each PrepareEnds takes
// one from envCaches.
type envCache struct{ model.LayoutCache[envLayout] }

var envCaches = sync.Pool{New: func() any { return new(envCache) }}

// parse is e.parse(raw), reading raw where the first line of its layout
// (ls, from the index) had its values when c knows it, and learning that
// otherwise.
func (c *envCache) parse(e *envelope, raw []byte, ls *model.LineScalars) bool {
	var sp envSpans
	if ls.Layout == nil {
		return e.parseSpans(raw, &sp)
	}
	if l := c.Get(ls.Layout); l != nil && l.read(raw, ls.Ends, &sp) {
		return e.fromSpans(&sp)
	}
	if !e.parseSpans(raw, &sp) {
		return false
	}
	if l := learnLayout(raw, ls.Ends, &sp); l != nil {
		c.Put(ls.Layout, l)
	}
	return true
}

// preparedLine is what Prepare read of one line: its envelope, and
// whether envelope.parse took it.
type preparedLine struct {
	e  envelope
	ok bool
}

// ApplyPrepared is Apply(st, ev), ev's line being the i-th of the batch
// Prepare read into p.
func (f format) ApplyPrepared(st model.State, ev model.Event, p any, i int) model.State {
	pl := model.Prepared[preparedLine](p, i)
	if pl == nil {
		return f.Apply(st, ev)
	}
	s, ok := st.(*state)
	if !ok {
		return st
	}
	if !pl.ok {
		return s
	}
	e := pl.e // payload.parse sets its streamID
	return f.apply(s, ev, &e)
}

// apply is Apply for the line of ev, whose envelope envelope.parse read
// into e.
func (format) apply(s *state, ev model.Event, e *envelope) model.State {
	p := payload{strs: s.lin.strs}
	if !p.parse(e, ev) {
		return s
	}
	ns := *s
	ns.n++
	ns.lastEventAt = e.ts
	l := s.lin
	l.mu.Lock()
	write := l.claimed == s.n
	if !write {
		// A state after s exists: reuse its step if this is the same
		// event (or both only count, and count the same type), fork
		// otherwise.
		id, recorded := l.stepAt(ns.n)
		if recorded != (p.kind != none) || recorded && id != l.identity(ev) || !recorded && !l.types.sameType(ns.n, e) {
			nl := l.fork(s)
			l.mu.Unlock()
			l = nl
			l.mu.Lock()
			write = true
		}
	}
	if write {
		l.claimed = ns.n
		l.logType(ns.n, e, l.types.code(e))
		if p.kind != none {
			l.steps, l.ids = append(l.steps, int32(ns.n)), append(l.ids, l.identity(ev))
		}
	}
	ns.lin = l
	if p.kind != none {
		lens := *s.lens
		ns.lens = &lens
	}
	ns.fold(l, &p, e, ev.Pos, write)
	l.mu.Unlock()
	if write {
		return l.place(&ns, ev.Pos)
	}
	return &ns
}

// fold applies the payload's effect: ns is the new state (a copy of the
// old one with n incremented), l its lineage, locked. Reads look at the
// old version (ns.n-1); writes, only when write is set, record entries at
// ns.n. With write unset (the step was recorded before) it only computes
// ns's fields.
func (ns *state) fold(l *lineage, p *payload, e *envelope, pos int, write bool) {
	old, n := ns.n-1, ns.n
	switch p.kind {
	case requested:
		c := &p.cp
		at := e.ts
		if c.requestedAt.Set {
			at = c.requestedAt.V
		}
		if _, ok := l.pending.get(c.id, old); !ok {
			ns.lens.nPending++
		}
		ns.pendingMark++
		if write {
			cp := l.mem.checkpoints.New()
			*cp = checkpoint{
				id: l.mem.str(c.id), decisionPoint: l.mem.text(c.decisionPoint), requestedBy: c.requestedBy,
				streamID: e.streamID, options: l.mem.opts(c.options), requestedAt: at, expiresAt: c.expiresAt, at: pos,
			}
			l.pending.set(cp.id, cp, n)
		}
	case approved, rejected:
		d := &p.dec
		dec := decision{id: d.checkpointID, approved: p.kind == approved, at: pos, decidedAt: e.ts, n: n}
		if dec.approved {
			dec.by, dec.option = d.approvedBy, d.selectedOption
		} else {
			dec.by, dec.reason = d.rejectedBy, d.reason
		}
		if cp, ok := l.pending.get(d.checkpointID, old); ok {
			dec.id = cp.id // the same string, kept once
			dec.decisionPoint, dec.matched = cp.decisionPoint, true
			ns.lens.nPending--
			ns.pendingMark++
			if write {
				l.pending.del(d.checkpointID, n)
			}
		} else if v, ok := l.verdict(d.checkpointID, old, ns.lens.nDecided-1); ok {
			dec.decisionPoint = v.decisionPoint
		}
		ns.lens.nDecided++
		ns.decidedMark++
		if write {
			if !dec.matched {
				dec.id = l.mem.str(dec.id)
			}
			dec.reason = l.mem.text(dec.reason)
			l.decided = append(l.decided, dec)
		}
	case spawned:
		in := &p.in
		if in.id == "" {
			return
		}
		if _, ok := l.active.get(in.id, old); !ok {
			ns.lens.nActive++
		}
		ns.activeMark++
		if write {
			it := l.mem.intents.New()
			*it = intent{
				id: l.mem.str(in.id), description: l.mem.text(in.description), agent: in.agent,
				prompt: l.mem.text(in.prompt), parentSessionID: in.parentSessionID, streamID: e.streamID,
				timeoutMs: in.timeoutMs, createdAt: in.createdAt, at: pos,
			}
			l.active.set(it.id, it, n)
		}
	case completed, failed, aborted:
		f := &p.fin
		if f.intentID == "" {
			return
		}
		fin := finished{id: f.intentID, status: strings.TrimPrefix(e.typ, "agent."), result: f.result,
			err: f.err, duration: f.duration, at: pos, finishedAt: e.ts}
		if p.kind == aborted && fin.err.IsEmpty() {
			fin.err = f.reason
		}
		found := false
		if in, ok := l.active.get(f.intentID, old); ok {
			found = true
			fin.id = in.id // the same string, kept once
			fin.agent, fin.description = in.agent, in.description
			if fin.description.IsEmpty() {
				fin.description = in.prompt
			}
			ns.lens.nActive--
			ns.activeMark++
			if write {
				l.active.del(f.intentID, n)
			}
		}
		ns.lens.nFinished++
		ns.finishedMark++
		if write {
			if !found {
				fin.id = l.mem.str(fin.id)
			}
			// The description and agent are the intent's, kept already.
			fin.result, fin.err = l.mem.text(fin.result), l.mem.text(fin.err)
			l.finished = append(l.finished, fin)
		}
	case ledgerEvent:
		ns.ledger(l, e, &p.led, pos, write)
	case sessionEvent:
		sp := &p.ses
		status := strings.TrimPrefix(e.typ, "lifecycle.session.")
		if write && e.known < 0 {
			status = l.mem.str(status) // not a substring of a constant
		}
		id := e.streamID
		if status == "created" && sp.id != "" {
			id = sp.id
		}
		ns.sessionsMark++
		if !write {
			return
		}
		se := l.mem.sessions.New()
		if prev, ok := l.sessions.get(id, old); ok {
			*se = *prev
			se.status = status
		} else {
			*se = session{id: id, status: status, createdAt: e.ts, at: pos}
		}
		if sp.title != "" {
			se.title = sp.title
		}
		if sp.directory != "" {
			se.directory = sp.directory
		}
		if status == "error" {
			se.err = l.mem.text(sp.err)
		}
		se.updatedAt = e.ts
		l.sessions.set(id, se, n)
	}
}

// ledger applies one ledger.* event (EventDrivenLedger.emit).
func (ns *state) ledger(l *lineage, e *envelope, p *ledgerPayload, pos int, write bool) {
	old, n := ns.n-1, ns.n
	t := e.typ
	kind, _, _ := strings.Cut(strings.TrimPrefix(t, "ledger."), ".")
	status := t[strings.LastIndexByte(t, '.')+1:]
	if write && e.known < 0 {
		status = l.mem.str(status) // not a substring of a constant
	}
	update := func(m *omap[*ledgerItem], id, title string) {
		ns.ledgerMark++
		if !write {
			return
		}
		it := l.mem.items.New()
		if prev, ok := m.get(id, old); ok {
			*it = *prev
		} else {
			it.id = l.mem.str(id)
		}
		if title != "" {
			it.title = title
		}
		if kind == "task" && p.epicID != "" {
			it.epicID = p.epicID
		}
		if p.agent != "" {
			it.agent = p.agent
		}
		if !p.result.IsEmpty() {
			it.result = l.mem.text(p.result)
		} else if !p.summary.IsEmpty() {
			it.result = l.mem.text(p.summary)
		}
		if !p.err.IsEmpty() {
			it.err = l.mem.text(p.err)
		}
		it.status, it.at = status, pos
		m.set(id, it, n)
	}
	switch kind {
	case "epic":
		update(&l.epics, p.epicID, p.epicTitle)
	case "task":
		update(&l.tasks, p.taskID, p.taskTitle)
	case "governance":
		if status == "directive_added" {
			ns.lens.nDirectives++
			ns.ledgerMark++
			if write {
				l.directives = append(l.directives, directive{content: l.mem.text(p.directiveContent), at: pos})
			}
		} else if status == "assumption_added" {
			ns.lens.nAssumptions++
			ns.ledgerMark++
			if write {
				l.assumptions = append(l.assumptions, assumption{content: l.mem.text(p.assumptionContent),
					source: p.assumptionSource, rationale: l.mem.text(p.assumptionRationale), at: pos})
			}
		}
	case "learning":
		ns.lens.nLearnings++
		ns.ledgerMark++
		if write {
			l.learnings = append(l.learnings, learning{typ: p.learningType, content: l.mem.text(p.learningContent), at: pos})
		}
	case "handoff":
		ns.lens.nHandoffs++
		ns.ledgerMark++
		if write {
			l.handoffs = append(l.handoffs, handoff{status: status, epicID: p.epicID, reason: l.mem.text(p.handoffReason),
				command: l.mem.text(p.handoffCommand), filesModified: l.mem.list(p.handoffFilesModified),
				whatsDone: l.mem.list(p.handoffWhatsDone), next: l.mem.list(p.handoffWhatsNext),
				keyCtx: l.mem.list(p.handoffKeyContext), at: pos})
		}
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
	s.lin.mu.Lock()
	cps := s.lin.pending.values(s.n)
	s.lin.mu.Unlock()
	out := make([]model.Pending, 0, len(cps))
	for _, c := range cps {
		opts := make([]model.Option, len(c.options))
		for i, o := range c.options {
			opts[i] = model.Option{ID: o.ID, Label: o.Label}
		}
		out = append(out, model.Pending{
			ID: c.id, Kind: "checkpoint", Prompt: c.decisionPoint.String(), Options: opts,
			RequestedAt: model.FormatTime(model.MillisTime(c.requestedAt)),
			RequestedBy: c.requestedBy, At: c.at,
		})
	}
	return out
}

// pendingCheckpoint returns the checkpoint id pending in s.
func (s *state) pendingCheckpoint(id string) (*checkpoint, bool) {
	s.lin.mu.Lock()
	defer s.lin.mu.Unlock()
	return s.lin.pending.get(id, s.n)
}

// Verdict reports how checkpoint id was decided in s: the approval or
// rejection that removed it from the pending checkpoints.
func (format) Verdict(st model.State, id string) (model.Verdict, bool) {
	s, ok := st.(*state)
	if !ok {
		return model.Verdict{}, false
	}
	s.lin.mu.Lock()
	d, ok := s.lin.verdict(id, s.n, s.lens.nDecided-1)
	s.lin.mu.Unlock()
	if !ok {
		return model.Verdict{}, false
	}
	return model.Verdict{ID: d.id, Approved: d.approved, By: d.by, Option: d.option, Reason: d.reason.String(), At: d.at}, true
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
