package prefault

import (
	"bytes"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the pages of b that are mapped in (mincore).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+pageSize-1)/pageSize)
	// x/sys/unix has no Mincore on Linux: the system call itself.
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// fresh returns n bytes of new anonymous memory, none of it mapped in yet.
func fresh(t *testing.T, n int) []byte {
	t.Helper()
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(b) })
	return b
}

func TestMapInMapsInEveryPage(t *testing.T) {
	b := fresh(t, 1<<20)
	if got := resident(t, b); got != 0 {
		t.Fatalf("new memory: %d pages mapped in before mapIn, want 0", got)
	}
	mapIn(b)
	if got, want := resident(t, b), len(b)/pageSize; got != want {
		t.Fatalf("after mapIn: %d of %d pages mapped in (a kernel before 5.14 has no MADV_POPULATE_WRITE)", got, want)
	}
}

func TestMapInKeepsTheBytesAndTheRest(t *testing.T) {
	b := fresh(t, 1<<20)
	for i := range b {
		b[i] = byte(i * 7)
	}
	want := bytes.Clone(b)
	// A slice that starts and ends inside pages: only the pages wholly
	// inside it may be mapped in, and no byte changes.
	mapIn(b[100 : len(b)/2-100])
	if !bytes.Equal(b, want) {
		t.Fatal("mapIn changed the bytes of the memory it mapped in")
	}

	small := fresh(t, Min)
	mapIn(small[: 0 : Min-1])
	if got := resident(t, small); got != 0 {
		t.Fatalf("a backing array under Min bytes: %d pages mapped in, want 0", got)
	}
	part := fresh(t, 4*Min)
	mapIn(part[pageSize/2 : 2*Min+pageSize/2 : 2*Min+pageSize/2])
	// Pages 1 to 2*Min/pageSize-1 are wholly inside; 0 and 2*Min/pageSize are not.
	if got, want := resident(t, part), 2*Min/pageSize-1; got != want {
		t.Fatalf("a slice from the middle of a page: %d pages mapped in, want %d (only those wholly inside it)", got, want)
	}
}
