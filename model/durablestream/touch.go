package durablestream

import (
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

var _ replay.Toucher = (*state)(nil)

// Touched returns the paths of the state JSON (model.StateJSON without
// "at") that differ between prev and s, the paths replay.Diff would report
// between their views, for replay's blame records and the TUI's change
// marks (replay.Toucher). When prev is an earlier version of s's lineage
// (s was folded from prev, or refolded the same way), it builds only what
// the events between them changed: the entries of the maps their log
// names (a session, an epic, a task, before and after), the entries
// appended to the lists, and the count of the one event's type. Pending
// checkpoints and active intents that grew by one at their end are that
// entry; otherwise, since an entry leaving shifts the ones after it, they
// are diffed whole when they are short (exactShift) and replay.Whole when
// they are not. For any other prev both views are built and diffed. Blame of .sessions on a long stream made every
// session's object twice for every event; this makes two.
func (s *state) Touched(prev model.State) []replay.Path {
	p, ok := prev.(*state)
	if !ok || p == nil || p.lin != s.lin || p.n > s.n {
		return replay.DiffPaths(nil, replay.StateView(Format, prev), replay.StateView(Format, s))
	}
	if p.n == s.n {
		return nil
	}
	l := s.lin
	l.mu.Lock()
	pend, act := l.pending.changed(p.n, s.n), l.active.changed(p.n, s.n)
	pendAdded := appendedLast(&l.pending, pend, p.n, p.lens.nPending, s.lens.nPending)
	l.mu.Unlock()
	pendLong := max(p.lens.nPending, s.lens.nPending) > exactShift
	var out []replay.Path
	switch {
	case pendAdded:
		out = append(out, replay.Path{"pending", int(p.lens.nPending)})
	case len(pend) > 0 && pendLong:
		out = append(out, replay.Whole("pending"))
	case len(pend) > 0:
		out = replay.DiffPaths(out, model.PendingObjects(p), model.PendingObjects(s), "pending") // Pending takes the lock
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case pendAdded:
		out = append(out, replay.Path{"pending_checkpoints", int(p.lens.nPending)})
	case len(pend) > 0 && pendLong:
		out = append(out, replay.Whole("pending_checkpoints"))
	case len(pend) > 0:
		out = replay.DiffPaths(out, mapAll(&l.pending, p.n, (*checkpoint).object), mapAll(&l.pending, s.n, (*checkpoint).object), "pending_checkpoints")
	}
	switch {
	case appendedLast(&l.active, act, p.n, p.lens.nActive, s.lens.nActive):
		out = append(out, replay.Path{"active_intents", int(p.lens.nActive)})
	case len(act) > 0 && max(p.lens.nActive, s.lens.nActive) > exactShift:
		out = append(out, replay.Whole("active_intents"))
	case len(act) > 0:
		out = replay.DiffPaths(out, mapAll(&l.active, p.n, (*intent).object), mapAll(&l.active, s.n, (*intent).object), "active_intents")
	}
	out = appended(out, p.lens.nDecided, s.lens.nDecided, "decided_checkpoints")
	out = appended(out, p.lens.nFinished, s.lens.nFinished, "finished_intents")
	out = touchedMap(out, &l.epics, p.n, s.n, (*ledgerItem).epicObject, "ledger", "epics")
	out = touchedMap(out, &l.tasks, p.n, s.n, (*ledgerItem).taskObject, "ledger", "tasks")
	out = appended(out, p.lens.nDirectives, s.lens.nDirectives, "ledger", "directives")
	out = appended(out, p.lens.nAssumptions, s.lens.nAssumptions, "ledger", "assumptions")
	out = appended(out, p.lens.nLearnings, s.lens.nLearnings, "ledger", "learnings")
	out = appended(out, p.lens.nHandoffs, s.lens.nHandoffs, "ledger", "handoffs")
	out = touchedMap(out, &l.sessions, p.n, s.n, (*session).object, "sessions")
	out = append(out, replay.Path{"events_replayed"})
	if p.lastEventAt != s.lastEventAt {
		out = append(out, replay.Path{"last_event_at"})
	}
	if s.n == p.n+1 {
		// One event: its type's count, added or changed.
		return append(out, replay.Path{"counts", l.types.nameAt(s.n)})
	}
	return replay.DiffPaths(out, l.types.object(p.n), l.types.object(s.n), "counts")
}

// exactShift is the longest list of pending checkpoints or active intents
// that Touched diffs whole when an entry leaves it or changes: every entry
// after one that leaves moves up, and Diff names each of their fields,
// which on a stream with hundreds pending made blame's pass quadratic.
// Longer ones are replay.Whole. (A variable, for tests.)
var exactShift int32 = 16

// appendedLast reports whether the only change to m between versions from
// and to (changed, its changed slots) is one entry added after the others:
// a new slot, the last, while the number of entries went from nFrom to
// nFrom+1. The view's list then only grew by that entry at its end, and
// the lists before and after need not be made and diffed. The caller
// holds the lineage's mu.
func appendedLast[V any](m *omap[V], changed []int32, from int64, nFrom, nTo int32) bool {
	return len(changed) == 1 && int(changed[0]) == len(m.slots)-1 && m.slots[changed[0]].n > from && nTo == nFrom+1
}

// touchedMap appends the paths of m's entries that the versions after
// from and up to to changed, in m's order: m is a map whose entries are
// never deleted (epics, tasks, sessions), so an entry's index in the view
// is its slot's. A new entry is one path; a changed one, the paths Diff
// reports between its objects. The caller holds the lineage's mu.
func touchedMap[V any](out []replay.Path, m *omap[V], from, to int64, object func(V) model.Object, prefix ...any) []replay.Path {
	for _, k := range m.changed(from, to) {
		sl := &m.slots[k]
		item := append(append(replay.Path{}, prefix...), int(k))
		if sl.n > from {
			out = append(out, item)
			continue
		}
		old, _ := sl.value(from)
		nw, _ := sl.value(to)
		out = replay.DiffPaths(out, object(old), object(nw), item...)
	}
	return out
}

// appended appends the paths of the entries a list grew by, from length
// from to length to.
func appended(out []replay.Path, from, to int32, prefix ...any) []replay.Path {
	for k := from; k < to; k++ {
		out = append(out, append(append(replay.Path{}, prefix...), int(k)))
	}
	return out
}
