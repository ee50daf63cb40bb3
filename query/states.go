package query

import (
	"slices"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// StateMatcher is MatchState over the states of one fold, given in the
// order they are folded, each from the one before (a search for the first
// state where an expression holds). Instead of making each state's input
// whole, it keeps the last one and remakes only what the event changed,
// as the state says (replay.Toucher): the members it names and, of a long
// list or object that the format gives as a model.Lazy with At or Get
// (Delta Engine's messages and actions, DeltaMind's items, Durable
// Stream's sessions), only the items it names. An expression over such a
// list then costs its own evaluation at each state, not the making of
// every item at every state again: `.messages | length > 100000` over the
// first 3,000 events of a Delta Engine journal took 48 s that way.
//
// A state that is not a Toucher is made whole, as MatchState makes it; so
// is the first one. A state not folded from the one before still gets the
// right input (Touched then diffs the two whole views), at a higher cost.
// A StateMatcher must not be used by two goroutines at once; Close it
// when done.
type StateMatcher struct {
	q      *Query
	f      model.Format
	mt     *Matcher
	in     map[string]any // the input of prev
	prev   model.State
	prevAt int
	lazy   bool // a member read is a model.Lazy: remade from what changed
}

// States returns a StateMatcher of q over states of format f.
func (q *Query) States(f model.Format) *StateMatcher {
	return &StateMatcher{q: q, f: f, mt: q.Matcher()}
}

// Match is q.MatchState(f, s, at), for s folded from the state the last
// call was given, or the other way round (a cursor that moves back), or
// any s at a higher cost.
func (m *StateMatcher) Match(s model.State, at int) (bool, error) {
	return m.mt.Match(m.input(s, at))
}

// Close stops the watchdog of its Matcher. The StateMatcher must not be
// used after.
func (m *StateMatcher) Close() { m.mt.Close() }

// input returns the input of s at position at, made from the last one
// where it can be. It is valid until the next call.
func (m *StateMatcher) input(s model.State, at int) map[string]any {
	t, touch := s.(replay.Toucher)
	pt, ptouch := m.prev.(replay.Toucher)
	var paths []replay.Path
	switch {
	case m.prev == nil || !touch:
		m.prev, m.prevAt = s, at
		if in, ok := m.q.stateInput(m.f, s, at).(map[string]any); ok {
			m.in = in
		} else {
			m.in = map[string]any{}
		}
		m.lazy = m.readsLazy(s, at)
		if !touch { // made whole each time, so the next one is too
			m.prev = nil
		}
		return m.in
	case !m.lazy:
		// Nothing read is a long list: the members read, made again,
		// cost less than asking what changed (a DeltaMind item's
		// versions, a Delta Engine action's lines, read back).
		m.prev, m.prevAt = s, at
		m.remakeAll(s, at)
		return m.in
	case at < m.prevAt && ptouch:
		// Back: the same paths, asked of the later state, which
		// Touched finds from what its events changed.
		paths = pt.Touched(s)
	default:
		paths = t.Touched(m.prev)
	}
	m.prev, m.prevAt = s, at
	if m.reads("at") {
		m.in["at"] = at
	}
	// The paths of each member, in the order Touched gives them.
	names, byName, _ := replay.ByMember(paths)
	for _, name := range names {
		if m.reads(name) {
			m.remake(s, at, name, byName[name])
		}
	}
	return m.in
}

// readsLazy reports whether a member the input holds is, in s, a
// model.Lazy list or object (model.StreamMembers), one that grows with the
// journal.
func (m *StateMatcher) readsLazy(s model.State, at int) bool {
	if !m.q.partial {
		return true // the whole state: its lists are the formats' Lazy ones
	}
	for _, k := range m.q.keys {
		v, _ := model.StreamMembers(m.f, s, at, []string{k}).Get(k)
		if _, lazy := v.(model.Lazy); lazy {
			return true
		}
	}
	return false
}

// remakeAll makes the members the expression reads again from s, as
// MatchState does, but "at" from at and "format", which does not change,
// not at all: "at" alone made the head's pending list too (hundreds of
// Durable Stream checkpoints at every event).
func (m *StateMatcher) remakeAll(s model.State, at int) {
	var keys []string
	for _, k := range m.q.keys {
		switch k {
		case "at":
			m.in[k] = at
		case "format":
		default:
			keys = append(keys, k)
			delete(m.in, k)
		}
	}
	if len(keys) == 0 {
		return
	}
	for _, fl := range model.StateMembers(m.f, s, at, keys, model.StreamStateJSON) {
		v := Value(fl.Value)
		m.in[fl.Key] = v
		if longer(v, longList) {
			m.lazy = true // from the next state on, from what changed
		}
	}
}

// longList is the length past which a list or object that remakeAll made
// is made, from then on, from what each event changed: Durable Stream's
// pending checkpoints, hundreds long in a long stream, made whole at every
// event took 88 s over 250 MB. (A variable, for tests.)
var longList = 64

// longer reports whether v is a list or object of more than n entries.
func longer(v any, n int) bool {
	switch x := v.(type) {
	case []any:
		return len(x) > n
	case map[string]any:
		return len(x) > n
	}
	return false
}

// reads reports whether the input holds member name: all of them when the
// expression may read the whole input.
func (m *StateMatcher) reads(name string) bool {
	return !m.q.partial || slices.Contains(m.q.keys, name)
}

// remake brings member name of the input up to s, given the paths under
// it that changed: the items they name of a Lazy list or object with At
// or Get, the member whole otherwise.
func (m *StateMatcher) remake(s model.State, at int, name string, paths []replay.Path) {
	v, ok := model.StreamMembers(m.f, s, at, []string{name}).Get(name)
	if !ok {
		delete(m.in, name)
		return
	}
	l, lazy := v.(model.Lazy)
	switch {
	case lazy && !l.Object && l.At != nil:
		if list, ok := m.in[name].([]any); ok {
			if list, ok = remakeItems(list, l, paths); ok {
				m.in[name] = list
				return
			}
		}
	case lazy && l.Object && l.Get != nil:
		if obj, ok := m.in[name].(map[string]any); ok && remakeMembers(obj, l, paths) {
			return
		}
	}
	m.in[name] = Value(v)
}

// remakeItems remakes the items of list (the input's, for an earlier
// state) that paths name, from l, and gives it l's length. It returns
// false when a path does not name an item ([]int), or names one past the
// end of the list.
func remakeItems(list []any, l model.Lazy, paths []replay.Path) ([]any, bool) {
	idx, ok := replay.UnderAll[int](paths)
	if !ok {
		return nil, false
	}
	for _, i := range idx {
		switch {
		case i >= l.Len:
			// Past the new end: the list shrank, cut below.
		case i < len(list):
			list[i] = Value(l.At(i))
		case i == len(list):
			list = append(list, Value(l.At(i)))
		default:
			return nil, false
		}
	}
	if len(list) < l.Len {
		return nil, false // an item added that no path named
	}
	clear(list[l.Len:]) // what the collector may free
	return list[:l.Len], true
}

// remakeMembers remakes the members of obj (the input's, for an earlier
// state) that paths name, from l: set where l has them, deleted where it
// does not. It returns false when a path does not name a member, or obj
// then has a member count other than l's.
func remakeMembers(obj map[string]any, l model.Lazy, paths []replay.Path) bool {
	for _, p := range paths {
		key, ok := replay.Under[string](p)
		if !ok {
			return false
		}
		if v, ok := l.Get(key); ok {
			obj[key] = Value(v)
		} else {
			delete(obj, key)
		}
	}
	return len(obj) == l.Len
}
