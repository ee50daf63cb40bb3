package durablestream

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// wholesSeen counts the replay.Whole paths checkTouched saw.
var wholesSeen int

// checkTouched compares Touched with the paths replay.Diff reports between
// the two states' views, in order; the paths under a member Touched gives
// as replay.Whole count as that one.
func checkTouched(t *testing.T, prev, s model.State, what string) {
	t.Helper()
	var want, got []string
	wholes := map[any]bool{}
	for _, p := range s.(*state).Touched(prev) {
		m, whole := replay.Member(p)
		if whole {
			wholesSeen++
			wholes[m[0]] = true
			got = append(got, m.String()+" (whole)")
			continue
		}
		got = append(got, p.String())
	}
	for _, c := range replay.Diff(replay.StateView(Format, prev), replay.StateView(Format, s)) {
		if wholes[c.Path[0]] {
			k := c.Path[:1].String() + " (whole)"
			if len(want) == 0 || want[len(want)-1] != k {
				want = append(want, k)
			}
			continue
		}
		want = append(want, c.Path.String())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%s: Touched = %v, Diff = %v", what, got, want)
	}
}

// checkFold folds evs and checks Touched between every state and the one
// before it, and a few further back.
func checkFold(t *testing.T, evs []model.Event, name string) []model.State {
	t.Helper()
	states := []model.State{Format.Init()}
	for _, ev := range evs {
		states = append(states, Format.Apply(states[len(states)-1], ev))
	}
	for i := 1; i < len(states); i++ {
		checkTouched(t, states[i-1], states[i], name+" event "+strconv.Itoa(i))
		for _, back := range []int{2, 7, 300, i} {
			if i-back >= 0 && (back < 300 || i%97 == 0) {
				checkTouched(t, states[i-back], states[i], fmt.Sprintf("%s event %d, %d back", name, i, back))
			}
		}
	}
	return states
}

// Touched says what each event changed, as a diff of the views says it:
// a session, an epic or a task changed or added, decisions and finished
// intents appended, pending checkpoints and active intents that come and
// go, the count of the event's type; between states further apart, of
// another lineage, or in the wrong order, too.
func TestTouched(t *testing.T) {
	fixture := checkFold(t, events(t), "stream.jsonl")
	generated := checkFold(t, generatedEvents(t, 3000), "generated")
	checkTouched(t, fixture[len(fixture)-1], generated[len(generated)-1], "another lineage")
	checkTouched(t, generated[len(generated)-1], generated[1], "backwards")

	// A lineage forked from the middle of another: its states are read
	// through their own log.
	evs := generatedEvents(t, 600)
	mid := generated[300]
	other := model.Event{Pos: 301, Line: 301, Raw: []byte(`{"type":"lifecycle.session.created","stream_id":"ses_fork","payload":{"id":"ses_fork","title":"Fork"},"id":"e_fork","timestamp":1770000000000}`)}
	fork := []model.State{Format.Apply(mid, other)}
	for _, ev := range evs[301:400] {
		fork = append(fork, Format.Apply(fork[len(fork)-1], ev))
	}
	if fork[0].(*state).lin == mid.(*state).lin {
		t.Fatal("another event after a state did not fork its lineage")
	}
	for i := 1; i < len(fork); i++ {
		checkTouched(t, fork[i-1], fork[i], "fork event "+strconv.Itoa(i))
	}
	checkTouched(t, mid, fork[len(fork)-1], "across the fork")

	// Longer lists of pending checkpoints and active intents are Whole
	// when an entry leaves them.
	defer func(v int32) { exactShift = v }(exactShift)
	exactShift, wholesSeen = 1, 0
	checkFold(t, generatedEvents(t, 1500), "generated, short exactShift")
	if wholesSeen == 0 {
		t.Error("no list was long enough to be given whole")
	}
	exactShift = 16

	// Types past the 255th are counted by name.
	var rare []model.Event
	for i := range 300 {
		raw := fmt.Sprintf(`{"type":"custom.t%d","stream_id":"s","payload":{},"id":"e%d","timestamp":%d}`, i%270, i, 1770000000000+i)
		rare = append(rare, model.Event{Pos: i + 1, Line: i + 1, Raw: []byte(raw)})
	}
	checkFold(t, rare, "rare types")
}

// Through a replay, as the TUI asks: the state at pos and at pos-1, each
// refolded from a keyframe.
func TestTouchedReplayed(t *testing.T) {
	j := journaltest.Generated(t, "durable-stream", "durable_stream.jsonl", 2000, 13)
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
}

// Blame of .sessions names the session each event changed, found through
// Touched.
func TestBlameSessionsThroughTouched(t *testing.T) {
	var b bytes.Buffer
	for _, l := range []string{
		`{"type":"lifecycle.session.created","stream_id":"a","payload":{"id":"a","title":"A"},"id":"e1","timestamp":1770000000001}`,
		`{"type":"lifecycle.session.created","stream_id":"b","payload":{"id":"b","title":"B"},"id":"e2","timestamp":1770000000002}`,
		`{"type":"execution.text_delta","stream_id":"a","payload":{"delta":"x"},"id":"e3","timestamp":1770000000003}`,
		`{"type":"lifecycle.session.idle","stream_id":"a","payload":{},"id":"e4","timestamp":1770000000004}`,
	} {
		b.WriteString(l + "\n")
	}
	s := Format.Init()
	var states []model.State
	for i, l := range bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n")) {
		s = Format.Apply(s, model.Event{Pos: i + 1, Line: i + 1, Raw: l})
		states = append(states, s)
	}
	got := fmt.Sprint(states[3].(*state).Touched(states[2]))
	if !strings.Contains(got, "sessions[0].status") || !strings.Contains(got, "sessions[0].updated_at") || strings.Contains(got, "sessions[1]") {
		t.Fatalf("session a going idle touched %s", got)
	}
	if got := fmt.Sprint(states[1].(*state).Touched(states[0])); !strings.Contains(got, "sessions[1]") {
		t.Fatalf("session b created touched %s", got)
	}
}
