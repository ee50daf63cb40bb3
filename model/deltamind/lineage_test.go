package deltamind

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// Folding again the line that followed a state reuses its lineage;
// another line forks once, and the fork is then extended in place.
func TestLineageReuseAndFork(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, "deltamind", 600, 5); err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	for i, l := range bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n")) {
		evs = append(evs, model.Event{Pos: i + 1, Line: i + 1, Raw: l})
	}
	states := []model.State{Format.Init()}
	for _, ev := range evs {
		states = append(states, Format.Apply(states[len(states)-1], ev))
	}
	lin := states[0].(*state).lin
	for i, s := range states {
		if s.(*state).lin != lin {
			t.Fatalf("state %d of a straight fold has another lineage", i)
		}
	}
	steps := len(lin.steps)
	for from := 0; from < len(evs); from += 37 {
		s := states[from]
		for _, ev := range evs[from:min(from+60, len(evs))] {
			s = Format.Apply(s, ev)
			if s.(*state).lin != lin {
				t.Fatalf("folding again from %d forked at line %d", from, ev.Pos)
			}
		}
	}
	if len(lin.steps) != steps {
		t.Fatalf("folding again recorded %d more steps", len(lin.steps)-steps)
	}
	var other model.Event
	for _, ev := range evs[200:] {
		if strings.Contains(string(ev.Raw), `"goal_set"`) {
			other = ev
			break
		}
	}
	f := Format.Apply(states[100], other)
	flin := f.(*state).lin
	if flin == lin {
		t.Fatal("a different line did not fork")
	}
	for _, ev := range evs[100:300] {
		f = Format.Apply(f, ev)
		if f.(*state).lin != flin {
			t.Fatalf("the fork forked again at line %d", ev.Pos)
		}
	}
}

func TestKeyframeInterval(t *testing.T) {
	if keyframeInterval != replay.DefaultInterval {
		t.Fatalf("keyframeInterval %d, replay keeps a keyframe every %d events", keyframeInterval, replay.DefaultInterval)
	}
}
