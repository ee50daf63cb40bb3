package tui

import (
	"encoding/base64"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rewind-tui/rewind/bookmarks"
	"github.com/rewind-tui/rewind/render"
)

const mindCoverage = "../model/deltamind/testdata/coverage.jsonl"

func typeText(w *watcher, s string) {
	for _, r := range s {
		w.keys(string(r))
	}
}

// Marks persist per journal; d and a mark diffs, dd diffs with the
// previous event.
func TestMarksAndDiff(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	w := start(t, openModel(t, mindCoverage), 110, 34)
	w.waitFor(t, "State after #34 ")
	w.keys(":", "1", "6", "enter")
	w.waitFor(t, "State after #16 ")
	w.keys("d", "d")
	s := w.waitFor(t, "Diff #15 → #16", `~ .items[1].summary: "use Go for the TUI" → "use Go and Bubble Tea for the TUI"`)
	if !strings.Contains(s, "projection") {
		t.Errorf("the diff lacks the projection diff:\n%s", s)
	}
	w.keys("esc")
	w.keys("m", "a")
	w.waitFor(t, "mark a → #16")
	w.keys("g")
	w.waitFor(t, "State after #1 ")
	w.keys("d", "a")
	w.waitFor(t, "Diff #16 → #1")
	w.keys("esc", "'", "a")
	w.waitFor(t, "State after #16 ")
	w.keys("'", "z")
	w.waitFor(t, "no mark z")
	w.quit(t)
	marks, err := bookmarks.Load(mindCoverage)
	if err != nil || marks["a"] != 16 {
		t.Fatalf("marks saved: %v %v", marks, err)
	}
	// A new session finds the mark again.
	w = start(t, openModel(t, mindCoverage), 110, 34)
	w.waitFor(t, "State after #34 ")
	w.keys("'", "a")
	w.waitFor(t, "State after #16 ")
	w.quit(t)
}

// b on a state path lists the events that changed it; enter jumps.
func TestBlameKey(t *testing.T) {
	w := start(t, openModel(t, deltaCompleted), 110, 34)
	w.waitFor(t, "State after #13 ")
	w.keys("tab", "j", "j", "j", "j", "j", "b")
	s := w.waitFor(t, "Blame .status", "RUN_END")
	if !strings.Contains(s, `added "RUNNING"`) && !strings.Contains(s, `"RUNNING" → "COMPLETED"`) {
		t.Errorf("blame lacks the effects:\n%s", s)
	}
	w.keys("enter")
	w.waitFor(t, "State after #13 ")
	w.quit(t)
}

// / filters with jq and counts; n and N move between matches; a bad
// expression is a status line message.
func TestFilterKeys(t *testing.T) {
	w := start(t, openModel(t, deltaCompleted), 110, 34)
	w.waitFor(t, "State after #13 ")
	w.keys("/")
	typeText(w, `select(.type == "THOUGHT")`)
	w.keys("enter")
	s := w.waitFor(t, "3 match(es)")
	if strings.Contains(s, "ACTION_RESULT") {
		t.Errorf("the filter left other events:\n%s", s)
	}
	w.keys("g")
	w.waitFor(t, "State after #4 ")
	w.keys("n")
	w.waitFor(t, "State after #7 ")
	w.keys("N")
	w.waitFor(t, "State after #4 ")
	w.keys("/")
	typeText(w, `.a ==`)
	w.keys("enter")
	w.waitFor(t, "jq:")
	// Clear the filter: everything shows again.
	w.keys("/")
	for range 40 {
		w.keys("backspace")
	}
	w.keys("enter")
	w.waitFor(t, "filter cleared")
	w.waitFor(t, "ACTION_RESULT")
	w.quit(t)
}

// x hides the selected event's type, X shows all, ! keeps problems only.
func TestHideNoise(t *testing.T) {
	w := start(t, openModel(t, deltaCompleted), 110, 34)
	w.waitFor(t, "State after #13 ")
	w.keys(":", "6", "enter")
	w.waitFor(t, "State after #6 ")
	w.keys("x")
	w.waitFor(t, "1 type(s) hidden")
	w.waitGone(t, "ACTION_RESULT")
	w.keys("X")
	w.waitFor(t, "ACTION_RESULT")
	w.keys("!")
	w.waitFor(t, "problems only", "Permission de")
	w.waitGone(t, "RUN_START")
	w.quit(t)
}

// startInstant starts the TUI on the completed Delta Engine run, at its
// last event, with play at instant speed.
func startInstant(t *testing.T) *watcher {
	w := start(t, openModel(t, deltaCompleted), 110, 34)
	w.waitFor(t, "State after #13 ")
	w.keys("+", "+", "+", "+", "+", "+")
	w.waitFor(t, "speed instant")
	return w
}

// space plays to the end; a breakpoint stops play when it becomes true.
func TestPlayAndBreakpoint(t *testing.T) {
	w := startInstant(t)
	w.keys("g")
	w.waitFor(t, "State after #1 ")
	w.keys(" ")
	w.waitFor(t, "played to the last event", "State after #13 ")
	w.keys("B")
	typeText(w, ".iterations == 2")
	w.keys("enter")
	w.waitFor(t, "B: .iterations == 2")
	w.keys("g")
	w.waitFor(t, "State after #1 ")
	w.keys(" ")
	w.waitFor(t, "breakpoint: .iterations == 2 became true", "State after #7 ")
	// At the original pace: any key stops.
	w.keys("-", "-", "-", "-", "-", "-")
	w.waitFor(t, "speed 1x")
	w.quit(t)
}

// A breakpoint over a list (each state checked from the one before, as
// the cursor moves either way) stops play where it becomes true, again
// after a jump back to the start, and a new one replaces it.
func TestBreakpointOverAList(t *testing.T) {
	w := startInstant(t)
	w.keys("B")
	typeText(w, ".messages | length == 3")
	w.keys("enter")
	w.waitFor(t, "stop when .messages | length == 3")
	w.keys("k", "k", "g")
	w.waitFor(t, "State after #1 ")
	w.keys(" ")
	w.waitFor(t, "breakpoint: .messages | length == 3 became true", "State after #6 ")
	w.keys("B")
	for range len(".messages | length == 3") {
		w.keys("backspace")
	}
	typeText(w, ".messages | length == 5")
	w.keys("enter")
	w.waitFor(t, "stop when .messages | length == 5")
	w.keys(" ")
	w.waitFor(t, "breakpoint: .messages | length == 5 became true", "State after #9 ")
	w.keys("G", "g")
	w.waitFor(t, "State after #1 ")
	w.keys(" ")
	w.waitFor(t, "breakpoint: .messages | length == 5 became true", "State after #9 ")
	w.quit(t)
}

// s finds the first position where a state expression holds.
func TestStateSearch(t *testing.T) {
	w := start(t, openModel(t, deltaCompleted), 110, 34)
	w.waitFor(t, "State after #13 ")
	w.keys("s")
	typeText(w, `.status == "COMPLETED"`)
	w.keys("enter")
	w.waitFor(t, "first true at #13")
	w.keys("s")
	typeText(w, `.iterations > 0`)
	w.keys("enter")
	w.waitFor(t, "first true at #4", "State after #4 ")
	w.quit(t)
}

// y copies the event through OSC 52 as terminal-safe JSON; Y the path.
func TestCopyKeys(t *testing.T) {
	w := start(t, openModel(t, deltaCompleted), 110, 34)
	w.waitFor(t, "State after #13 ")
	w.keys("y")
	w.waitFor(t, "copied event #13")
	w.keys("tab", "j", "j", "j", "j", "j", "Y")
	w.waitFor(t, "copied .status")
	w.quit(t)
	out, _ := io.ReadAll(w.tm.FinalOutput(t, teatest.WithFinalTimeout(5*time.Second)))
	want := base64.StdEncoding.EncodeToString(render.SafeJSON([]byte(`{"seq":13,`)))
	_ = want
	if !strings.Contains(string(out), "\x1b]52;c;") {
		t.Fatalf("no OSC 52 in the output")
	}
	if !strings.Contains(string(out), base64.StdEncoding.EncodeToString([]byte(".status"))) {
		t.Errorf("the path was not copied")
	}
}

// waitGone waits until s is no longer on the screen.
func (w *watcher) waitGone(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Contains(w.screen(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("screen still shows %q:\n%s", s, w.screen())
		}
		w.tm.Send(nudge{})
		time.Sleep(20 * time.Millisecond)
	}
}
