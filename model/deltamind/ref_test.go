package deltamind_test

// This file is the DeltaMind fold as it was before it read lines with
// rawjson (commit a7c85d4: deltamind.go, snapshot.go, view.go, render.go
// and semanticid.go, without Sniff), kept as the reference that
// TestMatchesReference compares the current fold with, byte for byte. Only
// the package name and the names refFormat and refWithSnapshot differ.

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/benbjohnson/immutable"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// Format is the DeltaMind format (model.DeltaMind). Its states stamp each
// item's lastTouched with the timestamp of the delta that last touched it;
// see WithSnapshot for the variant that matches a snapshot.json.
var refFormat model.Format = format{}

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

// snapTouch is the last touch of one item as snapshot.json records it.
type snapTouch struct {
	index       int64  // 1-based position of the touching delta in deltaLog
	count       int    // deltas in deltaLog that touch the item
	kind        string // the touching delta's kind
	timestamp   string // the touching delta's timestamp
	lastTouched string // the snapshot item's lastTouched
}

// WithSnapshot returns a variant of Format for the journal whose
// .deltamind/snapshot.json (StateSnapshot, version 1) is snapshotJSON.
//
// DeltaMind stamps items it creates or upserts with the wall-clock time,
// which provenance.jsonl does not record. The variant gives an item the
// snapshot's lastTouched when the delta that last touched it in the replay
// is the one that last touched it in the snapshot's deltaLog (same index,
// same number of touches, same kind and timestamp), so documents rendered
// at the snapshot's position equal DeltaMind's byte for byte. Other items
// keep their delta's timestamp.
//
// It returns an error when snapshotJSON is not a snapshot object, and
// "snapshot version mismatch: N (rewind reads version 1)" when its version
// is not 1, as DeltaMind's parseSnapshot refuses it.
func refWithSnapshot(snapshotJSON []byte) (model.Format, error) {
	var snap struct {
		Version jsontext.Value `json:"version"`
		Items   []struct {
			ID          string `json:"id"`
			LastTouched string `json:"lastTouched"`
		} `json:"items"`
		DeltaLog []jsontext.Value `json:"deltaLog"`
	}
	if err := model.Unmarshal(snapshotJSON, &snap); err != nil {
		return nil, fmt.Errorf("deltamind snapshot: %w", err)
	}
	if string(snap.Version) != "1" {
		v := string(snap.Version)
		if v == "" {
			v = "undefined"
		}
		return nil, fmt.Errorf("snapshot version mismatch: %s (rewind reads version 1)", v)
	}
	touches := map[string]snapTouch{}
	for i, raw := range snap.DeltaLog {
		d, ok := decodeDelta(raw)
		if !ok {
			return nil, fmt.Errorf("deltamind snapshot: deltaLog[%d] is not a delta", i)
		}
		id := d.target()
		t := touches[id]
		t.index, t.kind, t.timestamp = int64(i+1), d.Kind, d.Timestamp
		t.count++
		touches[id] = t
	}
	f := format{snap: map[string]snapTouch{}}
	for _, it := range snap.Items {
		if t, ok := touches[it.ID]; ok {
			t.lastTouched = it.LastTouched
			f.snap[it.ID] = t
		}
	}
	return f, nil
}

// View returns the state's fields in this order:
//
//   - "seq": the number of accepted deltas applied (int64), the
//     "Sequence:" of ACTIVE_STATE.
//   - "items": the items in creation order, each a snapshot.json
//     SnapshotItem {id, semanticId?, kind, summary, status, confidence,
//     scope, sourceTurns [{turnId, offset?}], lastTouched, tags?}, optional
//     keys omitted when empty.
//   - "rejected": the rejected lines, each {seq, kind, target, reason,
//     timestamp, at}, where target is the delta's id or targetId and at the
//     line's position.
//   - "deltas": the length of the delta log (int64).
//   - "checkpoint": the last checkpoint line {seq, timestamp, totalItems,
//     totalDeltas, totalTurns, contextChars, rawChars}, or null.
//   - "disagreements": accepted lines this replay had to reject, each {seq,
//     kind, target, reason, at}.
func (s *state) View() model.Object {
	items := make([]any, 0, s.items.Len())
	for it := s.items.Iterator(); !it.Done(); {
		_, v := it.Next()
		items = append(items, v.object())
	}
	rej := make([]any, 0, s.rejected.Len())
	for it := s.rejected.Iterator(); !it.Done(); {
		_, r := it.Next()
		rej = append(rej, obj("seq", r.seq, "kind", r.kind, "target", r.target, "reason", r.reason, "timestamp", r.timestamp, "at", r.pos))
	}
	dis := make([]any, 0, s.disagreements.Len())
	for it := s.disagreements.Iterator(); !it.Done(); {
		_, d := it.Next()
		dis = append(dis, obj("seq", d.seq, "kind", d.kind, "target", d.target, "reason", d.reason, "at", d.pos))
	}
	var cp any
	if s.checkpoint != nil {
		cp = s.checkpoint
	}
	return obj("seq", s.seq, "items", items, "rejected", rej, "deltas", s.seq, "checkpoint", cp, "disagreements", dis)
}

func (it *item) object() model.Object {
	o := obj("id", it.id)
	if it.semanticID != "" {
		o = append(o, model.Field{Key: "semanticId", Value: it.semanticID})
	}
	turns := make([]any, 0, len(it.turns))
	for _, t := range it.turns {
		to := obj("turnId", t.turnID)
		if t.offset != nil {
			to = append(to, model.Field{Key: "offset", Value: t.offset})
		}
		turns = append(turns, to)
	}
	o = append(o, obj("kind", it.kind, "summary", it.summary, "status", it.status, "confidence", it.confidence, "scope", it.scope, "sourceTurns", turns, "lastTouched", it.lastTouched)...)
	if len(it.tags) > 0 {
		tags := make([]any, len(it.tags))
		for i, t := range it.tags {
			tags[i] = t
		}
		o = append(o, model.Field{Key: "tags", Value: tags})
	}
	return o
}

// Describe returns the timeline row of one provenance.jsonl line: Key is
// the line's seq as written, Type the line type ("accepted", "rejected",
// "checkpoint"), Actor the delta kind, Time the line's timestamp. Rejected
// lines are problems. Fields of the wrong type are left out.
func (format) Describe(ev model.Event) model.Row {
	var fields map[string]jsontext.Value
	if model.Unmarshal(ev.Raw, &fields) != nil {
		return model.Row{Summary: "not a JSON object", Problem: true}
	}
	str := func(m map[string]jsontext.Value, k string) string {
		var s string
		if v, ok := m[k]; ok && v.Kind() == '"' {
			_ = model.Unmarshal(v, &s)
		}
		return s
	}
	row := model.Row{Type: str(fields, "type"), Time: model.ParseTime(str(fields, "timestamp"))}
	if v, ok := fields["seq"]; ok {
		switch v.Kind() {
		case '0':
			row.Key = string(v)
		case '"':
			row.Key = str(fields, "seq")
		}
	}
	var d map[string]jsontext.Value
	if v, ok := fields["delta"]; ok && v.Kind() == '{' {
		_ = model.Unmarshal(v, &d)
	}
	kind := str(d, "kind")
	row.Actor = kind
	target := str(d, "id")
	if target == "" || strings.HasSuffix(kind, "_revised") || kind == "task_closed" || kind == "item_superseded" {
		if t := str(d, "targetId"); t != "" {
			target = t
		}
	}
	var what string
	switch kind {
	case "task_closed":
		what = str(d, "resolution")
	case "item_superseded":
		what = str(d, "reason")
	case "branch_created":
		var alts []string
		if v, ok := d["alternatives"]; ok && v.Kind() == '[' {
			var raw []jsontext.Value
			_ = model.Unmarshal(v, &raw)
			for _, a := range raw {
				var s string
				if a.Kind() == '"' && model.Unmarshal(a, &s) == nil {
					alts = append(alts, s)
				}
			}
		}
		what = strings.Join(alts, " | ")
	default:
		what = str(d, "summary")
	}
	head := strings.TrimSpace(kind + " " + target)
	switch row.Type {
	case "accepted":
		row.Summary = head + ": " + what
	case "rejected":
		row.Summary = "rejected " + head + ": " + str(fields, "reason")
		row.Problem = true
	case "checkpoint":
		row.Summary = "checkpoint: " + num(fields, "totalItems") + " items, " +
			num(fields, "totalDeltas") + " deltas, " + num(fields, "totalTurns") + " turns"
	default:
		row.Summary = "unknown line type"
	}
	return row
}

func num(m map[string]jsontext.Value, k string) string {
	if v, ok := m[k]; ok && v.Kind() == '0' {
		return string(v)
	}
	return "?"
}

// Render returns projection doc of s exactly as DeltaMind's projections.ts
// writes it (renderActiveState, renderDecisions, renderTasks,
// renderConstraints): lines joined by "\n", each section present only when
// it has items, items in creation order. An unknown doc renders as "".
func (format) Render(st model.State, doc string) string {
	s, ok := st.(*state)
	if !ok {
		return ""
	}
	var lines []string
	section := func(title string, short bool, keep func(*item) bool) {
		var body []string
		for it := s.items.Iterator(); !it.Done(); {
			_, v := it.Next()
			if !keep(v) {
				continue
			}
			if short {
				body = append(body, renderItem(v))
			} else {
				body = append(body, renderItemDetailed(v))
			}
		}
		if len(body) > 0 {
			lines = append(lines, title, "")
			lines = append(lines, body...)
			lines = append(lines, "")
		}
	}
	is := func(kind, status string) func(*item) bool {
		return func(it *item) bool {
			return (kind == "" || it.kind == kind) && it.status == status
		}
	}
	switch doc {
	case DocActiveState:
		lines = append(lines, "# Active State", "",
			"> Sequence: "+strconv.FormatInt(s.seq, 10)+" | Items: "+strconv.Itoa(s.index.Len())+
				" | Deltas: "+strconv.FormatInt(s.seq, 10), "")
		section("## Goals", true, is("goal", "active"))
		section("## Decisions", true, is("decision", "active"))
		section("## Constraints", true, is("constraint", "active"))
		section("## Open Tasks", true, is("task", "active"))
		section("## Unresolved Branches", true, func(it *item) bool {
			return it.kind == "hypothesis" && it.status == "tentative" && hasTag(it, "branch")
		})
		section("## Superseded", true, is("", "superseded"))
	case DocDecisions:
		lines = append(lines, "# Decisions", "")
		section("## Active", false, is("decision", "active"))
		section("## Superseded", false, is("decision", "superseded"))
	case DocTasks:
		lines = append(lines, "# Tasks", "")
		section("## Open", false, is("task", "active"))
		section("## Resolved", false, is("task", "resolved"))
	case DocConstraints:
		lines = append(lines, "# Constraints", "")
		section("## Active", false, is("constraint", "active"))
	default:
		return ""
	}
	return strings.Join(lines, "\n")
}

func hasTag(it *item, tag string) bool {
	for _, t := range it.tags {
		if t == tag {
			return true
		}
	}
	return false
}

// suffix is the " [confidence]" and " (tags)" ending of both item forms.
func suffix(it *item) string {
	var b strings.Builder
	if it.confidence != "high" {
		b.WriteString(" [" + it.confidence + "]")
	}
	if len(it.tags) > 0 {
		b.WriteString(" (" + strings.Join(it.tags, ", ") + ")")
	}
	return b.String()
}

// renderItem is projections.ts renderItem.
func renderItem(it *item) string {
	return "- **" + it.id + "**: " + it.summary + suffix(it)
}

// renderItemDetailed is projections.ts renderItemDetailed: a heading, a
// blank line, four list lines and a final empty line.
func renderItemDetailed(it *item) string {
	turns := make([]string, len(it.turns))
	for i, t := range it.turns {
		turns[i] = t.turnID
	}
	return strings.Join([]string{
		"### " + it.id + ": " + it.summary + suffix(it),
		"",
		"- Status: " + it.status,
		"- Confidence: " + it.confidence,
		"- Source turns: " + strings.Join(turns, ", "),
		"- Last touched: " + it.lastTouched,
		"",
	}, "\n")
}

// stopWords and verbNormalizations are those of DeltaMind's
// extractor/semantic-id.ts.
var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "being": true,
	"to": true, "for": true, "of": true, "in": true, "on": true, "at": true, "by": true, "with": true, "from": true,
	"and": true, "or": true, "but": true, "not": true, "no": true, "so": true, "if": true, "then": true, "than": true,
	"that": true, "this": true, "it": true, "its": true, "we": true, "our": true, "they": true, "their": true,
	"will": true, "would": true, "should": true, "could": true, "can": true, "may": true, "might": true,
	"do": true, "does": true, "did": true, "has": true, "have": true, "had": true,
}

type verbRule struct {
	word string
	re   *regexp.Regexp
	repl string
}

var verbNormalizations = func() []verbRule {
	pairs := [][2]string{
		{"using", "use"}, {"building", "build"}, {"writing", "write"}, {"creating", "create"},
		{"implementing", "implement"}, {"adding", "add"}, {"running", "run"}, {"making", "make"},
		{"sending", "send"}, {"storing", "store"}, {"switching", "switch"}, {"changing", "change"},
		{"replacing", "replace"}, {"removing", "remove"}, {"updating", "update"},
	}
	out := make([]verbRule, len(pairs))
	for i, p := range pairs {
		// Go's \b, like JavaScript's without the u flag, is an ASCII word
		// boundary.
		out[i] = verbRule{p[0], regexp.MustCompile(`\b` + p[0] + `\b`), p[1]}
	}
	return out
}()

var kindPrefix = map[string]string{
	"fact": "f", "preference": "p", "goal": "g", "decision": "d", "hypothesis": "h",
	"rejected_option": "r", "open_question": "q", "task": "t", "dependency": "dep",
	"risk": "rsk", "constraint": "c", "artifact": "a",
}

// isJSSpace reports whether r is matched by JavaScript's \s.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// jsLower is String.prototype.toLowerCase: strings.ToLower plus the two
// unconditional and contextual mappings Go does not apply (U+0130 becomes
// "i\u0307"; a capital sigma at the end of a word becomes final sigma).
func jsLower(s string) string {
	if !strings.ContainsAny(s, "\u0130\u03a3") {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 0x130:
			b.WriteString("i\u0307")
		case r == 0x3a3 && i > 0 && unicode.IsLetter(rs[i-1]) && (i+1 == len(rs) || !unicode.IsLetter(rs[i+1])):
			b.WriteRune(0x3c2)
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// semanticID returns DeltaMind's semanticId for an item of kind with
// summary: the kind prefix, "-", and the FNV-1a 32-bit hash (8 hex digits) of
// the summary's canonical tokens sorted by UTF-16 code units.
func semanticID(kind, summary string) string {
	prefix, ok := kindPrefix[kind]
	if !ok {
		// kind.charAt(0): the first UTF-16 code unit.
		u := utf16.Encode([]rune(kind))
		if len(u) > 0 {
			prefix = string(utf16.Decode(u[:1]))
		}
	}
	s := jsLower(summary)
	for _, v := range verbNormalizations {
		if strings.Contains(s, v.word) { // the regexp only where it can match
			s = v.re.ReplaceAllString(s, v.repl)
		}
	}
	var tokens [][]uint16
	for _, w := range strings.FieldsFunc(s, isJSSpace) {
		if !stopWords[w] {
			tokens = append(tokens, utf16.Encode([]rune(w)))
		}
	}
	slices.SortStableFunc(tokens, slices.Compare[[]uint16])
	h := uint32(0x811c9dc5)
	for i, t := range tokens {
		if i > 0 {
			h ^= ' '
			h *= 0x01000193
		}
		for _, c := range t {
			h ^= uint32(c)
			h *= 0x01000193
		}
	}
	hex := strconv.FormatUint(uint64(h), 16)
	return prefix + "-" + strings.Repeat("0", 8-len(hex)) + hex
}
