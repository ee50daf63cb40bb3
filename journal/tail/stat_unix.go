//go:build unix

package tail

import (
	"io/fs"
	"syscall"
)

// nlink returns the number of names fi's file has; 0 once it was deleted.
func nlink(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
