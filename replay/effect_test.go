package replay_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// EffectAt, which makes only what lies on a path when the format can
// (model.KeyViews, the state's head, one item of a model.Lazy list), gives
// what it gives from the whole state, at every position, for paths into
// each kind of member; and so does one Effects asked for every position
// newest first, as blame asks, or in a shuffled order.
func TestEffectAtEqualsTheWholeState(t *testing.T) {
	journals := map[string]string{
		// Three checkpoints pending at once: the generated journals
		// resolve theirs one at a time.
		"../model/durablestream/testdata/stream.jsonl": model.DurableStream,
	}
	for _, name := range []string{model.DurableStream, model.DeltaMind, model.DeltaEngine} {
		journals[journaltest.GeneratedPath(t, name, "journal.jsonl", 400, 2)] = name
	}
	for p, name := range journals {
		s, err := app.OpenPath(p, app.Options{Format: name})
		if err != nil {
			t.Fatal(err)
		}
		paths := []replay.Path{{"pending"}, {"pending", 0}, {"pending", 0, "id"}, {"pending", 2}, {"pending", -1}, {"pending", 1 << 20}, {"format"},
			{"finished_intents"}, {"finished_intents", 1, "status"}, {"ledger", "tasks", 0}, {"counts"},
			{"events_replayed"}, {"items", 1, "summary"}, {"items"}, {"items", 3}, {"items", -1}, {"items", 1 << 20},
			{"nope", 3}, {"sessions", 0, "status"}, {"sessions"}, {"sessions", 1}, {"decided_checkpoints"}, {"rejected", 0}, {"seq"},
			{"status"}, {"iterations"}, {"last_seq"}, {"system_messages"}, {"messages", 3}, {"messages", 3, "content"},
			{"messages", 12, "tool_calls", 0}, {"messages", 40, "role"}, {"messages"}, {"actions", "nope"}, {"actions", 0},
			{"actions"}, {"rejected"}}
		// Delta Engine's actions are named by their call ids.
		last, _ := s.R.StateAt(s.R.Events())
		if acts, ok := model.StateJSON(s.F, last, 0).Get("actions"); ok {
			for i, a := range acts.(model.Object) {
				if i%7 == 0 {
					paths = append(paths, replay.Path{"actions", a.Key}, replay.Path{"actions", a.Key, "status"})
				}
			}
		}
		n := s.R.Events()
		want := make([][]replay.Effect, n+1)
		views := make([]model.Object, n+1)
		changed, items := 0, 0
		for pos := 0; pos <= n; pos++ {
			c, _ := s.R.StateAt(pos)
			views[pos] = wholeView(s.F, c)
		}
		for pos := 1; pos <= n; pos++ {
			for _, path := range paths {
				w := effectFromViews(views[pos-1], views[pos], pos, path)
				want[pos] = append(want[pos], w)
				if w.Op != "" {
					changed++
				}
			}
		}
		check := func(how string, order []int, at func(int, replay.Path) (replay.Effect, error)) {
			t.Helper()
			for _, pos := range order {
				for i, path := range paths {
					got, err := at(pos, path)
					if err != nil {
						t.Fatal(err)
					}
					w := want[pos][i]
					switch {
					case len(got.At) > 0:
						// A whole list, told by the first item the event
						// changed: the list changed, and the item's
						// values are the whole state's.
						items++
						iw := effectFromViews(views[pos-1], views[pos], pos, append(slices.Clone(path), got.At...))
						if w.Op == "" || iw.Op == "" || got.Op != iw.Op || !reflect.DeepEqual(got.Old, iw.Old) || !reflect.DeepEqual(got.New, iw.New) {
							t.Fatalf("%s, %s, position %d, %s at %s: %+v; the whole list %s, the item %+v", name, how, pos, path, got.At, got, w.Op, iw)
						}
					case len(path) == 1 && slices.Contains([]any{"messages", "actions", "items", "rejected", "finished_intents", "decided_checkpoints", "sessions"}, path[0]) && got.Old == nil && got.New == nil:
						// A whole list the event left alone.
						if got.Op != "" || w.Op != "" {
							t.Fatalf("%s, %s, position %d, %s: %+v, from the whole state %+v", name, how, pos, path, got, w)
						}
					case !reflect.DeepEqual(got, w):
						t.Fatalf("%s, %s, position %d, %s: %+v, from the whole state %+v", name, how, pos, path, got, w)
					}
				}
			}
		}
		var up, down, some []int
		for pos := 1; pos <= n; pos++ {
			up, down = append(up, pos), append([]int{pos}, down...)
			if pos%5 == 0 {
				some = append(some, pos)
			}
		}
		check("EffectAt", some, func(pos int, p replay.Path) (replay.Effect, error) { return replay.EffectAt(s.R, pos, p) })
		effects := map[string]*replay.Effects{}
		at := func(pos int, p replay.Path) (replay.Effect, error) {
			e := effects[p.String()]
			if e == nil {
				e = replay.NewEffects(s.R, p)
				effects[p.String()] = e
			}
			return e.At(pos)
		}
		check("Effects, newest first", down, at)
		shuffled := slices.Clone(up)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		clear(effects)
		check("Effects, shuffled", shuffled, at)
		// With the record of what each event changed, a whole member is
		// told by its items in every format.
		tc := replay.NewTouches()
		if err := tc.Extend(context.Background(), s.R, nil); err != nil {
			t.Fatal(err)
		}
		clear(effects)
		before := items
		check("Effects with the record", down, func(pos int, p replay.Path) (replay.Effect, error) {
			e := effects[p.String()]
			if e == nil {
				e = replay.NewEffects(s.R, p).Recorded(tc)
				effects[p.String()] = e
			}
			return e.At(pos)
		})
		if name == model.DurableStream && items-before < 20 {
			t.Errorf("%s: only %d effects on whole members told by their items from the record", name, items-before)
		}
		// A coarse record (past the pass's time budget) tells the same
		// effects: blame's output does not depend on the machine's speed.
		restore := replay.SetExactBudget(0)
		coarse := replay.NewTouches()
		err = coarse.Extend(context.Background(), s.R, nil)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			if len(path) != 1 {
				continue
			}
			ex, co := replay.NewEffects(s.R, path).Recorded(tc), replay.NewEffects(s.R, path).Recorded(coarse)
			for _, pos := range down {
				a, err1 := ex.At(pos)
				b, err2 := co.At(pos)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
					t.Fatalf("%s, position %d, %s: %+v from the exact record, %+v from a coarse one (%v, %v)", name, pos, path, a, b, err1, err2)
				}
			}
		}
		s.Close()
		if changed < 50 {
			t.Errorf("%s: only %d effects: the paths see too little", name, changed)
		}
		if name != model.DurableStream && items < 100 {
			t.Errorf("%s: only %d effects on whole lists told by their items", name, items)
		}
	}
}

// wholeView is the state object without "at", made whole.
func wholeView(f model.Format, s model.State) model.Object {
	var o model.Object
	for _, fl := range model.StateJSON(f, s, 0) {
		if fl.Key != "at" {
			o = append(o, fl)
		}
	}
	return o
}

// effectFromViews is what the event at pos did to p, looked up in the
// whole views a before and b after it.
func effectFromViews(a, b model.Object, pos int, p replay.Path) replay.Effect {
	old, had := replay.Lookup(a, p)
	nw, has := replay.Lookup(b, p)
	e := replay.Effect{Pos: pos, Old: old, New: nw}
	switch {
	case !had && has:
		e.Op = replay.Added
	case had && !has:
		e.Op = replay.Removed
	case had && has && len(replay.Diff(old, nw)) > 0:
		e.Op = replay.Changed
	}
	return e
}
