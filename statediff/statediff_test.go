package statediff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/formats"
	"github.com/rewind-tui/rewind/replay"
)

// TestCompactPrefix holds CompactPrefix to Compact: the whole value when
// it fits, else the start of it, at least n+1 bytes, so that a caller who
// shows the first n bytes (blame's lines) shows what it showed when it
// made the whole value. The values have multi-byte runes, escapes and
// nested lists and objects, and every n up to the whole length is tried.
func TestCompactPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "é", "日本", "🙂", "\"", "\\", "\n", "\u2028", "<&>", "\x01", "\xff"}
	str := func() string {
		var b strings.Builder
		for n := rng.IntN(12); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(7); {
		case depth > 3 || k < 2:
			return str()
		case k == 2:
			return json.Number("-12.5e3")
		case k == 3:
			return rng.IntN(3) == 0
		case k == 4:
			return nil
		case k == 5:
			var a []any
			for n := rng.IntN(4); n > 0; n-- {
				a = append(a, value(depth+1))
			}
			return a
		}
		var o model.Object
		for n := rng.IntN(4); n > 0; n-- {
			o = append(o, model.Field{Key: str(), Value: value(depth + 1)})
		}
		return o
	}
	for range 300 {
		v := value(0)
		full := Compact(v)
		for n := 0; n <= len(full)+2; n++ {
			got := CompactPrefix(v, n)
			switch {
			case len(full) <= n && got != full:
				t.Fatalf("n=%d: %q, want the whole %q", n, got, full)
			case len(full) > n && (len(got) <= n || !strings.HasPrefix(full, got)):
				t.Fatalf("n=%d: %q is not a start of %q of more than %d bytes", n, got, full, n)
			}
		}
	}
}

// The changes made from what the later state says changed are Diff of
// the two whole views, line for line and in the JSON `rewind diff --json`
// prints: between every event and the one before (d d), the other way
// round, and between far positions of a journal of each format (d and a
// mark), states refolded from the replay's keyframes as the TUI gets them;
// and Compute's projection diffs of the same pairs are right (checkDocs).
func TestTouchedChangesAreDiffOfTheViews(t *testing.T) {
	for _, name := range []string{model.DurableStream, model.DeltaEngine, model.DeltaMind} {
		j := journaltest.Generated(t, name, name+".jsonl", 600, 9)
		f, _ := formats.ByName(name)
		r := replay.New(j, f)
		n := r.Events()
		if n < 600 {
			t.Fatalf("%s: %d events, want 600", name, n)
		}
		pairs := [][2]int{{0, n}, {n, 0}, {1, n / 2}, {n / 2, n - 3}, {n - 40, n}, {n, n - 40}}
		for pos := 1; pos <= n; pos++ {
			pairs = append(pairs, [2]int{pos - 1, pos})
			if pos%7 == 0 {
				pairs = append(pairs, [2]int{pos, pos - 1})
			}
		}
		touched := 0
		for _, p := range pairs {
			a, b := p[0], p[1]
			sa, sb := statesAt(t, r, a, b)
			got, ok := touchedChanges(f, sa, sb, a, b)
			if !ok {
				// Between far positions, several actions or every item:
				// the whole views are diffed instead.
				if a-b == 1 || b-a == 1 {
					t.Fatalf("%s: no changes from Touched between neighbours %d and %d", name, a, b)
				}
				continue
			}
			touched += len(got)
			sameChanges(t, fmt.Sprintf("%s, %d → %d", name, a, b), a, b, got, viewsDiff(f, sa, sb, a, b))
		}
		// Compute's projection diffs, made a part at a time (the Delta
		// Engine conversation a message at a time) on two goroutines
		// (run with -race too).
		docs := 0
		for _, p := range pairs {
			rep, err := Compute(r, p[0], p[1])
			if err != nil {
				t.Fatal(err)
			}
			sa, sb := statesAt(t, r, p[0], p[1])
			docs += checkDocs(t, f, rep, sa, sb, fmt.Sprintf("%s, %d → %d", name, p[0], p[1]))
		}
		if docs < n/2 {
			t.Errorf("%s: %d projection diffs over %d pairs: the pairs change too little to check", name, docs, len(pairs))
		}
		if touched < n {
			t.Errorf("%s: %d changes over %d pairs: the pairs change too little to check", name, touched, len(pairs))
		}
	}
}

// statesAt returns the states of r at positions a and b.
func statesAt(t *testing.T, r *replay.Replay, a, b int) (sa, sb model.State) {
	t.Helper()
	var err error
	if sa, err = r.StateAt(a); err == nil {
		sb, err = r.StateAt(b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sa, sb
}

// viewsDiff is what a report's changes are: replay.Diff of the two states'
// whole views, without "at".
func viewsDiff(f model.Format, sa, sb model.State, a, b int) []replay.Change {
	return replay.Diff(withoutAt(model.StateJSON(f, sa, a)), withoutAt(model.StateJSON(f, sb, b)))
}

// sameChanges fails unless got and want print the same lines and JSON.
func sameChanges(t *testing.T, what string, a, b int, got, want []replay.Change) {
	t.Helper()
	g, w := Report{From: a, To: b, Changes: got}, Report{From: a, To: b, Changes: want}
	if gl, wl := strings.Join(g.Lines(), "\n"), strings.Join(w.Lines(), "\n"); gl != wl {
		t.Fatalf("%s: lines\n%.1500s\nwant\n%.1500s", what, gl, wl)
	}
	gj, _ := json.Marshal(g.JSON())
	wj, _ := json.Marshal(w.JSON())
	if string(gj) != string(wj) {
		t.Fatalf("%s: JSON\n%.1500s\nwant\n%.1500s", what, gj, wj)
	}
}

// Between any two positions, far or near, either way, and from the empty
// state, the changes made from the stream views item by item
// (streamChanges, a diff between far positions) are Diff's of the whole
// views, for every format.
func TestStreamChangesAreDiffOfTheViews(t *testing.T) {
	for _, c := range [][2]string{{model.DurableStream, model.DurableStream}, {model.DeltaEngine, model.DeltaEngine},
		{model.DeltaMind, model.DeltaMind}, {model.DurableStream, model.Generic}} {
		// c: the journal's format, and the one it is folded with.
		j := journaltest.Generated(t, c[0], c[0]+".jsonl", 500, 4)
		name := c[1]
		f, _ := formats.ByName(name)
		r := replay.New(j, f)
		n := r.Events()
		var pairs [][2]int
		for a := 0; a <= n; a += 37 {
			for b := 0; b <= n; b += 53 {
				pairs = append(pairs, [2]int{a, b}, [2]int{b, a})
			}
			pairs = append(pairs, [2]int{a, n}, [2]int{n, a}, [2]int{a, min(a+1, n)})
		}
		changes := 0
		for _, p := range pairs {
			a, b := p[0], p[1]
			sa, sb := statesAt(t, r, a, b)
			got := streamChanges(f, sa, sb, a, b)
			changes += len(got)
			sameChanges(t, fmt.Sprintf("%s, %d → %d", name, a, b), a, b, got, viewsDiff(f, sa, sb, a, b))
		}
		if changes < len(pairs) {
			t.Errorf("%s: %d changes over %d pairs: the pairs change too little to check", name, changes, len(pairs))
		}
	}
}

// A Transient list's items are valid only while Each's yield runs: the
// changes keep items made again with At, not the ones Each gave, which
// this list overwrites with the next item.
func TestStreamItemsKeepNoTransientItem(t *testing.T) {
	// Each item is {"v": val} for a string val, val itself otherwise.
	list := func(vals ...any) model.Lazy {
		at := func(i int) any {
			if v, ok := vals[i].(string); ok {
				return model.Object{{Key: "v", Value: v}}
			}
			return vals[i]
		}
		return model.Lazy{Len: len(vals), Transient: true, At: at, Each: func(yield func(any) bool) {
			reused := model.Object{{Key: "v"}}
			for _, v := range vals {
				item := v
				if _, ok := v.(string); ok {
					reused[0].Value = v
					item = reused
				}
				if !yield(item) {
					return
				}
			}
		}}
	}
	a, b := list("x", "y", "z", "gone"), list("x", "Y", 3.0)
	got := streamItems(nil, "l", a, b)
	want := replay.Diff(model.Object{{Key: "l", Value: []any{a.At(0), a.At(1), a.At(2), a.At(3)}}},
		model.Object{{Key: "l", Value: []any{b.At(0), b.At(1), b.At(2)}}})
	if len(want) != 3 {
		t.Fatalf("the lists differ in %d changes, want 3", len(want))
	}
	sameChanges(t, "transient lists", 0, 1, got, want)
}
