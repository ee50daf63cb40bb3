package replay

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rewind-tui/rewind/model"
)

// MaxTouches is the most paths recorded for one event; an event that
// changes more (a list that shifted by one) is recorded by the top-level
// fields it changed, marked coarse.
const MaxTouches = 64

// ExactBudget is the longest a state's View may take (on a moving average) for the pass to diff
// whole states after every event. Past it (states grow with the journal:
// DeltaMind items, Delta Engine messages), the pass records only which
// top-level fields each event changed, found by comparing the fold's
// persistent state values by identity, and marks those records coarse.
var ExactBudget = 200 * time.Microsecond

// Toucher may be implemented by a format's State to say cheaply which
// paths of the state JSON (model.StateJSON without "at") an event changed;
// the pass then uses it instead of diffing views.
type Toucher interface {
	// Touched returns the paths that differ between prev and the receiver,
	// those Diff reports between their views; or for a member whose
	// changes cost more to spell out than they are worth (an entry left a
	// long list, and every entry after it moved up), Whole(name) in their
	// place.
	Touched(prev model.State) []Path
}

// Whole returns the path a Toucher gives for a top-level member that
// changed in ways it does not spell out: the pass records the member as
// changed, coarse, as it records an event that changed more than
// MaxTouches paths, and blame checks such an event against the states.
func Whole(name string) Path { return Path{name, whole{}} }

// whole marks a path of Whole.
type whole struct{}

// Member returns p without the mark of Whole: Whole(name) is Path{name},
// and any other path is itself.
func Member(p Path) (Path, bool) {
	if len(p) == 2 {
		if _, ok := p[1].(whole); ok {
			return p[:1], true
		}
	}
	return p, false
}

// Touches records, for every event of a replay, the paths of the state
// (model.StateJSON without "at") that the event changed: the paths Diff
// reports between the state before and after it; or, for an event that
// changed more than MaxTouches paths or that came when the state had grown
// past ExactBudget, the top-level fields it changed, marked coarse.
// Blame then only scans these lists: it never replays.
//
// The paths are kept as bytes (see coder and recWriter) in chunks without
// pointers: a path costs its own bytes and a few more, however many
// distinct paths there are.
//
// Touches is built by one pass over the journal (Extend), which can run in
// the background and be extended as a live journal grows. It is safe for
// concurrent use.
type Touches struct {
	mu    sync.RWMutex
	data  chunks   // the events' records, one after another (recWriter)
	off   []uint32 // event pos p's record is data[off[p-1]:off[p]]
	masks []uint64 // the union of nameMask of events maskSpan*k+1 … maskSpan*(k+1)
	codes coder
	prev  model.Object
	prevS model.State
	exact bool
	// learned maps a set of changed state fields (a bit per field of the
	// fold's state struct) to the top-level keys such a change touched.
	learned map[uint64]*learnt
	scratch []byte // Extend's
}

type learnt struct {
	keys [][]byte // codes of top-level keys
	seen int
}

// NewTouches returns an empty record; Extend fills it.
func NewTouches() *Touches {
	return &Touches{off: []uint32{0}, exact: true, learned: map[uint64]*learnt{}}
}

// Done returns the number of events recorded so far.
func (t *Touches) Done() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.off) - 1
}

// Exact reports whether every record so far is exact (no coarse records
// from the identity comparison).
func (t *Touches) Exact() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.exact
}

// Extend folds the events of r that are not recorded yet, from the first
// missing one to the last indexed, and records what each changed. It calls
// progress (if not nil) every 1024 events with the number recorded, and
// returns early when ctx is done (what was recorded stays). Extend must not
// run concurrently with itself on the same Touches.
func (t *Touches) Extend(ctx context.Context, r *Replay, progress func(done int)) error {
	done := t.Done()
	n := r.Events()
	if done >= n {
		return nil
	}
	s, obj := t.prevS, t.prev
	if s == nil {
		var err error
		if s, err = r.StateAt(done); err != nil {
			return err
		}
		obj = StateView(r.F, s)
	}
	exact := t.Exact()
	var avg time.Duration
	comparable := reflect.TypeOf(s) != nil && reflect.TypeOf(s).Comparable()
	// The records of up to 1024 events, added to t under its lock at once.
	var w recWriter
	var tooBig error
	flush := func() {
		t.mu.Lock()
		if !t.commit(&w) {
			tooBig = errors.New("replay: blame's record of changes would be over 4 GiB")
		}
		t.prevS, t.prev, t.exact = s, obj, exact
		t.mu.Unlock()
	}
	err := r.J.Each(done+1, n, func(ev model.Event) error {
		next := r.F.Apply(s, ev)
		switch tc, ok := next.(Toucher); {
		case comparable && next == s:
		case ok:
			ps := tc.Touched(s)
			coarse := len(ps) > MaxTouches
			for _, p := range ps {
				p, whole := Member(p)
				t.record(&w, p, coarse || whole)
			}
		case exact:
			t0 := time.Now()
			nobj := StateView(r.F, next)
			// A moving average, so one slow call (a GC) does not switch.
			avg = (avg*15 + time.Since(t0)) / 16
			if avg > ExactBudget {
				exact = false
			}
			cs := Diff(obj, nobj)
			coarse := len(cs) > MaxTouches
			for _, c := range cs {
				t.record(&w, c.Path, coarse)
			}
			t.learn(fieldsChanged(s, next), obj, nobj)
			obj = nobj
		default:
			t.coarse(&w, r.F, s, next)
		}
		s = next
		w.next()
		if len(w.recs) == 1024 {
			flush()
			if tooBig != nil {
				return tooBig
			}
			if progress != nil {
				progress(ev.Pos)
			}
			return ctx.Err()
		}
		return nil
	})
	if !exact {
		obj = nil // not kept up to date past the budget
	}
	flush()
	if progress != nil {
		progress(t.Done())
	}
	if err == nil {
		err = tooBig
	}
	return err
}

// learn remembers which top-level keys changed when the state fields sig
// changed, from the views before and after.
func (t *Touches) learn(sig uint64, a, b model.Object) {
	l := t.learned[sig]
	if l == nil {
		l = &learnt{}
		t.learned[sig] = l
	}
	if l.seen >= 8 {
		return
	}
	l.seen++
	for _, c := range Diff(a, b) {
		k := t.code(nil, c.Path[:1])
		if !slices.ContainsFunc(l.keys, func(q []byte) bool { return string(q) == string(k) }) {
			l.keys = append(l.keys, k)
		}
	}
}

// coarse records in w the top-level keys an event changed, from the
// state fields that are no longer identical and what such a change
// touched when it was learned; a change never seen before is learned now,
// from views.
func (t *Touches) coarse(w *recWriter, f model.Format, x, y model.State) {
	sig := fieldsChanged(x, y)
	if sig == 0 {
		return
	}
	if l := t.learned[sig]; l == nil || l.seen == 0 {
		t.learn(sig, StateView(f, x), StateView(f, y))
	}
	for _, k := range t.learned[sig].keys {
		w.add(k, true)
	}
}

// commit adds the records w wrote and resets w; it reports false, and
// adds none, when the record would be over 4 GiB. The caller holds t.mu.
func (t *Touches) commit(w *recWriter) bool {
	base := uint32(t.data.n)
	ok := t.data.write(w.b)
	if ok {
		for i, e := range w.recs {
			t.off = append(t.off, base+e)
			k := (len(t.off) - 2) / maskSpan
			if k == len(t.masks) {
				t.masks = append(t.masks, 0)
			}
			t.masks[k] |= w.masks[i]
		}
	}
	w.reset()
	return ok
}

// record adds path p (cut to its top-level field when coarse) to the
// record w is writing. Only Extend calls it.
func (t *Touches) record(w *recWriter, p Path, coarse bool) {
	if coarse && len(p) > 1 {
		p = p[:1]
	}
	t.scratch = t.code(t.scratch[:0], p)
	w.add(t.scratch, coarse)
}

// code appends p's code to b, numbering a top-level name never seen
// before. Only Extend calls it.
func (t *Touches) code(b []byte, p Path) []byte {
	return t.codes.appendCode(b, p, func(name string) (byte, bool) {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.codes.number(name)
	})
}

// fieldsChanged compares two states of the same fold field by field (a
// bit per field, the 64th for all further ones): pointers, maps, slices and
// interfaces by identity, other values by equality. Persistent states share
// what an event did not change, so this costs a few nanoseconds per field.
func fieldsChanged(a, b model.State) uint64 {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return ^uint64(0)
	}
	for va.Kind() == reflect.Pointer || va.Kind() == reflect.Interface {
		if va.IsNil() || vb.IsNil() {
			if va.IsNil() == vb.IsNil() {
				return 0
			}
			return ^uint64(0)
		}
		va, vb = va.Elem(), vb.Elem()
	}
	if va.Kind() != reflect.Struct {
		if sameValue(va, vb) {
			return 0
		}
		return 1
	}
	var sig uint64
	for i := 0; i < va.NumField(); i++ {
		if !sameValue(va.Field(i), vb.Field(i)) {
			bit := i
			if bit > 63 {
				bit = 63
			}
			sig |= 1 << bit
		}
	}
	return sig
}

func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer, reflect.Map, reflect.UnsafePointer, reflect.Chan, reflect.Func:
		return a.Pointer() == b.Pointer()
	case reflect.Slice:
		return a.Pointer() == b.Pointer() && a.Len() == b.Len()
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Elem().Type() != b.Elem().Type() {
			return false
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// lookupState is Lookup(StateView(f, s), p), making of the state only
// what lies on p where the format allows it: the top-level member p starts
// with (model.StateMembers), and of a list that grows with the journal
// (a model.Lazy of StreamStateJSON with At or Get: Delta Engine's messages
// and actions, DeltaMind's items) the one item p goes into. Blame checks
// each event that may have changed p this way: 18,385 candidates for
// DeltaMind's .seq on a 6 MB journal, each of which made the whole state
// twice.
func lookupState(f model.Format, s model.State, p Path) (any, bool) {
	key, ok := "", len(p) > 0
	if ok {
		key, ok = p[0].(string)
	}
	switch {
	case !ok:
		return Lookup(StateView(f, s), p)
	case key == "at":
		return nil, false // stateView leaves it out: every event changes it
	}
	if i, one := pendingIndex(p); one {
		// One pending item, made as stateHead makes each: Durable
		// Stream's list holds hundreds in a long journal.
		ps := s.Pending()
		if i < 0 || i >= len(ps) {
			return nil, false
		}
		return Lookup(ps[i].Object(), p[2:])
	}
	v, ok := model.StreamMembers(f, s, 0, []string{key}).Get(key)
	if !ok {
		return nil, false
	}
	l, lazy := v.(model.Lazy)
	if !lazy {
		return Lookup(v, p[1:])
	}
	if len(p) > 1 {
		switch k := p[1].(type) {
		case int:
			if l.At != nil && !l.Object {
				if k < 0 || k >= l.Len {
					return nil, false
				}
				return Lookup(l.At(k), p[2:])
			}
		case string:
			if l.Get != nil && l.Object {
				if v, ok = l.Get(k); !ok {
					return nil, false
				}
				return Lookup(v, p[2:])
			}
		}
	}
	// The whole list, or one without random access: as View makes it.
	return Lookup(model.StateMembers(f, s, 0, []string{key}, model.StateJSON), p)
}

// pendingIndex returns i for a path into .pending[i].
func pendingIndex(p Path) (int, bool) {
	if len(p) < 2 || p[0] != "pending" {
		return 0, false
	}
	i, ok := p[1].(int)
	return i, ok
}

// StateView is model.StateJSON without "at", which every event changes:
// the view blame's record, Diff and a Toucher's Touched speak of.
func StateView(f model.Format, s model.State) model.Object {
	o := model.StateJSON(f, s, 0)
	out := make(model.Object, 0, len(o)-1)
	for _, fl := range o {
		if fl.Key != "at" {
			out = append(out, fl)
		}
	}
	return out
}

// At returns the paths event pos changed, as recorded; coarse is true when
// they are only the top-level fields of a larger change.
func (t *Touches) At(pos int) (paths []Path, coarse bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if pos < 1 || pos >= len(t.off) {
		return nil, false
	}
	var scratch []byte
	r := recReader{rec: t.data.slice(t.off[pos-1], t.off[pos], &scratch)}
	for {
		c, cs, ok := r.next()
		if !ok {
			return paths, coarse
		}
		coarse = coarse || cs
		paths = append(paths, t.codes.path(c))
	}
}

// Hit is one event that changed a path.
type Hit struct {
	// Pos is the event's position.
	Pos int
	// Maybe is true when the event is only known to have changed a
	// top-level field above the path (a coarse record): Verify settles it.
	Maybe bool
}

// Blame returns the recorded events that changed p or something inside it
// (or replaced a value above it), newest first. It scans the records only:
// no state is computed.
func (t *Touches) Blame(p Path) []Hit {
	t.mu.RLock()
	defer t.mu.RUnlock()
	code := t.codes.appendCode(nil, p, nil)
	bit := nameMask(code)
	var out []Hit
	var scratch []byte
	for pos := len(t.off) - 1; pos >= 1; pos-- {
		if k := (pos - 1) / maskSpan; t.masks[k]&bit == 0 {
			pos = k*maskSpan + 1 // no event of the span changed p's first name
			continue
		}
		hit, maybe := false, false
		// Each path of the record is compared with code through what it
		// shares with the path before (see recWriter): lcp, how many bytes
		// the last path has in common with code, is where a path that
		// shares more differs from code too, and a path that shares less
		// is compared from where it differs from the last. Most are told
		// apart by their first byte or two, and none is copied.
		lcp := 0
		for rec := t.data.slice(t.off[pos-1], t.off[pos], &scratch); len(rec) > 0 && !hit; {
			shared, suffix, coarse, rest := splitPath(rec)
			rec = rest
			if shared <= lcp {
				lcp = shared + commonPrefix(suffix, code[shared:])
			}
			// One of the path and p is a prefix of the other (see coder).
			n := shared + len(suffix)
			if lcp < min(n, len(code)) {
				continue
			}
			if coarse && n < len(code) {
				maybe = true // only known to have changed a field above p
				continue
			}
			hit = true
		}
		if hit || maybe {
			if out == nil {
				out = make([]Hit, 0, 256)
			}
			out = append(out, Hit{Pos: pos, Maybe: !hit})
		}
	}
	return out
}

// Lookup returns the value at p inside v (an Object tree) and whether it
// exists.
func Lookup(v any, p Path) (any, bool) {
	for _, e := range p {
		switch k := e.(type) {
		case string:
			o, ok := v.(model.Object)
			if !ok {
				return nil, false
			}
			if v, ok = o.Get(k); !ok {
				return nil, false
			}
		case int:
			a, ok := v.([]any)
			if !ok || k < 0 || k >= len(a) {
				return nil, false
			}
			v = a[k]
		default:
			return nil, false
		}
	}
	return v, true
}

// Effect is what one event did to one path: its value before and after.
type Effect struct {
	Pos int
	// Op is Added, Removed or Changed; "" when the value did not change
	// (a coarse hit that Verify ruled out).
	Op       Op
	Old, New any
	// At is set for a path that names a whole member: a list that grows
	// with the journal (Delta Engine's messages and actions, DeltaMind's
	// items; the lists are not made), or with Effects.Recorded any
	// member (Durable Stream's .pending, .sessions). It is the item under
	// the path that the event changed ([42], .call_x), Old and New are
	// that item's values, and More counts the other items it changed.
	At   Path
	More int
}

// Text says what the event did to the path: "added V", "removed V" or
// "changed OLD → NEW", with the item for a whole list ("added [42] V")
// and how many more items it changed (" (and 2 more items)"). one shows
// the value of an addition or removal, two each side of a change (the
// caller picks their widths); the text is unsanitized: the values and
// the item's path come from the journal.
func (e Effect) Text(one, two func(any) string) string {
	at := ""
	if len(e.At) > 0 {
		at = e.At.String() + " "
	}
	more := ""
	switch {
	case e.More == 1:
		more = " (and 1 more item)"
	case e.More > 1:
		more = " (and " + strconv.Itoa(e.More) + " more items)"
	}
	switch e.Op {
	case Added:
		return "added " + at + one(e.New) + more
	case Removed:
		return "removed " + at + one(e.Old) + more
	}
	return "changed " + at + two(e.Old) + " → " + two(e.New) + more
}

// EffectAt computes what the event at pos did to p, from the states
// before and after it. For many events, Effects costs less.
func EffectAt(r *Replay, pos int, p Path) (Effect, error) {
	return NewEffects(r, p).At(pos)
}

// Effects computes what events of a replay did to one path (EffectAt),
// for events asked for in any order. It keeps the states of the stretch
// of the journal it folded last, from a keyframe on: blame asks for the
// events that changed a path newest first, and those between two
// keyframes then cost one fold of the stretch between them, not a fold
// from the keyframe each. An Effects is not safe for concurrent use.
type Effects struct {
	r      *Replay
	p      Path
	rec    *Touches      // see Recorded
	base   int           // position of states[0]
	states []model.State // the states after events base, base+1, …
	list   int8          // whether p names a list listEffect tells (lazyList): 0 not asked yet, 1 yes, -1 no
}

// NewEffects returns an Effects of path p in r.
func NewEffects(r *Replay, p Path) *Effects { return &Effects{r: r, p: p} }

// Recorded makes e tell the effect on a whole member (a path of one name,
// .pending, .sessions) by the first item under it that the event changed
// (Effect.At, More), where no Lazy list with At tells it (listEffect), and
// returns e: the item t's exact record names, made alone, or
// for a coarse record the one Diff of the member made whole names (the
// same item, so the effect does not depend on where t turned coarse).
// Shown whole, the two lists started alike for as long as a line shows.
// t must be the record of e's replay.
func (e *Effects) Recorded(t *Touches) *Effects {
	e.rec = t
	return e
}

// At computes what the event at pos did to the path, from the states
// before and after it.
func (e *Effects) At(pos int) (Effect, error) {
	a, err := e.state(pos - 1)
	if err != nil {
		return Effect{}, err
	}
	b, err := e.state(pos)
	if err != nil {
		return Effect{}, err
	}
	if e.rec != nil {
		// A list that grows with the journal, in a state that says what
		// an event changed, first: its record names the items as Touched
		// does, and listEffect makes only the first.
		if e.list == 0 {
			// Asked once: whether p is such a list depends on the
			// format and p alone, and asking makes the member.
			e.list = -1
			if lazyList(e.r.F, b, e.p) {
				e.list = 1
			}
		}
		if e.list > 0 {
			if eff, ok := touchedItemEffect(e.r.F, a, b, pos, e.p[0].(string)); ok {
				return eff, nil
			}
		}
		if eff, ok := recordedEffect(e.r.F, a, b, pos, e.p, e.rec); ok {
			return eff, nil
		}
	}
	return effectOf(e.r.F, a, b, pos, e.p), nil
}

// state returns the state after the event at pos: a kept one, or one
// folded from the last kept state when pos is at most a keyframe interval
// past it, or else from the keyframe before pos (StateAt), the states on
// the way kept in place of the others.
func (e *Effects) state(pos int) (model.State, error) {
	pos = max(0, min(pos, e.r.Events()))
	if i := pos - e.base; i >= 0 && i < len(e.states) {
		return e.states[i], nil
	}
	e.r.mu.Lock()
	k := e.r.K
	e.r.mu.Unlock()
	last := e.base + len(e.states) - 1
	// At most 4 intervals of states are kept (a OneShot replay's interval
	// is the whole journal).
	if len(e.states) == 0 || pos < e.base || pos-last > k || len(e.states) > 4*min(k, DefaultInterval) {
		base := pos / k * k
		s, err := e.r.StateAt(base)
		if err != nil {
			return nil, err
		}
		e.base, e.states, last = base, append(e.states[:0], s), base
	}
	s := e.states[len(e.states)-1]
	err := e.r.J.Each(last+1, pos, func(ev model.Event) error {
		s = e.r.F.Apply(s, ev)
		e.states = append(e.states, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e.states[pos-e.base], nil
}

// effectOf is what the event at pos did to p, from the states a before
// and b after it.
func effectOf(f model.Format, a, b model.State, pos int, p Path) Effect {
	if e, ok := listEffect(f, a, b, pos, p); ok {
		return e
	}
	old, had := lookupState(f, a, p)
	nw, has := lookupState(f, b, p)
	e := Effect{Pos: pos, Old: old, New: nw}
	switch {
	case !had && has:
		e.Op = Added
	case had && !has:
		e.Op = Removed
	case had && has && len(Diff(old, nw)) > 0:
		e.Op = Changed
	}
	return e
}

// recordedEffect is effectOf for a path p that names a whole member, told
// by the items under it that the event at pos changed (see
// Effects.Recorded), the first of them made before and after. The items
// are those t's record names when it is exact; for a coarse record, the
// member is made whole before and after and the items are those Diff
// names, which are the ones an exact record holds: the output does not
// depend on where the recording pass turned coarse (a time budget). ok is
// false for any other path, or a member replaced, added or removed whole.
// (A list that grows with the journal in a state that says what an event
// changed is listEffect's, which Effects.At tries first.)
func recordedEffect(f model.Format, a, b model.State, pos int, p Path, t *Touches) (Effect, bool) {
	if len(p) != 1 || p[0] == "at" {
		return Effect{}, false
	}
	paths, coarse := t.At(pos)
	if !coarse {
		items, replaced := itemsUnder(p[0], paths)
		if replaced || len(items) == 0 {
			return Effect{}, false
		}
		return itemEffect(f, a, b, pos, items), true
	}
	old, had := lookupState(f, a, p)
	nw, has := lookupState(f, b, p)
	if !had || !has {
		return Effect{}, false
	}
	var items []Path
	for _, c := range Diff(old, nw) {
		if len(c.Path) == 0 {
			return Effect{}, false // a value of another kind
		}
		if !slices.ContainsFunc(items, func(it Path) bool { return it[1] == c.Path[0] }) {
			items = append(items, Path{p[0], c.Path[0]})
		}
	}
	if len(items) == 0 {
		return Effect{Pos: pos, Old: old, New: nw}, true // a coarse hit that left p alone, as effectOf says it
	}
	o, had := Lookup(old, items[0][1:])
	n, has := Lookup(nw, items[0][1:])
	return Effect{Pos: pos, Op: itemOp(had, has), Old: o, New: n, At: items[0][1:], More: len(items) - 1}, true
}

// itemsUnder returns the items under the member named key that paths go
// into (Path{key, item}), once each, in the order of paths; replaced is
// true when a path names the member itself.
func itemsUnder(key any, paths []Path) (items []Path, replaced bool) {
	for _, q := range paths {
		if len(q) == 0 || q[0] != key {
			continue
		}
		if len(q) < 2 {
			return nil, true
		}
		if !slices.ContainsFunc(items, func(it Path) bool { return it[1] == q[1] }) {
			items = append(items, Path{key, q[1]})
		}
	}
	return items, false
}

// itemEffect is what the event at pos did to the first of items (paths
// of one member's items, at least one), made in the states a before and b
// after it; More counts the others.
func itemEffect(f model.Format, a, b model.State, pos int, items []Path) Effect {
	old, had := lookupState(f, a, items[0])
	nw, has := lookupState(f, b, items[0])
	return Effect{Pos: pos, Op: itemOp(had, has), Old: old, New: nw, At: items[0][1:], More: len(items) - 1}
}

// itemOp is the Op of an item an event changed, from whether it was there
// before and after.
func itemOp(had, has bool) Op {
	switch {
	case !had && has:
		return Added
	case had && !has:
		return Removed
	}
	return Changed
}

// lazyList reports whether p names a whole list that listEffect tells:
// a member of a state that says what an event changed (Toucher) that is
// a model.Lazy with At or Get in its StreamMembers.
func lazyList(f model.Format, s model.State, p Path) bool {
	if len(p) != 1 {
		return false
	}
	key, ok := p[0].(string)
	if _, toucher := s.(Toucher); !ok || !toucher || key == "at" {
		return false
	}
	v, _ := model.StreamMembers(f, s, 0, []string{key}).Get(key)
	l, lazy := v.(model.Lazy)
	return lazy && (l.At != nil || l.Get != nil)
}

// listEffect is effectOf for a path that names a whole list growing with
// the journal (a model.Lazy member with At or Get) in a state that says
// what an event changed (Toucher): the effect on the first item the event
// changed (Effect.At), found from b's Touched, with that item made before
// and after. Making the whole list twice for every candidate made blame
// of .messages quadratic (five minutes for 5,000 Delta Engine events).
// ok is false for any other path or state.
func listEffect(f model.Format, a, b model.State, pos int, p Path) (Effect, bool) {
	if !lazyList(f, b, p) {
		return Effect{}, false
	}
	return touchedItemEffect(f, a, b, pos, p[0].(string))
}

// touchedItemEffect is listEffect for the list named key, which lazyList
// has accepted.
func touchedItemEffect(f model.Format, a, b model.State, pos int, key string) (Effect, bool) {
	paths := b.(Toucher).Touched(a)
	for i, q := range paths {
		paths[i], _ = Member(q)
	}
	items, replaced := itemsUnder(key, paths)
	switch {
	case replaced:
		return Effect{}, false // the whole list replaced
	case len(items) == 0:
		return Effect{Pos: pos}, true
	}
	return itemEffect(f, a, b, pos, items), true
}
