package replay_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// TestTouchesMatchFold checks the recorded paths against a plain fold: an
// event is recorded as touching a top-level field exactly when that field
// differs between the states before and after it.
func TestTouchesMatchFold(t *testing.T) {
	for _, coarse := range []bool{false, true} {
		for _, p := range journals(t) {
			t.Run(fmt.Sprintf("%s/coarse=%v", filepath.Base(p), coarse), func(t *testing.T) {
				if coarse {
					defer replay.SetExactBudget(0)()
				}
				touchesMatchFold(t, p, coarse)
			})
		}
	}
}

func touchesMatchFold(t *testing.T, p string, coarse bool) {
	{
		{
			s, err := app.OpenPath(p, app.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tc := replay.NewTouches()
			if err := tc.Extend(context.Background(), s.R, nil); err != nil {
				t.Fatal(err)
			}
			if tc.Done() != s.R.Events() {
				t.Fatalf("recorded %d events of %d", tc.Done(), s.R.Events())
			}
			var prev model.Object
			err = replay.Fold(s.J, s.F, func(pos int, st model.State) {
				obj := model.StateJSON(s.F, st, 0)
				if prev == nil {
					p0, _ := s.R.StateAt(0)
					prev = model.StateJSON(s.F, p0, 0)
				}
				want := map[string]bool{}
				for _, c := range replay.Diff(prev, obj) {
					want[c.Path[:1].String()] = true
				}
				got := map[string]bool{}
				paths, _ := tc.At(pos)
				for _, q := range paths {
					got[q[:1].String()] = true
				}
				if coarse {
					// Coarse records may name more fields, never fewer.
					for k := range want {
						if !got[k] {
							t.Fatalf("event %d: recorded top-level %v, fold says %v", pos, got, want)
						}
					}
					prev = obj
					return
				}
				if len(got) != len(want) {
					t.Fatalf("event %d: recorded top-level %v, fold says %v", pos, got, want)
				}
				for k := range want {
					if !got[k] {
						t.Fatalf("event %d: recorded top-level %v, fold says %v", pos, got, want)
					}
				}
				prev = obj
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestBlameDeltaMindDecision(t *testing.T) {
	s, err := app.OpenPath("../model/deltamind/testdata/coverage.jsonl", app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tc := replay.NewTouches()
	if err := tc.Extend(context.Background(), s.R, nil); err != nil {
		t.Fatal(err)
	}
	// d-2 is items[1]: made at 2, revised at 16, made again at 25.
	hits := tc.Blame(replay.Path{"items", 1, "summary"})
	var pos []int
	for _, h := range hits {
		pos = append(pos, h.Pos)
	}
	if !slices.Equal(pos, []int{25, 16, 2}) {
		t.Fatalf("blame .items[1].summary = %v, want [25 16 2]", pos)
	}
	e, err := replay.EffectAt(s.R, 16, replay.Path{"items", 1, "summary"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Op != replay.Changed || e.Old != "use Go for the TUI" || e.New != "use Go and Bubble Tea for the TUI" {
		t.Fatalf("effect at 16 = %+v", e)
	}
	e, _ = replay.EffectAt(s.R, 2, replay.Path{"items", 1, "summary"})
	if e.Op != replay.Added {
		t.Fatalf("effect at 2 = %+v, want added", e)
	}
	// Blame of a whole container lists every change inside it.
	if n := len(tc.Blame(replay.Path{"items"})); n < 15 {
		t.Fatalf("blame .items lists %d events", n)
	}
	if n := len(tc.Blame(replay.Path{"nope"})); n != 0 {
		t.Fatalf("blame .nope lists %d events", n)
	}
}

// TestTouchesExtendIncremental extends in two steps, as a live journal
// grows, and gets the same record as one pass.
func TestTouchesExtendIncremental(t *testing.T) {
	defer replay.SetExactBudget(time.Hour)()
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	f, _ := os.Create(full)
	if err := demo.Generate(f, "deltamind", 600, 3); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ := os.ReadFile(full)
	part := filepath.Join(dir, "part.jsonl")
	half := len(b) / 2
	for b[half-1] != '\n' {
		half--
	}
	os.WriteFile(part, b[:half], 0o644)
	s, err := app.OpenPath(part, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tc := replay.NewTouches()
	tc.Extend(context.Background(), s.R, nil)
	first := tc.Done()
	af, _ := os.OpenFile(part, os.O_APPEND|os.O_WRONLY, 0)
	af.Write(b[half:])
	af.Close()
	if _, err := s.J.Update(); err != nil {
		t.Fatal(err)
	}
	tc.Extend(context.Background(), s.R, nil)
	whole, _ := app.OpenPath(full, app.Options{})
	defer whole.Close()
	ref := replay.NewTouches()
	ref.Extend(context.Background(), whole.R, nil)
	if tc.Done() != ref.Done() || first >= tc.Done() {
		t.Fatalf("done %d (first %d), reference %d", tc.Done(), first, ref.Done())
	}
	for pos := 1; pos <= ref.Done(); pos++ {
		a, _ := tc.At(pos)
		b, _ := ref.At(pos)
		if len(a) != len(b) {
			t.Fatalf("event %d: %v vs %v", pos, a, b)
		}
	}
}

// bigJournal writes a 100,000-event generated journal of format f once per
// test binary run.
func bigJournal(b *testing.B, f string) string {
	dir := filepath.Join(os.TempDir(), "rw7bench")
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, f+"-100000.jsonl")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	w, err := os.Create(p + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	if err := demo.Generate(w, f, 100000, 1); err != nil {
		b.Fatal(err)
	}
	w.Close()
	os.Rename(p+".tmp", p)
	return p
}

// BenchmarkBlame100k measures one blame query over a 100,000-event journal
// once the touch record exists (the record itself is built once, in the
// background, and reported as pass-ms). The query must fit in one frame
// (16 ms). delta-engine-task asks for a field one event changed: the
// query skips the spans of 1024 events that changed no field of its name.
func BenchmarkBlame100k(b *testing.B) {
	for _, c := range []struct {
		name, format string
		path         replay.Path
	}{
		{"deltamind", "deltamind", replay.Path{"items", 3, "summary"}},
		{"durable-stream", "durable-stream", replay.Path{"pending"}},
		{"delta-engine", "delta-engine", replay.Path{"status"}},
		{"delta-engine-task", "delta-engine", replay.Path{"task"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := app.OpenPath(bigJournal(b, c.format), app.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			tc := replay.NewTouches()
			t0 := time.Now()
			if err := tc.Extend(context.Background(), s.R, nil); err != nil {
				b.Fatal(err)
			}
			pass := time.Since(t0)
			b.ResetTimer()
			var n int
			for i := 0; i < b.N; i++ {
				n = len(tc.Blame(c.path))
			}
			b.ReportMetric(float64(pass.Milliseconds()), "pass-ms")
			b.ReportMetric(float64(n), "hits")
		})
	}
}
