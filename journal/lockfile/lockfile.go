// Package lockfile implements an advisory file lock that is wire-compatible
// with the defaults of the Node.js package proper-lockfile 4.1.2, which the
// agent runtimes use to serialise appends to their JSONL journals.
//
// The on-disk protocol is:
//
//   - The lock for file F is the directory realpath(F) + ".lock" (or
//     [Options.LockPath]). It is created with mkdir(2); creating it means
//     holding the lock. The directory is empty: it names no owner.
//   - The holder refreshes the directory's modification time every
//     [Options.Update]. A lock whose mtime is older than now - [Options.Stale]
//     is stale: its holder is presumed dead, and another process may remove
//     it and take the lock over.
//   - The holder releases the lock with rmdir(2).
//   - A holder that finds the mtime changed by someone else, or the directory
//     gone, knows the lock was compromised (taken over by another process).
//
// Every process that writes the same journal must use the same Stale value
// (proper-lockfile's default is 10 s); otherwise a process with a shorter
// Stale may take over a live lock.
//
// Within one Go process, goroutines that lock the same path queue on an
// in-process semaphore first, so only one of them at a time competes with
// other processes through mkdir.
//
// The package needs a Unix-like system (it uses mkdir/rmdir atomicity and
// modification times); stale takeover uses renameat2(RENAME_NOREPLACE) on
// Linux to make sure only one Go process wins a takeover.
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults and limits of the lock timing options, equal to proper-lockfile
// 4.1.2's.
const (
	DefaultStale = 10 * time.Second // proper-lockfile's default stale
	MinStale     = 2 * time.Second  // proper-lockfile clamps stale to at least 2 s
	MinUpdate    = 1 * time.Second  // proper-lockfile clamps update to at least 1 s
	// DefaultWait approximates proper-lockfile's retries: 5 (waits of
	// 1+2+4+8+16 s) used by the Durable Stream writer.
	DefaultWait = 31 * time.Second
)

// ErrCompromised is returned by [Lock.Release] and [Lock.Validate] when the
// lock was lost while held: another process changed the lock directory's
// modification time (it judged the lock stale and took it over), or the
// directory was removed.
var ErrCompromised = errors.New("lock compromised: another process took over or removed the lock directory")

// Options configure [Acquire] and [Check]. The zero value gives
// proper-lockfile's defaults.
type Options struct {
	// Stale is the age of the lock directory's mtime after which the lock
	// is considered abandoned and may be taken over. Zero means
	// DefaultStale (10 s); values below MinStale (2 s) are raised to 2 s.
	// It must equal the stale value of every other writer of the file.
	Stale time.Duration

	// Update is the heartbeat interval at which a held lock's mtime is
	// refreshed. Zero means Stale/2; the value is clamped to
	// [MinUpdate, Stale/2].
	Update time.Duration

	// Wait is how long Acquire keeps retrying while the lock is held by
	// someone else before returning a *HeldError. Zero means DefaultWait
	// (31 s); a negative value means try once and do not wait.
	Wait time.Duration

	// LockPath, if not empty, overrides the lock directory path
	// (proper-lockfile's lockfilePath option). It must be the same path the
	// other writers use.
	LockPath string
}

// normalized returns o with defaults applied and values clamped.
func (o Options) normalized() Options {
	if o.Stale <= 0 {
		o.Stale = DefaultStale
	}
	if o.Stale < MinStale {
		o.Stale = MinStale
	}
	if o.Update <= 0 {
		o.Update = o.Stale / 2
	}
	o.Update = min(max(o.Update, MinUpdate), o.Stale/2)
	if o.Wait == 0 {
		o.Wait = DefaultWait
	}
	if o.Wait < 0 {
		o.Wait = 0
	}
	return o
}

// HeldError is returned by [Acquire] when the lock stays held by another
// writer for the whole wait.
type HeldError struct {
	Lock  string        // path of the lock directory
	Age   time.Duration // time since the holder last refreshed the lock (0 if in the future)
	Since time.Time     // the lock directory's modification time
}

// Error describes who holds the lock and what the user can do about it.
func (e *HeldError) Error() string {
	return fmt.Sprintf("journal is locked by another writer (lock directory %s, last refreshed %ds ago); try again, or remove %s if no writer is running",
		e.Lock, int(e.Age.Round(time.Second)/time.Second), e.Lock)
}

// Resolve returns the lock directory path for file: o.LockPath made absolute
// if set, else realpath(file) + ".lock" (symbolic links resolved, as
// proper-lockfile does with its default realpath: true). The file must
// exist; otherwise the error wraps fs.ErrNotExist.
func Resolve(file string, o Options) (lockDir string, err error) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return "", fmt.Errorf("lockfile: resolve %s: %w", file, err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", fmt.Errorf("lockfile: resolve %s: %w", file, err)
	}
	if o.LockPath != "" {
		return filepath.Abs(o.LockPath)
	}
	return real + ".lock", nil
}

// Lock is a held lock. Its methods are safe for concurrent use.
type Lock struct {
	dir    string
	o      Options
	sem    *semaphore
	mu     sync.Mutex // serialises heartbeat, Validate, Release
	mtime  time.Time  // the mtime we last set (as read back from stat)
	lastOK time.Time  // wall time of the last successful refresh
	comp   atomic.Bool
	done   bool
	stop   chan struct{}
	exited chan struct{}
}

// Path returns the lock directory path.
func (l *Lock) Path() string { return l.dir }

// Compromised reports whether the heartbeat (or Validate) has found that the
// lock was taken over by another process or removed. Once true it stays
// true.
func (l *Lock) Compromised() bool { return l.comp.Load() }

// Validate checks now, rather than at the next heartbeat, that the lock
// directory still exists and carries the mtime this Lock last set. It
// returns ErrCompromised (and marks the lock compromised) if not, nil if the
// lock is still ours, or another error if the check itself failed.
// Validate after Release returns ErrCompromised if the lock had been
// compromised and nil otherwise.
func (l *Lock) Validate() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.comp.Load() {
		return ErrCompromised
	}
	if l.done {
		return nil
	}
	return l.checkLocked()
}

// checkLocked stats the lock directory and compares its mtime. l.mu held.
func (l *Lock) checkLocked() error {
	fi, err := os.Lstat(l.dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.ModTime().Equal(l.mtime)) {
		l.comp.Store(true)
		return ErrCompromised
	}
	if err != nil {
		return fmt.Errorf("lockfile: check %s: %w", l.dir, err)
	}
	return nil
}

// Release stops the heartbeat and removes the lock directory. If the lock
// was compromised, Release leaves the directory alone (it belongs to
// another process now) and returns ErrCompromised; that includes finding
// the directory already gone or carrying a foreign mtime. Calling Release
// again returns nil.
func (l *Lock) Release() error {
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		return nil
	}
	l.done = true
	close(l.stop)
	l.mu.Unlock()
	<-l.exited

	l.mu.Lock()
	defer l.mu.Unlock()
	defer semPut(l.sem)
	defer l.sem.unlock()
	if l.comp.Load() {
		return ErrCompromised
	}
	if err := l.checkLocked(); err != nil {
		return err
	}
	if err := os.Remove(l.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("lockfile: release: remove lock directory %s: %w", l.dir, err)
	}
	return nil
}

// heartbeat refreshes the lock's mtime every Update until stopped or
// compromised. Like proper-lockfile, failures other than a changed mtime or
// a missing directory are retried every second until Stale has passed since
// the last successful refresh.
func (l *Lock) heartbeat() {
	defer close(l.exited)
	interval := l.o.Update
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		if l.done || l.comp.Load() {
			l.mu.Unlock()
			return
		}
		err := l.checkLocked()
		if err == nil {
			err = l.touchLocked()
		}
		switch {
		case errors.Is(err, ErrCompromised):
			l.mu.Unlock()
			return
		case err != nil:
			if time.Since(l.lastOK) > l.o.Stale {
				l.comp.Store(true)
				l.mu.Unlock()
				return
			}
			interval = min(time.Second, l.o.Update)
		default:
			interval = l.o.Update
		}
		l.mu.Unlock()
		t.Reset(interval)
	}
}

// touchLocked sets the lock directory's mtime to now and remembers the
// value the file system actually stored. l.mu held (or l not yet shared).
func (l *Lock) touchLocked() error {
	now := time.Now()
	if err := os.Chtimes(l.dir, now, now); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.comp.Store(true)
			return ErrCompromised
		}
		return fmt.Errorf("lockfile: refresh %s: %w", l.dir, err)
	}
	fi, err := os.Lstat(l.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.comp.Store(true)
			return ErrCompromised
		}
		return fmt.Errorf("lockfile: refresh %s: %w", l.dir, err)
	}
	l.mtime = fi.ModTime()
	l.lastOK = now
	return nil
}

// Acquire takes the lock on file, waiting up to o.Wait (or until ctx is
// done) while another writer holds it, and taking over a stale lock.
//
// file must exist; otherwise the error wraps fs.ErrNotExist. If the lock is
// still held when the wait ends, the error is a *HeldError. If ctx ends
// first, the error wraps ctx.Err() and, if the lock was seen held, also the
// *HeldError. Any other failure to create the lock directory (permission
// denied, read-only or full file system, a parent that is not a directory)
// is returned wrapped, naming the directory and the cause.
//
// The returned Lock refreshes the directory's mtime every o.Update in a
// background goroutine until Release is called; the caller must call
// Release.
func Acquire(ctx context.Context, file string, o Options) (*Lock, error) {
	o = o.normalized()
	dir, err := Resolve(file, o)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(o.Wait)

	sem := semGet(dir)
	if err := sem.lock(ctx, deadline); err != nil {
		semPut(sem)
		if errors.Is(err, errSemTimeout) {
			return nil, heldErrorFor(dir)
		}
		return nil, fmt.Errorf("lockfile: waiting for %s: %w", dir, err)
	}
	ok := false
	defer func() {
		if !ok {
			sem.unlock()
			semPut(sem)
		}
	}()

	var held *HeldError
	backoffCap := 50 * time.Millisecond
	for {
		err := os.Mkdir(dir, 0o777)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, mkdirError(dir, err)
		}
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released between mkdir and stat: retry at once
		}
		if err != nil {
			return nil, fmt.Errorf("lockfile: cannot inspect lock directory %s: %w", dir, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("lockfile: lock path %s exists but is not a directory (mode %v); remove it if no writer is running", dir, fi.Mode())
		}
		now := time.Now()
		if fi.ModTime().Before(now.Add(-o.Stale)) {
			if err := takeOver(dir, o.Stale); err != nil {
				return nil, err
			}
			continue
		}
		held = &HeldError{Lock: dir, Since: fi.ModTime(), Age: max(now.Sub(fi.ModTime()), 0)}

		remaining := time.Until(deadline)
		if remaining <= 0 {
			return nil, held
		}
		sleep := min(5*time.Millisecond+rand.N(backoffCap-5*time.Millisecond), remaining)
		backoffCap = min(backoffCap*3/2, 250*time.Millisecond)
		t := time.NewTimer(sleep)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lockfile: waiting for %s: %w (%w)", dir, ctx.Err(), held)
		case <-t.C:
		}
	}

	l := &Lock{dir: dir, o: o, sem: sem, stop: make(chan struct{}), exited: make(chan struct{})}
	if err := l.touchLocked(); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("lockfile: acquired %s but could not set its time: %w", dir, err)
	}
	ok = true
	go l.heartbeat()
	return l, nil
}

// heldErrorFor builds a HeldError from the lock directory's current state.
func heldErrorFor(dir string) error {
	e := &HeldError{Lock: dir}
	if fi, err := os.Lstat(dir); err == nil {
		e.Since = fi.ModTime()
		e.Age = max(time.Since(e.Since), 0)
	}
	return e
}

// mkdirError explains a failure to create the lock directory.
func mkdirError(dir string, err error) error {
	var why string
	switch {
	case errors.Is(err, fs.ErrPermission):
		why = "permission denied or read-only file system"
	case errors.Is(err, fs.ErrNotExist):
		why = "its parent directory does not exist"
	default:
		why = "mkdir failed"
	}
	return fmt.Errorf("lockfile: cannot create lock directory %s (%s): %w", dir, why, err)
}

var takeoverSeq atomic.Uint64

// takeOver removes the stale lock directory dir. It first renames dir to a
// unique name, so that of several Go processes that judged it stale only
// one moves it, and then checks that what it moved is still stale: if a new
// holder had already replaced it, the directory is put back (without
// replacing anything) and the caller keeps waiting.
func takeOver(dir string, stale time.Duration) error {
	tmp := fmt.Sprintf("%s.stale-%d-%d-%s", dir, os.Getpid(), takeoverSeq.Add(1),
		strconv.FormatUint(rand.Uint64(), 36))
	if err := os.Rename(dir, tmp); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // someone else took it over or released it
		}
		return fmt.Errorf("lockfile: cannot take over stale lock directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(tmp)
	if err == nil && !fi.ModTime().Before(time.Now().Add(-stale)) {
		// We moved a live lock created after our stat. Put it back.
		if renameNoReplace(tmp, dir) == nil {
			return nil
		}
		// A new lock exists at dir already; the holder of the one we moved
		// has lost it either way and will notice. Discard it.
	}
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("lockfile: cannot remove stale lock directory %s (moved to %s): %w", dir, tmp, err)
	}
	return nil
}

// Check reports whether file's lock directory exists and is not stale
// (proper-lockfile's check), and if it exists, the time since its last
// refresh (0 if the mtime is in the future). It takes no lock. The file
// must exist; otherwise the error wraps fs.ErrNotExist.
func Check(file string, o Options) (held bool, age time.Duration, err error) {
	o = o.normalized()
	dir, err := Resolve(file, o)
	if err != nil {
		return false, 0, err
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, fmt.Errorf("lockfile: check %s: %w", dir, err)
	}
	age = max(time.Since(fi.ModTime()), 0)
	return age <= o.Stale, age, nil
}

// In-process queueing: one semaphore per lock directory path, so that
// goroutines of this process hand the lock over without polling.

var (
	semMu sync.Mutex
	sems  = map[string]*semaphore{}
)

var errSemTimeout = errors.New("timed out")

type semaphore struct {
	key  string
	refs int // guarded by semMu
	ch   chan struct{}
}

// semGet returns the semaphore for key with a reference taken. Each call
// must be paired with one semPut.
func semGet(key string) *semaphore {
	semMu.Lock()
	defer semMu.Unlock()
	s := sems[key]
	if s == nil {
		s = &semaphore{key: key, ch: make(chan struct{}, 1)}
		sems[key] = s
	}
	s.refs++
	return s
}

// semPut drops a reference taken by semGet.
func semPut(s *semaphore) {
	semMu.Lock()
	defer semMu.Unlock()
	s.refs--
	if s.refs == 0 {
		delete(sems, s.key)
	}
}

// lock takes the semaphore's slot, waiting until ctx ends or deadline.
func (s *semaphore) lock(ctx context.Context, deadline time.Time) error {
	select {
	case s.ch <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case s.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errSemTimeout
	}
}

// unlock frees the slot taken by lock.
func (s *semaphore) unlock() { <-s.ch }
