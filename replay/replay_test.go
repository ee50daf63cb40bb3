package replay_test

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// journals returns fixture journals of every format: the package fixtures
// and generated ones.
func journals(t *testing.T) []string {
	t.Helper()
	out := []string{
		"../model/deltaengine/testdata/workspace.delta/20261121_222941_a7f3c2/journal.jsonl",
		"../model/durablestream/testdata/stream.jsonl",
		"../model/deltamind/testdata/dogfood/provenance.jsonl",
		"../model/deltamind/testdata/coverage.jsonl",
	}
	dir := t.TempDir()
	for _, f := range []string{"delta-engine", "durable-stream", "deltamind"} {
		p := filepath.Join(dir, f+".jsonl")
		w, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := demo.Generate(w, f, 300, 7); err != nil {
			t.Fatal(err)
		}
		w.Close()
		out = append(out, p)
	}
	return out
}

// straightFold opens p and returns the state JSON after every event, by
// the straightforward fold.
func straightFold(t *testing.T, p string) (*app.Session, [][]byte) {
	t.Helper()
	s, err := app.OpenPath(p, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	err = replay.Fold(s.J, s.F, func(pos int, st model.State) {
		b, err := model.StateJSON(s.F, st, pos).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, b)
	})
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	return s, want
}

// The state at every position, reached through keyframes, the live tip and
// random jumps, equals the state of the straightforward fold.
func TestStateAtEqualsStraightFold(t *testing.T) {
	for _, p := range journals(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			s, want := straightFold(t, p)
			defer s.Close()
			if len(want) == 0 {
				t.Fatal("no events")
			}
			r := replay.New(s.J, s.F)
			r.K = 16 // many keyframes, so jumps cross them
			order := rand.New(rand.NewSource(1)).Perm(len(want))
			order = append(order, len(want)-1, 0, len(want)-1)
			for _, i := range order {
				got, err := r.JSON(i + 1)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := got.MarshalJSON()
				if string(b) != string(want[i]) {
					t.Fatalf("state at %d differs from the straight fold:\n got %s\nwant %s", i+1, b, want[i])
				}
			}
		})
	}
}

func TestDiffPaths(t *testing.T) {
	f := func(k string, v any) model.Field { return model.Field{Key: k, Value: v} }
	a := model.Object{f("status", "RUNNING"), f("messages", []any{"x"}), f("gone", 1)}
	b := model.Object{f("status", "COMPLETED"), f("messages", []any{"x", "y"}), f("odd key", true)}
	got := map[string]replay.Op{}
	for _, c := range replay.Diff(a, b) {
		got[c.Path.String()] = c.Op
	}
	want := map[string]replay.Op{".status": replay.Changed, ".messages[1]": replay.Added, `["odd key"]`: replay.Added, ".gone": replay.Removed}
	if len(got) != len(want) {
		t.Fatalf("diff = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
}

// Follow (how rewind state folds events while they are indexed) folds
// each next event onto the tip and keeps keyframes, so the states after it
// are the straight fold's; an event that is not the next one is refused.
func TestFollowFoldsTheNextEvent(t *testing.T) {
	for _, p := range journals(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			s, want := straightFold(t, p)
			defer s.Close()
			r := replay.New(s.J, s.F)
			r.K = 16
			var first model.Event
			if err := s.J.Each(1, len(want), func(ev model.Event) error {
				if ev.Pos == 1 {
					first = ev
					first.Raw = append([]byte(nil), ev.Raw...)
				}
				if !r.Follow(ev) {
					t.Fatalf("event %d, the next one, refused", ev.Pos)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if r.Follow(first) {
				t.Fatal("event 1 folded again after the last event")
			}
			if got, wantKeys := r.Keyframes(), len(want)/16*16; got != wantKeys {
				t.Fatalf("keyframes cover %d events, want %d", got, wantKeys)
			}
			for _, pos := range []int{len(want), 1, len(want) / 2, len(want)} {
				got, err := r.JSON(pos)
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := got.MarshalJSON(); string(b) != string(want[pos-1]) {
					t.Fatalf("state at %d after Follow differs from the straight fold", pos)
				}
			}
		})
	}
}

// Diff's scalar comparison says two values are equal exactly when their
// formatted forms (numbers normalized) and their JSON kinds are, whatever
// their Go types.
func TestScalarEqual(t *testing.T) {
	vals := []any{nil, true, false, "", "a", "1", "true", "<nil>", 0, 1, -1, int64(0), int64(1), int64(-1),
		0.0, 1.0, 1.5, -1.0, json.Number("1"), json.Number("1.5"), json.Number("1e0"), model.Object{}, []any{}, []any{nil}, (*int)(nil)}
	for _, a := range vals {
		for _, b := range vals {
			if got, want := replay.ScalarEqual(a, b), replay.SlowScalarEqual(a, b); got != want {
				t.Errorf("%#v == %#v: %v, formatted %v", a, b, got, want)
			}
		}
	}
}

// What blame prints of an effect: the item of a whole list it went into,
// and how many more items the event changed.
func TestEffectText(t *testing.T) {
	show := func(v any) string { s, _ := json.Marshal(v); return string(s) }
	for _, c := range []struct {
		e    replay.Effect
		want string
	}{
		{replay.Effect{Op: replay.Added, New: "x"}, `added "x"`},
		{replay.Effect{Op: replay.Removed, Old: 1}, `removed 1`},
		{replay.Effect{Op: replay.Changed, Old: 1, New: 2}, `changed 1 → 2`},
		{replay.Effect{Op: replay.Added, New: "m", At: replay.Path{42}}, `added [42] "m"`},
		{replay.Effect{Op: replay.Changed, Old: 1, New: 2, At: replay.Path{"call_x"}, More: 1}, `changed .call_x 1 → 2 (and 1 more item)`},
		{replay.Effect{Op: replay.Removed, Old: 1, At: replay.Path{"a b"}, More: 3}, `removed ["a b"] 1 (and 3 more items)`},
	} {
		if got := c.e.Text(show, show); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

// inBatches calls fold with events 1 to n of s's journal ten at a time,
// each with a copy of its line, and their lines as pr prepares them, as the
// index hands them to a fold.
func inBatches(t *testing.T, s *app.Session, pr model.Preparer, n int, fold func(batch []model.Event, prep any)) {
	t.Helper()
	var batch []model.Event
	flush := func() {
		lines := make([][]byte, len(batch))
		for i, ev := range batch {
			lines[i] = ev.Raw
		}
		fold(batch, pr.Prepare(lines, nil))
		batch = batch[:0]
	}
	if err := s.J.Each(1, n, func(ev model.Event) error {
		ev.Raw = append([]byte(nil), ev.Raw...)
		if batch = append(batch, ev); len(batch) == 10 {
			flush()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	flush()
}

// stateJSON is the JSON of f's state st after event pos.
func stateJSON(f model.Format, st model.State, pos int) string {
	b, _ := model.StateJSON(f, st, pos).MarshalJSON()
	return string(b)
}

// checkUnchanged fails t when a state in returned (by position), or a
// keyframe of r (every 16 events), no longer equals the straight fold's.
func checkUnchanged(t *testing.T, r *replay.Replay, f model.Format, want [][]byte, returned map[int]model.State) {
	t.Helper()
	if len(returned) < 2 {
		t.Fatalf("only %d states checked during the fold", len(returned))
	}
	for pos, st := range returned {
		if got := stateJSON(f, st, pos); got != string(want[pos-1]) {
			t.Fatalf("the state StateAt returned at %d changed as the fold went on:\n now %.300s\nthen %.300s", pos, got, want[pos-1])
		}
	}
	for pos := 16; pos < len(want); pos += 16 { // read from the keyframe at pos
		got, err := r.JSON(pos)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := got.MarshalJSON(); string(b) != string(want[pos-1]) {
			t.Fatalf("the keyframe at %d changed as the fold went on:\n got %.300s\nwant %.300s", pos, b, want[pos-1])
		}
	}
}

// A one-shot replay that follows prepared events (rewind state) folds a
// DeltaMind or Delta Engine line into the state it made for the line
// before, instead of a copy (model.InPlacePreparer): its states still
// equal the straight fold's, and a state StateAt returned, or a keyframe,
// stays as it was while the fold goes on past it.
func TestOneShotFollowPreparedKeepsReturnedStates(t *testing.T) {
	for _, p := range journals(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			s, want := straightFold(t, p)
			defer s.Close()
			pr, ok := s.F.(model.Preparer)
			if !ok {
				t.Fatalf("%s does not prepare lines", s.F.Name())
			}
			every := max(2, len(want)/6)
			r := replay.New(s.J, s.F)
			r.OneShot()
			r.K = 16                          // a one-shot replay's K (2^30) leaves no keyframe to check
			returned := map[int]model.State{} // by position, each equal to the straight fold's when returned
			inBatches(t, s, pr, len(want), func(batch []model.Event, prep any) {
				for i, ev := range batch {
					if !r.FollowPrepared(pr, ev, prep, i) {
						t.Fatalf("event %d, the next one, refused", ev.Pos)
					}
					if ev.Pos%every != 0 && ev.Pos != len(want) {
						continue
					}
					st, err := r.StateAt(ev.Pos)
					if err != nil {
						t.Fatal(err)
					}
					if got := stateJSON(s.F, st, ev.Pos); got != string(want[ev.Pos-1]) {
						t.Fatalf("state at %d differs from the straight fold:\n got %.300s\nwant %.300s", ev.Pos, got, want[ev.Pos-1])
					}
					returned[ev.Pos] = st
				}
			})
			checkUnchanged(t, r, s.F, want, returned)
		})
	}
}

// A Following (how rewind state folds while it indexes, taking the
// replay's lock only at keyframes) folds as FollowPrepared does, one-shot
// or not: states asked for while it goes on, and the tip after End, equal
// the straight fold's, and a state returned meanwhile or a keyframe stays
// as it was; an event that is not the next one is refused.
func TestFollowingFoldsAsFollowPreparedDoes(t *testing.T) {
	for _, p := range journals(t) {
		for _, oneShot := range []bool{false, true} {
			name := filepath.Base(p)
			if oneShot {
				name += "/one-shot"
			}
			t.Run(name, func(t *testing.T) {
				s, want := straightFold(t, p)
				defer s.Close()
				pr, ok := s.F.(model.Preparer)
				if !ok {
					t.Fatalf("%s does not prepare lines", s.F.Name())
				}
				r := replay.New(s.J, s.F)
				if oneShot {
					r.OneShot()
				}
				r.K = 16
				every := max(2, len(want)/7)
				returned := map[int]model.State{}
				// The first events are followed one by one, so that a
				// one-shot fold's tip is its own (in place) when the
				// Following starts from it; the state there is asked for
				// once the Following has gone past it.
				const before = 5
				var w *replay.Following
				var first model.Event
				inBatches(t, s, pr, len(want), func(batch []model.Event, prep any) {
					for i, ev := range batch {
						if ev.Pos == 1 {
							first = ev
						}
						if ev.Pos <= before {
							if !r.FollowPrepared(pr, ev, prep, i) {
								t.Fatalf("event %d, the next one, refused", ev.Pos)
							}
							continue
						}
						if w == nil {
							w = r.Following(pr)
						}
						if !w.Follow(ev, prep, i) {
							t.Fatalf("event %d, the next one, refused", ev.Pos)
						}
						at := ev.Pos
						switch {
						case at == before+3:
							at = before
						case at%every != 0:
							continue
						}
						st, err := r.StateAt(at)
						if err != nil {
							t.Fatal(err)
						}
						if got := stateJSON(s.F, st, at); got != string(want[at-1]) {
							t.Fatalf("state at %d asked for during the fold differs from the straight fold:\n got %.300s\nwant %.300s", at, got, want[at-1])
						}
						returned[at] = st
					}
				})
				if w.Follow(first, pr.Prepare([][]byte{first.Raw}, nil), 0) {
					t.Fatal("event 1 folded again after the last event")
				}
				w.End()
				last, err := r.StateAt(len(want))
				if err != nil {
					t.Fatal(err)
				}
				if got := stateJSON(s.F, last, len(want)); got != string(want[len(want)-1]) {
					t.Fatalf("the tip after End differs from the straight fold's last state:\n got %.300s\nwant %.300s", got, want[len(want)-1])
				}
				checkUnchanged(t, r, s.F, want, returned)
			})
		}
	}
}
