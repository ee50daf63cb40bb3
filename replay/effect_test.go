package replay_test

import (
	"reflect"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// EffectAt, which makes only the top-level member a path starts with when
// the format can (model.KeyViews, the state's head), gives what it gives
// from the whole state, at every position, for paths into each kind of
// member.
func TestEffectAtEqualsTheWholeState(t *testing.T) {
	for _, name := range []string{model.DurableStream, model.DeltaMind} {
		p := journaltest.GeneratedPath(t, name, "journal.jsonl", 400, 2)
		s, err := app.OpenPath(p, app.Options{Format: name})
		if err != nil {
			t.Fatal(err)
		}
		paths := []replay.Path{{"pending"}, {"pending", 0}, {"pending", 0, "id"}, {"format"},
			{"finished_intents"}, {"finished_intents", 1, "status"}, {"ledger", "tasks", 0}, {"counts"},
			{"events_replayed"}, {"items", 1, "summary"}, {"items"}, {"items", 3}, {"nope", 3}, {"sessions", 0, "status"}}
		changed := 0
		for pos := 1; pos <= s.R.Events(); pos++ {
			a, _ := s.R.StateAt(pos - 1)
			c, _ := s.R.StateAt(pos)
			for _, path := range paths {
				got, err := replay.EffectAt(s.R, pos, path)
				if err != nil {
					t.Fatal(err)
				}
				want := effectFromWhole(s.F, a, c, pos, path)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, position %d, %s: %+v, from the whole state %+v", name, pos, path, got, want)
				}
				if got.Op != "" {
					changed++
				}
			}
		}
		s.Close()
		if changed < 50 {
			t.Errorf("%s: only %d effects: the paths see too little", name, changed)
		}
	}
}

func effectFromWhole(f model.Format, a, b model.State, pos int, p replay.Path) replay.Effect {
	view := func(s model.State) model.Object {
		var o model.Object
		for _, fl := range model.StateJSON(f, s, 0) {
			if fl.Key != "at" {
				o = append(o, fl)
			}
		}
		return o
	}
	old, had := replay.Lookup(view(a), p)
	nw, has := replay.Lookup(view(b), p)
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
