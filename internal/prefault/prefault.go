// Package prefault maps in the pages of a new large allocation with one
// system call, before it is written: a first write to each page of it
// would otherwise fault once a page. On a virtual machine that traps
// every page fault that costs 11-13 µs a page, against 0.5 µs a page
// mapped in at once (session 34's machine, BENCHMARKS.md), and the index
// of a gigabyte journal writes about 4,000 new pages.
//
// Slice only maps in memory that the slice's backing array already holds
// (the pages wholly inside it): it changes no byte of it and no other
// allocation, and it costs a memory that is already mapped in a walk of
// its page table. Where the system cannot do it (not Linux, or Linux
// before 5.14), Slice does nothing. It is safe for concurrent use.
package prefault

import (
	"runtime"
	"unsafe"
)

// Min is the smallest backing array, in bytes, that Slice maps in: below
// it, the system call costs more than the faults it saves.
const Min = 64 << 10

// pageSize is the smallest page size of the systems rewind runs on.
const pageSize = 4 << 10

// Slice maps in the pages wholly inside the backing array of s, up to its
// capacity, when that is at least Min bytes. Call it right after making s,
// before writing to it.
func Slice[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n < Min {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s[:1])))
	lo := (start + pageSize - 1) &^ (pageSize - 1)
	hi := (start + n) &^ (pageSize - 1)
	if hi > lo {
		populate(lo, hi-lo)
	}
	runtime.KeepAlive(s)
}
