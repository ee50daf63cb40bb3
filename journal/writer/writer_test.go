package writer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/journal/lockfile"
)

const firstLine = `{"type":"checkpoint.requested","id":"0mwqzcqy6_516ef74a4e53aef3"}` + "\n"

// journal creates a journal with content in a fresh directory, with its
// mtime set 1 hour in the past so that unchanged mtimes are detectable.
func journal(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "durable_stream.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshot records a file's bytes and mtime.
type snapshot struct {
	data  []byte
	mtime time.Time
}

func snap(t *testing.T, p string) snapshot {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{data, fi.ModTime()}
}

func assertUnchanged(t *testing.T, p string, before snapshot) {
	t.Helper()
	after := snap(t, p)
	if !bytes.Equal(after.data, before.data) {
		t.Errorf("journal changed:\nbefore %q\nafter  %q", before.data, after.data)
	}
	if !after.mtime.Equal(before.mtime) {
		t.Errorf("journal mtime changed: %v -> %v", before.mtime, after.mtime)
	}
}

func assertNoLock(t *testing.T, p string) {
	t.Helper()
	if m, _ := filepath.Glob(p + ".lock*"); len(m) != 0 {
		t.Errorf("lock directory left behind: %v", m)
	}
}

func constBuild(rec string) func(int64) ([]byte, error) {
	return func(int64) ([]byte, error) { return []byte(rec), nil }
}

const rec = `{"type":"checkpoint.approved","payload":{"checkpoint_id":"cp_1"}}`

func TestAppendCleanTail(t *testing.T) {
	p := journal(t, firstLine)
	var gotSize int64 = -1
	res, err := Append(context.Background(), p, Options{Fsync: true}, func(size int64) ([]byte, error) {
		gotSize = size
		return []byte(rec), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if gotSize != int64(len(firstLine)) {
		t.Errorf("build got size %d, want %d", gotSize, len(firstLine))
	}
	want := firstLine + rec + "\n"
	if got, _ := os.ReadFile(p); string(got) != want {
		t.Errorf("journal = %q, want %q", got, want)
	}
	if res != (Result{Offset: int64(len(firstLine)), Bytes: len(rec) + 1}) {
		t.Errorf("Result = %+v", res)
	}
	assertNoLock(t, p)
}

func TestAppendTrailingNewlineTolerated(t *testing.T) {
	p := journal(t, firstLine)
	if _, err := Append(context.Background(), p, Options{}, constBuild(rec+"\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != firstLine+rec+"\n" {
		t.Errorf("journal = %q", got)
	}
}

func TestAppendEmptyFile(t *testing.T) {
	p := journal(t, "")
	res, err := Append(context.Background(), p, Options{}, constBuild(rec))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != rec+"\n" {
		t.Errorf("journal = %q", got)
	}
	if res != (Result{Offset: 0, Bytes: len(rec) + 1}) {
		t.Errorf("Result = %+v", res)
	}
}

func TestAppendTornTail(t *testing.T) {
	torn := firstLine + `{"type":"execution.text_de`
	p := journal(t, torn)
	res, err := Append(context.Background(), p, Options{}, constBuild(rec))
	if err != nil {
		t.Fatal(err)
	}
	want := torn + "\n" + rec + "\n"
	if got, _ := os.ReadFile(p); string(got) != want {
		t.Errorf("journal = %q, want %q", got, want)
	}
	if res != (Result{Offset: int64(len(torn) + 1), Bytes: len(rec) + 2, PrefixedNewline: true}) {
		t.Errorf("Result = %+v", res)
	}
	data, _ := os.ReadFile(p)
	if string(data[res.Offset:res.Offset+int64(len(rec))]) != rec {
		t.Errorf("Offset %d does not point at the record", res.Offset)
	}
}

func TestBuildErrorWritesNothing(t *testing.T) {
	p := journal(t, firstLine)
	before := snap(t, p)
	errDecided := errors.New("checkpoint cp_1 already decided")
	res, err := Append(context.Background(), p, Options{}, func(int64) ([]byte, error) { return nil, errDecided })
	if err != errDecided {
		t.Errorf("err = %v, want the build error unchanged", err)
	}
	if res != (Result{}) {
		t.Errorf("Result = %+v", res)
	}
	assertUnchanged(t, p, before)
	assertNoLock(t, p)
}

func TestBadRecordWritesNothing(t *testing.T) {
	for _, r := range []string{"", `{"a":1}` + "\n" + `{"b":2}`, `{"a":`, `[1,2]`, `"str"`, "{\"a\":\r1}"} {
		p := journal(t, firstLine)
		before := snap(t, p)
		if _, err := Append(context.Background(), p, Options{}, constBuild(r)); err == nil {
			t.Errorf("record %q accepted", r)
		}
		assertUnchanged(t, p, before)
		assertNoLock(t, p)
	}
}

func TestRefusals(t *testing.T) {
	outside := journal(t, firstLine)
	cases := []struct {
		name    string
		content string
		setup   func(t *testing.T, p string) string // returns the path to append to
		reason  string
	}{
		{name: "json array", content: "[\n  {\"a\": 1}\n]\n", reason: "JSON array"},
		{name: "json array after whitespace", content: " \n\t[{\"a\":1}]", reason: "JSON array"},
		{name: "pretty-printed", content: "{\n  \"type\": \"x\"\n}\n", reason: "pretty-printed"},
		{name: "pretty-printed objects", content: "{\"a\":\n{\n\"b\":1}}\n", reason: "pretty-printed"},
		{name: "byte-order mark", content: "\ufeff" + firstLine, reason: "byte-order mark"},
		{name: "missing", setup: func(t *testing.T, p string) string {
			return filepath.Join(filepath.Dir(p), "missing.jsonl")
		}, reason: "does not exist"},
		{name: "symlink outside", content: firstLine, setup: func(t *testing.T, p string) string {
			l := filepath.Join(filepath.Dir(p), "link.jsonl")
			if err := os.Symlink(outside, l); err != nil {
				t.Fatal(err)
			}
			return l
		}, reason: "outside the directory"},
		{name: "relative symlink escaping", content: firstLine, setup: func(t *testing.T, p string) string {
			l := filepath.Join(filepath.Dir(p), "rel.jsonl")
			rel, _ := filepath.Rel(filepath.Dir(p), outside)
			if err := os.Symlink(rel, l); err != nil {
				t.Fatal(err)
			}
			return l
		}, reason: "outside the directory"},
		{name: "dangling symlink", content: firstLine, setup: func(t *testing.T, p string) string {
			l := filepath.Join(filepath.Dir(p), "dangling.jsonl")
			os.Symlink(filepath.Join(filepath.Dir(p), "nothing"), l)
			return l
		}, reason: "does not exist"},
		{name: "directory", setup: func(t *testing.T, p string) string {
			d := filepath.Join(filepath.Dir(p), "dir.jsonl")
			os.Mkdir(d, 0o755)
			return d
		}, reason: "not a regular file"},
		{name: "fifo", setup: func(t *testing.T, p string) string {
			f := filepath.Join(filepath.Dir(p), "fifo.jsonl")
			if err := syscall.Mkfifo(f, 0o644); err != nil {
				t.Fatal(err)
			}
			return f
		}, reason: "not a regular file"},
	}
	outsideBefore := snap(t, outside)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := journal(t, c.content)
			before := snap(t, p)
			target := p
			if c.setup != nil {
				target = c.setup(t, p)
			}
			called := false
			_, err := Append(context.Background(), target, Options{Lock: lockfile.Options{Wait: -1}}, func(int64) ([]byte, error) {
				called = true
				return []byte(rec), nil
			})
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *RefusedError", err)
			}
			if re.Path != target || !strings.Contains(re.Reason, c.reason) {
				t.Errorf("RefusedError = %+v, want path %s and reason containing %q", re, target, c.reason)
			}
			if called {
				t.Error("build was called")
			}
			assertUnchanged(t, p, before)
			assertNoLock(t, p)
			assertNoLock(t, target)
			if c.name == "missing" {
				if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
					t.Error("missing journal was created")
				}
			}
		})
	}
	assertUnchanged(t, outside, outsideBefore)
	assertNoLock(t, outside)
}

func TestAcceptsShortFirstLine(t *testing.T) {
	// Delta Engine's 10-byte check would call this pretty-printed; the
	// relaxed check accepts it since the first line is complete JSON.
	p := journal(t, "{}\n{\"a\":1}\n")
	if _, err := Append(context.Background(), p, Options{}, constBuild(rec)); err != nil {
		t.Fatal(err)
	}
}

func TestSymlinkInsideDirAllowed(t *testing.T) {
	p := journal(t, firstLine)
	dir := filepath.Dir(p)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	real := filepath.Join(sub, "real.jsonl")
	os.Rename(p, real)
	if err := os.Symlink("sub/real.jsonl", p); err != nil {
		t.Fatal(err)
	}
	if _, err := Append(context.Background(), p, Options{}, constBuild(rec)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(real); string(got) != firstLine+rec+"\n" {
		t.Errorf("target = %q", got)
	}
	assertNoLock(t, real)
}

func TestLockHeld(t *testing.T) {
	p := journal(t, firstLine)
	if err := os.Mkdir(p+".lock", 0o777); err != nil {
		t.Fatal(err)
	}
	before := snap(t, p)
	start := time.Now()
	_, err := Append(context.Background(), p, Options{Lock: lockfile.Options{Wait: 300 * time.Millisecond}}, constBuild(rec))
	var he *lockfile.HeldError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v, want *lockfile.HeldError", err)
	}
	t.Logf("held after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if !strings.Contains(err.Error(), "locked by another writer") {
		t.Errorf("message %q", err)
	}
	assertUnchanged(t, p, before)
	if fi, err := os.Stat(p + ".lock"); err != nil || !fi.IsDir() {
		t.Error("other writer's lock was removed")
	}
}

func TestStaleLockTakenOver(t *testing.T) {
	p := journal(t, firstLine)
	if err := os.Mkdir(p+".lock", 0o777); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-11 * time.Second)
	os.Chtimes(p+".lock", old, old)
	if _, err := Append(context.Background(), p, Options{Lock: lockfile.Options{Wait: -1}}, constBuild(rec)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != firstLine+rec+"\n" {
		t.Errorf("journal = %q", got)
	}
	assertNoLock(t, p)
}

func TestLockDirCannotBeCreated(t *testing.T) {
	p := journal(t, firstLine)
	before := snap(t, p)
	// The lock directory's parent is a regular file: mkdir fails with
	// ENOTDIR, even for root.
	lp := filepath.Join(p, "x.lock")
	called := false
	_, err := Append(context.Background(), p, Options{Lock: lockfile.Options{LockPath: lp}}, func(int64) ([]byte, error) {
		called = true
		return []byte(rec), nil
	})
	if err == nil || !strings.Contains(err.Error(), lp) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("err = %v, want one naming %s and the cause", err, lp)
	}
	var he *lockfile.HeldError
	if errors.As(err, &he) || called {
		t.Errorf("HeldError = %v, build called = %v", he, called)
	}
	assertUnchanged(t, p, before)
}

func TestLockCompromisedBeforeWrite(t *testing.T) {
	p := journal(t, firstLine)
	before := snap(t, p)
	_, err := Append(context.Background(), p, Options{}, func(int64) ([]byte, error) {
		// Another process takes the lock over meanwhile.
		fut := time.Now().Add(2 * time.Second)
		os.Chtimes(p+".lock", fut, fut)
		return []byte(rec), nil
	})
	if !errors.Is(err, lockfile.ErrCompromised) || !strings.Contains(err.Error(), "lock was lost") {
		t.Errorf("err = %v, want lock-lost error wrapping ErrCompromised", err)
	}
	assertUnchanged(t, p, before)
	// The other process's lock stays.
	if fi, err := os.Stat(p + ".lock"); err != nil || !fi.IsDir() {
		t.Error("compromised lock directory was removed")
	}
}

func TestFileReplacedDuringBuild(t *testing.T) {
	p := journal(t, firstLine)
	repl := filepath.Join(filepath.Dir(p), "other")
	os.WriteFile(repl, []byte(firstLine), 0o644)
	_, err := Append(context.Background(), p, Options{}, func(int64) ([]byte, error) {
		if err := os.Rename(repl, p); err != nil {
			t.Fatal(err)
		}
		return []byte(rec), nil
	})
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "replaced") {
		t.Errorf("err = %v, want refusal for a replaced file", err)
	}
	if got, _ := os.ReadFile(p); string(got) != firstLine {
		t.Errorf("journal = %q", got)
	}
	assertNoLock(t, p)
}

func TestJournalGrewDuringBuild(t *testing.T) {
	// A writer that ignores the lock appends while build runs: build is
	// called again with the new size.
	p := journal(t, firstLine)
	other := `{"type":"other"}` + "\n"
	var sizes []int64
	_, err := Append(context.Background(), p, Options{}, func(size int64) ([]byte, error) {
		sizes = append(sizes, size)
		if len(sizes) == 1 {
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(other)
			f.Close()
		}
		return []byte(rec), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 2 || sizes[1] != sizes[0]+int64(len(other)) {
		t.Errorf("build sizes = %v", sizes)
	}
	if got, _ := os.ReadFile(p); string(got) != firstLine+other+rec+"\n" {
		t.Errorf("journal = %q", got)
	}
}

func TestContextCanceled(t *testing.T) {
	p := journal(t, firstLine)
	os.Mkdir(p+".lock", 0o777)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Append(ctx, p, Options{}, constBuild(rec))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}

// runRlimitHelper runs helperRlimit in a subprocess and decodes its output.
func runRlimitHelper(t *testing.T, p string, limit, reclen int, skipCheck bool) (string, Result) {
	t.Helper()
	skip := "0"
	if skipCheck {
		skip = "1"
	}
	cmd := helperCmd(t, "rlimit", "REWIND_HELPER_FILE="+p, fmt.Sprint("REWIND_HELPER_LIMIT=", limit),
		fmt.Sprint("REWIND_HELPER_RECLEN=", reclen), "REWIND_HELPER_SKIPCHECK="+skip)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr.Bytes())
	}
	var r struct {
		Err string
		Res Result
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	return r.Err, r.Res
}

func TestFileSizeLimit(t *testing.T) {
	t.Run("refused before writing", func(t *testing.T) {
		p := journal(t, firstLine)
		before := snap(t, p)
		msg, res := runRlimitHelper(t, p, 1000, 2000, false)
		if !strings.Contains(msg, "file size limit") || !strings.Contains(msg, p) || res.Bytes != 0 {
			t.Errorf("err = %q, res = %+v", msg, res)
		}
		assertUnchanged(t, p, before)
		assertNoLock(t, p)
	})
	t.Run("kernel EFBIG", func(t *testing.T) {
		// The file is already over the limit: write(2) fails with EFBIG
		// (SIGXFSZ is ignored) and writes nothing.
		p := journal(t, firstLine)
		before := snap(t, p)
		msg, res := runRlimitHelper(t, p, 10, 100, true)
		if !strings.Contains(msg, "file size limit") || !strings.Contains(msg, "file too large") || res.Bytes != 0 {
			t.Errorf("err = %q, res = %+v", msg, res)
		}
		assertUnchanged(t, p, before)
		assertNoLock(t, p)
	})
	t.Run("kernel short write", func(t *testing.T) {
		// Without the pre-check the kernel writes up to the limit; Append
		// must report the short write rather than success.
		p := journal(t, firstLine)
		limit := len(firstLine) + 50
		msg, res := runRlimitHelper(t, p, limit, 100, true)
		if !strings.Contains(msg, fmt.Sprintf("short write to %s: 50 of 101 bytes written (disk full or file size limit?)", p)) || res.Bytes != 50 {
			t.Errorf("err = %q, res = %+v", msg, res)
		}
		assertNoLock(t, p)
	})
}

// checkSeqJournal verifies that every line of p is a complete seqRecord,
// that seqs are exactly 1..len with no duplicates, and that each writer in
// want wrote n = 0..want[writer]-1 in order.
func checkSeqJournal(t *testing.T, p string, want map[string]int) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("journal does not end in a newline")
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	total := 0
	for _, n := range want {
		total += n
	}
	if len(lines) != total {
		t.Errorf("%d lines, want %d", len(lines), total)
	}
	next := map[string]int{}
	for i, l := range lines {
		var r seqRecord
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || dec.More() {
			t.Errorf("line %d %q: torn or invalid: %v", i+1, l, err)
			continue
		}
		if r.Seq != i+1 {
			t.Errorf("line %d has seq %d (lost mutual exclusion)", i+1, r.Seq)
		}
		if r.N != next[r.Writer] {
			t.Errorf("line %d: writer %s n=%d, want %d", i+1, r.Writer, r.N, next[r.Writer])
		}
		next[r.Writer] = r.N + 1
	}
	for w, n := range want {
		if next[w] != n {
			t.Errorf("writer %s: %d records, want %d", w, next[w], n)
		}
	}
}

func TestConcurrentAppends(t *testing.T) {
	const perWriter = 200
	p := journal(t, "")
	// Start with a stale lock left by a dead writer, so that all writers
	// (4 processes) also race to take it over.
	if err := os.Mkdir(p+".lock", 0o777); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-11 * time.Second)
	os.Chtimes(p+".lock", old, old)
	want := map[string]int{}
	start := time.Now()

	var procs []*exec.Cmd
	for k := range 3 {
		id := fmt.Sprintf("proc-%d", k)
		want[id] = perWriter
		cmd := helperCmd(t, "append", "REWIND_HELPER_FILE="+p, "REWIND_HELPER_ID="+id, fmt.Sprint("REWIND_HELPER_N=", perWriter))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	var wg sync.WaitGroup
	for k := range 8 {
		id := fmt.Sprintf("goroutine-%d", k)
		want[id] = perWriter
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				if err := appendSeq(p, id, i, Options{}); err != nil {
					t.Errorf("%s: %v", id, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range procs {
		if err := c.Wait(); err != nil {
			t.Errorf("helper process: %v", err)
		}
	}
	t.Logf("%d locked appends in %v", 11*perWriter, time.Since(start).Round(time.Millisecond))
	checkSeqJournal(t, p, want)
	assertNoLock(t, p)
}
