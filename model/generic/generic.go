// Package generic reads any JSON Lines journal whose records are objects
// with a string "type", for systems rewind has no dedicated format for.
//
// The fold counts events per type, keeps the last event of each type, and
// follows one request convention: a "<name>.requested" event with an id
// (payload.id, else the top-level id) is pending until a "<name>.approved"
// or "<name>.rejected" event names that id (payload.<name>_id, payload.id,
// payload.request_id or payload.checkpoint_id). Decisions are appended to
// the journal itself, in an envelope copied from the request line (see
// DecisionRecord).
package generic

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benbjohnson/immutable"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// Doc is the name of the one Markdown projection.
const Doc = "SUMMARY"

// Suffixes of the request convention's event types.
const (
	Requested = ".requested"
	Approved  = ".approved"
	Rejected  = ".rejected"
)

// Format is the generic format: counts, last events, and the
// request/approve/reject convention. It implements model.Decider as well.
// It is stateless and safe for concurrent use.
var Format model.Format = format{}

type format struct{}

var _ model.Decider = format{}

// Sniff reports whether raw, one journal line, is a JSON object with a
// string "type": anything the generic format can fold.
func Sniff(raw []byte) bool {
	_, typ, ok := decode(raw)
	return ok && typ != ""
}

// line is a decoded record: its top-level members, raw.
type line map[string]jsontext.Value

// decode returns the record's members and its type; ok is false when raw is
// not an object with a string type.
func decode(raw []byte) (line, string, bool) {
	var top line
	if model.Unmarshal(raw, &top) != nil || top == nil {
		return nil, "", false
	}
	typ, ok := top.str("type")
	return top, typ, ok
}

// str returns member key when it is a string.
func (l line) str(key string) (string, bool) {
	v, ok := l[key]
	if !ok || v.Kind() != '"' {
		return "", false
	}
	var s string
	if model.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// id returns member key as an id: a string, or a number's text.
func (l line) id(key string) string {
	v := l[key]
	switch v.Kind() {
	case '"':
		s, _ := l.str(key)
		return s
	case '0':
		return string(v)
	}
	return ""
}

// obj decodes member key when it is an object; nil otherwise.
func (l line) obj(key string) line {
	v := l[key]
	if v.Kind() != '{' {
		return nil
	}
	var o line
	if model.Unmarshal(v, &o) != nil {
		return nil
	}
	return o
}

// firstStr returns the first of keys that is a non-empty string.
func (l line) firstStr(keys ...string) string {
	for _, k := range keys {
		if s, ok := l.str(k); ok && s != "" {
			return s
		}
	}
	return ""
}

// timeOf reads member key as a time: an ISO-8601 string, or a number of
// Unix milliseconds (numbers below 1e11 are taken as Unix seconds).
func (l line) timeOf(key string) (time.Time, bool) {
	v, ok := l[key]
	if !ok {
		return time.Time{}, false
	}
	switch v.Kind() {
	case '"':
		s, _ := l.str(key)
		t := model.ParseTime(s)
		return t, !t.IsZero()
	case '0':
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f <= 0 || f > 1e15 || math.IsNaN(f) {
			return time.Time{}, false
		}
		if f < 1e11 {
			return time.UnixMilli(int64(f * 1000)).UTC(), true
		}
		return model.MillisTime(int64(f)), true
	}
	return time.Time{}, false
}

// when returns the record's own time, from timestamp, ts or time.
func (l line) when() time.Time {
	for _, k := range []string{"timestamp", "ts", "time"} {
		if t, ok := l.timeOf(k); ok {
			return t
		}
	}
	return time.Time{}
}

// seq returns the record's integer seq, if it has one.
func (l line) seq() (int64, bool) {
	v := l["seq"]
	if v.Kind() != '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// decisionIDKeys are the payload members, in order, that can name the
// decided request of a <name>.approved or <name>.rejected event.
func decisionIDKeys(name string) []string {
	keys := []string{name + "_id"}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		keys = append(keys, name[i+1:]+"_id")
	}
	return append(keys, "id", "request_id", "checkpoint_id")
}

// idKey returns the payload member a decision record uses for the request
// id: "<name>_id", with only the last dotted segment of name.
func idKey(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name + "_id"
}

// state is the immutable result of a fold; its collections are persistent.
type state struct {
	events   int
	types    *immutable.List[string]
	counts   *immutable.Map[string, int]
	last     *immutable.Map[string, []byte]
	pending  *immutable.SortedMap[int, model.Pending]
	byKey    *immutable.Map[string, int]    // name\x00id → position of the pending request
	requests *immutable.Map[string, []byte] // name\x00id → the request line
	verdicts *immutable.Map[string, model.Verdict]
	decided  *immutable.List[string] // ids of verdicts, in journal order
	lastSeq  int64
	hasSeq   bool
}

var empty = &state{
	types:    immutable.NewList[string](),
	counts:   immutable.NewMap[string, int](immutable.NewHasher("")),
	last:     immutable.NewMap[string, []byte](immutable.NewHasher("")),
	pending:  immutable.NewSortedMap[int, model.Pending](immutable.NewComparer(0)),
	byKey:    immutable.NewMap[string, int](immutable.NewHasher("")),
	requests: immutable.NewMap[string, []byte](immutable.NewHasher("")),
	verdicts: immutable.NewMap[string, model.Verdict](immutable.NewHasher("")),
	decided:  immutable.NewList[string](),
}

func key(name, id string) string { return name + "\x00" + id }

func (format) Name() string      { return model.Generic }
func (format) Init() model.State { return empty }
func (format) Docs() []string    { return []string{Doc} }

// Apply folds one record. A record that is not an object with a string type
// leaves the state unchanged.
func (format) Apply(s model.State, ev model.Event) model.State {
	st, ok := s.(*state)
	if !ok || st == nil {
		st, s = empty, empty
	}
	top, typ, ok := decode(ev.Raw)
	if !ok {
		return s
	}
	n := *st
	n.events++
	c, seen := n.counts.Get(typ)
	if !seen {
		n.types = n.types.Append(typ)
	}
	n.counts = n.counts.Set(typ, c+1)
	raw := bytes.Clone(ev.Raw)
	n.last = n.last.Set(typ, raw)
	if v, ok := top.seq(); ok && (!n.hasSeq || v > n.lastSeq) {
		n.lastSeq, n.hasSeq = v, true
	}
	payload := top.obj("payload")
	switch {
	case strings.HasSuffix(typ, Requested) && len(typ) > len(Requested):
		name := strings.TrimSuffix(typ, Requested)
		id := payload.id("id")
		if id == "" {
			id = top.id("id")
		}
		if id == "" {
			break
		}
		p := model.Pending{
			ID: id, Kind: name,
			Prompt:      payload.firstStr("prompt", "decision_point", "question", "title", "description"),
			Options:     options(payload),
			RequestedBy: payload.firstStr("requested_by"),
			At:          ev.Pos,
		}
		if p.RequestedBy == "" {
			p.RequestedBy = top.firstStr("actor")
		}
		if t, ok := payload.timeOf("requested_at"); ok {
			p.RequestedAt = model.FormatTime(t)
		} else {
			p.RequestedAt = model.FormatTime(top.when())
		}
		k := key(name, id)
		if old, ok := n.byKey.Get(k); ok {
			n.pending = n.pending.Delete(old)
		}
		n.pending = n.pending.Set(ev.Pos, p)
		n.byKey = n.byKey.Set(k, ev.Pos)
		n.requests = n.requests.Set(k, raw)
	case strings.HasSuffix(typ, Approved) || strings.HasSuffix(typ, Rejected):
		approved := strings.HasSuffix(typ, Approved)
		name := strings.TrimSuffix(strings.TrimSuffix(typ, Approved), Rejected)
		if name == "" {
			break
		}
		id := ""
		for _, k := range decisionIDKeys(name) {
			v := payload.id(k)
			if v == "" {
				continue
			}
			if id == "" {
				id = v
			}
			if _, ok := n.byKey.Get(key(name, v)); ok {
				id = v
				break
			}
		}
		if id == "" {
			break
		}
		if pos, ok := n.byKey.Get(key(name, id)); ok {
			n.pending = n.pending.Delete(pos)
			n.byKey = n.byKey.Delete(key(name, id))
		}
		v := model.Verdict{ID: id, Approved: approved, At: ev.Pos}
		if approved {
			v.By = payload.firstStr("approved_by")
			v.Option = payload.firstStr("selected_option", "option")
		} else {
			v.By = payload.firstStr("rejected_by")
			v.Reason = payload.firstStr("reason")
		}
		if v.By == "" {
			v.By = top.firstStr("actor")
		}
		if _, ok := n.verdicts.Get(id); !ok {
			n.decided = n.decided.Append(id)
		}
		n.verdicts = n.verdicts.Set(id, v)
	}
	return &n
}

// options reads payload.options, a list of {id, label} objects; entries
// without a string id are skipped and a missing label is the id.
func options(payload line) []model.Option {
	out := []model.Option{}
	v := payload["options"]
	if v.Kind() != '[' {
		return out
	}
	var items []line
	if model.Unmarshal(v, &items) != nil {
		var loose []jsontext.Value
		if model.Unmarshal(v, &loose) != nil {
			return out
		}
		for _, it := range loose {
			var o line
			if it.Kind() == '{' && model.Unmarshal(it, &o) == nil {
				items = append(items, o)
			}
		}
	}
	for _, o := range items {
		id := o.id("id")
		if id == "" {
			continue
		}
		label := o.firstStr("label", "title", "name")
		if label == "" {
			label = id
		}
		out = append(out, model.Option{ID: id, Label: label})
	}
	return out
}

// Pending lists the requests not yet approved or rejected, oldest first.
func (s *state) Pending() []model.Pending {
	if s.pending.Len() == 0 {
		return nil
	}
	out := make([]model.Pending, 0, s.pending.Len())
	for it := s.pending.Iterator(); !it.Done(); {
		_, p, _ := it.Next()
		out = append(out, p)
	}
	return out
}

// View returns counts (events per type, in order of first appearance),
// last (the last event of each type, decoded), events (the number folded)
// and decisions (each decided request's verdict, in journal order).
func (s *state) View() model.Object {
	counts := make(model.Object, 0, s.types.Len())
	last := make(model.Object, 0, s.types.Len())
	for it := s.types.Iterator(); !it.Done(); {
		_, typ := it.Next()
		c, _ := s.counts.Get(typ)
		raw, _ := s.last.Get(typ)
		counts = append(counts, model.Field{Key: typ, Value: c})
		last = append(last, model.Field{Key: typ, Value: model.RawObject(raw)})
	}
	decisions := make([]any, 0, s.decided.Len())
	for it := s.decided.Iterator(); !it.Done(); {
		_, id := it.Next()
		v, _ := s.verdicts.Get(id)
		o := model.Object{{Key: "id", Value: v.ID}, {Key: "approved", Value: v.Approved}, {Key: "by", Value: v.By}}
		if v.Option != "" {
			o = append(o, model.Field{Key: "option", Value: v.Option})
		}
		if v.Reason != "" {
			o = append(o, model.Field{Key: "reason", Value: v.Reason})
		}
		decisions = append(decisions, append(o, model.Field{Key: "at", Value: v.At}))
	}
	return model.Object{
		{Key: "counts", Value: counts},
		{Key: "last", Value: last},
		{Key: "events", Value: s.events},
		{Key: "decisions", Value: decisions},
	}
}

// Verdict reports how request id was last decided in s.
func (format) Verdict(s model.State, id string) (model.Verdict, bool) {
	st, ok := s.(*state)
	if !ok || st == nil {
		return model.Verdict{}, false
	}
	return st.verdicts.Get(id)
}

// durableID matches ids like Durable Stream's "0mwqzcqy6_516ef74a4e53aef3"
// (base-36 milliseconds, "_", 16 hex digits).
var durableID = regexp.MustCompile(`^[0-9a-z]{6,12}_[0-9a-f]{16}$`)

// DecisionRecord returns the "<name>.approved" or "<name>.rejected" line
// that records d for p, laid out like p's request line: the same top-level
// keys in the same order, with type and payload replaced, actor set to d.By,
// a timestamp (ts, time) in the request's representation (Unix ms number or
// ISO string), a new random id when the request had one, causation_id set to
// the request's id, seq set to the journal's highest seq + 1, and every
// other member copied. The payload is {"<name>_id", "approved_by" and
// "selected_option", or "rejected_by" and "reason"}.
func (format) DecisionRecord(s model.State, p model.Pending, d model.Decision) ([]byte, error) {
	if p.ID == "" || p.Kind == "" {
		return nil, errors.New("generic: pending item has no id or kind")
	}
	st, _ := s.(*state)
	if st == nil {
		st = empty
	}
	verb, byKey := Approved, "approved_by"
	if !d.Approve {
		verb, byKey = Rejected, "rejected_by"
	}
	payload := model.Object{{Key: idKey(p.Kind), Value: p.ID}, {Key: byKey, Value: d.By}}
	if d.Approve && d.Option != "" {
		payload = append(payload, model.Field{Key: "selected_option", Value: d.Option})
	}
	if !d.Approve && d.Reason != "" {
		payload = append(payload, model.Field{Key: "reason", Value: d.Reason})
	}
	now := d.Now
	if now.IsZero() {
		now = time.Now()
	}
	layout := model.Object{{Key: "type"}, {Key: "timestamp", Value: ""}, {Key: "payload"}}
	if raw, ok := st.requests.Get(key(p.Kind, p.ID)); ok {
		if o := model.RawObject(raw); len(o) > 0 {
			if _, bad := o.Get("error"); !bad || len(o) > 1 {
				layout = o
			}
		}
	}
	reqID, _ := layout.Get("id")
	out := make(model.Object, 0, len(layout)+2)
	hasType, hasPayload := false, false
	for _, f := range layout {
		switch f.Key {
		case "type":
			hasType = true
			f.Value = p.Kind + verb
		case "payload":
			hasPayload = true
			f.Value = payload
		case "timestamp", "ts", "time":
			if _, isNum := f.Value.(json.Number); isNum {
				f.Value = now.UnixMilli()
			} else {
				f.Value = model.FormatTime(now)
			}
		case "id":
			f.Value = newID(reqID, now)
		case "seq":
			if !st.hasSeq {
				continue
			}
			f.Value = st.lastSeq + 1
		case "actor":
			f.Value = d.By
		case "causation_id":
			if id, ok := reqID.(string); ok {
				f.Value = id
			}
		}
		out = append(out, f)
	}
	if !hasType {
		out = append(model.Object{{Key: "type", Value: p.Kind + verb}}, out...)
	}
	if !hasPayload {
		out = append(out, model.Field{Key: "payload", Value: payload})
	}
	return out.MarshalJSON()
}

// newID returns a random id: Durable Stream style when like is one,
// 16 hex digits otherwise.
func newID(like any, now time.Time) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	if s, ok := like.(string); ok && durableID.MatchString(s) {
		ms := strconv.FormatInt(now.UnixMilli(), 36)
		if len(ms) < 9 {
			ms = strings.Repeat("0", 9-len(ms)) + ms
		}
		return ms + "_" + h
	}
	return h
}

// maxSummary is the length in runes at which a Row.Summary is cut.
const maxSummary = 200

// Describe returns the timeline row of one record: Key is its seq or id,
// Actor its actor, agent or role, Summary its first text field
// (message, content, summary, text, prompt, decision_point, in the payload
// or at the top level) or else its compact JSON, Time its timestamp, ts or
// time. Problem is set for types containing "error" or "fail" and for level
// "error".
func (format) Describe(ev model.Event) model.Row {
	top, typ, ok := decode(ev.Raw)
	if !ok {
		return model.Row{Summary: cut(compactJSON(ev.Raw)), Problem: true}
	}
	row := model.Row{Type: typ, Time: top.when()}
	if v, ok := top.seq(); ok {
		row.Key = model.Itoa(v)
	} else {
		row.Key = top.id("id")
	}
	row.Actor = top.firstStr("actor", "agent", "role")
	payload := top.obj("payload")
	texts := []string{"message", "content", "summary", "text", "prompt", "decision_point", "question", "msg"}
	row.Summary = payload.firstStr(texts...)
	if row.Summary == "" {
		row.Summary = top.firstStr(texts...)
	}
	if row.Summary == "" {
		if v, ok := top["payload"]; ok {
			row.Summary = compactJSON(v)
		} else {
			row.Summary = compactJSON(ev.Raw)
		}
	}
	row.Summary = cut(strings.Join(strings.Fields(row.Summary), " "))
	lt := strings.ToLower(typ)
	level := strings.ToLower(top.firstStr("level", "severity"))
	if level == "" {
		level = strings.ToLower(payload.firstStr("level", "severity"))
	}
	row.Problem = strings.Contains(lt, "error") || strings.Contains(lt, "fail") || level == "error" || level == "fatal"
	return row
}

func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	r := []rune(s)
	return string(r[:maxSummary-1]) + "…"
}
