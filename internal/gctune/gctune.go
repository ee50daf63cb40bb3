// Package gctune sets the garbage collector's GOGC after each collection
// from the heap that was live at its end, so that a process whose live
// heap is small collects rarely and one whose live heap is large keeps a
// small margin above it.
//
// A fixed GOGC trades one for the other: at 25, rewind's peak memory on a
// 1 GB journal stays under 128 MB, but a fold whose live heap is a few
// megabytes collects every few hundred kilobytes it allocates; at 100 it
// collects a quarter as often, and the heap of a large fold grows to
// twice what is live.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Percent returns the GOGC that lets a heap of live bytes grow to budget
// bytes before the next collection, within [lo, hi] (percent): hi while
// the live heap is at most budget/(1+hi/100), down to lo once it is
// budget/(1+lo/100) or more.
func Percent(live, budget uint64, lo, hi int) int {
	if live == 0 {
		return hi
	}
	if live >= budget {
		return lo
	}
	p := (budget - live) * 100 / live
	if p > uint64(hi) {
		return hi
	}
	if p < uint64(lo) {
		return lo
	}
	return int(p)
}

// Start sets GOGC to hi, then after every collection to Percent of the
// heap live at its end (runtime/metrics /gc/heap/live:bytes), budget (in
// bytes), lo and hi. It is meant to be called once, by main, when the
// environment sets no GOGC; later calls do nothing. The setting runs on
// the runtime's cleanup goroutine, a few microseconds per collection.
func Start(budget uint64, lo, hi int) {
	once.Do(func() {
		t := &tuner{budget: budget, lo: lo, hi: hi, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
		debug.SetGCPercent(hi)
		t.arm()
	})
}

var once sync.Once

type tuner struct {
	budget uint64
	lo, hi int
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
			debug.SetGCPercent(Percent(v.Uint64(), t.budget, t.lo, t.hi))
		}
		t.arm()
	}, t)
}
