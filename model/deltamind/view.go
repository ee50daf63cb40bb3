package deltamind

import (
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

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
	d := s.lin.decoder(walkWin)
	items := make([]any, 0, s.nItems)
	for i := range s.nItems {
		it := d.item(i, s.seq)
		items = append(items, it.object())
	}
	rej := make([]any, 0, s.nRejected)
	for i := range int(s.nRejected) {
		rej = append(rej, d.entry(s.lin.rec(false, i), false))
	}
	dis := make([]any, 0, s.nDisagreements)
	for i := range int(s.nDisagreements) {
		dis = append(dis, d.entry(s.lin.rec(true, i), true))
	}
	return s.view(items, rej, dis)
}

// rec returns rejected line i, or disagreement i.
func (l *lineage) rec(disagreement bool, i int) rec {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.recList(disagreement).at(i)
}

// recs returns rejected lines (or disagreements) lo to hi-1, read under
// one lock.
func (l *lineage) recs(disagreement bool, lo, hi int) []rec {
	out := make([]rec, 0, hi-lo)
	l.mu.Lock()
	defer l.mu.Unlock()
	list := l.recList(disagreement)
	for i := lo; i < hi; i++ {
		out = append(out, list.at(i))
	}
	return out
}

// recList returns the rejected lines, or the disagreements. The caller
// holds l.mu.
func (l *lineage) recList(disagreement bool) *dense[rec] {
	if disagreement {
		return &l.disagreements
	}
	return &l.rejected
}

// view returns the view with the given items, rejected and disagreements
// lists (whole or windows).
func (s *state) view(items, rej, dis any) model.Object {
	return obj("seq", s.seq, "items", items, "rejected", rej, "deltas", s.seq, "checkpoint", s.checkpointObject(), "disagreements", dis)
}

// checkpointObject returns the last checkpoint line as the view shows it,
// or nil.
func (s *state) checkpointObject() any {
	c := s.checkpoint
	if c == nil {
		return nil
	}
	return obj("seq", c.seq, "timestamp", c.timestamp, "totalItems", c.totalItems.Value(), "totalDeltas", c.totalDeltas.Value(),
		"totalTurns", c.totalTurns.Value(), "contextChars", c.contextChars.Value(), "rawChars", c.rawChars.Value())
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

// Sniff reports whether raw, one journal line, looks like a DeltaMind
// provenance.jsonl line: an object whose "type" is "accepted", "rejected"
// or "checkpoint", with a numeric "seq" and a "delta" object (or, for
// checkpoints, "totalItems").
func Sniff(raw []byte) bool {
	var l struct {
		Type       string         `json:"type"`
		Seq        jsontext.Value `json:"seq"`
		Delta      jsontext.Value `json:"delta"`
		TotalItems jsontext.Value `json:"totalItems"`
	}
	if model.Unmarshal(raw, &l) != nil || l.Seq.Kind() != '0' {
		return false
	}
	switch l.Type {
	case "accepted", "rejected":
		return l.Delta.Kind() == '{'
	case "checkpoint":
		return l.TotalItems.Kind() == '0'
	}
	return false
}
