package prefault

import (
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// unsupported is set once madvise has refused MADV_POPULATE_WRITE (a
// kernel before 5.14), so that Slice stops asking.
var unsupported atomic.Bool

// populate asks the kernel to map in n bytes from addr, writable, with
// madvise(MADV_POPULATE_WRITE).
func populate(addr, n uintptr) {
	if unsupported.Load() {
		return
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, n, unix.MADV_POPULATE_WRITE)
	if errno == syscall.EINVAL {
		unsupported.Store(true)
	}
}
