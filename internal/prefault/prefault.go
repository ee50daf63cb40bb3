// Package prefault makes large slices whose pages are mapped in with one
// system call, before they are written: a first write to each page would
// otherwise fault once a page. On a virtual machine that traps every page
// fault that costs 11-13 µs a page, against 0.5 µs a page mapped in at
// once (session 34's machine, BENCHMARKS.md), and the index of a gigabyte
// journal writes about 4,000 new pages.
//
// Mapping in changes no byte of the memory and touches no other
// allocation (only the pages wholly inside the slice's backing array);
// on memory already mapped in it costs a walk of its page table. Where
// the system cannot do it (not Linux, or Linux before 5.14), Make is
// make. It is safe for concurrent use.
package prefault

import "unsafe"

// Min is the smallest backing array, in bytes, whose pages Make maps in:
// below it, the system call costs more than the faults it saves.
const Min = 64 << 10

// pageSize is the smallest page size of the systems rewind runs on.
const pageSize = 4 << 10

// Make returns make([]T, n, c), its backing array mapped in when it is at
// least Min bytes.
func Make[T any](n, c int) []T {
	s := make([]T, n, c)
	mapIn(s)
	return s
}

// mapIn maps in the pages wholly inside the backing array of s, up to its
// capacity, when that is at least Min bytes.
func mapIn[T any](s []T) {
	var zero T
	size := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if size < Min {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:1]))), size)
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start+pageSize-1)&^(pageSize-1) - start
	hi := (start+size)&^(pageSize-1) - start
	if hi > lo {
		populate(b[lo:hi])
	}
}
