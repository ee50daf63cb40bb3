package app

import (
	"sync/atomic"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// LiveFold folds the events a tail.Follower indexes into the replay a UI
// shows, on the Follower's goroutine and from the index's own buffers
// (tail.Options.Each), so that a large journal's keyframes are made while
// its backlog is indexed instead of after it, and the file is read once.
// The zero value folds nothing until Show is called.
//
// Show may be called from any goroutine while Each runs on another.
type LiveFold struct {
	r atomic.Pointer[replay.Replay]
}

// Show makes r the replay that Each folds into (nil: none). Call it
// whenever the UI's session gets a new replay (a new journal generation,
// a format detected again).
func (l *LiveFold) Show(r *replay.Replay) { l.r.Store(r) }

// Each folds ev, an event just indexed into j, into the replay shown, if it
// is j's and its last state is the one right before ev (replay.Follow; with
// ApplyPrepared when the index read ev's line ahead into p, as line i of
// its block, with Prepare's function). It reports false when it folded
// nothing, so that the Follower stops calling it for the rest of the
// update; the events left are folded when a state past them is asked for.
// A replay shown since Prepare, whose format does not prepare, folds ev
// with Apply.
func (l *LiveFold) Each(j *journal.Journal, ev model.Event, p any, i int) bool {
	r := l.r.Load()
	if r == nil || r.J != j {
		return false
	}
	f, _ := r.F.(model.Preparer)
	return r.FollowPrepared(f, ev, p, i)
}

// Prepare returns how the lines of j are read ahead of the fold
// (tail.Options.Prepare): the Prepare of the shown replay's format when
// the replay is j's and its format is a model.Preparer (PrepareEnds for a
// model.EndsPreparer, which reads the index's scalars), else nil.
func (l *LiveFold) Prepare(j *journal.Journal) func(lines [][]byte, scalars []model.LineScalars, prev any) any {
	r := l.r.Load()
	if r == nil || r.J != j {
		return nil
	}
	return model.PrepareFunc(r.F)
}
