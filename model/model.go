// Package model holds rewind's domain types: the events a journal holds, the
// state a format's fold builds from them, the decisions a human still owes,
// and the Format contract that each seed system's package implements
// (model/deltaengine, model/durablestream, model/deltamind, model/generic).
//
// Nothing here imports a terminal library. States are persistent: Apply never
// mutates the state it is given, so a replay can keep keyframes that share
// structure instead of copying it.
package model

import (
	"io"
	"strings"
	"time"
)

// Event is one well-formed record of a journal (a JSON object on one line,
// or one element of a JSON array when a tool reformatted the file), as a fold
// sees it.
type Event struct {
	// Pos is the 1-based position of the event among the journal's events in
	// file order; bad lines are not counted.
	Pos int
	// Line is the 1-based line number where the record starts.
	Line int
	// Off is the byte offset of the record's first byte in the file.
	Off int64
	// Raw is the record's bytes: one JSON object, without the line ending.
	// It is only valid during the call it is passed to; a fold that keeps
	// text must copy it, or better keep a Text (TextOf), which re-reads it
	// from Src on demand.
	Raw []byte
	// Src is the journal file Raw was read from (Raw is Src's bytes at
	// Off), or nil when the event did not come from a file (tests, a
	// JSON array journal's reformatted element).
	Src io.ReaderAt
}

// Row is what the timeline shows for one event. Every string in it comes
// from the journal and is still hostile: the caller sanitizes it.
type Row struct {
	// Key is the format's own number or name for the event: the seq of
	// Delta Engine and DeltaMind lines, the id of Durable Stream events.
	Key string
	// Type is the event's type as the format names it (THOUGHT,
	// checkpoint.requested, accepted, …).
	Type string
	// Actor is who wrote it where the format records one (Durable Stream's
	// actor, DeltaMind's delta kind owner); empty otherwise.
	Actor string
	// Summary is a one-line description: a THOUGHT's text, a tool call's
	// tool and command, a checkpoint's decision point.
	Summary string
	// Time is the event's own timestamp; the zero Time when it has none.
	Time time.Time
	// Problem is true for events a user hunting trouble wants to see: failed
	// actions, error messages, rejected deltas.
	Problem bool
}

// Option is one answer a pending decision offers.
type Option struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Pending is a decision a human still owes at some point of a journal: a
// Durable Stream checkpoint, a Delta Engine ask_human call, a generic
// <name>.requested event. Its JSON shape is the one `rewind pending` and the
// "pending" field of `rewind state` print.
type Pending struct {
	// ID identifies the item in the format's own terms: a checkpoint id
	// (cp_…), an ask_human action_id (call_…), a generic payload id.
	ID string `json:"id"`
	// Kind is "checkpoint", "ask_human" or the generic request's name.
	Kind string `json:"kind"`
	// Prompt is the question or decision point shown to the human.
	Prompt string `json:"prompt"`
	// Options are the choices offered; empty for free-text answers.
	Options []Option `json:"options"`
	// RequestedAt is when the request was made, as RFC 3339 UTC with
	// milliseconds; empty when the journal does not say.
	RequestedAt string `json:"requested_at"`
	// RequestedBy is who asked (Durable Stream requested_by, the agent
	// otherwise); empty when unknown.
	RequestedBy string `json:"requested_by"`
	// At is the position (Event.Pos) of the event that asked.
	At int `json:"at"`
}

// State is the result of a format's fold after some prefix of a journal.
// Implementations are immutable values: safe to share between goroutines
// and to keep as keyframes.
type State interface {
	// View returns the format-specific fields of the state as an ordered
	// JSON object (the common "format", "at" and "pending" fields are added
	// by StateJSON).
	View() Object
	// Pending lists the decisions still owed, oldest first. The slice must
	// not be modified by the caller.
	Pending() []Pending
}

// Format is one seed system's schema, fold and projections. Implementations
// are stateless and safe for concurrent use.
type Format interface {
	// Name is the format's identifier: "delta-engine", "durable-stream",
	// "deltamind" or "generic".
	Name() string
	// Init returns the state before the first event.
	Init() State
	// Apply folds one event into s and returns the new state. It must not
	// modify s. A record the format does not understand leaves the state as
	// it was (returning s itself); Apply never panics on hostile input.
	Apply(s State, ev Event) State
	// Docs names the Markdown projections the format offers, the default
	// first (DeltaMind: ACTIVE_STATE, DECISIONS, TASKS, CONSTRAINTS).
	Docs() []string
	// Render returns the Markdown projection doc of s. Journal strings are
	// embedded as they are (not sanitized): the caller sanitizes the whole
	// document before it reaches a terminal.
	Render(s State, doc string) string
	// Describe returns the timeline row of one event.
	Describe(ev Event) Row
}

// A Preparer is a Format whose Apply first reads what it needs of the
// event's line, from the line alone, and then folds that: Prepare does the
// first part for a batch of lines and ApplyPrepared the second, so that a
// fold that indexes as it goes (app.Session.FoldWhileIndexing) reads the
// lines of one block on the CPU that classified them while the events
// before are folded on another.
type Preparer interface {
	Format
	// Prepare reads lines (events' Raw bytes, in file order) and returns
	// what ApplyPrepared needs of each, in a value of the format's own,
	// which may view the lines: they stay unchanged until the last
	// ApplyPrepared of the batch returns. prev, when not nil, is what an
	// earlier call returned, no longer in use, whose memory Prepare may
	// reuse. Prepare is safe for concurrent use, with itself and with
	// Apply and ApplyPrepared; it never panics on hostile input.
	Prepare(lines [][]byte, prev any) any
	// ApplyPrepared returns Apply(s, ev), ev being the event of lines[i]
	// of the batch that Prepare read into p: ev.Raw is that very slice,
	// so what Prepare read may point into it as Apply's reading of
	// ev.Raw would (a Delta Engine text's offset). A p that this format's
	// Prepare did not return (the format of a fold changed between the
	// two) makes it read ev's line itself, as Apply does.
	ApplyPrepared(s State, ev Event, p any, i int) State
}

// An EndsPreparer is a Preparer whose Prepare reads a line faster when it
// knows where the line's scalars end and which lines share its layout, as
// the index found them while it validated the line
// (journal.UpdateEachPreparedEnds): it reads the scalars it needs where a
// line of the same layout had them, and scans none.
type EndsPreparer interface {
	Preparer
	// PrepareEnds is Prepare, scalars[i] being what the index found of
	// lines[i]. It may trust them only as far as the line's bytes agree
	// with them. scalars is valid during the call only; its Layouts may be
	// kept.
	PrepareEnds(lines [][]byte, scalars []LineScalars, prev any) any
}

// An InPlacePreparer is a Preparer that can fold a line into the memory
// of the state it is given, for a fold whose states no one else reads
// (a one-shot replay: rewind state), so that folding a line allocates
// nothing (1 GB DeltaMind journal: 3.5 M states of 48 bytes).
type InPlacePreparer interface {
	Preparer
	// ApplyPreparedInPlace is ApplyPrepared, except that when mine is
	// true, s is the caller's alone (no other goroutine reads it, it is
	// no keyframe, and it was made by ApplyPreparedInPlace), and may be
	// changed and returned. Whether or not mine is true, the state
	// returned is s itself or a new one that nothing else holds.
	ApplyPreparedInPlace(s State, ev Event, p any, i int, mine bool) State
}

// PrepareFunc returns how f reads lines ahead of its fold, given what the
// index found of their scalars (journal.UpdateEachPreparedEnds): its
// PrepareEnds for an EndsPreparer, its Prepare for another Preparer, nil
// for a format that does not prepare.
func PrepareFunc(f Format) func(lines [][]byte, scalars []LineScalars, prev any) any {
	switch p := f.(type) {
	case EndsPreparer:
		return p.PrepareEnds
	case Preparer:
		return func(lines [][]byte, _ []LineScalars, prev any) any { return p.Prepare(lines, prev) }
	}
	return nil
}

// LineScalars is what the index found of a line's scalars
// (EndsPreparer).
type LineScalars struct {
	// Layout identifies the line's layout: lines with equal non-nil
	// Layouts have the same bytes between their scalars (punctuation,
	// whitespace, names) and scalars of the same kinds (string, number,
	// true, false, null) in the same order. It is comparable, and nil
	// when the index did not read the line through a layout (Ends is nil
	// then too).
	Layout any
	// Ends are the ends of the line's scalars, in order, each the index
	// just after the scalar from the line's first byte ('{').
	Ends []uint32
}

// PrepareLines is how a Preparer's Prepare usually reads a batch: each of
// lines into a T with read, in a []T that reuses prev's memory when prev
// is what an earlier call returned (a *[]T), returned as a *[]T.
func PrepareLines[T any](lines [][]byte, prev any, read func(line []byte, into *T)) *[]T {
	p, _ := prev.(*[]T)
	if p == nil {
		p = new([]T)
	}
	if cap(*p) < len(lines) {
		*p = make([]T, len(lines))
	}
	*p = (*p)[:len(lines)]
	for i, line := range lines {
		read(line, &(*p)[i])
	}
	return p
}

// PrepareLinesScalars is PrepareLines for an EndsPreparer's PrepareEnds:
// read gets each line with what the index found of its scalars,
// &scalars[i], or a zero LineScalars when scalars is shorter (nil:
// Prepare); read must neither keep nor change ls. ls is a pointer, not a
// copy of the 40-byte value for each line (1 GB DeltaMind journal, rewind
// state: CPU median 4.43 -> 4.35 s, 11 runs alternated; Durable Stream
// and Delta Engine unchanged).
func PrepareLinesScalars[T any](lines [][]byte, scalars []LineScalars, prev any, read func(line []byte, ls *LineScalars, into *T)) *[]T {
	i := 0
	var none LineScalars
	return PrepareLines(lines, prev, func(line []byte, into *T) {
		ls := &none
		if i < len(scalars) {
			ls = &scalars[i]
		}
		i++
		read(line, ls, into)
	})
}

// Prepared returns the T that PrepareLines read lines[i] into, p being
// what it returned, or nil when p is no *[]T or has no item i.
func Prepared[T any](p any, i int) *T {
	items, _ := p.(*[]T)
	if items == nil || i < 0 || i >= len(*items) {
		return nil
	}
	return &(*items)[i]
}

// DocParts may be implemented by a Format whose projection documents grow
// with the journal (a Delta Engine conversation is about the size of the
// journal): `rewind render` writes them a part at a time (WriteRender), and
// a diff of two states (package statediff) compares them a part at a time,
// holding a few parts rather than two whole documents.
type DocParts interface {
	// RenderParts calls yield with the parts of Render(s, doc) in
	// order, each with its place, until yield returns false: Render is
	// the parts one after another, each whole lines but the last.
	// Places increase along a document, and a part of two states with
	// the same place is the same entry of the document (its header, a
	// message, an item in a section): a diff compares the parts of one
	// place, and a part whose place only one state has was added or
	// removed.
	RenderParts(s State, doc string, yield func(place int64, part string) bool)
}

// JoinParts returns dp's parts of projection doc of s one after another:
// the Render of a format whose parts are its only rendering.
func JoinParts(dp DocParts, s State, doc string) string {
	var b strings.Builder
	dp.RenderParts(s, doc, func(_ int64, part string) bool {
		b.WriteString(part)
		return true
	})
	return b.String()
}

// PairParts may be implemented by a Format with DocParts that can make the
// parts of two states of one fold at once, making a part the two share
// once (a DeltaMind item neither changed): a diff of neighbouring states
// then makes each part once, not twice.
type PairParts interface {
	// RenderPairParts calls yield with the parts of projection doc of
	// sa and of sb (RenderParts') merged by place, in order of place,
	// until yield returns false: a and b are the parts of the two at
	// place, inA and inB say which of the two has one (the other's part
	// is then to be ignored). It returns false, having yielded nothing, when it cannot
	// make the two at once (states of two folds).
	RenderPairParts(sa, sb State, doc string, yield func(place int64, a, b string, inA, inB bool) bool) bool
}

// RenderParts calls yield with the parts of f's projection doc of s and
// their places (see DocParts), or with the whole of Render(s, doc) at
// place 0 when f does not cut its documents.
func RenderParts(f Format, s State, doc string, yield func(place int64, part string) bool) {
	if dp, ok := f.(DocParts); ok {
		dp.RenderParts(s, doc, yield)
		return
	}
	yield(0, f.Render(s, doc))
}

// LogDocs is implemented by formats whose projection documents include a
// log that grows at its end (Delta Engine's CONVERSATION): a pane that has
// room for part of a long document shows its end rather than its start.
type LogDocs interface {
	LogDoc(doc string) bool
}

// IsLogDoc reports whether f says doc grows at its end (see LogDocs).
func IsLogDoc(f Format, doc string) bool {
	l, ok := f.(LogDocs)
	return ok && l.LogDoc(doc)
}

// Format names, as "format" in the state JSON and as --format values.
const (
	DeltaEngine   = "delta-engine"
	DurableStream = "durable-stream"
	DeltaMind     = "deltamind"
	Generic       = "generic"
)

// StateJSON returns the full state object that `rewind state` prints and the
// state pane shows: "format", "at" and "pending" first, then the format's own
// fields.
func StateJSON(f Format, s State, at int) Object {
	return append(stateHead(f, s, at), s.View()...)
}

// stateHead is the "format", "at" and "pending" fields of the state JSON,
// which StateJSON starts with; it costs what the pending items cost.
func stateHead(f Format, s State, at int) Object { return head(f, at, PendingObjects(s)) }

// head is a state JSON's first fields, with pending as its "pending": all
// of them (stateHead) or the pane's window (PaneStateJSON).
func head(f Format, at int, pending any) Object {
	return Object{{"format", f.Name()}, {"at", at}, {"pending", pending}}
}

// PendingObjects returns the state JSON's "pending": the Object of each
// of s.Pending(), in order.
func PendingObjects(s State) []any {
	p := s.Pending()
	items := make([]any, 0, len(p))
	for _, it := range p {
		items = append(items, it.Object())
	}
	return items
}

// Object returns the item as an ordered JSON object.
func (p Pending) Object() Object {
	opts := make([]any, 0, len(p.Options))
	for _, o := range p.Options {
		opts = append(opts, Object{{"id", o.ID}, {"label", o.Label}})
	}
	return Object{
		{"id", p.ID}, {"kind", p.Kind}, {"prompt", p.Prompt}, {"options", opts},
		{"requested_at", p.RequestedAt}, {"requested_by", p.RequestedBy}, {"at", p.At},
	}
}

// FormatTime returns t as RFC 3339 UTC with milliseconds
// (2026-11-21T22:29:47.195Z), the way JavaScript's Date.toISOString writes
// it, or "" for the zero Time.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// ParseTime reads an ISO-8601 timestamp as the seed systems write them
// (toISOString, or Python isoformat with an offset). It returns the zero Time
// when s is not one.
func ParseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// MillisTime converts Unix milliseconds (Durable Stream's timestamp) to a Time.
func MillisTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
