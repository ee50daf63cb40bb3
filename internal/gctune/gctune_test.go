package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercentKeepsTheHeapWithinTheBudget(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},        // nothing live yet
		{10 * mb, 100},  // room for twice the heap
		{40 * mb, 100},  // exactly twice: 80 MB
		{50 * mb, 60},   // 80 MB at the next collection
		{64 * mb, 25},   // 80 MB at 25%
		{70 * mb, 25},   // past the budget: never less than min
		{200 * mb, 25},  // far past it
		{80 * mb, 25},   // the budget itself
		{79 * mb, 25},   // 1% left: min
		{45 * mb, 77},   // 35/45
		{1, 100},        // a byte
		{80*mb - 1, 25}, // just under
	} {
		if got := Percent(tc.live, 80*mb, 25, 100); got != tc.want {
			t.Errorf("Percent(%d MB live, 80 MB) = %d, want %d", tc.live/mb, got, tc.want)
		}
	}
}

// gogc returns the current GOGC.
func gogc() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// waitFor collects until GOGC satisfies ok, or fails after a few seconds
// (the tuner runs on the cleanup goroutine, after a collection).
func waitFor(t *testing.T, what string, ok func(int) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(gogc()) {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC is %d, want %s", gogc(), what)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// After a collection, a process with a large live heap gets a small GOGC
// and, once that heap is freed, the largest again.
func TestStartFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Start(64<<20, 25, 100)
	live := make([]byte, 40<<20) // 40 MB live: 24 MB left in the budget, GOGC about 60
	for i := range live {
		live[i] = byte(i)
	}
	waitFor(t, "about 60 with 40 MB live", func(p int) bool { return p >= 45 && p <= 60 })
	runtime.KeepAlive(live)
	live = nil
	waitFor(t, "100 once the heap is freed", func(p int) bool { return p == 100 })
}
