package prefault

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vma is one mapping of /proc/self/smaps: its address range and whether
// it is advised for huge pages (VmFlags "hg").
type vma struct {
	lo, hi uintptr
	huge   bool
}

func smaps(t *testing.T) []vma {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vma
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rng, _, ok := strings.Cut(line, " "); ok && strings.Count(rng, "-") == 1 && !strings.HasSuffix(rng, ":") {
			a, b, _ := strings.Cut(rng, "-")
			lo, err1 := strconv.ParseUint(a, 16, 64)
			hi, err2 := strconv.ParseUint(b, 16, 64)
			if err1 == nil && err2 == nil {
				out = append(out, vma{lo: uintptr(lo), hi: uintptr(hi)})
				continue
			}
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && len(out) > 0 {
			out[len(out)-1].huge = strings.Contains(" "+flags+" ", " hg ")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func advised(maps []vma, p uintptr) bool {
	for _, m := range maps {
		if p >= m.lo && p < m.hi {
			return m.huge
		}
	}
	return false
}

// The fold's arrays grow in chunks of 16 KiB (model/deltamind's dense):
// after HugeHeap, such chunks land in memory advised for huge pages.
func TestHugeHeapAdvisesTheMemoryTheHeapGrowsInto(t *testing.T) {
	_, err := os.Stat("/sys/kernel/mm/transparent_hugepage")
	thp := err == nil
	ok := HugeHeap(64 << 20)
	if ok != thp {
		t.Fatalf("HugeHeap reported %v on a system that has transparent huge pages: %v", ok, thp)
	}
	if !thp {
		return // nothing to advise: HugeHeap said so
	}
	chunks := make([][]uint32, 2048) // 32 MiB
	for i := range chunks {
		chunks[i] = make([]uint32, 4096)
		chunks[i][0] = uint32(i)
	}
	maps := smaps(t)
	in := 0
	for _, c := range chunks {
		if advised(maps, uintptr(unsafe.Pointer(&c[0]))) {
			in++
		}
	}
	if in < len(chunks)*9/10 {
		t.Fatalf("%d of %d chunks allocated after HugeHeap are in memory advised for huge pages, want nine in ten or more", in, len(chunks))
	}
}

func TestHugeInteriorIsTheWholeHugePagesOnly(t *testing.T) {
	b := fresh(t, 4*HugePage)
	base := uintptr(unsafe.Pointer(&b[0]))
	// Skip to the first huge page boundary in b, plus a little.
	off := int((base+HugePage-1)&^(HugePage-1)-base) + 100
	if off+2*HugePage+200 > len(b) {
		t.Fatalf("mapping too small for the test: offset %d", off)
	}
	s := b[off : off+2*HugePage+200]
	h := hugeInterior(s)
	// s runs from 100 bytes into one huge page to 300 bytes into the
	// third: only the second is wholly inside.
	if len(h) != HugePage {
		t.Fatalf("interior of 2 MiB + 200 bytes from 100 bytes into a huge page: %d bytes, want %d", len(h), HugePage)
	}
	if p := uintptr(unsafe.Pointer(&h[0])); p%HugePage != 0 || p < uintptr(unsafe.Pointer(&s[0])) {
		t.Fatalf("interior starts at %#x, not at a huge page boundary inside the slice", p)
	}
	if got := hugeInterior(b[off : off+HugePage]); got != nil {
		t.Fatalf("a slice of one huge page's length that straddles two: interior of %d bytes, want none", len(got))
	}
}
