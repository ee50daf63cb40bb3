package deltaengine

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/rewind-tui/rewind/model"
)

// StreamView is View with the messages and the actions as model.Lazy
// values: each is read back from the journal when it is written, so
// `rewind state` on a gigabyte journal holds one message at a time instead
// of the whole conversation. Their strings are model.Literal values, the
// bytes of the journal's string literals, not decoded: the Lazy lists are
// Transient, each item valid until the yield call that gets it returns.
// Both have Parts, each spanning about partSpan bytes of the journal, that
// read it through their own readers and can be made at the same time.
// Written out StreamView gives View's bytes. Each Lazy reads the journal
// through its own readers; they may be written one after the other or at
// the same time.
func (format) StreamView(s model.State) model.Object {
	st, ok := s.(*state)
	if !ok || st == nil || st.log == nil {
		if s == nil {
			return Format.Init().View()
		}
		return s.View()
	}
	sn := st.log.snapshot(st.nLog)
	msgs := model.Lazy{Len: st.msgs, Transient: true, At: func(i int) any { return sn.messageAt(i, st.msgs) },
		Each: func(yield func(any) bool) { sn.streamMessages(0, sn.n, readBlock, false, yield) },
		Parts: func(yield func(func(func(any) bool)) bool) {
			sn.parts(func(lo, hi int, span int64) bool {
				return yield(func(y func(any) bool) { sn.streamMessages(lo, hi, span, true, y) })
			})
		},
	}
	actions := model.Lazy{Len: st.acts, Object: true, Transient: true,
		Each: func(yield func(any) bool) { sn.streamActions(0, sn.n, readBlock, false, yield) },
		Parts: func(yield func(func(func(any) bool)) bool) {
			sn.parts(func(lo, hi int, span int64) bool {
				return yield(func(y func(any) bool) { sn.streamActions(lo, hi, span, true, y) })
			})
		},
		Get: sn.actionObject, Rank: sn.actionRank,
	}
	return st.view(msgs, actions, st.problems())
}

// messageAt returns message i (0-based) of the conversation, whose n
// messages the snapshot holds, as View gives it, reading back its event
// only (and, for a tool message, its ACTION_RESULT). Finding its entry
// reads the log's entries, 24 bytes each, without the events: from the
// start, or for a message in the later half from the end, so that the
// message an event just added (a search over every state asks for each)
// costs one entry, not the whole log.
func (s *snap) messageAt(i, n int) any {
	if i < 0 || i >= n {
		return nil
	}
	j, k, step, left := 0, s.n, 1, i // left: messages to pass before i's
	if i >= n/2 {
		j, k, step, left = s.n-1, -1, -1, n-1-i
	}
	if left > scanMessages {
		// Far from both ends: through the snapshot's list of messages,
		// made once, so that many calls on one snapshot (a diff between
		// far positions makes every message that differs) are not each a
		// walk of the log.
		if idx := s.messageEntries(); len(idx) == n {
			return s.messageObject(int(idx[i]))
		}
	}
	for ; j != k; j += step {
		if !s.get(j).isMessage() {
			continue
		}
		if left--; left < 0 {
			return s.messageObject(j)
		}
	}
	return nil
}

// scanMessages is how many messages messageAt passes, from the nearer end
// of the log, before it goes through messageEntries instead. (A variable,
// for tests.)
var scanMessages = 4096

// messageObject returns the message of entry j as View gives it.
func (s *snap) messageObject(j int) any {
	r := s.keepingReader(0, nil)
	defer r.release()
	return r.message(j).object()
}

// actionObject returns action id as View gives it, and whether the
// snapshot has an event of it, reading back the events of its last
// ACTION_REQUEST and ACTION_RESULT only.
func (s *snap) actionObject(id string) (any, bool) {
	r := s.keepingReader(0, nil)
	defer r.release()
	a, ok := r.action(id)
	if !ok {
		return nil, false
	}
	return a.object(), true
}

// actionRank returns the index of the first log entry of action id, which
// orders the actions in View (streamActions yields them at their first
// entries), and whether the snapshot has an event of id. It walks back
// the entries of id's hash from its last one: two or three.
func (s *snap) actionRank(id string) (int, bool) {
	k := keyOf([]byte(id))
	for j := s.lookup(k); j >= 0; j = int(s.get(j).prev) - 1 {
		if e := s.get(j); e.check() == k.check && e.has(fFirst) {
			return j, true
		}
	}
	return 0, false
}

// partSpan is about how many bytes of the journal a part of StreamView's
// lists covers, and partEntries how many log entries at most: a part reads
// its events with one read of their span, small enough that the span and
// the text made from it stay in the CPU's cache (on the 1 GB journal,
// 256 KiB takes 6% less CPU than 768 KiB). partSpan is a variable so
// that tests cut small journals into many parts.
var partSpan int64 = 256 << 10

const partEntries = 4096

// parts cuts the snapshot into ranges of entries whose events span about
// partSpan bytes of the journal (at most partEntries entries), and calls fn
// with each range in order, and the bytes its events span, until fn
// returns false.
func (s *snap) parts(fn func(lo, hi int, span int64) bool) {
	lo, from, to := 0, int64(-1), int64(0)
	for i := range s.n {
		e := s.get(i)
		if !e.has(fInline) {
			if from < 0 {
				from = e.off()
			}
			from, to = min(from, e.off()), max(to, e.off()+int64(e.n))
		}
		if span := to - max(from, 0); span >= partSpan || i+1-lo >= partEntries {
			if !fn(lo, i+1, span) {
				return
			}
			lo, from, to = i+1, -1, 0
		}
	}
	if lo < s.n {
		fn(lo, s.n, to-max(from, 0))
	}
}

// streamMessages yields the messages of entries lo to hi-1 as
// processJournalSource builds them, their strings model.Literal values
// valid until yield returns; with text, as messageText Appenders (for
// StreamView's Parts). It reads block bytes of the journal at first.
func (s *snap) streamMessages(lo, hi int, block int64, text bool, yield func(any) bool) {
	r := s.reader(min(max(block, readBlock), maxBlock), nil)
	defer r.release()
	for i := lo; i < hi; i++ {
		if !s.get(i).isMessage() {
			continue
		}
		var m any
		if text {
			m = r.messageText(i)
		} else {
			m = r.messageObject(i)
		}
		if !yield(m) {
			return
		}
	}
}

// messageObject is message(j).object() with the strings as model.Literal
// values pointing into r's buffer, built in r's scratch space: valid until
// the next call.
func (r *reader) messageObject(j int) model.Object {
	m, ok := r.readMessage(j)
	if !ok {
		return r.message(j).object()
	}
	return m.object(r.sc)
}

// scratch is where a reader builds the objects of a Transient list: each
// item's objects are made in fields, its literals in lits, its tool calls
// in items and calls, all reused once the item is written.
type scratch struct {
	fields []model.Field
	lits   []model.Literal
	items  []any
	calls  []rawCall
	msg    messageText // the item of a messages part (see messageText)
	act    actionText  // the item of an actions part
	args   []arg       // its arguments (actionText.readArgs)
}

// scratch returns r's scratch space, emptied of the last item's fields.
func (r *reader) scratch() *scratch {
	if r.sc == nil {
		r.sc = &scratch{}
	}
	r.sc.fields, r.sc.lits = r.sc.fields[:0], r.sc.lits[:0]
	return r.sc
}

// object returns an Object holding fs, made in sc's fields.
func (sc *scratch) object(fs ...model.Field) model.Object {
	n := len(sc.fields)
	if cap(sc.fields)-n < len(fs) {
		sc.fields = make([]model.Field, 0, max(64, 2*cap(sc.fields)))
		n = 0
	}
	sc.fields = append(sc.fields, fs...)
	return model.Object(sc.fields[n : n+len(fs) : n+len(fs)])
}

// literal returns the string field v (as parseLine keeps it) as a value
// of a view: a *model.Literal of it made in sc (boxed without allocating),
// or "" when it is absent or null.
func (sc *scratch) literal(v []byte) any {
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	if len(sc.lits) == cap(sc.lits) {
		sc.lits = make([]model.Literal, 0, max(32, 2*cap(sc.lits)))
	}
	sc.lits = append(sc.lits, v)
	return &sc.lits[len(sc.lits)-1]
}

// streamActions yields the actions first requested or answered in entries
// lo to hi-1 as model.Field values, action id and object, the object's
// strings model.Literal values valid until yield returns; with text, most
// objects as actionText Appenders (see actionField). It reads block bytes
// of the journal at first.
func (s *snap) streamActions(lo, hi int, block int64, text bool, yield func(any) bool) {
	// One reader for the requests, and for the results it holds; one for
	// the other results: the fields of both events stay in their buffers
	// while the action is written.
	block = min(max(block, readBlock), maxBlock)
	reqr, resr := s.reader(block, nil), s.reader(block, nil)
	defer reqr.release()
	defer resr.release()
	for i := lo; i < hi; i++ {
		if !s.get(i).has(fFirst) {
			continue
		}
		f, ok := actionField(reqr, resr, i, text)
		if !ok {
			a, _ := reqr.action(reqr.info(i).id)
			f = model.Field{Key: a.id, Value: a.object()}
		}
		if !yield(f) {
			return
		}
	}
}

// readAction reads the action whose first entry is i, as action(id)
// gives it, into reqr's scratch (valid until its next item), its literals
// pointing into the readers' buffers: the request read with reqr, the
// result with reqr when it holds it already, or else with resr. ok is
// false when an event cannot be read back as the fold read it (the caller
// decodes the action then).
func readAction(reqr, resr *reader, i int) (id string, a *actionText, ok bool) {
	first := reqr.get(i)
	fr, ft := reqr, tActionRequest
	if first.kind() == kResult {
		fr, ft = resr, tActionResult
	}
	fl, bad := fr.line(first, ft)
	if bad != "" {
		return "", nil, false
	}
	id = str(fl.p.s[0])
	if keyOf([]byte(id)).check != first.check() {
		return "", nil, false // not the id the fold read there
	}
	// The entries of the id from its first one on, as request(id) would
	// find them from the last one back, without looking the id up.
	req, res := -1, -1
	next := reqr.nexts()
	for j := i; j >= 0; j = int(next[j]) - 1 {
		switch e := reqr.get(j); {
		case e.check() != first.check(): // another id with the same hash
		case e.kind() == kRequest:
			req, res = j, -1
		default:
			res = j
		}
	}
	var rl, sl line
	if req >= 0 {
		if rl, bad = reqr.lineAt(req, i, fl, tActionRequest); bad != "" {
			return "", nil, false
		}
	}
	if res >= 0 {
		r := resr
		if reqr.holds(reqr.get(res)) {
			r = reqr
		}
		if sl, bad = r.lineAt(res, i, fl, tActionResult); bad != "" {
			return "", nil, false
		}
	}
	a = &reqr.scratch().act
	*a = actionText{}
	if req >= 0 {
		p := &rl.p
		a.toolName, a.command, a.status, a.args = p.s[1], p.s[2], pendingLit, p.x
		a.requested, a.hasRequested, _ = seqNum(rl.seq)
	}
	if res >= 0 {
		p := &sl.p
		a.status, a.obs, a.hasObs = p.s[1], p.s[2], true
		a.result, a.hasResult, _ = seqNum(sl.seq)
	}
	return id, a, true
}

// actionField returns the action whose first entry is i as action(id)
// and its object() give it, with the strings as model.Literal values
// pointing into the readers' buffers (see readAction); with text, the
// member's value is an actionText when it can write the action's
// arguments (readArgs), and the object otherwise. ok is false when an
// event cannot be read back as the fold read it.
func actionField(reqr, resr *reader, i int, text bool) (f model.Field, ok bool) {
	id, a, ok := readAction(reqr, resr, i)
	if !ok {
		return f, false
	}
	if text {
		ok := a.readArgs(reqr.sc.args)
		reqr.sc.args = a.list // its space, for the next action
		if ok {
			return model.Field{Key: id, Value: a}, true
		}
	}
	return model.Field{Key: id, Value: a.object(reqr.sc)}, true
}

// argsObject returns the tool_args v as model.FromRaw decodes it, with its
// strings as model.Literal values, for the usual arguments: an object of
// strings, numbers, booleans and nulls under distinct names written
// without escapes. ok is false for any other v (nested values, names with
// escapes or repeated, anything FromRaw refuses); FromRaw reads it then.
// The object is made in sc (valid until its next item) when sc is not nil.
func argsObject(v []byte, sc *scratch) (o model.Object, ok bool) {
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	var buf [8]model.Field
	fs := buf[:0]
	if !eachArg(v, func(name, val []byte) {
		var x any
		switch val[0] {
		case '"':
			if sc != nil {
				x = sc.literal(val)
			} else {
				x = model.Literal(val)
			}
		case 't':
			x = true
		case 'f':
			x = false
		case 'n': // null
		default:
			x = json.Number(val)
		}
		fs = append(fs, model.Field{Key: string(name[1 : len(name)-1]), Value: x})
	}) {
		return nil, false
	}
	if sc != nil {
		return sc.object(fs...), true
	}
	return append(model.Object{}, fs...), true
}

// plainName reports whether a member name, as written, is its own decoded
// value: no escape, no control character, valid UTF-8.
func plainName(n []byte) bool {
	for _, c := range n {
		if c < 0x20 || c == '\\' || c == '"' {
			return false
		}
	}
	return utf8.Valid(n)
}

// delim reports whether c may follow a value in an object: whitespace, a
// comma or the closing brace.
func delim(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '}'
}

// lineAt reads back the event of entry j, of type t: the line l of entry i
// when j is i, read before (so that l stays valid), or one read now.
func (r *reader) lineAt(j, i int, l line, t evType) (line, string) {
	if j == i {
		return l, ""
	}
	return r.line(r.get(j), t)
}
