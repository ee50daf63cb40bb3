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
