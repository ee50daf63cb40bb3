//go:build !linux

package lockfile

import (
	"errors"
	"io/fs"
	"os"
)

// renameNoReplace renames oldpath to newpath, failing if newpath exists.
// Without renameat2 the check and the rename are two steps.
func renameNoReplace(oldpath, newpath string) error {
	if _, err := os.Lstat(newpath); !errors.Is(err, fs.ErrNotExist) {
		return fs.ErrExist
	}
	return os.Rename(oldpath, newpath)
}
