package deltamind

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// checkTouched compares Touched with the paths replay.Diff reports between
// the two states' views, in order.
func checkTouched(t *testing.T, prev, s model.State, what string) {
	t.Helper()
	var want, got []string
	for _, c := range replay.Diff(replay.StateView(Format, prev), replay.StateView(Format, s)) {
		want = append(want, c.Path.String())
	}
	for _, p := range s.(*state).Touched(prev) {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%s: Touched = %v, Diff = %v", what, got, want)
	}
}

func TestTouchedFixtures(t *testing.T) {
	withSnap, _ := dogfoodSnapshot(t)
	for _, c := range []struct {
		name string
		f    model.Format
	}{{"coverage.jsonl", Format}, {"dogfood/provenance.jsonl", Format}, {"dogfood/provenance.jsonl", withSnap}} {
		states := []model.State{c.f.Init()}
		for _, ev := range events(t, c.name) {
			states = append(states, c.f.Apply(states[len(states)-1], ev))
		}
		for i := 1; i < len(states); i++ {
			checkTouched(t, states[i-1], states[i], c.name+" line "+strconv.Itoa(i))
			for _, back := range []int{2, 7, i} {
				if i-back >= 0 {
					checkTouched(t, states[i-back], states[i], c.name+" lines back")
				}
			}
		}
		// Another lineage, and prev after s: both views diffed.
		other := fold(c.f, events(t, "coverage.jsonl"), 5)
		checkTouched(t, other, states[len(states)-1], c.name+" other lineage")
		checkTouched(t, states[len(states)-1], states[1], c.name+" backwards")
	}
}

// TestTouchedGenerated: through a replay, as the TUI asks (the state at
// pos and at pos-1, refolded from keyframes), and as blame's pass folds.
func TestTouchedGenerated(t *testing.T) {
	j := journaltest.Generated(t, "deltamind", "provenance.jsonl", 1500, 11)
	shared := 0
	journaltest.ReplayedPairs(t, j, Format, 37, func(pos int, prev, s model.State) {
		checkTouched(t, prev, s, "position "+strconv.Itoa(pos))
		if prev.(*state).lin == s.(*state).lin {
			shared++
		}
	})
	if shared == 0 {
		t.Error("the replay's states never share a lineage")
	}
	s := Format.Init()
	_ = j.Each(1, 1<<30, func(ev model.Event) error {
		next := Format.Apply(s, ev)
		if ev.Pos%5 == 0 {
			checkTouched(t, s, next, "pass at "+strconv.Itoa(ev.Pos))
		}
		s = next
		return nil
	})
}

// Items whose lines are longer than read's first buffer (1 KiB) and than
// the buffers it keeps (maxReadBuf), read on their own (At, Touched) with
// decoders and buffers used before for other lines, are View's; so are
// those of a second journal of the same shape, read in turn with the
// first's: a decoder used for one journal keeps nothing of it.
func TestItemsReadOnTheirOwnWithLongLines(t *testing.T) {
	long := [][]string{
		{"short", strings.Repeat("a", 3000), strings.Repeat("b", maxReadBuf+5000), "short again", strings.Repeat("c", 1500)},
		{"other", strings.Repeat("e", 2000), strings.Repeat("f", maxReadBuf+100), "other again", strings.Repeat("g", 1100)},
	}
	var journals [2][]model.State
	for n, summaries := range long {
		journals[n] = foldLines(t, summaries, strings.Repeat("d", 2*maxReadBuf))
	}
	for round := range 2 { // the second round with decoders and buffers used before
		for k := range journals[0] {
			var got, want [2][]any
			// All read before any is compared: an item's strings must not
			// be in memory that the next read reuses.
			for n := range journals {
				v, _ := journals[n][k].View().Get("items")
				want[n] = v.([]any)
				got[n] = make([]any, len(want[n]))
			}
			lazy := [2]model.Lazy{}
			for n := range journals {
				v, _ := Format.(model.StreamViews).StreamView(journals[n][k]).Get("items")
				lazy[n] = v.(model.Lazy)
			}
			for i := len(want[0]) - 1; i >= 0; i-- {
				for n := range journals {
					got[n][i] = lazy[n].At(i)
				}
			}
			for n := range journals {
				for i := range want[n] {
					if g, w := itemJSON(t, got[n][i]), itemJSON(t, want[n][i]); g != w {
						t.Fatalf("round %d, journal %d after event %d: At(%d) = %s, View's %s", round, n, k+1, i, clip(g), clip(w))
					}
				}
				if k > 0 {
					checkTouched(t, journals[n][k-1], journals[n][k], "event "+strconv.Itoa(k+1))
				}
			}
		}
	}
	last := journals[0][len(journals[0])-1]
	v, _ := last.View().Get("items")
	if got := itemJSON(t, v.([]any)[2]); !strings.Contains(got, strings.Repeat("d", 2*maxReadBuf)) {
		t.Fatalf("the revised long item is %s", clip(got))
	}
}

// foldLines folds a journal of one decision made per summary, then one
// that revises the third to revised, and returns the state after each
// line.
func foldLines(t *testing.T, summaries []string, revised string) []model.State {
	t.Helper()
	var b strings.Builder
	seq := 0
	line := func(kind, idKey, id, summary string) {
		seq++
		ts := "2026-03-11T10:00:" + strconv.Itoa(10+seq) + ".000Z"
		b.WriteString(`{"type":"accepted","seq":` + strconv.Itoa(seq) + `,"timestamp":"` + ts + `","delta":{"kind":"` + kind +
			`","timestamp":"` + ts + `","` + idKey + `":"` + id + `","summary":"` + summary + `","confidence":"high","sourceTurns":[{"turnId":"t-` +
			strconv.Itoa(seq) + `"}]},"itemId":"` + id + `","resultingStatus":"active"}` + "\n")
	}
	for i, s := range summaries {
		line("decision_made", "id", "d-"+strconv.Itoa(i+1), s)
	}
	line("decision_revised", "targetId", "d-3", revised)
	j := journaltest.Open(t, "provenance.jsonl", []byte(b.String()))
	var states []model.State
	s := Format.Init()
	if err := j.Each(1, 1<<30, func(ev model.Event) error {
		s = Format.Apply(s, ev)
		states = append(states, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(states) != seq {
		t.Fatalf("%d events folded, want %d", len(states), seq)
	}
	return states
}

// itemJSON is the JSON of an item of the views (a model.Object).
func itemJSON(t *testing.T, v any) string {
	t.Helper()
	o, ok := v.(model.Object)
	if !ok {
		t.Fatalf("item %T, not a model.Object", v)
	}
	return marshalObj(t, o)
}
