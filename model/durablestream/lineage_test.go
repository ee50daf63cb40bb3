package durablestream

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

func generatedEvents(t *testing.T, n int) []model.Event {
	t.Helper()
	var b bytes.Buffer
	if err := demo.Generate(&b, "durable-stream", n, 5); err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	for i, l := range bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n")) {
		evs = append(evs, model.Event{Pos: i + 1, Line: i + 1, Raw: l})
	}
	return evs
}

// Folding again the event that followed a state reuses its lineage;
// another event forks once, and the fork is then extended in place.
func TestLineageReuseAndFork(t *testing.T) {
	evs := generatedEvents(t, 600)
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
				t.Fatalf("folding again from %d forked at event %d", from, ev.Pos)
			}
		}
	}
	if len(lin.steps) != steps {
		t.Fatalf("folding again recorded %d more steps", len(lin.steps)-steps)
	}
	// A different event forks.
	var other model.Event
	for _, ev := range evs[200:] {
		if strings.Contains(string(ev.Raw), `"checkpoint.requested"`) {
			other = ev
			break
		}
	}
	f := Format.Apply(states[100], other)
	flin := f.(*state).lin
	if flin == lin {
		t.Fatal("a different event did not fork")
	}
	for _, ev := range evs[100:300] {
		f = Format.Apply(f, ev)
		if f.(*state).lin != flin {
			t.Fatalf("the fork forked again at event %d", ev.Pos)
		}
	}
	// An event that only counts, folded into a state whose successor
	// recorded entries, forks too.
	var delta model.Event
	for _, ev := range evs {
		if strings.Contains(string(ev.Raw), `"execution.text_delta"`) {
			delta = ev
			break
		}
	}
	for i := 1; i < len(evs); i++ {
		if _, ok := lin.stepAt(int64(i + 1)); ok {
			if Format.Apply(states[i], delta).(*state).lin == lin {
				t.Fatalf("a counting event after state %d did not fork", i)
			}
			break
		}
	}
}

func TestKnownTypes(t *testing.T) {
	if len(knownTypes) != nKnown {
		t.Fatalf("%d known types, nKnown %d", len(knownTypes), nKnown)
	}
}

func TestKeyframeInterval(t *testing.T) {
	if keyframeInterval != replay.DefaultInterval {
		t.Fatalf("keyframeInterval %d, replay keeps a keyframe every %d events", keyframeInterval, replay.DefaultInterval)
	}
}

// The tests of this package and of durablestream_test fold journals of a
// few thousand events: small chunks and snapshots make them cross many.
func init() {
	logChunk, snapEvery = 256, 64
}
