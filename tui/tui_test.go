package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/keymap"
)

const (
	deltaCompleted = "../model/deltaengine/testdata/workspace.delta/20261121_222941_a7f3c2"
	deltaWorkspace = "../model/deltaengine/testdata/workspace.delta"
	streamFixture  = "../model/durablestream/testdata/stream.jsonl"
	mindFixture    = "../model/deltamind/testdata/dogfood/provenance.jsonl"
)

var fixedNow = time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)

func openModel(t *testing.T, path string) Model {
	t.Helper()
	target, err := journal.Locate(path)
	if err != nil {
		t.Fatal(err)
	}
	var sess *app.Session
	if target.Journal != "" {
		sess, err = app.Open(target, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.Close() })
	}
	return New(target, sess, Options{
		Dark: true, Keys: keymap.Default(), Poll: 50 * time.Millisecond, As: "tester",
		Now:  func() time.Time { return fixedNow },
		Open: func(t journal.Target) (*app.Session, error) { return app.Open(t, app.Options{}) },
	})
}

// watcher runs a model under teatest and keeps the latest model, so a test
// can wait for what the screen shows rather than for bytes in the stream.
type watcher struct {
	tm   *teatest.TestModel
	mu   sync.Mutex
	last tea.Model
	view string // last's view, rendered on the program's goroutine
	// opened counts the runs that finished opening (openedMsg), shown or
	// not.
	opened int
}

func start(t *testing.T, m Model, w, h int) *watcher {
	t.Helper()
	wt := &watcher{last: m}
	wt.tm = teatest.NewTestModel(t, m,
		teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(
			tea.WithColorProfile(colorprofile.ANSI256),
			tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg {
				// The filter runs on the program's goroutine: render here,
				// not on the test's, where View would read maps that Update
				// writes.
				view := ansi.Strip(m.View().Content)
				wt.mu.Lock()
				wt.last, wt.view = m, view
				if _, ok := msg.(openedMsg); ok {
					wt.opened++
				}
				wt.mu.Unlock()
				return msg
			}),
		))
	return wt
}

// screen returns the latest view without colours.
func (w *watcher) screen() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.view == "" && w.last != nil {
		return ansi.Strip(w.last.View().Content) // before the program ran
	}
	return w.view
}

// waitFor waits until every want string is on the screen.
func (w *watcher) waitFor(t *testing.T, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := w.screen()
		ok := true
		for _, x := range want {
			if !strings.Contains(s, x) {
				ok = false
			}
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("screen never showed %q; last screen:\n%s", want, s)
		}
		// Nudge the program so the filter sees the latest model.
		w.tm.Send(nudge{})
		time.Sleep(20 * time.Millisecond)
	}
}

type nudge struct{}

func (w *watcher) keys(keys ...string) {
	for _, k := range keys {
		w.tm.Send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func (w *watcher) quit(t *testing.T) {
	w.tm.Send(keyMsg("q"))
	w.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

func TestScrubDeltaEngineRun(t *testing.T) {
	w := start(t, openModel(t, deltaCompleted), 100, 30)
	s := w.waitFor(t, "State after #13 ", "COMPLETED", "\n13/13 ", "following")
	if !strings.Contains(s, "RUN_END") || !strings.Contains(s, "Projection · CONVERSATION") {
		t.Fatalf("first screen lacks the timeline or projection:\n%s", s)
	}
	// g: to the first event; the state and the projection follow.
	w.keys("g")
	s = w.waitFor(t, "State after #1 ", "\n1/13 ", "RUN_START")
	if !strings.Contains(s, `status: "RUNNING"`) {
		t.Errorf("state after #1 should be RUNNING:\n%s", s)
	}
	if !strings.Contains(s, "paused") {
		t.Errorf("follow mode should pause when scrubbing back:\n%s", s)
	}
	// j three times: the fourth event, a THOUGHT; its change is marked.
	w.keys("j", "j", "j")
	s = w.waitFor(t, "State after #4 ", "\n4/13 ")
	if !strings.Contains(s, "~ iterations: 1") {
		t.Errorf("the THOUGHT's change to iterations should be marked:\n%s", s)
	}
	// :7 jumps to position 7.
	w.keys(":", "7", "enter")
	w.waitFor(t, "State after #7 ", "\n7/13 ")
	// ] goes to the next event of the same type (the THOUGHT at 12).
	w.keys("]")
	w.waitFor(t, "State after #12 ", "\n12/13 ")
	// [ goes back to the THOUGHT at 7.
	w.keys("[")
	w.waitFor(t, "State after #7 ", "\n7/13 ")
	// #10 jumps to the event whose own seq is 10.
	w.keys("#", "1", "0", "enter")
	w.waitFor(t, "State after #10 ", "\n10/13 ")
	// G returns to the end and follows again.
	w.keys("G")
	w.waitFor(t, "State after #13 ", "following")
	w.quit(t)
}

func TestHelpAndBadInput(t *testing.T) {
	w := start(t, openModel(t, deltaCompleted), 80, 24)
	w.waitFor(t, "State after #13 ")
	w.keys("?")
	w.waitFor(t, "rewind keys", "go to position N", "quit")
	w.keys("x") // any key closes help
	w.waitFor(t, "Timeline")
	w.keys(":", "9", "9", "enter")
	w.waitFor(t, "no position 99")
	w.keys("#", "z", "enter")
	w.waitFor(t, "no event with seq or id z")
	w.quit(t)
}

func TestDeltaMindProjectionDocuments(t *testing.T) {
	w := start(t, openModel(t, mindFixture), 100, 30)
	w.waitFor(t, "Projection · ACTIVE_STATE", "Active State")
	w.keys("D")
	w.waitFor(t, "Projection · DECISIONS")
	w.keys("D", "D")
	w.waitFor(t, "Projection · CONSTRAINTS")
	w.quit(t)
}

func TestRunPickerOpensRun(t *testing.T) {
	w := start(t, openModel(t, deltaWorkspace), 100, 30)
	s := w.waitFor(t, "Runs in", "WAITING_FOR_INPUT", "COMPLETED")
	if strings.Index(s, "20261121_223200_f0e1d2") > strings.Index(s, "20261121_222941_a7f3c2") {
		t.Errorf("runs should be newest first:\n%s", s)
	}
	w.keys("j", "enter")
	w.waitFor(t, "Timeline · delta-engine · 20261121_223100_e1f2a3", "State after")
	// R goes back to the list as it was, the cursor on the run just
	// left: keys typed straight after it are not lost to a re-read, and
	// j then enter opens the run below that one.
	w.keys("R", "j", "enter")
	w.waitFor(t, "Timeline · delta-engine · 20261121_222957_c4d5e6", "State after")
	w.quit(t)
}

// A run that finishes opening after the user went back to the run list
// (R) is not shown: the list stays, and the keys pressed on it act there.
func TestBackWhileRunOpens(t *testing.T) {
	m := openModel(t, deltaWorkspace)
	// Once gated, opening the run that waits blocks until released.
	var gated atomic.Bool
	release := make(chan struct{})
	open := m.o.Open
	m.o.Open = func(t journal.Target) (*app.Session, error) {
		if gated.Load() && strings.Contains(t.Journal, "20261121_222947_b91d0a") {
			<-release
		}
		return open(t)
	}
	w := start(t, m, 120, 32)
	w.waitFor(t, "Runs in", "20261121_223200_f0e1d2")
	w.keys("enter")
	w.waitFor(t, "Timeline · delta-engine · 20261121_223200_f0e1d2")
	// enter on the pending item of another run opens that run; R goes
	// back to the list before it is open.
	w.keys("p")
	w.waitFor(t, "Pending decisions (1)", "20261121_222947_b91d0a")
	gated.Store(true)
	w.keys("enter", "R")
	w.waitFor(t, "Runs in", "Pick a run")
	close(release)
	for deadline := time.Now().Add(5 * time.Second); ; {
		w.mu.Lock()
		n := w.opened
		w.mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run never finished opening")
		}
		w.tm.Send(nudge{})
		time.Sleep(10 * time.Millisecond)
	}
	// Still the list, the cursor on the run left: j, enter opens the
	// run below it.
	w.keys("j", "enter")
	w.waitFor(t, "Timeline · delta-engine · 20261121_223100_e1f2a3", "State after")
	w.quit(t)
}

// Approving a pending Durable Stream checkpoint from the keyboard appends the
// decision; keys that arrive right after the dialog opens are ignored.
func TestApproveFromKeyboard(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(streamFixture)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "durable_stream.jsonl")
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	m := openModel(t, p)
	clock := fixedNow
	var mu sync.Mutex
	m.o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	w := start(t, m, 120, 32)
	w.waitFor(t, "1 pending (p)")
	w.keys("p")
	w.waitFor(t, "Pending decisions (1)", "Ship the port on Friday?")
	w.keys("a")
	w.waitFor(t, "Approve checkpoint")
	// Within the guard delay: ignored, still on the option step.
	w.keys("enter", "y")
	s := w.waitFor(t, "Approve checkpoint")
	if strings.Contains(s, "Press y") {
		t.Fatalf("keys within 250 ms of opening must be ignored:\n%s", s)
	}
	mu.Lock()
	clock = clock.Add(time.Second)
	mu.Unlock()
	w.keys("down", "enter")
	w.waitFor(t, "Press y to approve")
	w.keys("y")
	w.waitFor(t, "approved cp_", "0 pending")
	w.quit(t)
	b, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"type":"checkpoint.approved"`) || !strings.Contains(last, `"selected_option":"wait"`) || !strings.Contains(last, `"approved_by":"tester"`) {
		t.Fatalf("last line is not the approval: %s", last)
	}
}

// p on a .delta/ directory lists the pending items of every run; enter on
// one opens its run at the event that asked.
func TestPendingAcrossRuns(t *testing.T) {
	w := start(t, openModel(t, deltaWorkspace), 120, 32)
	// The list, not only its title: enter before the runs are read opens
	// nothing, as it would for a person who pressed it that early.
	w.waitFor(t, "Runs in", "20261121_223200_f0e1d2")
	w.keys("enter") // the newest run, which waits for nothing
	w.waitFor(t, "Timeline · delta-engine · 20261121_223200_f0e1d2")
	w.keys("p")
	w.waitFor(t, "Pending decisions (1)", "20261121_222947_b91d0a", "Who is joining the team?")
	w.keys("enter")
	w.waitFor(t, "Timeline · delta-engine · 20261121_222947_b91d0a", "State after #4 ", "1 pending (p)")
	w.quit(t)
}

// p in a run of a .delta/ directory lists that run's item at once and
// every run's when they are read: the cursor stays on the item it was on,
// so enter acts on the item the user saw, not on an older run's that took
// its place.
func TestPendingListKeepsItsItem(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(deltaWorkspace)); err != nil {
		t.Fatal(err)
	}
	// An older run that waits too, so its item comes first.
	from, to := "20261121_222947_b91d0a", "20261121_222000_0ld3r0"
	if err := os.CopyFS(filepath.Join(dir, to), os.DirFS(filepath.Join(dir, from))); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"journal.jsonl", "metadata.json"} {
		p := filepath.Join(dir, to, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte(from), []byte(to))
		b = bytes.ReplaceAll(b, []byte("2026-11-21T22:29:47"), []byte("2026-11-21T22:20:00"))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := start(t, openModel(t, dir), 120, 32)
	w.waitFor(t, "Runs in", to)
	w.keys("j", "j", "j", "enter") // newest first: the fourth run is b91d0a
	w.waitFor(t, "Timeline · delta-engine · "+from, "State after #5 ", "1 pending (p)")
	w.keys("p")
	w.waitFor(t, "Pending decisions (2)", to)
	w.keys("enter")
	s := w.waitFor(t, "State after #4 ")
	if !strings.Contains(s, "Timeline · delta-engine · "+from) {
		t.Fatalf("enter on the item the cursor was on should stay in %s:\n%s", from, s)
	}
	w.quit(t)
}

// An answer written to interaction/response.txt (by rewind or by hand) shows
// in the projection until the engine resumes.
func TestAnsweredShownInProjection(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(deltaWorkspace)); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "20261121_222947_b91d0a")
	if err := os.WriteFile(filepath.Join(run, "interaction", "response.txt"), []byte("Alice"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := start(t, openModel(t, filepath.Join(run, "journal.jsonl")), 120, 32)
	w.waitFor(t, "Answered: Alice", "waiting for the engine to resume")
	w.quit(t)
}

// The projection pane first gets the top of a long document, as much as
// fills it, and then the rest: paging down reaches the last checkpoint.
func TestProjectionRestFollowsItsTop(t *testing.T) {
	var b strings.Builder
	for i := range 16 {
		fmt.Fprintf(&b, `{"type":"checkpoint.requested","stream_id":"ses_1","correlation_id":"c1","actor":"agent","payload":{"id":"cp_%d","decision_point":"Question number %d?","options":[{"id":"yes","label":"Yes"},{"id":"no","label":"No"}],"requested_by":"agent","requested_at":%d,"expires_at":%d},"id":"ev_%d","timestamp":%d}`+"\n",
			i, i, 1795400000000+i, 1795400300000+i, i, 1795400000000+i)
	}
	p := filepath.Join(t.TempDir(), "durable_stream.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w := start(t, openModel(t, p), 100, 30)
	w.waitFor(t, "Projection · CHECKPOINTS", "Question number 0?", "16 pending")
	w.keys("tab", "tab")
	// The right half of the bottom panes' lines: the state pane shows the
	// last checkpoint too.
	projection := func() string {
		var b strings.Builder
		for _, l := range strings.Split(w.screen(), "\n") {
			if i := strings.Index(l, "││"); i >= 0 {
				b.WriteString(l[i:] + "\n")
			}
		}
		return b.String()
	}
	// A page at a time, each drawn before the next: the rest may come
	// while the top is paged through.
	deadline := time.Now().Add(30 * time.Second)
	for page := projection(); !strings.Contains(page, "Question number 15?"); {
		if time.Now().After(deadline) {
			t.Fatalf("paging down the projection never showed the last checkpoint:\n%s", w.screen())
		}
		w.keys("f")
		for next := time.Now().Add(300 * time.Millisecond); time.Now().Before(next); {
			w.tm.Send(nudge{})
			time.Sleep(10 * time.Millisecond)
			if p := projection(); p != page {
				page = p
				break
			}
		}
	}
	w.quit(t)
}

// The first state is worked out while the terminal's size is on its way
// (startEarly). The first screen shows the state of the event selected
// when the size comes: the last one, or, after a move made before it,
// the one moved to, not the one worked out early.
func TestFirstStateIsTheSelectedOne(t *testing.T) {
	first := func(m Model) stateMsg {
		t.Helper()
		_, cmd := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		cmds := []tea.Cmd{cmd}
		for len(cmds) > 0 {
			c := cmds[0]
			cmds = cmds[1:]
			if c == nil {
				continue
			}
			switch msg := c().(type) {
			case stateMsg:
				return msg
			case tea.BatchMsg:
				cmds = append(cmds, msg...)
			}
		}
		t.Fatal("no state was asked for when the size came")
		return stateMsg{}
	}
	projection := map[bool]string{}
	for _, moved := range []bool{false, true} {
		m := openModel(t, deltaCompleted)
		if m.early == nil {
			t.Fatal("no early state for a session")
		}
		want, status := 13, "COMPLETED"
		if moved {
			m.tl.selectRecord(0)
			want, status = 1, "RUNNING"
		}
		msg := first(m)
		if msg.err != nil || msg.pos != want {
			t.Fatalf("moved %v: first state at %d (%v), want %d", moved, msg.pos, msg.err, want)
		}
		if st, _ := msg.obj.Get("status"); !strings.Contains(fmt.Sprint(st), status) {
			t.Errorf("moved %v: state after #%d has status %v, want %s", moved, want, st, status)
		}
		projection[moved] = ansi.Strip(msg.md)
	}
	if projection[false] == projection[true] {
		t.Errorf("the projection of #1 is the one of #13:\n%s", projection[true])
	}
}
