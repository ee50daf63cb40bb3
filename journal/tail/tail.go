// Package tail follows a journal file while an agent writes it: it keeps a
// *journal.Journal's index in step with the file on disk and reports, one
// coalesced Update at a time, what happened to the file (records appended,
// truncation, in-place rewrite, replacement by another program, deletion,
// rotation, a last line still being written).
//
// A Follower watches the journal's parent directory with one fsnotify
// watcher (never the file itself, whose watch goes silent when an editor
// saves by rename) and treats every event only as "something may have
// changed". A single goroutine then re-stats the file and reads from the
// saved offset to the end. A ticker repeats the check every Options.Poll, so
// missed or coalesced events, an event queue overflow, file systems without
// notifications and hosts out of inotify watches only cost latency.
//
// Each check compares the identity (device and inode) of the open file with
// the file now at the path, and a fingerprint of the bytes already consumed:
// the first 4 KiB and the last 256 bytes before the saved offset, re-read
// from the file. A mismatch, or a file shorter than the saved offset, means
// the history changed: the Follower opens a new *journal.Journal from offset
// 0 and reports Reset. A whole-file rewrite that keeps the consumed bytes
// (DeltaMind's save writes the old lines plus new ones) is an append in
// disguise when it keeps the inode, and needs no Reset: a file seen shorter
// than what was read is given 50 ms to grow back with the same history
// before it counts as truncated. A rewrite that puts a new inode at the path
// always needs a new Journal (its records point into the old file); the
// Reset's notice then says whether the history was kept.
//
// A file renamed away while a new one takes its place (rotation, as Durable
// Stream does with durable_stream_<date>.jsonl) is drained to its end, and
// for Options.Grace after it last grew, before the new file is followed. A
// deleted file's journal stays readable until the path reappears.
//
// Only lines ended by "\n" become records (package journal holds an
// incomplete last line back); a last line that stays incomplete for longer
// than Options.Stale is reported once as Writing.
package tail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
)

// Defaults for the zero fields of Options.
const (
	DefaultPoll  = time.Second
	DefaultStale = 1500 * time.Millisecond
	DefaultGrace = 200 * time.Millisecond
)

// Fingerprint sizes: the head of the file and the bytes just before the
// saved offset are re-read and compared on every check.
const (
	headBytes = 4096
	tailBytes = 256
)

// truncSettle is how long a file seen shorter than what was read is given
// to grow back with the same history before it counts as truncated.
const truncSettle = 50 * time.Millisecond

// maxPending bounds the queue of undelivered updates. Appended updates are
// merged, so only a consumer that stops reading while the file is rewritten
// over and over can reach it; the queue is then collapsed to its last
// update.
const maxPending = 64

// Options tunes a Follower. The zero value gives the defaults.
type Options struct {
	// Poll is the period of the slow re-check that runs even without file
	// events (DefaultPoll, 1 s, when <= 0). Without notifications it is the
	// latency of every change.
	Poll time.Duration
	// Stale is how long an incomplete last line must stay incomplete before
	// it is reported as Writing (DefaultStale, 1.5 s, when <= 0).
	Stale time.Duration
	// Grace is how long a file renamed away (rotated) is still drained after
	// it last grew, before the Follower switches to the new file at the path
	// (DefaultGrace, 200 ms, when <= 0). Writers that hold the old file open
	// may append to it for a moment after the rename.
	Grace time.Duration
	// MaxRecord is the longest line indexed as a record, in bytes
	// (journal.DefaultMaxRecord when <= 0).
	MaxRecord int64
	// Initial is how many bytes of an existing journal Follow indexes
	// before it returns (all of it when <= 0). The rest is indexed in the
	// background in steps of Step bytes, each reported as an Appended
	// update with Progress, so that a caller can show a large journal at
	// once.
	Initial int64
	// Step is the most bytes indexed in one go while catching up with a
	// backlog (DefaultStep, 64 MiB, when <= 0).
	Step int64
	// Hold, with Initial, starts indexing the backlog only when Resume is
	// called, or after Hold without it (0: at once): the caller draws its
	// first screen from the Initial bytes with both CPUs instead of beside
	// two indexing workers.
	Hold time.Duration
	// Each, when not nil, is called on the Follower's goroutine with each
	// event the Follower appends to a journal it has handed over
	// (Journal, or the J of an Update), in file order, from the bytes the
	// index has just read (journal.UpdateEach), before the Update that
	// reports it: a caller that folds the events there reads the file
	// once, and folds a backlog beside its classifying instead of after
	// it. Events indexed before their journal is handed over (Options.
	// Initial, a Reset's new journal) are not passed. j is the event's
	// journal; ev.Raw is valid only during the call. Each returns false
	// to be called no more for the events of this update. While a backlog
	// is indexed with Each, the index classifies with one worker, so that
	// the fold has the other CPU, unless Prepare gives a way to read the
	// lines ahead. p and i are then what that returned for the event's
	// block and the event's index among the block's lines
	// (journal.UpdateEachPreparedEnds); otherwise nil and 0.
	Each func(j *journal.Journal, ev model.Event, p any, i int) bool
	// Prepare, when not nil, is asked before each step of indexing for
	// how to read the lines of journal j ahead of the fold (a
	// model.Preparer's Prepare, or nil for none). When it gives one, the
	// step is indexed with journal.UpdateEachPreparedEnds: the index's
	// workers, one per CPU, run it on each block of lines, with what they
	// found of the lines' scalars.
	Prepare func(j *journal.Journal) func(lines [][]byte, scalars []model.LineScalars, prev any) any

	// noWatch makes the Follower poll only, as when inotify is unavailable
	// (tests).
	noWatch bool
}

// Kind says what an Update reports.
type Kind int

// Kinds of Update.
const (
	// Appended: complete lines were added to the index of the journal
	// followed (Update.Added of them).
	Appended Kind = iota
	// Reset: the journal was truncated, rewritten in place or replaced by
	// another file; Update.J is a new journal indexed from offset 0.
	Reset
	// Deleted: the journal's file was removed. Update.J is the old journal,
	// whose records stay readable; the Follower waits for the path to
	// reappear.
	Deleted
	// Waiting: no file exists at the path, either yet (Update.J is nil) or
	// since the file followed was renamed away and no new one has been
	// created (Update.J is the old journal, still drained).
	Waiting
	// Appeared: a file was created at the path; Update.J is a new journal
	// indexed from offset 0.
	Appeared
	// Rotated: the old file was renamed away and drained to its end, and a
	// new file at the path is now followed; Update.J is a new journal.
	Rotated
	// Writing: the last line has had no newline for longer than
	// Options.Stale; a writer is probably still writing it.
	Writing
	// Error: a check failed or notifications are unavailable; Update.Err
	// says why. Following goes on.
	Error
)

// String returns the kind's name in lower case.
func (k Kind) String() string {
	switch k {
	case Appended:
		return "appended"
	case Reset:
		return "reset"
	case Deleted:
		return "deleted"
	case Waiting:
		return "waiting"
	case Appeared:
		return "appeared"
	case Rotated:
		return "rotated"
	case Writing:
		return "writing"
	case Error:
		return "error"
	}
	return "kind " + strconv.Itoa(int(k))
}

// Update is one report of a Follower.
type Update struct {
	Kind Kind
	// J is the journal followed after this update. After Reset, Appeared
	// and Rotated it is a new *journal.Journal and the caller must rebuild
	// whatever it derived from the previous one (its replay). It is nil only
	// while waiting for a file that never existed.
	J *journal.Journal
	// Added is the number of records added to J by this update (for Reset,
	// Appeared and Rotated: the records J holds).
	Added int
	// Notice is one line for a status bar, in plain words, or "" for a
	// plain Appended. It quotes no journal content, but it may hold file
	// names and error text, which the caller sanitizes like any string
	// from disk.
	Notice string
	// Err is the error behind an Error update, nil otherwise.
	Err error
	// Progress is set on the Appended updates of a backlog larger than one
	// step (a large journal opened with Options.Initial, or a burst of
	// appends); the last one has Done == Total.
	Progress *Progress
}

// Progress is how far the Follower is in indexing a backlog.
type Progress struct {
	// Done and Total are the bytes of the journal indexed and to index.
	Done, Total int64
	// Events is the number of events indexed so far.
	Events int
	// Elapsed is the time since the backlog was first seen.
	Elapsed time.Duration
}

// DefaultStep is the most bytes a Follower indexes between two updates
// while catching up with a backlog: 8 to 16 updates a second while a 1 GB
// journal is indexed and folded (Options.Each), which took 4-9% longer in
// steps of 32 MiB.
const DefaultStep = 64 << 20

// phase is what the Follower knows about the file at its path.
type phase int

const (
	following phase = iota // cur is the file at the path
	absent                 // no file yet, cur is nil
	gone                   // cur was deleted; waiting for a new file
	moved                  // cur was renamed away; draining it, waiting for a new file
)

// Follower follows one journal path. Create it with Follow; read Updates
// until the channel is closed; Close it when done.
//
// Its methods are safe for concurrent use. The Follower's goroutine extends
// the journal's index (Journal.UpdateTo) while the caller reads it.
type Follower struct {
	path string // as given
	dir  string // realpath'd parent directory, watched
	base string // file name within dir
	stem string // base without its extension, for rotated names
	o    Options

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	out    chan Update
	dirty  chan struct{}
	w      *fsnotify.Watcher
	dirFi  fs.FileInfo // identity of the watched directory; nil when not watched
	hold   sync.Mutex  // held around each check; tests lock it to pause checks

	mu   sync.Mutex
	cur  *journal.Journal
	del  [2]*journal.Journal // the last two journals handed to the caller
	open []*journal.Journal  // journals not yet closed
	shut bool

	// Owned by the run goroutine.
	phase    phase
	fp       fingerprint
	pending  []Update
	wake     time.Time // next timed re-check, zero for none
	lastErr  string
	inc      incomplete
	rotName  string    // where the file followed was renamed to
	rotGrew  time.Time // when the renamed-away file last grew
	rotSince bool      // a rotation is pending
	shrunk   time.Time // when the file was first seen shorter than consumed
	polling  bool      // notifications unavailable, said once
	catchUp  time.Time // when the backlog being indexed in steps was seen
}

type incomplete struct {
	j     *journal.Journal
	off   int64
	since time.Time
	said  bool
}

// Follow starts following the journal at path and returns at once. If a
// file exists at path it is opened and indexed before Follow returns
// (Journal returns it; no Update reports it); if none exists, the first
// Update is Waiting. Follow fails only when path exists but cannot be opened
// or read, or is a directory. When file notifications are unavailable
// (watcher limits, file systems without inotify) the Follower polls every
// Options.Poll and says so in an Error update.
//
// The Follower stops when ctx is done or Close is called; Close must be
// called to release the files it holds.
func Follow(ctx context.Context, path string, o Options) (*Follower, error) {
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Stale <= 0 {
		o.Stale = DefaultStale
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Step <= 0 {
		o.Step = DefaultStep
	}
	f := &Follower{
		path:  path,
		o:     o,
		done:  make(chan struct{}),
		out:   make(chan Update),
		dirty: make(chan struct{}, 1),
		phase: absent,
	}
	f.dir, f.base = resolve(path)
	f.stem = strings.TrimSuffix(f.base, filepath.Ext(f.base))
	f.ctx, f.cancel = context.WithCancel(ctx)

	// Watch before opening, so that nothing written in between is missed.
	var werr error
	if o.noWatch {
		werr = errors.New("notifications disabled")
	} else if w, err := fsnotify.NewWatcher(); err != nil {
		werr = err
	} else {
		f.w = w
		werr = f.addWatch()
	}

	j, err := journal.OpenPrefix(path, o.MaxRecord, o.Initial)
	switch {
	case err == nil:
		f.track(j)
		f.phase = following
		f.refresh(j)
		f.checkIncomplete(j, time.Now())
		switch {
		case o.Initial > 0 && o.Hold > 0:
			time.AfterFunc(o.Hold, f.markDirty) // unless Resume comes first
		case o.Initial > 0:
			f.markDirty() // index the rest at once, in steps
		}
	case errors.Is(err, fs.ErrNotExist):
		f.emit(Update{Kind: Waiting, Notice: "waiting for " + f.base + " to be created"})
	default:
		if f.w != nil {
			f.w.Close()
		}
		f.cancel()
		return nil, err
	}
	if werr != nil {
		f.polling = true
		f.emit(Update{Kind: Error, J: j, Err: werr,
			Notice: "file notifications unavailable (" + werr.Error() + "): checking every " + f.o.Poll.String()})
	}
	if f.w != nil {
		go f.events()
	}
	go f.run()
	return f, nil
}

// resolve returns the real parent directory of path (symbolic links
// resolved, as the lock does) and the file's name in it.
func resolve(path string) (dir, base string) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if abs, err := filepath.Abs(real); err == nil {
			return filepath.Dir(abs), filepath.Base(abs)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	dir, base = filepath.Dir(abs), filepath.Base(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir, base
}

// addWatch watches the parent directory and remembers its identity.
func (f *Follower) addWatch() error {
	fi, err := os.Stat(f.dir)
	if err != nil {
		return err
	}
	if err := f.w.Add(f.dir); err != nil {
		return err
	}
	f.dirFi = fi
	return nil
}

// checkWatch re-adds the directory watch when the directory was removed or
// renamed (inotify then stays silent) or was never watched.
func (f *Follower) checkWatch() {
	if f.w == nil {
		return
	}
	fi, err := os.Stat(f.dir)
	if err == nil && f.dirFi != nil && os.SameFile(fi, f.dirFi) {
		return
	}
	if f.dirFi != nil {
		f.w.Remove(f.dir) // the old watch may already be gone
		f.dirFi = nil
	}
	if err == nil && f.addWatch() == nil && f.polling {
		f.polling = false
		f.markDirty()
	}
}

// events turns watcher events into the dirty flag. It never blocks on the
// run loop.
func (f *Follower) events() {
	for {
		select {
		case ev, ok := <-f.w.Events:
			if !ok {
				return
			}
			if f.relevant(ev) {
				f.markDirty()
			}
		case err, ok := <-f.w.Errors:
			if !ok {
				return
			}
			_ = err // ErrEventOverflow or a read error: re-check everything
			f.markDirty()
		case <-f.ctx.Done():
			return
		}
	}
}

// relevant reports whether ev may concern the journal: its own name, names
// it may be rotated to (stem-prefixed, but not the writers' lock
// directory), and the watched directory itself.
func (f *Follower) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	if ev.Name == f.dir {
		return true
	}
	if filepath.Dir(ev.Name) != f.dir {
		return false
	}
	name := filepath.Base(ev.Name)
	if name == f.base {
		return true
	}
	return strings.HasPrefix(name, f.stem) && !strings.HasSuffix(name, ".lock")
}

// Resume starts indexing the backlog held back by Options.Hold (the
// caller's first screen is up). It may be called any number of times, from
// any goroutine; without Hold it only asks for a check of the file.
func (f *Follower) Resume() { f.markDirty() }

func (f *Follower) markDirty() {
	select {
	case f.dirty <- struct{}{}:
	default:
	}
}

// run is the Follower's goroutine: it checks the file on each event, tick
// and timed wake-up, and delivers queued updates.
func (f *Follower) run() {
	defer close(f.done)
	defer close(f.out)
	tick := time.NewTicker(f.o.Poll)
	defer tick.Stop()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		var out chan<- Update
		var next Update
		if len(f.pending) > 0 {
			out, next = f.out, f.pending[0]
		}
		select {
		case <-f.ctx.Done():
			return
		case <-f.dirty:
			f.step()
		case <-tick.C:
			f.checkWatch()
			f.step()
		case <-timer.C:
			f.step()
		case out <- next:
			f.pending[0] = Update{}
			f.pending = f.pending[1:]
			f.handed(next.J)
			continue
		}
		if !f.wake.IsZero() {
			timer.Reset(time.Until(f.wake))
		} else {
			timer.Stop()
		}
	}
}

// step runs one check.
func (f *Follower) step() {
	f.hold.Lock()
	defer f.hold.Unlock()
	f.wake = time.Time{}
	f.check(time.Now())
}

// check compares the file followed with the file at the path and brings
// the index up to date.
func (f *Follower) check(now time.Time) {
	j := f.current()
	if j == nil {
		f.lookForFile(Appeared, "journal created: reading it")
		return
	}
	fi, ferr := j.File().Stat()
	pst, perr := os.Stat(f.path)
	if ferr != nil {
		f.fail(fmt.Errorf("stat of the open journal: %w", ferr))
		return
	}
	if perr == nil && os.SameFile(fi, pst) {
		if f.phase != following {
			f.phase, f.rotSince, f.rotName = following, false, ""
		}
		f.advance(j, fi, true, now)
		f.lastErr = ""
		return
	}
	if perr != nil && !errors.Is(perr, fs.ErrNotExist) {
		f.advance(j, fi, false, now)
		f.fail(perr)
		return
	}
	// The path is gone or holds another file: finish the old one first.
	grew := f.advance(j, fi, false, now)
	linked := nlink(fi) > 0
	if perr != nil { // nothing at the path
		switch {
		case linked && f.phase == moved:
			if grew {
				f.rotGrew = now
			}
		case linked:
			f.phase = moved
			f.rotName = f.findName(fi)
			f.rotGrew = now
			f.emit(Update{Kind: Waiting, J: j,
				Notice: "journal " + f.movedTo() + ": showing what was read, waiting for a new " + f.base})
		case !linked && f.phase != gone:
			f.phase = gone
			f.emit(Update{Kind: Deleted, J: j, Notice: "journal deleted: showing what was read"})
		}
		return
	}
	switch {
	case linked: // renamed away, a new file took its place: rotation
		if !f.rotSince {
			f.rotSince = true
			if f.phase != moved {
				f.rotGrew = now
				f.rotName = f.findName(fi)
			}
		}
		if grew {
			f.rotGrew = now
		}
		if d := f.rotGrew.Add(f.o.Grace); now.Before(d) {
			f.wakeAt(d)
			return
		}
		f.switchTo(Rotated, "journal "+f.movedTo()+": following the new file", nil)
	case f.phase == gone:
		f.switchTo(Appeared, "journal created again: reading it from the start", nil)
	default: // the old file was unlinked and another put in its place
		old := f.fp
		consumed := j.Index.Consumed()
		f.switchTo(Reset, "journal replaced by another program (new inode): re-read from the start", func(nj *journal.Journal) string {
			if consumed > 0 && nj.Index.Consumed() >= consumed && old.match(nj.File()) {
				return "journal rewritten whole (new inode, same history): re-read from the start"
			}
			return ""
		})
	}
}

// movedTo describes where the followed file went.
func (f *Follower) movedTo() string {
	if f.rotName == "" {
		return "renamed away"
	}
	return "rotated to " + f.rotName
}

// advance brings j's index up to the size of its open file. It verifies the
// fingerprint of the consumed bytes before and after reading; when the
// history changed and j is still the file at the path (atPath), it switches
// to a new journal (Reset). It reports whether the index grew.
func (f *Follower) advance(j *journal.Journal, fi fs.FileInfo, atPath bool, now time.Time) bool {
	size := fi.Size()
	consumed := j.Index.Consumed()
	reset := ""
	if size >= consumed {
		f.shrunk = time.Time{}
	}
	switch {
	case size < consumed:
		// A writer that rewrites the whole file (DeltaMind's save)
		// truncates it first: give it a moment to write the same history
		// back before starting over.
		if f.shrunk.IsZero() {
			f.shrunk = now
		}
		if settle := f.shrunk.Add(truncSettle); atPath && now.Before(settle) {
			f.wakeAt(settle)
			return false
		}
		f.shrunk = time.Time{}
		reset = "journal truncated (was " + journal.HumanBytes(consumed) + "): re-read from the start"
	case !f.fp.match(j.File()):
		reset = "journal modified in place: re-read from the start"
	}
	added := 0
	var prog *Progress
	if reset == "" && size != j.Size() {
		to := size
		if size-j.Size() > f.o.Step || !f.catchUp.IsZero() {
			// A backlog: index one step, report it, and come back at once,
			// so that updates flow while the rest is read.
			if f.catchUp.IsZero() {
				f.catchUp = now
			}
			to = min(size, j.Size()+f.o.Step)
		}
		n, err := f.index(j, to)
		added = n
		if !f.catchUp.IsZero() {
			_, evs := j.Index.Counts()
			prog = &Progress{Done: to, Total: size, Events: evs, Elapsed: time.Since(f.catchUp)}
			if to < size && err == nil {
				f.wakeAt(now)
			} else {
				f.catchUp = time.Time{}
			}
		}
		if err != nil {
			f.fail(err)
		}
		if j.Index.Consumed() != consumed {
			if !f.fp.match(j.File()) {
				// Rewritten while it was being read: what was read may mix
				// the two versions.
				reset = "journal modified in place: re-read from the start"
			} else {
				f.refresh(j)
			}
		}
	}
	if reset != "" {
		if atPath {
			f.switchTo(Reset, reset, nil)
		}
		return false
	}
	if added > 0 || prog != nil {
		f.emit(Update{Kind: Appended, J: j, Added: added, Progress: prog})
	}
	f.checkIncomplete(j, now)
	return added > 0
}

// index indexes j up to size, calling Options.Each, if any, with each
// event indexed.
func (f *Follower) index(j *journal.Journal, size int64) (int, error) {
	each := f.o.Each
	if each == nil {
		return j.UpdateTo(size)
	}
	var prep func(lines [][]byte, scalars []model.LineScalars, prev any) any
	if f.o.Prepare != nil {
		prep = f.o.Prepare(j)
	}
	if prep == nil && !f.catchUp.IsZero() {
		j.Index.LimitWorkers(1)
		defer j.Index.LimitWorkers(0)
	}
	n, err := j.UpdateEachPreparedEnds(size, prep, func(ev model.Event, p any, i int) error {
		if !each(j, ev, p, i) {
			return errEachDone
		}
		return nil
	})
	if errors.Is(err, errEachDone) {
		err = nil
	}
	return n, err
}

// errEachDone ends the calls of Options.Each for one update.
var errEachDone = errors.New("each: done")

// checkIncomplete reports Writing once for an incomplete last line older
// than Stale, and schedules a wake-up to look again.
func (f *Follower) checkIncomplete(j *journal.Journal, now time.Time) {
	rec, ok := j.Index.Incomplete()
	if !ok {
		f.inc = incomplete{}
		return
	}
	if f.inc.j != j || f.inc.off != rec.Off {
		f.inc = incomplete{j: j, off: rec.Off, since: now}
	}
	if f.inc.said {
		return
	}
	due := f.inc.since.Add(f.o.Stale)
	if now.Before(due) {
		f.wakeAt(due)
		return
	}
	f.inc.said = true
	f.emit(Update{Kind: Writing, J: j, Notice: fmt.Sprintf(
		"writing… line %d has no newline yet (%s at offset %d, for %s)",
		rec.Line, journal.HumanBytes(rec.Len), rec.Off, now.Sub(f.inc.since).Round(100*time.Millisecond))})
}

// lookForFile opens the file at the path, if there is one, as a new journal.
func (f *Follower) lookForFile(kind Kind, notice string) {
	if _, err := os.Stat(f.path); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			f.fail(err)
		}
		return
	}
	f.switchTo(kind, notice, nil)
}

// switchTo opens the file at the path as a new journal and reports it. If
// better is not nil, it may return a more precise notice for the new
// journal.
func (f *Follower) switchTo(kind Kind, notice string, better func(*journal.Journal) string) {
	nj, err := journal.Open(f.path, f.o.MaxRecord)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			f.fail(err)
		}
		return // gone again: the next check sees it
	}
	if better != nil {
		if s := better(nj); s != "" {
			notice = s
		}
	}
	f.track(nj)
	f.phase, f.rotSince, f.rotName = following, false, ""
	f.fp = fingerprint{}
	f.shrunk = time.Time{}
	f.refresh(nj)
	f.lastErr = ""
	n, _ := nj.Index.Counts()
	f.emit(Update{Kind: kind, J: nj, Added: n, Notice: notice})
	f.checkIncomplete(nj, time.Now())
}

// findName returns the name, in the journal's directory, of the file fi now
// has, or "" if it is not there. Names that start like the journal's are
// looked at first.
func (f *Follower) findName(fi fs.FileInfo) string {
	d, err := os.Open(f.dir)
	if err != nil {
		return ""
	}
	defer d.Close()
	names, _ := d.Readdirnames(100000)
	for pass := 0; pass < 2; pass++ {
		for _, name := range names {
			if name == f.base || strings.HasPrefix(name, f.stem) != (pass == 0) {
				continue
			}
			if st, err := os.Lstat(filepath.Join(f.dir, name)); err == nil && os.SameFile(st, fi) {
				return name
			}
		}
	}
	return ""
}

// fail reports err once (until a check succeeds or another error comes).
func (f *Follower) fail(err error) {
	if err.Error() == f.lastErr {
		return
	}
	f.lastErr = err.Error()
	f.emit(Update{Kind: Error, J: f.current(), Err: err, Notice: "cannot follow " + f.base + ": " + err.Error()})
}

func (f *Follower) wakeAt(t time.Time) {
	if f.wake.IsZero() || t.Before(f.wake) {
		f.wake = t
	}
}

// emit queues u, merging it into the last queued update when it only adds
// records to the same journal, or replaces a Writing report.
func (f *Follower) emit(u Update) {
	if n := len(f.pending); n > 0 {
		last := &f.pending[n-1]
		switch {
		case u.Kind == Appended && last.J == u.J && (last.Kind == Appended || last.Kind == Reset || last.Kind == Appeared || last.Kind == Rotated):
			last.Added += u.Added
			if u.Progress != nil {
				last.Progress = u.Progress
			}
			return
		case u.Kind == Writing && last.Kind == Writing && last.J == u.J:
			*last = u
			return
		}
	}
	if len(f.pending) >= maxPending {
		// The consumer is not reading: keep one update that tells it to
		// start over from the latest journal.
		n := 0
		if u.J != nil {
			n, _ = u.J.Index.Counts()
		}
		u = Update{Kind: Reset, J: u.J, Added: n, Err: u.Err,
			Notice: u.Notice + " (after " + strconv.Itoa(len(f.pending)) + " other changes)"}
		clear(f.pending)
		f.pending = f.pending[:0]
		f.release()
	}
	f.pending = append(f.pending, u)
}

// current returns the journal followed.
func (f *Follower) current() *journal.Journal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

// track makes j the journal followed. Only the run goroutine (or Follow,
// before it starts) calls it.
func (f *Follower) track(j *journal.Journal) {
	f.mu.Lock()
	f.cur = j
	f.open = append(f.open, j)
	f.mu.Unlock()
	f.release()
}

// handed records that the caller has received j and closes what it no
// longer needs. Only the run goroutine calls it.
func (f *Follower) handed(j *journal.Journal) {
	f.mu.Lock()
	f.handedLocked(j)
	f.mu.Unlock()
	f.release()
}

func (f *Follower) handedLocked(j *journal.Journal) {
	if j != nil && j != f.del[0] {
		f.del[1], f.del[0] = f.del[0], j
	}
}

// release closes the journals the caller can no longer be using: not the
// current one, not the last two it received, not one still queued. Only the
// run goroutine (which owns the queue) calls it.
func (f *Follower) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.open) <= 1 {
		return
	}
	keep := f.open[:0]
	for _, j := range f.open {
		if j == f.cur || j == f.del[0] || j == f.del[1] || f.queued(j) {
			keep = append(keep, j)
		} else {
			j.Close()
		}
	}
	clear(f.open[len(keep):])
	f.open = keep
}

func (f *Follower) queued(j *journal.Journal) bool {
	for i := range f.pending {
		if f.pending[i].J == j {
			return true
		}
	}
	return false
}

// Updates returns the channel of updates. It is closed when the Follower
// stops. Updates are coalesced: while the caller is not reading, records
// appended to the same journal are merged into the one queued Appended
// update, so a burst of many appends arrives as a few updates, and an
// Update's Added counts them all.
func (f *Follower) Updates() <-chan Update { return f.out }

// Journal returns the journal followed now: the one opened last, nil while
// no file has existed at the path. After Deleted it is still the deleted
// journal. The Follower keeps the journal it returns open until two newer
// ones have been handed out (or until Close).
func (f *Follower) Journal() *journal.Journal {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handedLocked(f.cur)
	return f.cur
}

// Close stops the Follower, waits for its goroutine and closes the watcher
// and every journal it opened; journals already handed out keep their
// records but can no longer read the file. Close is idempotent and returns
// the first error met while closing.
func (f *Follower) Close() error {
	f.cancel()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shut {
		return nil
	}
	f.shut = true
	var err error
	if f.w != nil {
		err = f.w.Close()
	}
	for _, j := range f.open {
		if e := j.Close(); e != nil && err == nil {
			err = e
		}
	}
	f.open = nil
	return err
}

// fingerprint holds copies of consumed bytes of the journal followed: the
// first ones and the last ones before the saved offset.
type fingerprint struct {
	head    []byte // bytes [0, len(head))
	tail    []byte // bytes [tailEnd-len(tail), tailEnd)
	tailEnd int64
	scratch []byte
}

// refresh takes the fingerprint of j's consumed bytes.
func (f *Follower) refresh(j *journal.Journal) {
	fp := &f.fp
	c := j.Index.Consumed()
	r := j.File()
	if h := min(c, headBytes); int64(len(fp.head)) < h {
		fp.head = readInto(fp.head[:0], r, 0, h)
	}
	t := min(c, tailBytes)
	fp.tail = readInto(fp.tail[:0], r, c-t, t)
	fp.tailEnd = c - t + int64(len(fp.tail))
}

// match reports whether r still holds the fingerprinted bytes.
func (fp *fingerprint) match(r io.ReaderAt) bool {
	if len(fp.head) > 0 {
		fp.scratch = readInto(fp.scratch[:0], r, 0, int64(len(fp.head)))
		if string(fp.scratch) != string(fp.head) {
			return false
		}
	}
	if len(fp.tail) > 0 && fp.tailEnd > int64(len(fp.head)) {
		fp.scratch = readInto(fp.scratch[:0], r, fp.tailEnd-int64(len(fp.tail)), int64(len(fp.tail)))
		if string(fp.scratch) != string(fp.tail) {
			return false
		}
	}
	return true
}

// readInto appends up to n bytes of r at off to b.
func readInto(b []byte, r io.ReaderAt, off, n int64) []byte {
	if n <= 0 {
		return b
	}
	if int64(cap(b)) < n {
		b = make([]byte, 0, n)
	}
	m, _ := r.ReadAt(b[:n], off)
	return b[:m]
}
