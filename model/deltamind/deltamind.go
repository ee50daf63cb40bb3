// Package deltamind reads DeltaMind's event log, .deltamind/provenance.jsonl
// (@deltamind/core v1.0.2, mcp-tool-shop-org/deltamind), and replays it the
// way DeltaMind itself does: the delta of every "accepted" line goes through
// a faithful copy of the reconciler (reconciler.ts) from an empty state.
// The result renders as DeltaMind's four Markdown projections
// (projections.ts): ACTIVE_STATE, DECISIONS, TASKS and CONSTRAINTS.
//
// The "rejected" lines are kept with the reasons the real reconciler gave,
// and the last "checkpoint" line is kept as written. An accepted line whose
// delta this package's reconciler would reject leaves the items unchanged
// and is recorded as a replay disagreement.
//
// DeltaMind has no human decisions: the states never have pending items.
package deltamind

import (
	"strings"

	"github.com/benbjohnson/immutable"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// Format is the DeltaMind format (model.DeltaMind). Its states stamp each
// item's lastTouched with the timestamp of the delta that last touched it;
// see WithSnapshot for the variant that matches a snapshot.json.
var Format model.Format = format{}

// Document names, as Docs returns them: ACTIVE_STATE.md, DECISIONS.md,
// TASKS.md and CONSTRAINTS.md of DeltaMind's projections.
const (
	DocActiveState = "ACTIVE_STATE"
	DocDecisions   = "DECISIONS"
	DocTasks       = "TASKS"
	DocConstraints = "CONSTRAINTS"
)

type format struct {
	// snap maps item ids to the last touch snapshot.json records for them;
	// nil for the plain Format.
	snap map[string]snapTouch
}

// Name returns "deltamind".
func (format) Name() string { return model.DeltaMind }

// Init returns the empty state (reconciler.ts createState).
func (format) Init() model.State { return empty }

// Docs returns ACTIVE_STATE, DECISIONS, TASKS and CONSTRAINTS.
func (format) Docs() []string {
	return []string{DocActiveState, DocDecisions, DocTasks, DocConstraints}
}

// sourceRef is one entry of an item's sourceTurns: {turnId, offset?}.
type sourceRef struct {
	turnID string
	offset any // the offset value as written (model.FromRaw form), nil if absent
}

// item is a MemoryItem. Items are never modified once built; a change makes
// a new item (its small slices are copied on write).
type item struct {
	id, semanticID, kind, summary, status, confidence, scope string
	turns                                                    []sourceRef
	lastTouched                                              string
	tags                                                     []string
	// touches counts the applied deltas that touched the item and lastSeq
	// is the state seq right after the last of them (its 1-based index in
	// the delta log).
	touches int
	lastSeq int64
}

// rejection is one "rejected" line.
type rejection struct {
	pos       int
	seq       any
	kind      string
	target    string
	reason    string
	timestamp string
}

// disagreement is an "accepted" line whose delta this package's reconciler
// rejects.
type disagreement struct {
	pos    int
	seq    any
	kind   string
	target string
	reason string
}

// state is an ActiveContextState plus what the journal says about rejected
// deltas and checkpoints. It is immutable.
type state struct {
	seq           int64
	index         *immutable.Map[string, int] // item id -> position in items
	items         *immutable.List[*item]      // in Map insertion (creation) order
	rejected      *immutable.List[rejection]
	disagreements *immutable.List[disagreement]
	checkpoint    model.Object // the last checkpoint line, nil before one
}

var empty = &state{
	index:         immutable.NewMap[string, int](nil),
	items:         immutable.NewList[*item](),
	rejected:      immutable.NewList[rejection](),
	disagreements: immutable.NewList[disagreement](),
}

func (s *state) clone() *state { c := *s; return &c }

func (s *state) get(id string) (*item, int, bool) {
	i, ok := s.index.Get(id)
	if !ok {
		return nil, 0, false
	}
	return s.items.Get(i), i, true
}

// Pending returns nil: DeltaMind never waits for a human.
func (*state) Pending() []model.Pending { return nil }

// line is one provenance.jsonl line (ProvenanceLine), with only the fields
// rewind reads.
type line struct {
	Type      string         `json:"type"`
	Seq       jsontext.Value `json:"seq"`
	Timestamp string         `json:"timestamp"`
	Delta     jsontext.Value `json:"delta"`
	Reason    string         `json:"reason"`
}

// delta is a MemoryDelta: the union of the fields of all eleven kinds.
type delta struct {
	Kind         string     `json:"kind"`
	Timestamp    string     `json:"timestamp"`
	ID           string     `json:"id"`
	TargetID     string     `json:"targetId"`
	Summary      string     `json:"summary"`
	Confidence   string     `json:"confidence"`
	Hard         bool       `json:"hard"`
	Mode         string     `json:"mode"`
	Resolution   string     `json:"resolution"`
	Alternatives []string   `json:"alternatives"`
	Reason       string     `json:"reason"`
	SourceTurns  []turnJSON `json:"sourceTurns"`
}

type turnJSON struct {
	TurnID string         `json:"turnId"`
	Offset jsontext.Value `json:"offset"`
}

// target returns the item the delta names: targetId for the four kinds
// that change an existing item, id otherwise.
func (d *delta) target() string {
	switch d.Kind {
	case "decision_revised", "constraint_revised", "task_closed", "item_superseded":
		return d.TargetID
	}
	if d.ID == "" {
		return d.TargetID
	}
	return d.ID
}

// seqValue returns a line's seq as a view value: int64 for integers, the
// value as decoded otherwise (nil when absent).
func seqValue(raw jsontext.Value) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := model.FromRaw(raw)
	if err != nil {
		return nil
	}
	return intOr(v)
}

func intOr(v any) any {
	if n, ok := v.(interface{ Int64() (int64, error) }); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	return v
}

func decodeDelta(raw jsontext.Value) (*delta, bool) {
	if len(raw) == 0 || raw.Kind() != '{' {
		return nil, false
	}
	var d delta
	if model.Unmarshal(raw, &d) != nil {
		return nil, false
	}
	return &d, true
}

// Apply folds one provenance.jsonl line into s. Lines whose fields have the
// wrong JSON types, and lines of other types, leave s unchanged.
func (f format) Apply(st model.State, ev model.Event) model.State {
	s, ok := st.(*state)
	if !ok {
		return st
	}
	var l line
	if model.Unmarshal(ev.Raw, &l) != nil || l.Seq.Kind() != '0' {
		return s
	}
	switch l.Type {
	case "accepted":
		d, ok := decodeDelta(l.Delta)
		if !ok {
			return s
		}
		ns, reason := f.reconcile(s, d)
		if reason != "" {
			ns = s.clone()
			ns.disagreements = s.disagreements.Append(disagreement{
				pos: ev.Pos, seq: seqValue(l.Seq), kind: d.Kind, target: d.target(), reason: reason,
			})
		}
		return ns
	case "rejected":
		d, ok := decodeDelta(l.Delta)
		if !ok {
			return s
		}
		ns := s.clone()
		ns.rejected = s.rejected.Append(rejection{
			pos: ev.Pos, seq: seqValue(l.Seq), kind: d.Kind, target: d.target(),
			reason: l.Reason, timestamp: l.Timestamp,
		})
		return ns
	case "checkpoint":
		o, ok := checkpointObject(ev.Raw)
		if !ok {
			return s
		}
		ns := s.clone()
		ns.checkpoint = o
		return ns
	}
	return s
}

// checkpointObject returns a checkpoint line's fields (seq, timestamp and
// the five totals) in a fixed order, integers as int64.
func checkpointObject(raw []byte) (model.Object, bool) {
	var c struct {
		Seq          jsontext.Value `json:"seq"`
		Timestamp    string         `json:"timestamp"`
		TotalItems   *int64         `json:"totalItems"`
		TotalDeltas  *int64         `json:"totalDeltas"`
		TotalTurns   *int64         `json:"totalTurns"`
		ContextChars *int64         `json:"contextChars"`
		RawChars     *int64         `json:"rawChars"`
	}
	if model.Unmarshal(raw, &c) != nil {
		return nil, false
	}
	num := func(p *int64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	return obj("seq", seqValue(c.Seq), "timestamp", c.Timestamp, "totalItems", num(c.TotalItems), "totalDeltas", num(c.TotalDeltas), "totalTurns", num(c.TotalTurns), "contextChars", num(c.ContextChars), "rawChars", num(c.RawChars)), true
}

func turnsOf(d *delta) []sourceRef {
	out := make([]sourceRef, len(d.SourceTurns))
	for i, t := range d.SourceTurns {
		out[i].turnID = t.TurnID
		if len(t.Offset) > 0 {
			if v, err := model.FromRaw(t.Offset); err == nil && v != nil {
				out[i].offset = v
			}
		}
	}
	return out
}

// appendTurns returns turns plus the new ones whose turnId is not there yet
// (appendSourceTurns). It never modifies turns.
func appendTurns(turns []sourceRef, add []sourceRef) []sourceRef {
	seen := make(map[string]bool, len(turns)+len(add))
	for _, t := range turns {
		seen[t.turnID] = true
	}
	out := turns[:len(turns):len(turns)]
	for _, t := range add {
		if !seen[t.turnID] {
			out = append(out, t)
			seen[t.turnID] = true
		}
	}
	return out
}

// unionTags is [...new Set([...a, ...b])].
func unionTags(a, b []string) []string {
	seen := make(map[string]bool, len(a)+len(b))
	var out []string
	for _, t := range append(a[:len(a):len(a)], b...) {
		if !seen[t] {
			out = append(out, t)
			seen[t] = true
		}
	}
	return out
}

// reconcile applies one delta as reconciler.ts applyDelta does. It returns
// the new state, or s and the rejection reason.
func (f format) reconcile(s *state, d *delta) (*state, string) {
	if len(d.SourceTurns) == 0 {
		return s, "Missing provenance: sourceTurns is empty"
	}
	turns := turnsOf(d)
	switch d.Kind {
	case "decision_made":
		return f.upsert(s, d, "decision", d.Summary, "active", d.Confidence, turns, nil), ""
	case "constraint_added":
		conf, tags := "high", []string{"soft"}
		if d.Hard {
			conf, tags = "certain", []string{"hard"}
		}
		return f.upsert(s, d, "constraint", d.Summary, "active", conf, turns, tags), ""
	case "task_opened":
		return f.upsert(s, d, "task", d.Summary, "active", "high", turns, nil), ""
	case "fact_learned":
		return f.upsert(s, d, "fact", d.Summary, "active", d.Confidence, turns, nil), ""
	case "hypothesis_introduced":
		return f.upsert(s, d, "hypothesis", d.Summary, "tentative", d.Confidence, turns, nil), ""
	case "goal_set":
		return f.upsert(s, d, "goal", d.Summary, "active", d.Confidence, turns, nil), ""
	case "branch_created":
		tags := append([]string{"branch"}, d.Alternatives...)
		return f.upsert(s, d, "hypothesis", strings.Join(d.Alternatives, " | "), "tentative", "medium", turns, tags), ""
	case "decision_revised", "constraint_revised", "task_closed", "item_superseded":
		old, idx, ok := s.get(d.TargetID)
		if !ok {
			return s, d.Kind + ` target "` + d.TargetID + `" not found`
		}
		want := map[string]string{"decision_revised": "decision", "constraint_revised": "constraint", "task_closed": "task"}[d.Kind]
		if want != "" && old.kind != want {
			return s, d.Kind + ` target "` + d.TargetID + `" is ` + old.kind + ", not " + want
		}
		it := *old
		switch d.Kind {
		case "decision_revised":
			it.summary = d.Summary
			if d.Confidence != "" {
				it.confidence = d.Confidence
			}
		case "constraint_revised":
			it.summary = d.Summary
			if d.Mode != "" {
				it.tags = unionTags(old.tags, []string{d.Mode})
			}
		case "task_closed":
			it.status = "resolved"
			it.summary = old.summary + " → " + d.Resolution
		case "item_superseded":
			it.status = "superseded"
			it.summary = old.summary + " [superseded: " + d.Reason + "]"
		}
		it.turns = appendTurns(old.turns, turns)
		it.lastTouched = d.Timestamp
		ns := s.clone()
		ns.seq++
		f.touch(&it, ns.seq, d)
		ns.items = s.items.Set(idx, &it)
		return ns, ""
	}
	return s, "Unknown delta kind: " + d.Kind
}

// upsert is reconciler.ts upsertItem: a new item in creation order, or an
// update of the existing one (whose kind and scope never change).
func (f format) upsert(s *state, d *delta, kind, summary, status, confidence string, turns []sourceRef, tags []string) *state {
	ns := s.clone()
	ns.seq++
	sid := semanticID(kind, summary)
	if old, idx, ok := s.get(d.ID); ok {
		it := *old
		it.summary, it.semanticID, it.status, it.confidence = summary, sid, status, confidence
		it.turns = appendTurns(old.turns, turns)
		it.lastTouched = d.Timestamp
		if tags != nil {
			it.tags = unionTags(old.tags, tags)
		}
		f.touch(&it, ns.seq, d)
		ns.items = s.items.Set(idx, &it)
		return ns
	}
	it := &item{
		id: d.ID, semanticID: sid, kind: kind, summary: summary, status: status,
		confidence: confidence, scope: "session", turns: turns, lastTouched: d.Timestamp, tags: tags,
	}
	f.touch(it, ns.seq, d)
	ns.index = s.index.Set(d.ID, s.items.Len())
	ns.items = s.items.Append(it)
	return ns
}

// touch records that the delta applied as number seq touched it, and takes
// the snapshot's lastTouched when the snapshot's last touch of the item is
// this very delta.
func (f format) touch(it *item, seq int64, d *delta) {
	it.touches++
	it.lastSeq = seq
	if f.snap == nil {
		return
	}
	if t, ok := f.snap[it.id]; ok && t.index == seq && t.count == it.touches && t.kind == d.Kind && t.timestamp == d.Timestamp {
		it.lastTouched = t.lastTouched
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
