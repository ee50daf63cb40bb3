// Package app ties a PATH to an open journal, its detected format and its
// replay: the one way the TUI and every headless command open a journal.
package app

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/deltaengine"
	"github.com/rewind-tui/rewind/model/deltamind"
	"github.com/rewind-tui/rewind/model/formats"
	"github.com/rewind-tui/rewind/query"
	"github.com/rewind-tui/rewind/replay"
)

// Options change how a journal is opened.
type Options struct {
	// Format overrides detection when not empty (--format).
	Format string
	// MaxRecord is the longest line read as a record, in bytes; 0 means
	// journal.DefaultMaxRecord.
	MaxRecord int64
	// Prefix, when above 0, indexes only the lines within the journal's
	// first Prefix bytes at Open (enough to detect the format); the
	// caller indexes the rest, with FoldWhileIndexing or J.Update.
	Prefix int64
}

// Session is one open journal with its format and replay.
type Session struct {
	Target journal.Target
	J      *journal.Journal
	F      model.Format
	R      *replay.Replay
	// Tentative is true while the format was guessed from an empty journal
	// (from its location, or generic); Redetect settles it once events exist.
	Tentative bool
	// Notes are things the user should know about how the journal was read
	// (a snapshot that could not be used, the file's form).
	Notes []string
}

// Resolve locates path. For a .delta/ directory without a chosen run it
// picks the newest run, as headless commands do.
func Resolve(path string) (journal.Target, error) {
	t, err := journal.Locate(path)
	if err != nil {
		return t, err
	}
	if t.Journal == "" && t.DeltaDir != "" {
		runs, err := deltaengine.ListRuns(t.DeltaDir)
		if err != nil {
			return t, err
		}
		if len(runs) == 0 {
			return t, fmt.Errorf("%s holds no runs yet", t.DeltaDir)
		}
		return RunTarget(t.DeltaDir, runs[0].Dir), nil
	}
	return t, nil
}

// RunTarget is the target for one run of a .delta/ directory.
func RunTarget(deltaDir, runDir string) journal.Target {
	return journal.Target{Journal: runDir + string(os.PathSeparator) + "journal.jsonl",
		Hint: model.DeltaEngine, DeltaDir: deltaDir, RunDir: runDir}
}

// Open opens the journal of t read-only and detects its format.
func Open(t journal.Target, o Options) (*Session, error) {
	j, err := journal.OpenPrefix(t.Journal, o.MaxRecord, o.Prefix)
	if err != nil {
		return nil, err
	}
	s, err := FromJournal(t, j, o)
	if err != nil {
		j.Close()
	}
	return s, err
}

// FromJournal makes a session of a journal opened elsewhere (by a
// tail.Follower): it detects the format and prepares the replay. Closing the
// session closes j.
func FromJournal(t journal.Target, j *journal.Journal, o Options) (*Session, error) {
	var err error
	s := &Session{Target: t, J: j}
	if w := j.Form().Warning(); w != "" {
		s.Notes = append(s.Notes, w)
	}
	if o.Format != "" {
		s.F, err = formats.ByName(o.Format)
		if err != nil {
			return nil, err
		}
	} else {
		first := j.Head(formats.DetectEvents)
		s.F = formats.Detect(first, t.Hint)
		s.Tentative = len(first) == 0
	}
	if s.F.Name() == model.DeltaMind && t.Snapshot != "" {
		if b, err := os.ReadFile(t.Snapshot); err == nil {
			if f, err := deltamind.WithSnapshot(b); err == nil {
				s.F = f
			} else {
				s.Notes = append(s.Notes, "snapshot.json not used: "+err.Error())
			}
		}
	}
	s.R = replay.New(j, s.F)
	return s, nil
}

// Redetect detects the format again when it was only guessed from an empty
// journal and events have arrived since. It reports whether the format (and
// so the replay) changed; a new replay is one-shot (replay.OneShot) when the
// old one was. It must not run concurrently with other uses of s.
func (s *Session) Redetect() bool {
	if !s.Tentative || s.R.Events() == 0 {
		return false
	}
	s.Tentative = false
	f := formats.Detect(s.J.Head(formats.DetectEvents), s.Target.Hint)
	if f.Name() == s.F.Name() {
		return false
	}
	oneShot := s.R.IsOneShot()
	s.F = f
	s.R = replay.New(s.J, f)
	if oneShot { // a one-shot command's replay stays one
		s.R.OneShot()
	}
	return true
}

// OpenPath is Resolve followed by Open.
func OpenPath(path string, o Options) (*Session, error) {
	t, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	return Open(t, o)
}

// Adopt switches the session to j, a new generation of the same journal
// (after truncation, replacement or rotation): the replay starts over. It
// must run on the goroutine that owns the session.
func (s *Session) Adopt(j *journal.Journal) {
	s.J = j
	if s.Tentative || s.F == nil {
		s.F = formats.Detect(j.Head(formats.DetectEvents), s.Target.Hint)
		s.Tentative = j.Index.Consumed() == 0
	}
	s.R = replay.New(j, s.F)
}

// FoldWhileIndexing indexes the rest of a journal opened with a Prefix and
// folds every event as the index reads it (journal.UpdateEach: from the
// index's own buffers, on its committing goroutine, so the file is read
// once and the fold overlaps the classifying; for a format that is a
// model.Preparer, the index's workers also read each block's lines for
// the fold, journal.UpdateEachPreparedEnds), and returns when every
// event of the file as it is now is indexed and folded. For a one-shot
// state (rewind state, rewind render): call s.R.OneShot first; the index
// then keeps no records of the lines it folds (journal.Index.DropRecords),
// so that only the state after the last event is to be asked for. It must
// not run concurrently with other uses of s; an error is the file's (it
// could not be read).
func (s *Session) FoldWhileIndexing() error { return s.FoldWhileIndexingThrough(-1, 0) }

// FoldWhileIndexingThrough is FoldWhileIndexing up to the event at
// position pos only (pos < 0: the last), for the state after it (rewind
// state --at): the journal is indexed step bytes at a time (step <= 0: the
// rest of it at once), and the reading stops within a step of event pos.
// A journal of fewer than pos events is read whole. Afterwards the state
// after pos (or after the last event, when there are fewer) is the
// replay's tip. A file cut while it is read up to pos is an error
// (journal.Journal.Shrunk).
func (s *Session) FoldWhileIndexingThrough(pos int, step int64) error {
	st, err := s.J.File().Stat()
	if err != nil {
		return err
	}
	through := pos
	if through < 0 {
		through = math.MaxInt
	}
	if s.Tentative {
		// The prefix held no event to detect the format from: index on
		// until one is, then fold with the format detected.
		if err := s.J.UpdateThrough(st.Size(), step, 1); err != nil {
			return err
		}
		s.Redetect()
	}
	if _, err := s.R.StateAt(min(through, s.R.Events())); err != nil || s.R.Events() >= through {
		return err
	}
	defer s.J.Index.LimitWorkers(0)
	// A Preparer's lines are read for the fold by the index's workers, one
	// per CPU (1 GB DeltaMind, rewind state: the fold ends after 1.05-1.13 s
	// instead of 1.47-1.99 s with one worker that only classifies).
	// An EndsPreparer reads a line where the index found its scalars (1 GB
	// DeltaMind, rewind state: median 2.65 -> 2.42 s).
	p, _ := s.R.F.(model.Preparer)
	prepare := model.PrepareFunc(s.R.F)
	if prepare == nil {
		s.J.Index.LimitWorkers(foldWorkers)
	}
	// A one-shot caller reads the state afterwards, never the journal by
	// position: the index counts the lines it folds but keeps none of
	// their records (1 GB DeltaMind journal: 28 MB it would not read).
	drop := s.R.IsOneShot()
	if drop {
		s.J.Index.DropRecords()
	}
	w := s.R.Following(p)
	fold := func(ev model.Event, prep any, i int) error {
		if ev.Pos > through {
			return errThrough
		}
		if !w.Follow(ev, prep, i) {
			return errBehind
		}
		return nil
	}
	err = s.J.UpdateEachSteps(st.Size(), step, prepare, true, fold)
	w.End()
	switch {
	case errors.Is(err, errThrough):
	case err == nil:
		if err := s.J.Shrunk(max(st.Size(), s.J.Size())); err != nil {
			return err
		}
	case errors.Is(err, errBehind):
		// The replay moved while it followed (nothing in a one-shot
		// command does that): index the rest of the journal, again and
		// keeping the records if they were dropped, for StateAt to read
		// what Follow did not fold.
		if drop {
			s.J.Index.Reset()
		}
		if _, err := s.J.UpdateTo(st.Size()); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	// Whatever Follow did not fold (nothing, unless the replay was used
	// before), StateAt reads back.
	_, err = s.R.StateAt(min(through, s.R.Events()))
	return err
}

// FirstStateWhere folds the journal from its first event and returns the
// first position (from 1) whose state makes q true, or 0; a run-time
// error of q counts as false. Each state is made only as far as q reads it
// (query.MatchState), and from the one before where the format tells what
// an event changed (query.StateMatcher). keepOn, when not nil, is called every 256 events with
// the position reached, and the search stops, returning 0, when it
// returns false. It must not run concurrently with other uses of s that
// change it (Adopt, Redetect).
func (s *Session) FirstStateWhere(q *query.Query, keepOn func(pos int) bool) (int, error) {
	found := 0
	st := s.F.Init()
	m := q.States(s.F)
	defer m.Close()
	err := s.J.Each(1, s.R.Events(), func(ev model.Event) error {
		st = s.F.Apply(st, ev)
		if keepOn != nil && ev.Pos&255 == 0 && !keepOn(ev.Pos) {
			return errStop
		}
		if ok, _ := m.Match(st, ev.Pos); ok {
			found = ev.Pos
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return found, err
}

// errStop ends FirstStateWhere's fold.
var errStop = errors.New("stop")

// foldWorkers is how many index workers classify while FoldWhileIndexing
// folds a format that does not prepare on the committing goroutine: with
// two CPUs, one each for the fold and the classifying (1 GB Durable
// Stream, rewind state: 1.30 s with one worker, 1.35 s with two).
const foldWorkers = 1

// errThrough stops FoldWhileIndexingThrough's fold after its last event.
var errThrough = errors.New("folded through the position asked for")

// errBehind stops FoldWhileIndexing's fold when the replay's last state is
// not right before the event indexed.
var errBehind = errors.New("replay is not at the event before")

// Close closes the journal.
func (s *Session) Close() error { return s.J.Close() }

// AllRuns returns a target for every run of a .delta/ directory, newest
// first.
func AllRuns(deltaDir string) []journal.Target {
	runs, _ := deltaengine.ListRuns(deltaDir)
	out := make([]journal.Target, 0, len(runs))
	for _, r := range runs {
		out = append(out, RunTarget(deltaDir, r.Dir))
	}
	return out
}

// SortPending orders pending items oldest first: by request time, then by
// position.
func SortPending(p []model.Pending) {
	sort.SliceStable(p, func(i, j int) bool { return pendingBefore(p[i], p[j]) })
}

func pendingBefore(a, b model.Pending) bool {
	ta, tb := model.ParseTime(a.RequestedAt), model.ParseTime(b.RequestedAt)
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a.At < b.At
}

// RunPending is a pending item of one run of a .delta/ directory.
type RunPending struct {
	model.Pending
	// Run is the run directory (.delta/<run_id>/).
	Run string
}

// PendingOfRuns folds every run of a .delta/ directory, opened with open,
// and returns their pending items, oldest first. Runs that cannot be read
// are left out and reported in the error (joined), so one broken run does
// not hide what the others wait on.
func PendingOfRuns(deltaDir string, open func(journal.Target) (*Session, error)) ([]RunPending, error) {
	var out []RunPending
	var errs []error
	for _, t := range AllRuns(deltaDir) {
		s, err := open(t)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", t.Journal, err))
			continue
		}
		st, err := s.R.StateAt(s.R.Events())
		s.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", t.Journal, err))
			continue
		}
		for _, p := range st.Pending() {
			out = append(out, RunPending{p, t.RunDir})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return pendingBefore(out[i].Pending, out[j].Pending) })
	return out, errors.Join(errs...)
}
