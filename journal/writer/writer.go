// Package writer is the only code in rewind that writes to an agent's
// journal. It appends one JSON record per call, under the same
// proper-lockfile protocol the agent runtimes use (package lockfile), with
// a single write(2) on an O_APPEND file descriptor.
//
// It never creates, truncates, renames, rewrites or repairs a journal. It
// refuses to write to a file that does not look like JSONL, to a missing
// file, to a file that is not a regular file, and through a symbolic link
// that leads outside the journal's directory.
//
// Importing this package makes the process ignore SIGXFSZ, so that
// exceeding the file size limit (ulimit -f) produces an EFBIG error instead
// of killing the process.
package writer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rewind-tui/rewind/journal/lockfile"
)

func init() {
	signal.Ignore(syscall.SIGXFSZ)
}

// Options configure [Append].
type Options struct {
	// Lock configures the journal lock. Its Stale must equal the stale
	// value of the journal's other writers (proper-lockfile default 10 s,
	// which the zero value gives).
	Lock lockfile.Options
	// Fsync makes Append call fsync(2) on the journal after writing.
	Fsync bool
}

// Result describes a record written by [Append].
type Result struct {
	// Offset is the byte offset in the journal at which the record (after
	// any newline prefix) starts.
	Offset int64
	// Bytes is the number of bytes written, including the newline prefix
	// and the trailing newline. It is 0 if nothing was written.
	Bytes int
	// PrefixedNewline reports whether a "\n" was written before the record
	// because the journal did not end in one (a torn last line).
	PrefixedNewline bool
}

// RefusedError is returned when Append or WriteFileAtomic will not write to
// a path at all because of what the path is. Nothing was written.
type RefusedError struct {
	Path   string // the path as given
	Reason string // plain-words explanation
}

// Error returns "refusing to write to PATH: REASON".
func (e *RefusedError) Error() string {
	return fmt.Sprintf("refusing to write to %s: %s", e.Path, e.Reason)
}

func refuse(path, format string, args ...any) error {
	return &RefusedError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// maxRebuilds bounds how often Append calls build again because the
// journal grew between build and the write (a writer that ignores the lock).
const maxRebuilds = 5

// testHookSkipLimitCheck disables the RLIMIT_FSIZE pre-check (tests only).
var testHookSkipLimitCheck bool

// Append appends one record to the journal at path and returns where it was
// written.
//
// Append first checks path and refuses, with a *RefusedError, if the file
// does not exist (it never creates one), is not a regular file, is reached
// through a symbolic link whose target lies outside the directory that
// contains path, or is not in JSONL form: it starts with a byte-order mark,
// its first non-whitespace byte is "[", or it was pretty-printed (its first
// 10 bytes contain "\n  " or "\n{" and its first line is not a complete
// JSON value). These are Delta Engine's checks, slightly relaxed so that a
// journal starting with a short line like "{}" is accepted.
//
// It then takes the journal's lock (see package lockfile and o.Lock); if
// another writer holds it for longer than o.Lock.Wait, the error is a
// *lockfile.HeldError. Under the lock it opens the file O_WRONLY|O_APPEND,
// checks that the descriptor refers to the file path now names, and calls
// build with the current size of the journal in bytes. build must decide,
// from the journal's first size bytes, whether to write, and return the
// record: one JSON object, without a trailing newline (a single trailing
// "\n" is tolerated and removed). If build returns an error, Append writes
// nothing and returns that error unchanged. build may be called again
// (with the new size) if the journal grew while it ran, which only happens
// if some writer ignores the lock.
//
// The record is written with a single write(2), followed by "\n" and, if
// the journal did not end in "\n", preceded by "\n". A write that would
// exceed the process's file size limit is refused before writing. A short
// write, EFBIG, ENOSPC, EROFS or a permission error is reported in plain
// words naming the path. With o.Fsync the journal is fsynced. If the lock
// turns out to have been compromised (taken over by another process)
// before the write, nothing is written and the error wraps
// lockfile.ErrCompromised; if it was compromised after the write started,
// the error says so and Result describes the record that was written.
//
// In general, if Append returns an error and Result.Bytes > 0, the record
// (or, after a short write, part of it) is in the journal. The lock is
// always released before Append returns.
//
// Append is safe for concurrent use; concurrent calls on one journal are
// serialised by the lock.
func Append(ctx context.Context, path string, o Options, build func(size int64) ([]byte, error)) (res Result, err error) {
	if err := checkTarget(path); err != nil {
		return Result{}, err
	}
	if err := checkJSONLPath(path); err != nil {
		return Result{}, err
	}

	lk, err := lockfile.Acquire(ctx, path, o.Lock)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Result{}, refuse(path, "the file does not exist (rewind never creates journals)")
		}
		return Result{}, fmt.Errorf("writer: %s: %w", path, err)
	}
	defer func() {
		rerr := lk.Release()
		// A compromise that happens after the post-write Validate did not
		// affect the write; one found earlier is already in err.
		if rerr == nil || errors.Is(rerr, lockfile.ErrCompromised) {
			return
		}
		if err == nil {
			if res.Bytes > 0 {
				err = fmt.Errorf("writer: the record was written to %s at offset %d, but releasing the lock failed: %w", path, res.Offset, rerr)
			} else {
				err = fmt.Errorf("writer: %s: releasing the lock: %w", path, rerr)
			}
		}
	}()
	return appendLocked(path, o, lk, build)
}

// appendLocked does the part of Append that runs under the lock.
func appendLocked(path string, o Options, lk *lockfile.Lock, build func(int64) ([]byte, error)) (Result, error) {
	// Re-check: the path may have been swapped while we waited.
	if err := checkTarget(path); err != nil {
		return Result{}, err
	}
	wfd, err := openNoFollowFIFO(path, syscall.O_WRONLY|syscall.O_APPEND)
	if err != nil {
		return Result{}, openError(path, "for appending", err)
	}
	defer syscall.Close(wfd)
	rfd, err := openNoFollowFIFO(path, syscall.O_RDONLY)
	if err != nil {
		return Result{}, openError(path, "for reading", err)
	}
	defer syscall.Close(rfd)

	var wst, rst, pst syscall.Stat_t
	if err := syscall.Fstat(wfd, &wst); err != nil {
		return Result{}, fmt.Errorf("writer: fstat %s: %w", path, err)
	}
	if err := syscall.Fstat(rfd, &rst); err != nil {
		return Result{}, fmt.Errorf("writer: fstat %s: %w", path, err)
	}
	if err := syscall.Stat(path, &pst); err != nil {
		return Result{}, fmt.Errorf("writer: stat %s: %w", path, err)
	}
	if wst.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return Result{}, refuse(path, "it is not a regular file")
	}
	if wst.Dev != pst.Dev || wst.Ino != pst.Ino || rst.Dev != pst.Dev || rst.Ino != pst.Ino {
		return Result{}, refuse(path, "the file was replaced while it was being opened (a different inode); reload the journal")
	}
	if err := checkJSONLFd(path, rfd); err != nil {
		return Result{}, err
	}

	var rec []byte
	size := wst.Size
	for attempt := 0; ; attempt++ {
		rec, err = build(size)
		if err != nil {
			return Result{}, err
		}
		if err := syscall.Fstat(wfd, &wst); err != nil {
			return Result{}, fmt.Errorf("writer: fstat %s: %w", path, err)
		}
		if err := syscall.Stat(path, &pst); err != nil {
			return Result{}, openError(path, "(stat)", err)
		}
		if wst.Dev != pst.Dev || wst.Ino != pst.Ino {
			return Result{}, refuse(path, "the file was replaced (renamed over or recreated) while the record was being prepared; reload the journal")
		}
		if wst.Size == size {
			break
		}
		if wst.Size < size {
			return Result{}, refuse(path, "the journal shrank from %d to %d bytes while the record was being prepared (truncated or rewritten by someone)", size, wst.Size)
		}
		if attempt == maxRebuilds {
			return Result{}, fmt.Errorf("writer: %s keeps growing while the lock is held (a writer that ignores the lock?); try again", path)
		}
		size = wst.Size
	}
	rec = bytes.TrimSuffix(rec, []byte("\n"))
	if err := checkRecord(rec); err != nil {
		return Result{}, fmt.Errorf("writer: %s: %w", path, err)
	}

	buf := make([]byte, 0, len(rec)+2)
	prefixed := false
	if size > 0 {
		var last [1]byte
		n, err := syscall.Pread(rfd, last[:], size-1)
		if err != nil || n != 1 {
			return Result{}, fmt.Errorf("writer: reading the last byte of %s: %v", path, errOr(err, io.ErrUnexpectedEOF))
		}
		if last[0] != '\n' {
			buf = append(buf, '\n')
			prefixed = true
		}
	}
	buf = append(buf, rec...)
	buf = append(buf, '\n')

	// A write past RLIMIT_FSIZE would be cut short (leaving a partial
	// line) or fail with EFBIG; refuse it beforehand.
	if !testHookSkipLimitCheck {
		var rl syscall.Rlimit
		finite := func(v uint64) bool { return v < 1<<62 } // RLIM_INFINITY is ^0 on Linux, 1<<63-1 on BSDs
		if syscall.Getrlimit(syscall.RLIMIT_FSIZE, &rl) == nil && finite(uint64(rl.Cur)) &&
			uint64(size)+uint64(len(buf)) > uint64(rl.Cur) {
			return Result{}, fmt.Errorf("writer: not writing to %s: the record (%d bytes) would exceed the file size limit of %d bytes (ulimit -f); the journal is unchanged",
				path, len(buf), rl.Cur)
		}
	}

	if err := lk.Validate(); err != nil {
		return Result{}, fmt.Errorf("writer: not writing to %s: the journal lock was lost before writing: %w", path, err)
	}

	n, err := writeOnce(wfd, buf)
	res := Result{Bytes: max(n, 0), PrefixedNewline: prefixed}
	if n > 0 {
		if end, serr := syscall.Seek(wfd, 0, io.SeekCurrent); serr == nil {
			res.Offset = end - int64(n)
			if prefixed {
				res.Offset++
			}
		}
	}
	if err != nil {
		return res, writeError(path, err)
	}
	if n != len(buf) {
		return res, fmt.Errorf("writer: short write to %s: %d of %d bytes written (disk full or file size limit?); the journal now ends in a partial line, which the next writer will fence off with a newline",
			path, n, len(buf))
	}
	if o.Fsync {
		if err := syscall.Fsync(wfd); err != nil {
			return res, fmt.Errorf("writer: the record was written to %s but fsync failed, so it may not be on disk: %w", path, err)
		}
	}
	if err := lk.Validate(); err != nil {
		return res, fmt.Errorf("writer: the record was written to %s at offset %d, but the journal lock was lost meanwhile, so another writer may have written at the same time; check the journal: %w",
			path, res.Offset, err)
	}
	return res, nil
}

func errOr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// writeOnce issues one write(2), repeating it only if it was interrupted
// before writing anything.
func writeOnce(fd int, b []byte) (int, error) {
	for {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		return n, err
	}
}

// openNoFollowFIFO opens path with flags plus O_CLOEXEC|O_NOCTTY|O_NONBLOCK
// (so that a FIFO swapped in cannot block us; O_NONBLOCK has no effect on
// regular files).
func openNoFollowFIFO(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		return fd, err
	}
}

func openError(path, what string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse(path, "the file does not exist (it was removed or renamed)")
	case err == syscall.EROFS:
		return fmt.Errorf("writer: cannot open %s %s: the file system is read-only: %w", path, what, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("writer: cannot open %s %s: permission denied: %w", path, what, err)
	}
	return fmt.Errorf("writer: cannot open %s %s: %w", path, what, err)
}

func writeError(path string, err error) error {
	var why string
	switch err {
	case syscall.EFBIG:
		why = "the file size limit (ulimit -f) or the file system's maximum file size was reached"
	case syscall.ENOSPC:
		why = "the disk is full"
	case syscall.EDQUOT:
		why = "the disk quota is exhausted"
	case syscall.EROFS:
		why = "the file system is read-only"
	case syscall.EACCES, syscall.EPERM:
		why = "permission denied"
	case syscall.EIO:
		why = "an I/O error occurred"
	default:
		why = "write failed"
	}
	return fmt.Errorf("writer: could not append to %s: %s; the journal is unchanged: %w", path, why, err)
}

// checkRecord checks that rec is one JSON object on one line.
func checkRecord(rec []byte) error {
	if len(rec) == 0 {
		return errors.New("empty record")
	}
	if bytes.ContainsAny(rec, "\n\r") {
		return errors.New("record contains a line break; records must be single-line JSON")
	}
	if rec[0] != '{' || !json.Valid(rec) {
		return errors.New("record is not a single JSON object")
	}
	return nil
}

// checkTarget refuses a missing path, a non-regular file, and a symbolic
// link (possibly a chain) whose final target is outside the directory of
// path.
func checkTarget(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return refuse(path, "the file does not exist (rewind never creates journals)")
	}
	if err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if err := checkSymlinkInside(path, filepath.Dir(path)); err != nil {
			return err
		}
		fi, err = os.Stat(path)
		if err != nil {
			return refuse(path, "the symbolic link cannot be followed: %v", err)
		}
	}
	if !fi.Mode().IsRegular() {
		return refuse(path, "it is not a regular file (%v)", fi.Mode().Type())
	}
	return nil
}

// checkSymlinkInside refuses path, a symbolic link, if its resolved target
// is not inside dir (after resolving dir's own symbolic links).
func checkSymlinkInside(path, dir string) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return refuse(path, "it is a symbolic link to a file that does not exist")
		}
		return refuse(path, "the symbolic link cannot be resolved: %v", err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("writer: resolving %s: %w", dir, err)
	}
	target, _ = filepath.Abs(target)
	realDir, _ = filepath.Abs(realDir)
	rel, err := filepath.Rel(realDir, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return refuse(path, "it is a symbolic link to %s, which is outside the directory %s", target, dir)
	}
	return nil
}

// checkJSONLPath applies checkJSONLFd to the file at path.
func checkJSONLPath(path string) error {
	fd, err := openNoFollowFIFO(path, syscall.O_RDONLY)
	if err != nil {
		return openError(path, "for reading", err)
	}
	defer syscall.Close(fd)
	return checkJSONLFd(path, fd)
}

// jsonlHeadSize is how much of the file's start checkJSONLFd inspects.
const jsonlHeadSize = 4096

// checkJSONLFd refuses a file that is not in JSONL form: its first
// non-whitespace byte is "[" (a JSON array), or its first 10 bytes contain
// "\n  " or "\n{" and its first line is not a complete JSON value
// (pretty-printed JSON) — the checks Delta Engine applies — or it starts
// with a byte-order mark.
func checkJSONLFd(path string, fd int) error {
	head := make([]byte, jsonlHeadSize)
	n, err := syscall.Pread(fd, head, 0)
	if err != nil {
		return fmt.Errorf("writer: reading %s: %w", path, err)
	}
	head = head[:n]
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		return refuse(path, "it starts with a byte-order mark, so it is not plain JSONL")
	}
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return refuse(path, "it contains a JSON array, not JSON lines (was it reformatted by an editor?)")
	}
	first := head[:min(len(head), 10)]
	if bytes.Contains(first, []byte("\n  ")) || bytes.Contains(first, []byte("\n{")) {
		// Delta Engine's check; unlike Delta Engine, accept a file whose
		// short first line is a complete JSON value (e.g. "{}\n{...").
		line, _, complete := bytes.Cut(head, []byte("\n"))
		if !complete || !json.Valid(line) {
			return refuse(path, "it looks like pretty-printed JSON, not JSON lines (was it reformatted by an editor?)")
		}
	}
	return nil
}
