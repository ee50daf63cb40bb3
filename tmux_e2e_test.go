package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxSession runs the built binary in a real terminal (tmux) of the given
// size and reads the screen with capture-pane. Each session has a tmux
// server of its own (socket -L name): on a shared one, a test whose
// new-session reached the server as the last session of another test
// ended and took the server down failed with "server exited
// unexpectedly".
type tmuxSession struct {
	t    *testing.T
	name string
}

// newTmux starts shell command sh in a detached tmux session of w×h cells,
// on a server of its own that the test's cleanup kills.
func newTmux(t *testing.T, w, h int, sh string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for the terminal tests: apt-get install tmux (.ci/run installs it)")
	}
	s := &tmuxSession{t: t, name: fmt.Sprintf("rewind-test-%d", time.Now().UnixNano())}
	if out, err := s.tmux("new-session", "-d", "-s", s.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), sh).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { s.tmux("kill-server").Run() })
	return s
}

// tmux returns the command tmux args on the session's server.
func (s *tmuxSession) tmux(args ...string) *exec.Cmd {
	return exec.Command("tmux", append([]string{"-L", s.name}, args...)...)
}

func startTmux(t *testing.T, w, h int, args ...string) *tmuxSession {
	t.Helper()
	bin := rewindBin(t)
	cmdline := bin
	for _, a := range args {
		cmdline += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	// Keep the pane open after rewind exits so its last screen can be read.
	return newTmux(t, w, h, "env TERM=xterm-256color "+cmdline+"; echo REWIND-EXITED $?; sleep 60")
}

func (s *tmuxSession) screen() string {
	out, err := s.tmux("capture-pane", "-p", "-t", s.name).Output()
	if err != nil {
		s.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

// waitFor waits until the screen shows every string in want.
func (s *tmuxSession) waitFor(want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		scr := s.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(scr, w) {
				ok = false
			}
		}
		if ok {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the terminal never showed %q; screen:\n%s", want, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *tmuxSession) send(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		if out, err := s.tmux("send-keys", "-t", s.name, k).CombinedOutput(); err != nil {
			s.t.Fatalf("send-keys %q: %v: %s", k, err, out)
		}
	}
}

// The three panes show a fixture's timeline, state and projection in a real
// terminal; an event appended while rewind runs appears on screen; q quits
// and restores the terminal.
func TestTmuxPanesAndLiveAppend(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(deltaCompleted, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, ".delta", "20261121_222941_a7f3c2")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	// Cut the run before its last THOUGHT and RUN_END: it is still running.
	lines := strings.SplitAfter(string(src), "\n")
	head := strings.Join(lines[:11], "")
	journal := filepath.Join(run, "journal.jsonl")
	if err := os.WriteFile(journal, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTmux(t, 120, 34, journal)
	scr := s.waitFor("Timeline · delta-engine", "State after #11", "Projection · CONVERSATION", "11/11")
	for _, want := range []string{"ACTION_RESULT", "list_files: ls -la", `status: "RUNNING"`, "### user"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	// Scrub to the first event: all three panes follow.
	s.send("g")
	s.waitFor("State after #1 ", "1/11", "paused")
	// Follow again, then let the agent append its last two events.
	s.send("G")
	s.waitFor("State after #11 ", "following")
	f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(lines[11] + lines[12])
	f.Close()
	scr = s.waitFor("State after #13 ", "13/13", "RUN_END", `status: "COMPLETED"`)
	if !strings.Contains(scr, "All 45 steps passed") {
		t.Errorf("the appended THOUGHT is not on screen:\n%s", scr)
	}
	s.send("q")
	s.waitFor("REWIND-EXITED 0")
}

// A .delta/ directory opens on its run list, newest first; enter opens a
// run, R goes back to the list at that run, and the keys typed straight
// after R act on the list.
func TestTmuxRunPicker(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".delta")
	if err := os.CopyFS(dir, os.DirFS(deltaWorkspace)); err != nil {
		t.Fatal(err)
	}
	s := startTmux(t, 120, 34, dir)
	scr := s.waitFor("Runs in", "20261121_223200_f0e1d2", "20261121_222941_a7f3c2")
	if strings.Index(scr, "20261121_223200_f0e1d2") > strings.Index(scr, "20261121_222941_a7f3c2") {
		t.Errorf("runs should be newest first:\n%s", scr)
	}
	s.send("j", "Enter")
	s.waitFor("Timeline · delta-engine · 20261121_223100_e1f2a3", "State after #5 ")
	s.send("R", "j", "Enter")
	s.waitFor("Timeline · delta-engine · 20261121_222957_c4d5e6", "State after")
	s.send("q")
	s.waitFor("REWIND-EXITED 0")
}

// In the demo, a pending checkpoint is approved from the keyboard: it leaves
// the pending list and the decision event appears in the timeline.
func TestTmuxDemoApprove(t *testing.T) {
	s := startTmux(t, 130, 36, "demo", "--interval", "700ms", "--as", "tester")
	s.waitFor("Timeline · durable-stream", "1 pending (p)")
	s.send("p")
	s.waitFor("Pending decisions (1)")
	s.send("a")
	s.waitFor("Approve checkpoint")
	time.Sleep(300 * time.Millisecond) // keys within 250 ms of opening are ignored
	s.send("Enter")
	s.waitFor("Press y to approve")
	s.send("y")
	// The timeline follows the end, so the decision event is on screen
	// for several intervals after it lands.
	s.waitFor("0 pending", "approved cp_", "checkpoint.approved  tester")
	s.send("q")
	s.waitFor("REWIND-EXITED 0")
}

// rewind state on a large journal, its output piped to a slow reader,
// shows how far the reading, then the writing, is on the terminal, then
// erases the line: the shell prompt comes back on a clean line.
func TestTmuxProgressOnLargeJournal(t *testing.T) {
	bin := rewindBin(t)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	// About 90 MB of DeltaMind (progress shows from 64 MB on), whose state
	// is more than a pipe holds: the reader waits two seconds before it
	// reads, so the writing lasts that long however fast this machine
	// folds (a fold of 180 MB written to /dev/null once ended within the
	// 300 ms before progress shows).
	if out, err := exec.Command(bin, "demo", "--out", path, "--events", "300000", "--format", "deltamind").CombinedOutput(); err != nil {
		t.Fatalf("rewind demo --out: %v: %s", err, out)
	}
	s := newTmux(t, 120, 10, "env TERM=xterm-256color bash -c \"set -o pipefail; '"+bin+"' state '"+path+"' | (sleep 2; cat >/dev/null)\"; echo REWIND-EXITED $?; sleep 60")
	// The reading may end before the line shows (300 ms); the writing
	// line, while the pipe is full, counts what the reader has taken so
	// far (88 B: its first write), so its size is not always in MiB.
	scr := s.waitFor("rewind: ", " big.jsonl  ")
	if !strings.Contains(scr, "rewind: reading big.jsonl  ") && !strings.Contains(scr, "rewind: writing the state of big.jsonl  ") {
		t.Fatalf("no progress line reading or writing:\n%s", scr)
	}
	if !progressSize.MatchString(scr) {
		t.Fatalf("the progress line shows no size:\n%s", scr)
	}
	if strings.Contains(scr, "REWIND-EXITED") {
		t.Fatalf("progress shown after the command ended:\n%s", scr)
	}
	scr = s.waitFor("REWIND-EXITED 0")
	if strings.Contains(scr, "rewind: ") || strings.Contains(scr, "MiB") {
		t.Fatalf("the progress line was left on the terminal:\n%s", scr)
	}
}

// progressSize is a size as a progress line writes it (journal.HumanBytes).
var progressSize = regexp.MustCompile(`big\.jsonl  [0-9.]+ (B|KiB|MiB|GiB)`)

// A journal larger than what the TUI indexes before its first screen is
// indexed (and folded) in the background in several steps; at the end the
// status line has every event and the pending checkpoints that rewind
// state finds, and the state pane follows the last event.
func TestTmuxLargeJournalIndexedInBackground(t *testing.T) {
	bin := rewindBin(t)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	// About 80 MB of Durable Stream: 1 MiB before the first screen, then
	// two background steps of 64 MiB.
	if out, err := exec.Command(bin, "demo", "--out", path, "--events", "160000", "--format", "durable-stream", "--seed", "3").CombinedOutput(); err != nil {
		t.Fatalf("rewind demo --out: %v: %s", err, out)
	}
	out, err := exec.Command(bin, "state", path).Output()
	if err != nil {
		t.Fatalf("rewind state: %v", err)
	}
	var st struct{ Pending []json.RawMessage }
	if err := json.Unmarshal(out, &st); err != nil || len(st.Pending) == 0 {
		t.Fatalf("rewind state: %d pending, %v; want some", len(st.Pending), err)
	}
	s := startTmux(t, 140, 40, path)
	s.waitFor("Timeline · durable-stream", "State after #")
	end := s.waitFor("160000/160000", fmt.Sprintf("%d pending (p)", len(st.Pending)), "State after #160000 ")
	if strings.Contains(end, "indexing") {
		t.Fatalf("the progress bar stayed after indexing finished:\n%s", end)
	}
	s.send("g")
	s.waitFor("State after #1 ", "1/160000", "paused")
	s.send("G")
	s.waitFor("State after #160000 ", "following")
	s.send("q")
	s.waitFor("REWIND-EXITED 0")
}

// d d at the end of a DeltaMind journal opens the diff overlay in a real
// terminal: the state changes, then the projection diff, which is made
// after the overlay opens (statediff.Changes, then AddDocs), with its
// hunks; esc closes it.
func TestTmuxDiffOverlay(t *testing.T) {
	bin := rewindBin(t)
	path := filepath.Join(t.TempDir(), "mind.jsonl")
	if out, err := exec.Command(bin, "demo", "--out", path, "--events", "20000", "--format", "deltamind", "--seed", "5").CombinedOutput(); err != nil {
		t.Fatalf("rewind demo --out: %v: %s", err, out)
	}
	s := startTmux(t, 140, 40, path)
	s.waitFor("20000/20000", "State after #20000 ")
	s.send("d", "d")
	scr := s.waitFor("Diff #19999 → #20000", "change(s)", "projection ACTIVE_STATE:", "@@ -")
	if strings.Contains(scr, "comparing") {
		t.Errorf("the overlay still says it is comparing after the projection diff came:\n%s", scr)
	}
	s.send("Escape")
	s.waitFor("State after #20000 ")
	if scr := s.screen(); strings.Contains(scr, "Diff #") {
		t.Fatalf("esc left the overlay:\n%s", scr)
	}
	s.send("q")
	s.waitFor("REWIND-EXITED 0")
}

// The TUI colors its screen in a terminal that has colors, and in one
// where NO_COLOR is set it writes no color at all (bold and reverse
// stay): the color profile the program renders with follows the
// terminal and the environment, as detected at its start.
func TestTmuxColorsFollowNoColor(t *testing.T) {
	bin := rewindBin(t)
	sgrs := regexp.MustCompile(`\x1b\[([0-9;:]*)m`)
	colors := func(noColor string) map[string]int {
		s := newTmux(t, 140, 40, "env TERM=xterm-256color NO_COLOR="+noColor+" '"+bin+"' '"+streamFile+"'; echo REWIND-EXITED $?; sleep 60")
		s.waitFor("Timeline · durable-stream", "State after #")
		out, err := s.tmux("capture-pane", "-e", "-p", "-t", s.name).Output()
		if err != nil {
			t.Fatalf("capture-pane -e: %v", err)
		}
		s.send("q")
		s.waitFor("REWIND-EXITED 0")
		found := map[string]int{}
		for _, sgr := range sgrs.FindAllStringSubmatch(string(out), -1) {
			// A foreground or background color: 30-37, 40-47, 90-97,
			// 100-107, or 38/48 with a palette index or RGB.
			for _, p := range strings.FieldsFunc(sgr[1], func(r rune) bool { return r == ';' || r == ':' }) {
				n, _ := strconv.Atoi(p)
				if n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107 {
					found[sgr[0]]++
					break
				}
			}
		}
		return found
	}
	if c := colors(""); len(c) < 3 {
		t.Errorf("without NO_COLOR the screen has %d colors (%v), want several", len(c), c)
	}
	if c := colors("1"); len(c) != 0 {
		t.Errorf("with NO_COLOR=1 the screen has colors: %v", c)
	}
}
