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
			sa, err := r.StateAt(a)
			if err != nil {
				t.Fatal(err)
			}
			sb, err := r.StateAt(b)
			if err != nil {
				t.Fatal(err)
			}
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
			want := replay.Diff(withoutAt(model.StateJSON(f, sa, a)), withoutAt(model.StateJSON(f, sb, b)))
			g, w := Report{From: a, To: b, Changes: got}, Report{From: a, To: b, Changes: want}
			if gl, wl := strings.Join(g.Lines(), "\n"), strings.Join(w.Lines(), "\n"); gl != wl {
				t.Fatalf("%s, %d → %d: lines\n%.1500s\nwant\n%.1500s", name, a, b, gl, wl)
			}
			gj, _ := json.Marshal(g.JSON())
			wj, _ := json.Marshal(w.JSON())
			if string(gj) != string(wj) {
				t.Fatalf("%s, %d → %d: JSON\n%.1500s\nwant\n%.1500s", name, a, b, gj, wj)
			}
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
			sa, _ := r.StateAt(p[0])
			sb, _ := r.StateAt(p[1])
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
