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
// The fold reads of each line only the few members the next lines depend
// on (scan), and keeps no text: the states of one replay share one history
// of pointer-free entries that say where each line is in the journal (see
// lineage), and the views read the lines back and decode them when asked
// (see decoder). A keyframe costs a state struct.
//
// DeltaMind has no human decisions: the states never have pending items.
package deltamind

import (
	"encoding/json"

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
func (f format) Init() model.State { return &state{lin: newLineage(f), item: -1} }

// Docs returns ACTIVE_STATE, DECISIONS, TASKS and CONSTRAINTS.
func (format) Docs() []string {
	return []string{DocActiveState, DocDecisions, DocTasks, DocConstraints}
}

// sourceRef is one entry of a delta's sourceTurns: {turnId, offset?}.
type sourceRef struct {
	turnID string
	off    []byte // the offset as written, nil if absent or null
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

// state is an ActiveContextState plus what the journal says about rejected
// deltas and checkpoints: a version of its lineage, which holds the items
// and the lists. It is immutable.
//
// The fields below lin each change exactly when the part of the view they
// stand for changes (seq and item with the items), so that replay's blame,
// which compares states field by field, can tell which top-level fields a
// line touched.
type state struct {
	lin *lineage
	v   int64 // the lines that changed the state; its version of lin
	seq int64 // the item versions it sees (the first seq of lin.ivs)
	// Lengths of lin's lists as this state sees them.
	nItems, nRejected, nDisagreements int32
	// item is the index of the item the last item version changed, -1
	// before one (for Touched).
	item       int32
	checkpoint *checkpointLine // the last checkpoint line, nil before one
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
	if n, ok := intSeq(raw); ok {
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
			typ, ok = v, rawjson.IsStr(v)
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

// checkpoint returns the checkpoint line raw, or false when it is not one
// the fold takes (line.parse fails, or a total is not an integer or null).
func checkpoint(raw []byte) (*checkpointLine, bool) {
	var l line
	if !l.parse(raw) || l.typ != "checkpoint" || !l.totalsOK {
		return nil, false
	}
	cp := &checkpointLine{seq: seqValue(l.seq), timestamp: l.timestamp}
	cp.totalItems, cp.totalDeltas, cp.totalTurns, cp.contextChars, cp.rawChars = l.totals[0], l.totals[1], l.totals[2], l.totals[3], l.totals[4]
	return cp, true
}

// Apply folds one provenance.jsonl line into s. Lines whose fields have the
// wrong JSON types, and lines of other types, leave s unchanged. It may be
// called from several goroutines at once, on states of one lineage or not.
func (f format) Apply(st model.State, ev model.Event) model.State {
	return f.applyLine(st, ev, nil, persistent)
}

// applyLine is Apply with own (see apply), reading ev's line from pl
// when Prepare read it (nil: from ev.Raw).
func (f format) applyLine(st model.State, ev model.Event, pl *preparedLine, own int) model.State {
	s, ok := st.(*state)
	if !ok || s == nil {
		return st
	}
	if pl != nil {
		if !pl.ok {
			return s
		}
		return f.apply(s, ev, &pl.sc, own)
	}
	var sc scanned
	if !sc.scan(ev.Raw) {
		return s
	}
	return f.apply(s, ev, &sc, own)
}

// Prepare scans each line of a batch as Apply does (scanned.scan, through
// layouts) into a []preparedLine (model.PrepareLines); see model.Preparer.
func (f format) Prepare(lines [][]byte, prev any) any { return f.PrepareEnds(lines, nil, prev) }

// PrepareEnds is Prepare reading each line where the index found its
// scalars (model.EndsPreparer, layouts.scanLayout).
func (format) PrepareEnds(lines [][]byte, scalars []model.LineScalars, prev any) any {
	t := layoutPool.Get().(*layouts)
	defer layoutPool.Put(t)
	return model.PrepareLinesScalars(lines, scalars, prev, func(line []byte, ls *model.LineScalars, pl *preparedLine) {
		var read bool
		if pl.ok, read = pl.sc.scanLayout(t, line, ls); !read {
			pl.ok = pl.sc.scan(line)
		}
	})
}

// preparedLine is what Prepare read of one line: scan's result and what
// it returned.
type preparedLine struct {
	sc scanned
	ok bool
}

// ApplyPrepared is Apply(st, ev), ev's line being the i-th of the batch
// Prepare read into p.
func (f format) ApplyPrepared(st model.State, ev model.Event, p any, i int) model.State {
	return f.applyLine(st, ev, model.Prepared[preparedLine](p, i), persistent)
}

// ApplyPreparedInPlace is ApplyPrepared for a one-shot fold
// (model.InPlacePreparer): when mine is set, the line is folded into s
// itself, unless a state after s exists (then, as always, into a copy);
// the states it makes are not kept for the lineage's keyframes.
func (f format) ApplyPreparedInPlace(st model.State, ev model.Event, p any, i int, mine bool) model.State {
	own := oneShot
	if mine {
		own = oneShotMine
	}
	return f.applyLine(st, ev, model.Prepared[preparedLine](p, i), own)
}

// How apply treats the state it is given and the one it makes.
const (
	// persistent: s stays as it is; the new state is kept in the
	// lineage's slab at keyframe positions (lineage.place).
	persistent = iota
	// oneShot: s stays as it is; the new state is kept by no one.
	oneShot
	// oneShotMine: s is the caller's alone, and the line is folded into
	// it when it is its lineage's newest state.
	oneShotMine
)

// apply is Apply for the line of ev, which scan read into sc; own says
// what it may do with s (persistent, oneShot, oneShotMine).
func (f format) apply(s *state, ev model.Event, sc *scanned, own int) model.State {
	var ok bool
	var cp *checkpointLine
	step := uint8(stepItem)
	switch sc.typ {
	case lineAccepted:
		if !sc.delta {
			return s
		}
	case lineRejected:
		if !sc.delta {
			return s
		}
		step = stepRejected
	case lineCheckpoint:
		if cp, ok = checkpoint(ev.Raw); !ok {
			return s
		}
		step = stepCheckpoint
	default:
		return s
	}
	lin := s.lin
	lin.mu.Lock()
	behind := lin.claimed != s.v
	ns := s
	if own != oneShotMine || behind {
		ns = new(state)
		*ns = *s
	}
	ns.v++
	if behind {
		// A state after s exists: reuse its step if this is the same
		// line, fork otherwise.
		if lin.reuse(f, ns, sc, ev, cp) {
			lin.mu.Unlock()
			return ns
		}
		nl := lin.fork(s)
		lin.mu.Unlock()
		lin = nl
		lin.mu.Lock()
	}
	ns.lin = lin
	from, to := uint8(noClass), uint8(noClass)
	switch step {
	case stepItem:
		vd := lin.judge(ns, sc)
		if vd.why != whyNone {
			step = stepDisagreement
			ns.nDisagreements++
			lin.disagreements.add(rec{loc: lin.locate(ev, sc), pos: recPos(ev.Pos, sc.prog, vd.why, vd.oldKind)})
			break
		}
		from, to = vd.from, vd.to
		k := lin.ivs.len()
		lin.ivs.add(withClass(lin.locate(ev, sc), to), sc.prog)
		if vd.item < 0 {
			lin.revs.add(-1)
			ns.item = int32(lin.items.add(uint32(k)))
			lin.ids.add(sc.ref, ns.item)
		} else {
			lin.revs.add(int32(lin.items.at(int(vd.item))))
			lin.items.set(int(vd.item), uint32(k))
			ns.item = vd.item
		}
		if vi := lin.variant(f); vi != 0 {
			if lin.other == nil {
				lin.other = map[uint32]uint8{}
			}
			lin.other[uint32(k)] = vi
		}
	case stepRejected:
		ns.nRejected++
		lin.rejected.add(rec{loc: lin.locate(ev, sc), pos: recPos(ev.Pos, sc.prog, 0, 0)})
	case stepCheckpoint:
		ns.checkpoint = cp
	}
	lin.recordStep(ns.v, step, from, to)
	lin.mu.Unlock()
	if own != persistent {
		return ns
	}
	return lin.place(ns, ev.Pos)
}

// reuse folds into ns (a copy of a state that is not its lineage's newest,
// its version incremented) the line that its lineage recorded as version
// ns.v, and reports whether ev is that line (sc and cp are what Apply read
// of it). The caller holds l.mu.
func (l *lineage) reuse(f format, ns *state, sc *scanned, ev model.Event, cp *checkpointLine) bool {
	if ns.v > l.claimed {
		return false
	}
	switch l.step(ns.v) {
	case stepItem:
		k := ns.seq
		if sc.typ != lineAccepted || k >= int64(l.ivs.len()) || !l.matches(l.ivs.at(int(k)), ev, sc) || !sameVariant(l.variantOf(int32(k)), f) {
			return false
		}
		ns.seq++
		if l.revs.prev(int(k)) < 0 {
			ns.item = ns.nItems
			ns.nItems++
		} else {
			ns.item, _ = l.lookup(sc.ref, ns.nItems)
		}
	case stepRejected:
		k := int(ns.nRejected)
		if sc.typ != lineRejected || k >= l.rejected.len() || !l.matchesRec(l.rejected.at(k), ev, sc) {
			return false
		}
		ns.nRejected++
	case stepDisagreement:
		k := int(ns.nDisagreements)
		if sc.typ != lineAccepted || k >= l.disagreements.len() || !l.matchesRec(l.disagreements.at(k), ev, sc) {
			return false
		}
		ns.nDisagreements++
	case stepCheckpoint:
		if cp == nil {
			return false
		}
		ns.checkpoint = cp
	}
	return true
}

// matchesRec reports whether r is the record of event ev, whose line sc
// read.
func (l *lineage) matchesRec(r rec, ev model.Event, sc *scanned) bool {
	return r.at() == ev.Pos && l.matches(r.loc, ev, sc)
}

// isRevision reports whether delta kind k changes an existing item (by
// targetId) rather than creating or upserting one (by id).
func isRevision(k int8) bool {
	return k == dDecisionRevised || k == dConstraintRevised || k == dTaskClosed || k == dItemSuperseded
}

// verdict is what reconciler.ts applyDelta does with a delta: reject it
// (why, and for whyKind the target's kind), or change item (-1 for a new
// one), which moves from class from (noClass for a new item) to class to.
type verdict struct {
	why, oldKind uint8
	item         int32
	from, to     uint8
}

// judge returns what the reconciler does with the delta sc read, applied
// to ns (whose seq and nItems it increments when the delta applies). The
// caller holds ns.lin.mu.
func (l *lineage) judge(ns *state, sc *scanned) verdict {
	if sc.turns == 0 {
		return verdict{why: whyMissing}
	}
	var kind, status uint8
	switch sc.kind {
	case dDecisionMade:
		kind, status = kDecision, sActive
	case dConstraintAdded:
		kind, status = kConstraint, sActive
	case dTaskOpened:
		kind, status = kTask, sActive
	case dFactLearned:
		kind, status = kFact, sActive
	case dHypothesisIntroduced, dBranchCreated:
		kind, status = kHypothesis, sTentative
	case dGoalSet:
		kind, status = kGoal, sActive
	case dDecisionRevised, dConstraintRevised, dTaskClosed, dItemSuperseded:
		i, ok := l.lookup(sc.ref, ns.nItems)
		if !ok {
			return verdict{why: whyNotFound}
		}
		old := l.classAt(i, ns.seq)
		ok, want := kindOfClass(old) == kTask, uint8(kTask)
		switch sc.kind {
		case dDecisionRevised:
			ok, want = kindOfClass(old) == kDecision, kDecision
		case dConstraintRevised:
			ok, want = kindOfClass(old) == kConstraint, kConstraint
		case dItemSuperseded:
			ok = true
		}
		if !ok {
			return verdict{why: whyKind, oldKind: kindOfClass(old), item: int32(want)}
		}
		status := statusOfClass(old)
		switch sc.kind {
		case dTaskClosed:
			status = sResolved
		case dItemSuperseded:
			status = sSuperseded
		}
		branch := branchOfClass(old) || sc.kind == dConstraintRevised && sc.branch
		ns.seq++
		return verdict{item: i, from: old, to: classFor(kindOfClass(old), status, branch)}
	default:
		return verdict{why: whyUnknown}
	}
	ns.seq++
	i, ok := l.lookup(sc.ref, ns.nItems)
	if !ok {
		ns.nItems++
		return verdict{item: -1, from: noClass, to: classFor(kind, status, sc.kind == dBranchCreated)}
	}
	old := l.classAt(i, ns.seq-1)
	return verdict{item: i, from: old, to: classFor(kindOfClass(old), status, branchOfClass(old) || sc.kind == dBranchCreated)}
}

// reason returns the rejection reason reconciler.ts gives for why, for a
// delta of kind kind whose targetId is target and whose target has kind
// oldKind.
func reason(why, oldKind uint8, kind, target string) string {
	switch why {
	case whyMissing:
		return "Missing provenance: sourceTurns is empty"
	case whyNotFound:
		return kind + ` target "` + target + `" not found`
	case whyKind:
		want := "task"
		switch kind {
		case "decision_revised":
			want = "decision"
		case "constraint_revised":
			want = "constraint"
		}
		return kind + ` target "` + target + `" is ` + itemKinds[oldKind] + ", not " + want
	case whyUnknown:
		return "Unknown delta kind: " + kind
	}
	return ""
}

// obj builds a model.Object from alternating keys and values.
func obj(kv ...any) model.Object {
	o := make(model.Object, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, model.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return o
}
