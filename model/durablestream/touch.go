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
// appended to the lists, and the count of the one event's type; pending
// checkpoints and active intents as listShiftOf says. For any other prev
// both views are built and diffed. (Blame of .sessions on a long stream
// made every session's object twice for every event; this makes two.)
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
	pend := listShiftOf(&l.pending, p.n, s.n, p.lens.nPending, s.lens.nPending)
	act := listShiftOf(&l.active, p.n, s.n, p.lens.nActive, s.lens.nActive)
	l.mu.Unlock()
	// The head's "pending" lists the pending checkpoints; Pending takes
	// the lock itself.
	out := pend.paths(nil, "pending", p.lens.nPending, func() (any, any) {
		return model.PendingObjects(p), model.PendingObjects(s)
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	out = pend.paths(out, "pending_checkpoints", p.lens.nPending, func() (any, any) {
		return mapAll(&l.pending, p.n, (*checkpoint).object), mapAll(&l.pending, s.n, (*checkpoint).object)
	})
	out = act.paths(out, "active_intents", p.lens.nActive, func() (any, any) {
		return mapAll(&l.active, p.n, (*intent).object), mapAll(&l.active, s.n, (*intent).object)
	})
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

// listShift is how a list made of a map whose entries leave (pending
// checkpoints, active intents) changed between two versions.
type listShift uint8

const (
	listSame   listShift = iota
	listGrew             // by one entry at its end: that entry's path
	listWhole            // longer than exactShift: replay.Whole
	listDiffed           // the paths Diff reports between the lists
)

// listShiftOf returns how m's list changed after version from and up to
// to, while its number of entries went from nFrom to nTo. It grew when
// its only change is a new slot, the last, and one entry more. The caller
// holds the lineage's mu.
func listShiftOf[V any](m *omap[V], from, to int64, nFrom, nTo int32) listShift {
	changed := m.changed(from, to)
	switch {
	case len(changed) == 0:
		return listSame
	case len(changed) == 1 && int(changed[0]) == len(m.slots)-1 && int64(m.slots[changed[0]].n) > from && nTo == nFrom+1:
		return listGrew
	case max(nFrom, nTo) > exactShift:
		return listWhole
	}
	return listDiffed
}

// paths appends the paths of the change to the list named name, nFrom
// entries long before it; lists makes the lists before and after, and is
// called only when they are to be diffed.
func (k listShift) paths(out []replay.Path, name string, nFrom int32, lists func() (before, after any)) []replay.Path {
	switch k {
	case listGrew:
		return append(out, replay.Path{name, int(nFrom)})
	case listWhole:
		return append(out, replay.Whole(name))
	case listDiffed:
		a, b := lists()
		return replay.DiffPaths(out, a, b, name)
	}
	return out
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
		if int64(sl.n) > from {
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
