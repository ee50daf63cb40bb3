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
// The fold reads single members of each line with internal/rawjson instead
// of decoding it, and the states of one replay share their history (see
// lineage), so a keyframe costs a few dozen bytes.
//
// DeltaMind has no human decisions: the states never have pending items.
package deltamind

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rewind-tui/rewind/internal/rawjson"
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

// Init returns the empty state (reconciler.ts createState), with a lineage
// of its own.
func (format) Init() model.State { return &state{lin: newLineage()} }

// Docs returns ACTIVE_STATE, DECISIONS, TASKS and CONSTRAINTS.
func (format) Docs() []string {
	return []string{DocActiveState, DocDecisions, DocTasks, DocConstraints}
}

// sourceRef is one entry of a delta's sourceTurns: {turnId, offset?}.
type sourceRef struct {
	turnID string
	off    []byte // the offset as written, nil if absent or null
}

// item is a MemoryItem, kept in its lineage's store (which its strings and
// lists address; it holds no pointers). Items are never modified once
// built; a change makes a new item. Its scope is always "session", and its
// semanticId is kept as the kind and the hash it is made of.
type item struct {
	id, summary, confidence, lastTouched str
	turns                                lst // of turn
	tags                                 lst // of str
	// lastSeq is the state seq right after the last delta that touched
	// the item (its 1-based index in the delta log) and touches counts
	// those deltas.
	lastSeq int64
	touches int32
	sid     uint32 // semanticHash of the summary the last upsert gave
	kind    uint8  // index in itemKinds
	sidKind uint8  // the kind that upsert named, for the semanticId prefix
	status  uint8  // index in itemStatuses
	branch  bool   // whether tags holds "branch"
}

// The item kinds the reconciler creates and the statuses it sets.
var (
	itemKinds    = [...]string{"decision", "constraint", "task", "fact", "hypothesis", "goal"}
	itemStatuses = [...]string{"active", "tentative", "resolved", "superseded"}
)

const (
	kDecision, kConstraint, kTask, kFact, kHypothesis, kGoal = 0, 1, 2, 3, 4, 5
	sActive, sTentative, sResolved, sSuperseded              = 0, 1, 2, 3
)

func (it *item) kindName() string   { return itemKinds[it.kind] }
func (it *item) statusName() string { return itemStatuses[it.status] }
func (it *item) semanticID() string { return formatSemanticID(itemKinds[it.sidKind], it.sid) }

// rejection is one "rejected" line; seq is the number as written (see
// seqValue).
type rejection struct {
	pos                                  int
	seq, kind, target, reason, timestamp str
}

// disagreement is an "accepted" line whose delta this package's reconciler
// rejects.
type disagreement struct {
	pos                       int
	seq, kind, target, reason str
}

// state is an ActiveContextState plus what the journal says about rejected
// deltas and checkpoints: a version of its lineage, which holds the items
// and the lists. It is immutable.
//
// The fields below lin each change exactly when the part of the view they
// stand for changes (seq with the items), so that replay's blame, which
// compares states field by field, can tell which top-level fields a line
// touched.
type state struct {
	lin *lineage
	v   int64 // the lines that changed the state; its version of lin
	seq int64
	// Lengths of lin's lists as this state sees them.
	nItems, nRejected, nDisagreements int32
	checkpoint                        *checkpointLine // the last checkpoint line, nil before one
}

// checkpointLine is a "checkpoint" line: seq (as seqValue gives it),
// timestamp and the five totals.
type checkpointLine struct {
	seq                                                         any
	timestamp                                                   string
	totalItems, totalDeltas, totalTurns, contextChars, rawChars opt
}

// Pending returns nil: DeltaMind never waits for a human.
func (*state) Pending() []model.Pending { return nil }

// delta is a MemoryDelta: the union of the fields of all eleven kinds.
type delta struct {
	kind, timestamp, id, targetID, summary, confidence string
	mode, resolution, reason                           string
	hard                                               bool
	alternatives                                       []string
	turns                                              []sourceRef
}

// target returns the item the delta names: targetId for the four kinds
// that change an existing item, id otherwise.
func (d *delta) target() string {
	switch d.kind {
	case "decision_revised", "constraint_revised", "task_closed", "item_superseded":
		return d.targetID
	}
	if d.id == "" {
		return d.targetID
	}
	return d.id
}

// seqValue returns a line's seq (a JSON number) as a view value: int64
// for integers, the number as written otherwise.
func seqValue(raw []byte) any {
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n
	}
	return json.Number(raw)
}

// line is one provenance.jsonl line (ProvenanceLine), with only the members
// rewind reads. Every "type", "timestamp" and "reason" must be a string
// or null and the last "seq" a number; the totals only matter for
// checkpoint lines.
type line struct {
	typ, timestamp, reason string
	seq, delta             []byte
	totals                 [5]opt
	totalsOK               bool
}

var totalNames = [5]string{"totalItems", "totalDeltas", "totalTurns", "contextChars", "rawChars"}

func (l *line) parse(raw []byte) bool {
	var typ []byte
	l.totalsOK = true
	ok := object(raw, func(n, v []byte) (ok bool) {
		switch string(n) {
		case "type":
			typ, ok = v, isStr(v)
		case "seq":
			l.seq, ok = v, true
		case "timestamp":
			l.timestamp, ok = strVal(v)
		case "delta":
			l.delta, ok = v, true
		case "reason":
			l.reason, ok = strVal(v)
		default:
			for i, t := range totalNames {
				if string(n) == t {
					var tok bool
					l.totals[i], tok = optInt(v)
					l.totalsOK = l.totalsOK && tok
				}
			}
			ok = true
		}
		return ok
	})
	if !ok || len(l.seq) == 0 || !rawjson.IsNumber(l.seq) {
		return false
	}
	l.typ, _ = strVal(typ)
	return true
}

// parseDelta decodes a delta object with the rules of the Go types the
// fold used to decode into.
func parseDelta(raw []byte) (*delta, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	d := &delta{}
	ok := object(raw, func(n, v []byte) (ok bool) {
		switch string(n) {
		case "kind":
			d.kind, ok = constant(v, deltaKinds)
		case "timestamp":
			d.timestamp, ok = strVal(v)
		case "id":
			d.id, ok = strVal(v)
		case "targetId":
			d.targetID, ok = strVal(v)
		case "summary":
			d.summary, ok = strVal(v)
		case "confidence":
			d.confidence, ok = constant(v, confidences)
		case "hard":
			d.hard, ok = boolean(v)
		case "mode":
			d.mode, ok = constant(v, modes)
		case "resolution":
			d.resolution, ok = strVal(v)
		case "alternatives":
			d.alternatives, ok = strList(v)
		case "reason":
			d.reason, ok = strVal(v)
		case "sourceTurns":
			d.turns, ok = sourceTurns(v)
		default:
			ok = true
		}
		return ok
	})
	return d, ok
}

// The values of delta fields that come from small sets, so that decoding
// them allocates nothing.
var (
	deltaKinds = []string{"decision_made", "decision_revised", "constraint_added", "constraint_revised",
		"task_opened", "task_closed", "fact_learned", "hypothesis_introduced", "branch_created",
		"item_superseded", "goal_set"}
	confidences = []string{"low", "medium", "high", "certain"}
	modes       = []string{"relaxed", "tightened", "amended"}
)

// constant decodes v as strVal does, returning the string of set it
// equals when there is one.
func constant(v []byte, set []string) (string, bool) {
	if p, ok := rawjson.Plain(v); ok {
		for _, c := range set {
			if string(p) == c {
				return c, true
			}
		}
	}
	return strVal(v)
}

// sourceTurns decodes sourceTurns: null gives none, each element is an
// object {turnId, offset} or null (an entry without a turn id).
func sourceTurns(v []byte) ([]sourceRef, bool) {
	if v[0] == 'n' {
		return nil, true
	}
	out := []sourceRef{}
	ok := elements(v, func(e []byte) bool {
		var t sourceRef
		var off []byte
		ok := e[0] == 'n' || object(e, func(n, v []byte) (ok bool) {
			switch string(n) {
			case "turnId":
				t.turnID, ok = strVal(v)
			case "offset":
				off, ok = v, true
			default:
				ok = true
			}
			return ok
		})
		if ok && len(off) > 0 {
			if o, err := model.FromRaw(off); err == nil && o != nil {
				t.off = off
			}
		}
		out = append(out, t)
		return ok
	})
	return out, ok
}

// Apply folds one provenance.jsonl line into s. Lines whose fields have the
// wrong JSON types, and lines of other types, leave s unchanged.
func (f format) Apply(st model.State, ev model.Event) model.State {
	s, ok := st.(*state)
	if !ok {
		return st
	}
	var l line
	if !l.parse(ev.Raw) {
		return s
	}
	var d *delta
	var cp *checkpointLine
	switch l.typ {
	case "accepted", "rejected":
		if d, ok = parseDelta(l.delta); !ok {
			return s
		}
	case "checkpoint":
		if !l.totalsOK {
			return s
		}
		cp = &checkpointLine{seq: seqValue(l.seq), timestamp: l.timestamp}
		cp.totalItems, cp.totalDeltas, cp.totalTurns, cp.contextChars, cp.rawChars = l.totals[0], l.totals[1], l.totals[2], l.totals[3], l.totals[4]
	default:
		return s
	}
	ns := *s
	ns.v++
	lin := s.lin
	lin.mu.Lock()
	write := lin.claimed == s.v
	if !write {
		// A state after s exists: reuse its step if this is the same
		// line (or both are checkpoints), fork otherwise.
		id, recorded := lin.stepAt(ns.v)
		if recorded != (cp == nil) || recorded && id != lin.identity(f, ev) {
			nl := lin.fork(s)
			lin.mu.Unlock()
			lin = nl
			lin.mu.Lock()
			write = true
		}
	}
	if write {
		lin.claimed = ns.v
		id := uint64(0)
		if cp == nil {
			id = lin.identity(f, ev)
		}
		lin.steps = append(lin.steps, id)
	}
	ns.lin = lin
	switch l.typ {
	case "accepted":
		if reason := f.reconcile(&ns, d, write); reason != "" {
			ns.nDisagreements++
			if write {
				m := &lin.mem
				lin.disagreements = append(lin.disagreements, disagreement{
					pos: ev.Pos, seq: m.raw(l.seq), kind: m.kind(d.kind), target: m.str(d.target()), reason: m.text(reason),
				})
			}
		}
	case "rejected":
		ns.nRejected++
		if write {
			m := &lin.mem
			lin.rejected = append(lin.rejected, rejection{
				pos: ev.Pos, seq: m.raw(l.seq), kind: m.kind(d.kind), target: m.str(d.target()),
				reason: m.text(l.reason), timestamp: m.str(l.timestamp),
			})
		}
	case "checkpoint":
		ns.checkpoint = cp
	}
	if write {
		lin.record(ns.v)
	}
	lin.mu.Unlock()
	if write {
		return lin.place(&ns, ev.Pos)
	}
	return &ns
}

// appendTurns returns turns plus the new ones whose turnId is not there yet
// (appendSourceTurns), kept in m. It never modifies turns.
func appendTurns(m *store, turns lst, add []sourceRef) lst {
	old := m.turnList(turns)
	buf := append(m.tbuf[:0], old...)
	var seen map[string]bool
	if len(old)+len(add) > 16 {
		seen = make(map[string]bool, len(old)+len(add))
		for _, t := range old {
			seen[m.s(t.id)] = true
		}
	}
	for _, t := range add {
		if seen != nil {
			if seen[t.turnID] {
				continue
			}
			seen[t.turnID] = true
		} else if hasTurn(m, buf, t.turnID) {
			continue
		}
		buf = append(buf, turn{m.str(t.turnID), m.raw(t.off)})
	}
	m.tbuf = buf
	if len(buf) == len(old) {
		return turns
	}
	return lst(m.turns.add(buf))
}

func hasTurn(m *store, ts []turn, id string) bool {
	for _, t := range ts {
		if m.s(t.id) == id {
			return true
		}
	}
	return false
}

// unionTags is [...new Set([...a, ...b])], kept in m.
func unionTags(m *store, a lst, b []string) lst {
	old := m.tagList(a)
	buf := m.sbuf[:0]
	var seen map[string]bool
	if len(old)+len(b) > 16 {
		seen = make(map[string]bool, len(old)+len(b))
	}
	has := func(t string) bool {
		if seen != nil {
			if seen[t] {
				return true
			}
			seen[t] = true
			return false
		}
		for _, r := range buf {
			if m.s(r) == t {
				return true
			}
		}
		return false
	}
	for _, r := range old {
		if !has(m.s(r)) {
			buf = append(buf, r)
		}
	}
	for _, t := range b {
		if !has(t) {
			buf = append(buf, m.str(t))
		}
	}
	m.sbuf = buf
	return lst(m.tags.add(buf))
}

// hasTag reports whether tags holds tag.
func hasTag(m *store, tags lst, tag string) bool {
	for _, r := range m.tagList(tags) {
		if m.s(r) == tag {
			return true
		}
	}
	return false
}

// reconcile applies one delta to ns (a copy of the old state, its version
// incremented, whose lineage is locked) as reconciler.ts applyDelta does,
// reading the items as of the old version and, when write is set,
// recording the changed item. It returns the rejection reason, or "".
func (f format) reconcile(ns *state, d *delta, write bool) string {
	if len(d.turns) == 0 {
		return "Missing provenance: sourceTurns is empty"
	}
	switch d.kind {
	case "decision_made":
		f.upsert(ns, d, kDecision, d.summary, sActive, d.confidence, nil, write)
	case "constraint_added":
		conf, tags := "high", []string{"soft"}
		if d.hard {
			conf, tags = "certain", []string{"hard"}
		}
		f.upsert(ns, d, kConstraint, d.summary, sActive, conf, tags, write)
	case "task_opened":
		f.upsert(ns, d, kTask, d.summary, sActive, "high", nil, write)
	case "fact_learned":
		f.upsert(ns, d, kFact, d.summary, sActive, d.confidence, nil, write)
	case "hypothesis_introduced":
		f.upsert(ns, d, kHypothesis, d.summary, sTentative, d.confidence, nil, write)
	case "goal_set":
		f.upsert(ns, d, kGoal, d.summary, sActive, d.confidence, nil, write)
	case "branch_created":
		tags := append([]string{"branch"}, d.alternatives...)
		f.upsert(ns, d, kHypothesis, strings.Join(d.alternatives, " | "), sTentative, "medium", tags, write)
	case "decision_revised", "constraint_revised", "task_closed", "item_superseded":
		old, idx, ok := ns.lin.get(d.targetID, ns.v-1)
		if !ok {
			return d.kind + ` target "` + d.targetID + `" not found`
		}
		want := ""
		switch d.kind {
		case "decision_revised":
			want = "decision"
		case "constraint_revised":
			want = "constraint"
		case "task_closed":
			want = "task"
		}
		if want != "" && old.kindName() != want {
			return d.kind + ` target "` + d.targetID + `" is ` + old.kindName() + ", not " + want
		}
		ns.seq++
		if !write {
			return ""
		}
		m := &ns.lin.mem
		it := *old
		switch d.kind {
		case "decision_revised":
			it.summary = m.text(d.summary)
			if d.confidence != "" {
				it.confidence = m.conf(d.confidence)
			}
		case "constraint_revised":
			it.summary = m.text(d.summary)
			if d.mode != "" {
				it.tags = unionTags(m, old.tags, []string{d.mode})
				it.branch = hasTag(m, it.tags, "branch")
			}
		case "task_closed":
			it.status = sResolved
			it.summary = m.text(m.s(old.summary) + " → " + d.resolution)
		case "item_superseded":
			it.status = sSuperseded
			it.summary = m.text(m.s(old.summary) + " [superseded: " + d.reason + "]")
		}
		it.turns = appendTurns(m, old.turns, d.turns)
		it.lastTouched = m.str(d.timestamp)
		f.touch(m, &it, d.targetID, ns.seq, d)
		ns.lin.set(idx, &it, ns.v)
	default:
		return "Unknown delta kind: " + d.kind
	}
	return ""
}

// upsert is reconciler.ts upsertItem: a new item in creation order, or an
// update of the existing one (whose kind and scope never change).
func (f format) upsert(ns *state, d *delta, kind uint8, summary string, status uint8, confidence string, tags []string, write bool) {
	ns.seq++
	old, idx, ok := ns.lin.get(d.id, ns.v-1)
	if !ok {
		ns.nItems++
	}
	if !write {
		return
	}
	m := &ns.lin.mem
	var it item
	if ok {
		it = *old
		it.turns = appendTurns(m, old.turns, d.turns)
		if tags != nil {
			it.tags = unionTags(m, old.tags, tags)
		}
	} else {
		it = item{id: m.str(d.id), kind: kind, turns: m.newTurns(d.turns), tags: m.list(tags)}
	}
	it.branch = hasTag(m, it.tags, "branch")
	it.status, it.confidence = status, m.conf(confidence)
	it.summary, it.sid = ns.lin.summary(kind, summary)
	it.sidKind = kind
	it.lastTouched = m.str(d.timestamp)
	f.touch(m, &it, d.id, ns.seq, d)
	if ok {
		ns.lin.set(idx, &it, ns.v)
	} else {
		ns.lin.set(-1, &it, ns.v)
	}
}

// touch records that the delta applied as number seq touched it (whose id
// is id), and takes the snapshot's lastTouched when the snapshot's last
// touch of the item is this very delta.
func (f format) touch(m *store, it *item, id string, seq int64, d *delta) {
	it.touches++
	it.lastSeq = seq
	if f.snap == nil {
		return
	}
	if t, ok := f.snap[id]; ok && t.index == seq && t.count == int(it.touches) && t.kind == d.kind && t.timestamp == d.timestamp {
		it.lastTouched = m.str(t.lastTouched)
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
