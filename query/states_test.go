package query

import (
	"encoding/json"
	"testing"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/formats"
	"github.com/rewind-tui/rewind/replay"
)

// stateExprs read the members whose items a StateMatcher remakes one at a
// time (Delta Engine's messages and actions, DeltaMind's items and
// rejected lines, Durable Stream's sessions and lists), the head's members,
// and the whole state.
var stateExprs = []string{
	`.messages | length > 100000`, `.actions | length > 100000`, `.items | length > 100000`,
	`.rejected | length > 100000`, `.disagreements | length > 100000`, `.sessions | length > 100000`,
	`.pending_checkpoints | length > 100000`, `.active_intents | length > 100000`,
	`.decided_checkpoints | length > 100000`, `.finished_intents | length > 100000`,
	`.ledger | length > 100000`, `.counts | length > 100000`, `.pending | length > 100000`,
	`.at < 0`, `.checkpoint != null and .seq < 0`, `tojson | length < 0`,
}

// inputJSON is the JSON text of a query's input, numbers as they print
// whatever their Go type.
func inputJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A StateMatcher's input, remade from the state before at each event of
// a fold, is the input MatchState makes whole, at every position of a
// journal of each format; and as a cursor moves back and forth, over the
// fold's states and over states the replay refolds (the TUI's breakpoint).
func TestStateMatcherInputEqualsTheWholeInput(t *testing.T) {
	// Lists made whole at each event while short, from what changed
	// once they are longer than 2 (64 outside tests).
	defer func(n int) { longList = n }(longList)
	longList = 2
	for _, name := range []string{model.DurableStream, model.DeltaEngine, model.DeltaMind} {
		j := journaltest.Generated(t, name, name+".jsonl", 600, 5)
		f, _ := formats.ByName(name)
		var ms []*StateMatcher
		for _, src := range stateExprs {
			q, err := Compile(src)
			if err != nil {
				t.Fatal(err)
			}
			m := q.States(f)
			defer m.Close()
			ms = append(ms, m)
		}
		var states []model.State
		check := func(st model.State, pos int) {
			for _, m := range ms {
				got := inputJSON(t, m.input(st, pos))
				if want := inputJSON(t, m.q.stateInput(f, st, pos)); got != want {
					t.Fatalf("%s, position %d, %s: remade input\n%.600s\nwant\n%.600s", name, pos, m.q.Src, got, want)
				}
			}
		}
		st := f.Init()
		err := j.Each(1, 1<<30, func(ev model.Event) error {
			st = f.Apply(st, ev)
			states = append(states, st)
			check(st, ev.Pos)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(states) < 600 {
			t.Fatalf("%s: %d events folded, want 600", name, len(states))
		}
		// A cursor's moves: back to the middle, a step on and back, to
		// the end, steps back, to the start.
		n := len(states)
		moves := []int{n / 2, n/2 + 1, n / 2, n - 1, n - 2, n - 3, 1, 2}
		for _, pos := range moves {
			check(states[pos-1], pos)
		}
		// The same moves through states the replay refolds from its
		// keyframes, as the TUI's cursor gets them.
		r := replay.New(j, f)
		for _, pos := range append(moves, n, n/3) {
			st, err := r.StateAt(pos)
			if err != nil {
				t.Fatal(err)
			}
			check(st, pos)
		}
	}
}

// The first state where an expression holds, found with a StateMatcher,
// is the one MatchState finds, for expressions over the long lists that
// become true part of the way through a journal.
func TestStateMatcherFindsWhatMatchStateFinds(t *testing.T) {
	for _, tc := range []struct{ format, expr string }{
		{model.DeltaEngine, `.messages | length > 300`},
		{model.DeltaEngine, `[.actions[] | select(.status == "FAILED")] | length > 3`},
		{model.DeltaMind, `.items | map(select(.status == "superseded")) | length > 5`},
		{model.DeltaMind, `.rejected | length > 20`},
		{model.DurableStream, `.sessions | length > 4`},
		{model.DurableStream, `.decided_checkpoints | map(select(.approved)) | length > 1`},
	} {
		j := journaltest.Generated(t, tc.format, tc.format+".jsonl", 600, 5)
		f, _ := formats.ByName(tc.format)
		q, err := Compile(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		m := q.States(f)
		want, got := 0, 0
		st := f.Init()
		err = j.Each(1, 1<<30, func(ev model.Event) error {
			st = f.Apply(st, ev)
			if ok, _ := q.MatchState(f, st, ev.Pos); ok && want == 0 {
				want = ev.Pos
			}
			if ok, _ := m.Match(st, ev.Pos); ok && got == 0 {
				got = ev.Pos
			}
			return nil
		})
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want == 0 {
			t.Errorf("%s: %s holds nowhere in the generated journal; pick one that does", tc.format, tc.expr)
		}
		if got != want {
			t.Errorf("%s: %s first holds at %d with a StateMatcher, at %d with MatchState", tc.format, tc.expr, got, want)
		}
	}
}

// lazyOf returns a model.Lazy list of items with At, or with object set an
// object of them with Get, for the remake helpers' cases that generated
// journals do not reach (a list that shrinks, a member that goes).
func lazyOf(items map[string]any, order []string, object bool) model.Lazy {
	l := model.Lazy{Len: len(order), Object: object}
	if object {
		l.Get = func(k string) (any, bool) { v, ok := items[k]; return v, ok }
	} else {
		l.At = func(i int) any { return items[order[i]] }
	}
	return l
}

// A list that shrinks is cut to its new length, and an item beyond the
// list's end that no path names makes the remake give up (the member is
// then made whole); a member that goes is deleted from an object.
func TestRemakeFollowsShrinkingListsAndMembersThatGo(t *testing.T) {
	items := map[string]any{"a": "A2", "b": "B", "c": "C"}
	got, ok := remakeItems([]any{"A", "B", "C", "D"}, lazyOf(items, []string{"a", "b", "c"}, false),
		[]replay.Path{{"l", 3}, {"l", 0}})
	if !ok || inputJSON(t, got) != `["A2","B","C"]` {
		t.Errorf("list of 4 cut to 3, first item changed: %v %v", got, ok)
	}
	if _, ok := remakeItems([]any{"A"}, lazyOf(items, []string{"a", "b", "c"}, false), []replay.Path{{"l", 2}}); ok {
		t.Error("an item added past the end with the one before it unnamed: remade")
	}
	if _, ok := remakeItems([]any{"A"}, lazyOf(items, []string{"a"}, false), []replay.Path{replay.Whole("l")}); ok {
		t.Error("a whole-member path: remade item by item")
	}
	obj := map[string]any{"a": "A", "gone": "G"}
	if !remakeMembers(obj, lazyOf(items, []string{"a"}, true), []replay.Path{{"o", "a"}, {"o", "gone"}}) ||
		inputJSON(t, obj) != `{"a":"A2"}` {
		t.Errorf("member a changed and member gone removed: %v", obj)
	}
	if remakeMembers(map[string]any{"a": "A"}, lazyOf(items, []string{"a", "b"}, true), []replay.Path{{"o", "a"}}) {
		t.Error("a member added that no path named: remade")
	}
}

// BenchmarkStateSearch is a search over every state of a 400-event journal
// of each format for an expression over its longest list that never
// holds: each state's input made whole (MatchState, the search before
// StateMatcher) against remade from the one before.
func BenchmarkStateSearch(b *testing.B) {
	for _, tc := range []struct{ format, expr string }{
		{model.DeltaEngine, `.messages | length < 0`},
		{model.DeltaMind, `.items | length < 0`},
		{model.DurableStream, `.sessions | length < 0`},
	} {
		j := journaltest.Generated(b, tc.format, tc.format+".jsonl", 400, 5)
		f, _ := formats.ByName(tc.format)
		q, err := Compile(tc.expr)
		if err != nil {
			b.Fatal(err)
		}
		for _, remade := range []bool{false, true} {
			name := tc.format + "/whole"
			if remade {
				name = tc.format + "/remade"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					m := q.States(f)
					st := f.Init()
					err := j.Each(1, 1<<30, func(ev model.Event) error {
						st = f.Apply(st, ev)
						var ok bool
						if remade {
							ok, _ = m.Match(st, ev.Pos)
						} else {
							ok, _ = q.MatchState(f, st, ev.Pos)
						}
						if ok {
							b.Fatalf("%s holds at %d", tc.expr, ev.Pos)
						}
						return nil
					})
					m.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
