// Package gctune sets the garbage collector's GOGC (and, when asked, a
// memory limit) after each collection from the heap that was live at its
// end, so that a process whose live heap is small collects rarely and one
// whose live heap is large keeps a small margin above it.
//
// A fixed GOGC trades one for the other: at 25, rewind's peak memory on a
// 1 GB journal stays under 128 MB, but a fold whose live heap is a few
// megabytes collects every few hundred kilobytes it allocates; at 100 it
// collects a quarter as often, and the heap of a large fold grows to
// twice what is live.
//
// GOGC counts only the heap's objects. The memory limit counts what the
// runtime holds besides: the free pages it keeps for reuse (13 MiB in the
// TUI at the end of 1 GB of Durable Stream), stacks and metadata. While
// the live heap is well under it, it keeps the process's resident memory
// under a fixed size.
package gctune

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Limits are what the tuner keeps the heap within, in bytes and percent.
type Limits struct {
	// Budget is the heap a small live heap may grow to before the next
	// collection, with a GOGC up to Hi; once the live heap is
	// Budget/(1+Lo/100) or more, the heap grows by Lo percent of it.
	Budget uint64
	Lo, Hi int
}

// Percent returns the GOGC that lets a heap of live bytes grow to l.Budget
// bytes before the next collection, within [l.Lo, l.Hi] (percent): l.Hi
// while the live heap is at most Budget/(1+Hi/100), down to l.Lo once it
// is Budget/(1+Lo/100) or more.
func Percent(live uint64, l Limits) int {
	if live == 0 {
		return l.Hi
	}
	if live >= l.Budget {
		return l.Lo
	}
	return min(max(int((l.Budget-live)*100/live), l.Lo), l.Hi)
}

// MemoryLimit returns the memory limit (bytes, for debug.SetMemoryLimit)
// that LimitMemory(memory) sets for a heap of live bytes: memory while
// live is under nine tenths of it, and math.MaxInt64 (no limit) otherwise
// or when memory is 0.
func MemoryLimit(live, memory uint64) int64 {
	if memory == 0 || live >= memory/10*9 {
		return math.MaxInt64
	}
	return int64(memory)
}

// Start sets GOGC to l.Hi, then after every collection to Percent of the
// heap live at its end (runtime/metrics /gc/heap/live:bytes) and l, and,
// once LimitMemory has asked for a memory limit, that limit to
// MemoryLimit of it. It is meant to be called once, by main, when the
// environment sets no GOGC; later calls do nothing. The settings run on
// the runtime's cleanup goroutine, a few microseconds per collection.
func Start(l Limits) {
	once.Do(func() {
		t := &tuner{l: l, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
		debug.SetGCPercent(l.Hi)
		t.arm()
		the.Store(t)
	})
}

// LimitMemory sets a soft limit of memory bytes on all that the Go
// runtime holds (runtime/debug.SetMemoryLimit: the heap, its free pages
// not yet returned to the OS, stacks, metadata) while the live heap is
// under nine tenths of it: the collector then runs early enough, and
// returns free pages soon enough, to keep within it. Past nine tenths the
// limit is lifted, since the collector would run almost without a pause
// to keep it, until a collection finds the live heap under it again. A
// long-lived process whose resident memory matters more than the time of
// its collections sets it (the TUI); LimitMemory(0) removes it. It does
// nothing when the environment sets GOMEMLIMIT or Start has not run (GOGC
// set). Safe for concurrent use.
func LimitMemory(memory uint64) {
	t := the.Load()
	if t == nil || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	t.memory.Store(memory)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(MemoryLimit(live[0].Value.Uint64(), memory))
	}
}

var (
	once sync.Once
	the  atomic.Pointer[tuner]
)

type tuner struct {
	l      Limits
	memory atomic.Uint64 // LimitMemory's, or 0
	sample []metrics.Sample
}

// sentinel is an object that only a collection frees; its cleanup tunes
// and makes the next one. It holds a pointer so that the allocator never
// packs it with others (a tiny object's cleanup may never run).
type sentinel struct{ _ *int }

func (t *tuner) arm() {
	runtime.AddCleanup(new(sentinel), func(t *tuner) {
		metrics.Read(t.sample)
		if v := t.sample[0].Value; v.Kind() == metrics.KindUint64 {
			live := v.Uint64()
			debug.SetGCPercent(Percent(live, t.l))
			if m := t.memory.Load(); m > 0 {
				debug.SetMemoryLimit(MemoryLimit(live, m))
			}
		}
		t.arm()
	}, t)
}
