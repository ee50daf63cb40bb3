package prefault

import (
	"runtime"
	"unsafe"
)

// HugePage is the size of a transparent huge page on the systems rewind
// runs on (amd64 and arm64 with 4 KiB pages), in bytes.
const HugePage = 2 << 20

// HugeHeap asks the system to back the memory the Go heap grows into next,
// about n bytes, with transparent huge pages, and reports whether it
// could ask (Linux with transparent huge pages built in; whether it gets
// them is the system's transparent_hugepage setting: "madvise", the
// default of most distributions, or "always").
//
// The Go runtime does not ask for huge pages for its heap, so with
// "madvise" each new 4 KiB page of a growing heap costs a fault: on a
// virtual machine that traps them, 11-13 µs each (see Make), and the fold
// of a gigabyte journal touches 20,000 to 25,000 new pages. With huge
// pages a fault maps in 2 MiB; the cost is memory: the heap's pages are
// mapped in 2 MiB at a time, so a heap whose live objects are spread
// thinly is resident by more (see BENCHMARKS.md for both).
//
// It does so by making an object of n bytes, which makes the runtime map
// that much more address space for its heap (the pages stay untouched:
// the runtime knows fresh memory is zero), advising the whole pages of it
// (MADV_HUGEPAGE), and collecting it at once (runtime.GC), so that the
// allocations that follow reuse those addresses: the runtime's page
// allocator takes the lowest free addresses first. It costs a collection
// and two system calls, a millisecond or less on a small heap, so it is
// for commands about to read a large journal. Safe for concurrent use; a
// second call advises the next n bytes.
func HugeHeap(n int) bool {
	if n < HugePage {
		return false
	}
	b := make([]byte, n)
	ok := adviseHuge(b)
	runtime.KeepAlive(b)
	runtime.GC() // b is unreachable now: this frees its pages for reuse
	return ok
}

// hugeInterior returns the whole huge pages inside b.
func hugeInterior(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start+HugePage-1)&^(HugePage-1) - start
	hi := (start+uintptr(len(b)))&^(HugePage-1) - start
	if hi <= lo {
		return nil
	}
	return b[lo:hi]
}
