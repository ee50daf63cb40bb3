package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/bookmarks"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/journal/tail"
	"github.com/rewind-tui/rewind/keymap"
)

// A journal indexed in the background: the first screen shows what is
// indexed, the status line a progress bar with bytes and rates, the cursor
// stays where it is while the index grows, and following resumes at the
// real end when indexing is done.
func TestIndexingInBackground(t *testing.T) {
	w, first, size, grow := backlogModel(t)
	mid := size / 2
	evs := grow(mid)
	s := w.waitFor(t, "indexing", "50%", fmt.Sprintf("%d/%d", first, evs))
	if !strings.Contains(s, journal.HumanBytes(mid)+" of "+journal.HumanBytes(size)) || !strings.Contains(s, "events/s") {
		t.Fatalf("progress line lacks bytes or rates:\n%s", s)
	}
	if strings.Contains(s, "0 pending") || !strings.Contains(s, "pending: after indexing") {
		t.Fatalf("while indexing, the status line claims a pending count it cannot know:\n%s", s)
	}
	if !strings.Contains(s, "following once indexed") {
		t.Fatalf("while indexing, the status line does not say that following waits for the end:\n%s", s)
	}
	// a while indexing: it does not claim that nothing is pending.
	w.keys("a")
	s = w.waitFor(t, "known once the journal is indexed (50%)")
	if strings.Contains(s, "nothing is pending") {
		t.Fatalf("while indexing, a says nothing is pending:\n%s", s)
	}
	// p while indexing: the list is not known yet, and it does not claim
	// that nothing waits; it fills in when indexing is done.
	w.keys("p")
	s = w.waitFor(t, "Pending decisions", "still being indexed (50%)")
	if strings.Contains(s, "Nothing is waiting") {
		t.Fatalf("while indexing, the pending list says nothing is waiting:\n%s", s)
	}

	all := grow(size)
	s = w.waitFor(t, fmt.Sprintf("%d/%d", all, all), "Pending decisions (")
	if strings.Contains(s, "indexing") {
		t.Fatalf("the progress bar, or the pending list's note, stayed after indexing finished:\n%s", s)
	}
	w.keys("esc")
	w.waitFor(t, fmt.Sprintf("State after #%d", all))
	w.quit(t)
}

// backlogModel starts the TUI on a copy of the Durable Stream fixture with
// its first quarter indexed, as a large journal's first screen is; grow
// indexes it up to byte to and sends the follower's update with its
// progress, and returns the events indexed.
func backlogModel(t *testing.T) (w *watcher, first int, size int64, grow func(to int64) int) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	data, err := os.ReadFile(streamFixture)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "durable_stream.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	size = int64(len(data))
	j, err := journal.OpenPrefix(p, 0, size/4)
	if err != nil {
		t.Fatal(err)
	}
	first, _ = j.Index.Counts()
	if err := bookmarks.Save(p, bookmarks.Marks{"a": 15}); err != nil {
		t.Fatal(err)
	}
	target := journal.Target{Journal: p}
	sess, err := app.FromJournal(target, j, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ups := make(chan tail.Update, 4)
	m := New(target, sess, Options{Dark: true, Keys: keymap.Default(), Poll: time.Hour, As: "tester",
		Now: func() time.Time { return fixedNow }, Updates: ups})
	w = start(t, m, 160, 40)
	w.waitFor(t, fmt.Sprintf("%d/%d", first, first), "State after #")
	grow = func(to int64) int {
		t.Helper()
		added, _ := j.UpdateTo(to)
		_, evs := j.Index.Counts()
		ups <- tail.Update{Kind: tail.Appended, J: j, Added: added,
			Progress: &tail.Progress{Done: to, Total: size, Events: evs, Elapsed: 100 * time.Millisecond}}
		return evs
	}
	return w, first, size, grow
}

// ':' to a position not indexed yet, before or while a backlog is indexed:
// the cursor goes there once it is, and to a position past the end the
// user hears so when indexing is done.
func TestJumpToPositionNotIndexedYet(t *testing.T) {
	w, first, size, grow := backlogModel(t)
	// Before the background indexing has said anything (the first screen
	// shows a prefix): the file is larger than what is indexed.
	want := first + 3
	w.keys(append(append([]string{":"}, strings.Split(fmt.Sprint(want), "")...), "enter")...)
	w.waitFor(t, fmt.Sprintf("position %d is not indexed yet", want))
	all := grow(size * 3 / 4)
	if all < want {
		t.Fatalf("the fixture is too small: %d events at 3/4, want more than %d", all, want)
	}
	w.waitFor(t, fmt.Sprintf("%d/%d", want, all), fmt.Sprintf("State after #%d", want), fmt.Sprintf("at position %d", want))
	// A seq or id not found says it was looked for among those indexed.
	w.keys("#", "n", "o", "p", "e", "enter")
	w.waitFor(t, fmt.Sprintf("no event with seq or id nope in the %d indexed so far", all))

	// Past the end: said once indexing is done, and the cursor stays.
	w.keys(":", "9", "9", "9", "9", "9", "9", "enter")
	w.waitFor(t, "position 999999 is not indexed yet")
	all = grow(size)
	w.waitFor(t, fmt.Sprintf("no position 999999: positions run from 1 to %d", all), fmt.Sprintf("State after #%d", want))
	w.quit(t)
}

// A mark (saved from an earlier session) on an event not indexed yet: '
// goes there once it is.
func TestJumpToMarkNotIndexedYet(t *testing.T) {
	w, first, size, grow := backlogModel(t)
	if first >= 15 {
		t.Fatalf("the fixture's first quarter holds %d events: mark a (15) is indexed already", first)
	}
	w.keys("'", "a")
	w.waitFor(t, "mark a is #15, not indexed yet")
	all := grow(size)
	w.waitFor(t, fmt.Sprintf("15/%d", all), "State after #15", "at position 15")
	w.quit(t)
}

// FirstFrame (the follower's Resume: the rest of a large journal is indexed
// once the first screen is up) is called once, after the first state is
// on screen, and not again as the user moves.
func TestFirstFrameCalledOnceAfterFirstState(t *testing.T) {
	target := journal.Target{Journal: streamFixture}
	sess, err := app.Open(target, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	calls := make(chan struct{}, 8)
	m := New(target, sess, Options{Dark: true, Keys: keymap.Default(), Poll: time.Hour, As: "tester",
		Now: func() time.Time { return fixedNow }, FirstFrame: func() { calls <- struct{}{} }})
	w := start(t, m, 140, 40)
	w.waitFor(t, "State after #")
	select {
	case <-calls:
	case <-time.After(5 * time.Second):
		t.Fatal("FirstFrame was not called after the first state was shown")
	}
	w.keys("k", "k", "g")
	w.waitFor(t, "State after #1 ")
	select {
	case <-calls:
		t.Fatal("FirstFrame was called again after a move")
	case <-time.After(200 * time.Millisecond):
	}
	w.quit(t)
}
