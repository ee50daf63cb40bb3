package app_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/journal/tail"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// A journal opened the way the TUI opens it (a prefix, the first screen's
// state, then the backlog in steps) has its keyframes made while the
// backlog is indexed, and the state at every position is still the one
// the straightforward fold gives; also when the lines are read ahead of
// the fold on the index's workers (LiveFold.Prepare: those of a format
// that is a model.Preparer are; 3000 events is several blocks).
func TestLiveFoldFoldsTheBacklogAsItIsIndexed(t *testing.T) {
	for _, format := range []string{model.DurableStream, model.DeltaEngine, model.DeltaMind} {
		for _, prepare := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/prepare=%v", format, prepare), func(t *testing.T) {
				testLiveFold(t, format, prepare)
			})
		}
	}
}

func testLiveFold(t *testing.T, format string, prepare bool) {
	p := journaltest.GeneratedPath(t, format, "journal.jsonl", 3000, 1)
	fold := new(app.LiveFold)
	o := tail.Options{Initial: 64 << 10, Step: 128 << 10, Hold: time.Hour, Poll: time.Hour}
	var prepared atomic.Int64 // events folded from lines read ahead
	o.Each = func(j *journal.Journal, ev model.Event, p any, i int) bool {
		if p != nil {
			prepared.Add(1)
		}
		return fold.Each(j, ev, p, i)
	}
	if prepare {
		o.Prepare = fold.Prepare
	}
	f, err := tail.Follow(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sess, err := app.FromJournal(journal.Target{Journal: p}, f.Journal(), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fold.Show(sess.R)
	first := sess.R.Events()
	if _, err := sess.R.StateAt(first); err != nil { // the first screen
		t.Fatal(err)
	}
	f.Resume()
	waitIndexed(t, f)
	n := sess.R.Events()
	if n <= first+2*replay.DefaultInterval {
		t.Fatalf("%d events, %d of them in the prefix: the backlog is too small to show anything", n, first)
	}
	if k := sess.R.Keyframes(); k < n-replay.DefaultInterval {
		t.Fatalf("keyframes cover %d of %d events once the backlog is indexed: the fold did not go with the index", k, n)
	}
	_, preparer := sess.F.(model.Preparer)
	if want := prepare && preparer; (prepared.Load() >= int64(n-first)) != want {
		t.Fatalf("%d of the %d events of the backlog were folded from lines read ahead; want all: %v", prepared.Load(), n-first, want)
	}
	// Around every keyframe, and at positions between them.
	check := func(pos int) bool {
		k := pos % replay.DefaultInterval
		return k <= 1 || k == replay.DefaultInterval-1 || pos%97 == 0 || pos == n
	}
	want := map[int]string{}
	err = replay.Fold(f.Journal(), sess.F, func(pos int, s model.State) {
		if check(pos) {
			want[pos] = stateJSON(t, sess.F, s, pos)
		}
	})
	if err != nil || want[n] == "" {
		t.Fatalf("reference fold: %v", err)
	}
	for pos := n; pos >= 1; pos-- {
		if !check(pos) {
			continue
		}
		s, err := sess.R.StateAt(pos)
		if err != nil {
			t.Fatal(err)
		}
		if got := stateJSON(t, sess.F, s, pos); got != want[pos] {
			t.Fatalf("state at %d differs from the straightforward fold", pos)
		}
	}
}

// LiveFold folds only into the replay shown, and only the journal of it.
func TestLiveFoldOnlyFoldsTheReplayShown(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, model.DurableStream, 50, 1); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var sess [2]*app.Session
	for i := range sess {
		p := filepath.Join(dir, string(rune('a'+i))+".jsonl")
		if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := app.OpenPath(p, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sess[i] = s
	}
	var ev model.Event
	_ = sess[0].J.Each(1, 1, func(e model.Event) error { ev = e; return nil })
	fold := new(app.LiveFold)
	if fold.Each(sess[0].J, ev, nil, 0) {
		t.Fatal("folded with no replay shown")
	}
	fold.Show(sess[1].R)
	if fold.Each(sess[0].J, ev, nil, 0) {
		t.Fatal("folded another journal's event into the replay shown")
	}
	fold.Show(sess[0].R)
	if !fold.Each(sess[0].J, ev, nil, 0) {
		t.Fatal("did not fold the next event of the replay shown")
	}
	if fold.Each(sess[0].J, ev, nil, 0) {
		t.Fatal("folded the same event twice")
	}
}

// waitIndexed reads f's updates until a backlog's last step is reported.
func waitIndexed(t *testing.T, f *tail.Follower) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case u := <-f.Updates():
			if u.Progress != nil && u.Progress.Done == u.Progress.Total {
				return
			}
		case <-timeout:
			t.Fatal("the backlog was not indexed within 10 s")
		}
	}
}

func stateJSON(t *testing.T, f model.Format, s model.State, pos int) string {
	t.Helper()
	b, err := model.Marshal(model.StateJSON(f, s, pos))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
