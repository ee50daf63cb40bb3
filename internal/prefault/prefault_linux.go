package prefault

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// unsupported is set once madvise has refused MADV_POPULATE_WRITE (a
// kernel before 5.14), so that mapIn stops asking.
var unsupported atomic.Bool

// populate maps in the pages of b, writable, with
// madvise(MADV_POPULATE_WRITE); b is page-aligned.
func populate(b []byte) {
	if unsupported.Load() {
		return
	}
	if err := unix.Madvise(b, unix.MADV_POPULATE_WRITE); errors.Is(err, unix.EINVAL) {
		unsupported.Store(true)
	}
}

// adviseHuge advises the whole huge pages of b as MADV_HUGEPAGE and
// reports whether the system took the advice (it refuses it when it has
// no transparent huge pages).
func adviseHuge(b []byte) bool {
	h := hugeInterior(b)
	return len(h) > 0 && unix.Madvise(h, unix.MADV_HUGEPAGE) == nil
}
