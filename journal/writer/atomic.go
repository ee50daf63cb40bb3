package writer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WriteFileAtomic replaces the file name in directory dir with data, so
// that readers see either the old content or all of the new, never a
// partial file. It writes a temporary file in dir, sets its permissions to
// perm, fsyncs it, renames it to name, and fsyncs dir. It is used for
// small side files such as Delta Engine's interaction/response.txt, never
// for journals.
//
// name must be a plain file name (no path separators, not "." or "..").
// dir must exist and be a directory; if dir is a symbolic link whose
// target is outside dir's parent directory, or if dir/name is a directory,
// WriteFileAtomic refuses with a *RefusedError. If dir/name is a symbolic
// link, the link itself is replaced, not its target. On error the
// temporary file is removed and dir/name is unchanged.
func WriteFileAtomic(dir, name string, data []byte, perm fs.FileMode) (err error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		return refuse(filepath.Join(dir, name), "the file name must not contain a path separator")
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return refuse(dir, "the directory does not exist")
	}
	if err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if err := checkSymlinkInside(dir, filepath.Dir(filepath.Clean(dir))); err != nil {
			return err
		}
		if fi, err = os.Stat(dir); err != nil {
			return refuse(dir, "the symbolic link cannot be followed: %v", err)
		}
	}
	if !fi.IsDir() {
		return refuse(dir, "it is not a directory")
	}
	dst := filepath.Join(dir, name)
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		return refuse(dst, "it is a directory")
	}

	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("writer: cannot create a temporary file in %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writer: writing %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("writer: chmod %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writer: fsync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writer: closing %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("writer: renaming %s to %s: %w", tmp.Name(), dst, err)
	}
	// Make the rename durable. Failure here does not undo the rename.
	if d, derr := os.Open(dir); derr == nil {
		if serr := d.Sync(); serr != nil && !errors.Is(serr, syscall.EINVAL) {
			d.Close()
			return fmt.Errorf("writer: %s was written, but fsync of directory %s failed: %w", dst, dir, serr)
		}
		d.Close()
	}
	return nil
}
