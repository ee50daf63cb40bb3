package lockfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func newFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustAcquire(t *testing.T, file string, o Options) *Lock {
	t.Helper()
	l, err := Acquire(context.Background(), file, o)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	return l
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

func TestOptionsNormalized(t *testing.T) {
	cases := []struct{ in, want Options }{
		{Options{}, Options{Stale: 10 * time.Second, Update: 5 * time.Second, Wait: 31 * time.Second}},
		{Options{Stale: time.Second}, Options{Stale: 2 * time.Second, Update: time.Second, Wait: 31 * time.Second}},
		{Options{Stale: 4 * time.Second, Update: 100 * time.Millisecond, Wait: -1}, Options{Stale: 4 * time.Second, Update: time.Second}},
		{Options{Stale: 4 * time.Second, Update: time.Hour, Wait: time.Second}, Options{Stale: 4 * time.Second, Update: 2 * time.Second, Wait: time.Second}},
	}
	for _, c := range cases {
		if got := c.in.normalized(); got != c.want {
			t.Errorf("%+v.normalized() = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestAcquireRelease(t *testing.T) {
	f := newFile(t)
	l := mustAcquire(t, f, Options{})
	if l.Path() != f+".lock" {
		t.Errorf("Path = %q, want %q", l.Path(), f+".lock")
	}
	if !isDir(f + ".lock") {
		t.Fatal("lock directory not created")
	}
	if held, _, err := Check(f, Options{}); err != nil || !held {
		t.Errorf("Check while held = %v, %v; want true, nil", held, err)
	}
	if err := l.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if _, err := os.Lstat(f + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock directory still exists after Release: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if held, _, err := Check(f, Options{}); err != nil || held {
		t.Errorf("Check after release = %v, %v; want false, nil", held, err)
	}
	// Reacquire works.
	mustAcquire(t, f, Options{}).Release()
}

func TestHeldByOtherProcess(t *testing.T) {
	f := newFile(t)
	// A fresh lock directory made by "another process".
	if err := os.Mkdir(f+".lock", 0o777); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Acquire(context.Background(), f, Options{Wait: 200 * time.Millisecond})
	var he *HeldError
	if !errors.As(err, &he) {
		t.Fatalf("Acquire = %v, want *HeldError", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("Acquire waited %v, want about 200ms", d)
	}
	if he.Lock != f+".lock" {
		t.Errorf("HeldError.Lock = %q", he.Lock)
	}
	msg := he.Error()
	for _, w := range []string{"locked by another writer", f + ".lock", "last refreshed 0s ago", "remove " + f + ".lock"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	if !isDir(f + ".lock") {
		t.Error("held lock directory was removed")
	}

	// Negative Wait: one try only.
	start = time.Now()
	if _, err := Acquire(context.Background(), f, Options{Wait: -1}); !errors.As(err, &he) {
		t.Fatalf("Acquire(Wait -1) = %v, want *HeldError", err)
	}
	// One try, not DefaultWait's 31 s of retries; the bound leaves room
	// for a loaded machine.
	if d := time.Since(start); d > time.Second {
		t.Errorf("Acquire(Wait -1) took %v", d)
	}

	// Context cancellation ends the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = Acquire(ctx, f, Options{Wait: time.Minute})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &he) {
		t.Errorf("Acquire with ctx timeout = %v, want DeadlineExceeded and *HeldError", err)
	}
}

func TestHeldInProcess(t *testing.T) {
	f := newFile(t)
	l := mustAcquire(t, f, Options{})
	_, err := Acquire(context.Background(), f, Options{Wait: 100 * time.Millisecond})
	var he *HeldError
	if !errors.As(err, &he) {
		t.Fatalf("second Acquire = %v, want *HeldError", err)
	}
	// A waiter gets the lock as soon as it is released.
	got := make(chan error, 1)
	go func() {
		l2, err := Acquire(context.Background(), f, Options{Wait: 5 * time.Second})
		if err == nil {
			err = l2.Release()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("waiter: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("waiter did not get the lock")
	}
}

func TestMutualExclusion(t *testing.T) {
	f := newFile(t)
	var inside, maxInside, count int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				l, err := Acquire(context.Background(), f, Options{})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				maxInside = max(maxInside, inside)
				mu.Unlock()
				time.Sleep(50 * time.Microsecond)
				mu.Lock()
				inside--
				count++
				mu.Unlock()
				if err := l.Release(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if maxInside != 1 || count != 400 {
		t.Errorf("maxInside = %d, count = %d; want 1, 400", maxInside, count)
	}
	if len(sems) != 0 {
		t.Errorf("semaphore map not cleaned: %d entries", len(sems))
	}
}

func TestStaleTakeover(t *testing.T) {
	f := newFile(t)
	dir := f + ".lock"
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-11 * time.Second)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	if held, age, err := Check(f, Options{}); err != nil || held || age < 10*time.Second {
		t.Errorf("Check on stale lock = %v, %v, %v; want false, ~11s, nil", held, age, err)
	}
	start := time.Now()
	l := mustAcquire(t, f, Options{Wait: -1})
	if d := time.Since(start); d > time.Second {
		t.Errorf("takeover took %v", d)
	}
	fi, err := os.Lstat(dir)
	if err != nil || time.Since(fi.ModTime()) > 2*time.Second {
		t.Errorf("lock mtime not refreshed after takeover: %v %v", fi.ModTime(), err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	// No leftover renamed directories.
	m, _ := filepath.Glob(dir + "*")
	if len(m) != 0 {
		t.Errorf("leftovers: %v", m)
	}
}

func TestConcurrentStaleTakeoverOneWinner(t *testing.T) {
	// Several stealers race for one stale lock; exactly one may hold it at
	// a time. (Goroutines share the in-process semaphore, so this mostly
	// checks takeOver's bookkeeping; a cross-process race is exercised by
	// TestConcurrentAppends in the writer package.)
	f := newFile(t)
	dir := f + ".lock"
	os.Mkdir(dir, 0o777)
	old := time.Now().Add(-11 * time.Second)
	os.Chtimes(dir, old, old)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := Acquire(context.Background(), f, Options{Wait: 5 * time.Second})
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
			if l.Compromised() {
				t.Error("compromised")
			}
			if err := l.Release(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func TestTakeOverPutsBackLiveLock(t *testing.T) {
	// takeOver called on a lock that became live again after the caller's
	// stat must not destroy it.
	f := newFile(t)
	l := mustAcquire(t, f, Options{})
	if err := takeOver(l.Path(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err != nil {
		t.Errorf("live lock damaged by takeOver: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Error(err)
	}
	if m, _ := filepath.Glob(f + ".lock*"); len(m) != 0 {
		t.Errorf("leftovers: %v", m)
	}
}

func TestFutureMtimeNotStale(t *testing.T) {
	f := newFile(t)
	dir := f + ".lock"
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// proper-lockfile sets mtime to ceil(now to the second) + 5 ms.
	fut := time.Now().Add(time.Second)
	if err := os.Chtimes(dir, fut, fut); err != nil {
		t.Fatal(err)
	}
	held, age, err := Check(f, Options{Stale: 2 * time.Second})
	if err != nil || !held || age != 0 {
		t.Errorf("Check = %v, %v, %v; want true, 0, nil", held, age, err)
	}
	_, err = Acquire(context.Background(), f, Options{Stale: 2 * time.Second, Wait: 100 * time.Millisecond})
	var he *HeldError
	if !errors.As(err, &he) {
		t.Fatalf("Acquire = %v, want *HeldError", err)
	}
	if he.Age != 0 {
		t.Errorf("Age = %v, want 0 for a future mtime", he.Age)
	}
}

func TestSymlinkLocksTarget(t *testing.T) {
	target := newFile(t)
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, link, Options{})
	defer l.Release()
	if !isDir(target + ".lock") {
		t.Error("lock not created next to the target")
	}
	if _, err := os.Lstat(link + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Error("lock created next to the symlink")
	}
	// Locking the target directly now conflicts.
	if _, err := Acquire(context.Background(), target, Options{Wait: -1}); err == nil {
		t.Error("target lock not exclusive with symlink lock")
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.jsonl")
	if _, err := Acquire(context.Background(), p, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Acquire missing = %v, want fs.ErrNotExist", err)
	}
	if _, _, err := Check(p, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check missing = %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Lstat(p + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Error("lock created for a missing file")
	}
}

func TestLockPathOverride(t *testing.T) {
	f := newFile(t)
	lp := filepath.Join(t.TempDir(), "custom.lock")
	l := mustAcquire(t, f, Options{LockPath: lp})
	if l.Path() != lp || !isDir(lp) {
		t.Errorf("Path = %q, dir exists = %v", l.Path(), isDir(lp))
	}
	if isDir(f + ".lock") {
		t.Error("default lock path used despite LockPath")
	}
	if err := l.Release(); err != nil || isDir(lp) {
		t.Errorf("Release: %v, still exists = %v", err, isDir(lp))
	}
}

func TestHeartbeatRefreshes(t *testing.T) {
	f := newFile(t)
	l := mustAcquire(t, f, Options{Stale: 2 * time.Second, Update: time.Second})
	defer l.Release()
	dir := l.Path()
	// Backdate the mtime as if it were an old refresh; the heartbeat will
	// see a foreign mtime unless we also update what the lock remembers.
	old := time.Now().Add(-1500 * time.Millisecond)
	l.mu.Lock()
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(dir)
	l.mtime = fi.ModTime()
	l.mu.Unlock()

	time.Sleep(1300 * time.Millisecond)
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().After(old.Add(time.Second)) {
		t.Errorf("mtime not refreshed: %v (was %v)", fi.ModTime(), old)
	}
	if l.Compromised() {
		t.Error("compromised after own refresh")
	}
	if held, _, _ := Check(f, Options{Stale: 2 * time.Second}); !held {
		t.Error("lock looks stale despite heartbeat")
	}
	if err := l.Release(); err != nil {
		t.Error(err)
	}
}

func TestCompromisedByForeignTouch(t *testing.T) {
	f := newFile(t)
	l := mustAcquire(t, f, Options{Stale: 2 * time.Second, Update: time.Second})
	// Another process takes over and writes its own mtime.
	other := time.Now().Add(3 * time.Second)
	if err := os.Chtimes(l.Path(), other, other); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for !l.Compromised() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !l.Compromised() {
		t.Fatal("heartbeat did not detect the foreign mtime")
	}
	if err := l.Validate(); !errors.Is(err, ErrCompromised) {
		t.Errorf("Validate = %v, want ErrCompromised", err)
	}
	if err := l.Release(); !errors.Is(err, ErrCompromised) {
		t.Errorf("Release = %v, want ErrCompromised", err)
	}
	if !isDir(l.Path()) {
		t.Error("Release removed a lock directory that is no longer ours")
	}
}

func TestValidateDetectsRemoval(t *testing.T) {
	f := newFile(t)
	l := mustAcquire(t, f, Options{})
	if err := os.Remove(l.Path()); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); !errors.Is(err, ErrCompromised) || !l.Compromised() {
		t.Errorf("Validate = %v, Compromised = %v", err, l.Compromised())
	}
	if err := l.Release(); !errors.Is(err, ErrCompromised) {
		t.Errorf("Release = %v", err)
	}
}

func TestConcurrentCompromisedRelease(t *testing.T) {
	f := newFile(t)
	l := mustAcquire(t, f, Options{Stale: 2 * time.Second, Update: time.Second})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() { defer wg.Done(); l.Compromised(); l.Validate() }()
		go func() { defer wg.Done(); l.Release() }()
	}
	wg.Wait()
	if isDir(l.Path()) {
		t.Error("not released")
	}
}

func TestCannotCreateLockDir(t *testing.T) {
	f := newFile(t)
	// A lock path whose parent is a regular file: mkdir fails with ENOTDIR
	// even for root.
	lp := filepath.Join(f, "journal.jsonl.lock")
	_, err := Acquire(context.Background(), f, Options{LockPath: lp, Wait: time.Second})
	if err == nil {
		t.Fatal("Acquire succeeded")
	}
	var he *HeldError
	if errors.As(err, &he) {
		t.Fatalf("got HeldError for an uncreatable lock: %v", err)
	}
	if !strings.Contains(err.Error(), lp) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("error %q does not name the lock directory and the cause", err)
	}

	// Parent directory missing.
	lp = filepath.Join(t.TempDir(), "missing", "x.lock")
	_, err = Acquire(context.Background(), f, Options{LockPath: lp})
	if err == nil || !strings.Contains(err.Error(), "parent directory does not exist") {
		t.Errorf("Acquire with missing parent = %v", err)
	}

	// Lock path occupied by a regular file.
	if err := os.WriteFile(f+".lock", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(context.Background(), f, Options{Wait: time.Second})
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Acquire with file at lock path = %v", err)
	}

	// Read-only parent directory (only effective when not root).
	if os.Geteuid() != 0 {
		d := t.TempDir()
		g := filepath.Join(d, "j.jsonl")
		os.WriteFile(g, nil, 0o644)
		os.Chmod(d, 0o555)
		defer os.Chmod(d, 0o755)
		_, err = Acquire(context.Background(), g, Options{})
		if err == nil || !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), g+".lock") {
			t.Errorf("Acquire in read-only dir = %v", err)
		}
	}
}
