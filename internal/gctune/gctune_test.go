package gctune

import (
	"math"
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
		if got := Percent(tc.live, Limits{Budget: 80 * mb, Lo: 25, Hi: 100}); got != tc.want {
			t.Errorf("Percent(%d MB live, 80 MB) = %d, want %d", tc.live/mb, got, tc.want)
		}
	}
}

// testLimits are the limits the tests start the tuner with (once per
// process: later Starts do nothing).
var testLimits = Limits{Budget: 64 << 20, Lo: 25, Hi: 100}

func TestMemoryLimitIsLiftedNearIt(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live, memory uint64
		want         int64
	}{
		{0, 100 * mb, 100 * mb},
		{50 * mb, 100 * mb, 100 * mb},
		{89 * mb, 100 * mb, 100 * mb},
		{90 * mb, 100 * mb, math.MaxInt64}, // nine tenths: the collector would hardly pause
		{150 * mb, 100 * mb, math.MaxInt64},
		{10 * mb, 0, math.MaxInt64}, // no limit asked for
	} {
		if got := MemoryLimit(tc.live, tc.memory); got != tc.want {
			t.Errorf("MemoryLimit(%d MB live, %d MB) = %d, want %d", tc.live/mb, tc.memory/mb, got, tc.want)
		}
	}
}

// memLimit returns the current memory limit.
func memLimit() int64 { return debug.SetMemoryLimit(-1) }

// The TUI's limit holds while the live heap is small, is lifted once the
// heap nears it, and comes back when the heap is freed.
func TestLimitMemoryFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	Start(testLimits)
	LimitMemory(48 << 20)
	defer LimitMemory(0)
	if got := memLimit(); got != 48<<20 {
		t.Fatalf("memory limit %d right after LimitMemory(48 MiB), want 48 MiB", got)
	}
	live := make([]byte, 46<<20) // over nine tenths of 48 MiB
	for i := range live {
		live[i] = byte(i)
	}
	waitForLimit(t, "none with 46 MiB live", func(l int64) bool { return l == math.MaxInt64 })
	runtime.KeepAlive(live)
	live = nil
	waitForLimit(t, "48 MiB once the heap is freed", func(l int64) bool { return l == 48<<20 })
}

func TestLimitMemoryLeavesGOMEMLIMITAlone(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	Start(testLimits)
	before := memLimit()
	t.Setenv("GOMEMLIMIT", "1GiB")
	LimitMemory(48 << 20)
	if got := memLimit(); got != before {
		t.Errorf("memory limit %d after LimitMemory with GOMEMLIMIT set, want %d as before", got, before)
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
	waitUntil(t, "GOGC", gogc, what, ok)
}

// waitForLimit is waitFor for the memory limit.
func waitForLimit(t *testing.T, what string, ok func(int64) bool) {
	t.Helper()
	waitUntil(t, "memory limit", memLimit, what, ok)
}

// waitUntil collects until ok(get()), or fails after a few seconds saying
// that the setting called name is get() and not what.
func waitUntil[T int | int64](t *testing.T, name string, get func() T, what string, ok func(T) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(get()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s is %d, want %s", name, get(), what)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// After a collection, a process with a large live heap gets a small GOGC
// and, once that heap is freed, the largest again.
func TestStartFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Start(testLimits)
	live := make([]byte, 40<<20) // 40 MB live: 24 MB left in the budget, GOGC about 60
	for i := range live {
		live[i] = byte(i)
	}
	waitFor(t, "about 60 with 40 MB live", func(p int) bool { return p >= 45 && p <= 60 })
	runtime.KeepAlive(live)
	live = nil
	waitFor(t, "100 once the heap is freed", func(p int) bool { return p == 100 })
}
