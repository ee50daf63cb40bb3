package deltamind

import (
	"runtime"

	"github.com/rewind-tui/rewind/model"
)

// StreamView is View with the items, rejected lines and disagreements as
// model.Lazy values, each object made when it is written (its lines read
// back from the journal then), so that `rewind state` on a long
// provenance.jsonl holds a few thousand items' objects at a time, not
// millions. Written out it gives View's bytes. The items' Each decodes them
// on two goroutines when there are many (each batch of them on one, in
// order); their Parts let a writer decode and write batches on every CPU
// (1 GB journal, rewind state on 2 CPUs: 4.5 s with Each, 4.0 s). The
// rejected lines and disagreements have Parts too, whose walk reuses its
// windows (250 MB journal: 80 MB of windows made instead of 311 MB).
// Each Lazy reads through decoders of its own and takes the lineage's lock
// only to read the lineage, so it may be written on another goroutine
// while the lineage grows.
func (format) StreamView(s model.State) model.Object {
	st, ok := s.(*state)
	if !ok || st == nil {
		if s == nil {
			return Format.Init().View()
		}
		return s.View()
	}
	l := st.lin
	// Each's items may be kept; the Parts' are Transient (itemText, objectIn).
	items := model.Lazy{Len: int(st.nItems), Each: func(yield func(any) bool) { st.eachItem(yield) },
		Parts: st.itemParts, Transient: true,
		At: func(i int) any {
			d := l.plain()
			defer d.putPlain()
			it := d.item(int32(i), st.seq)
			return it.object()
		}}
	entries := func(n int32, disagreement bool) model.Lazy {
		entry := func(d *decoder, i int) any { return d.entry(l.rec(disagreement, i), disagreement) }
		return model.Lazy{Len: int(n), Each: func(yield func(any) bool) {
			d := l.decoder(walkWin)
			for i := range int(n) {
				if !yield(entry(d, i)) {
					return
				}
			}
		}, Parts: func(yield func(part func(yield func(any) bool)) bool) {
			l.parts(int(n), func(d *decoder, lo, hi int) func(i int) any {
				recs := l.recs(disagreement, lo, hi)
				var t entryText
				return func(i int) any { return d.entryIn(recs[i-lo], disagreement, &t) }
			}, yield)
		}, Transient: true, At: func(i int) any {
			d := l.plain()
			defer d.putPlain()
			return entry(d, i)
		}}
	}
	return st.view(items, entries(st.nRejected, false), entries(st.nDisagreements, true))
}

// partWin is the largest window of the parts' walk (smaller in tests,
// whose journals are too small for windows of this size to be reused):
// 2 MiB, not walkWin, since the parts' windows are reused, and a smaller
// one is still in the CPU's cache when its lines are read (1 GB journal,
// rewind state: 1.87-1.95 s with 2 MiB, 1.92-2.02 s with 1 MiB, 2.13-2.15 s
// with 512 KiB, whose later versions' lines are more often outside it,
// 2.13-2.30 s with 8 MiB, and 30 MB more memory).
var partWin = 2 << 20

// streamBatch is how many items a goroutine of eachItem decodes at a time
// (about 1 MiB of a generated journal's lines): few enough that the
// objects waiting to be written cost the collector little.
const streamBatch = 2048

// itemParts calls yield with the items cut into parts (see parts). A
// part's items are itemText appenders, or for an item with sourceTurn
// offsets its object made in scratch space of the part's own (objectIn):
// each is valid until the yield call that gets it returns.
func (s *state) itemParts(yield func(part func(yield func(any) bool)) bool) {
	s.lin.parts(int(s.nItems), func(d *decoder, lo, hi int) func(i int) any {
		sc := &itemScratch{}
		var it itemVal
		d.gather(int32(lo), int32(hi), s.seq)
		return func(i int) any {
			it = d.item(int32(i), s.seq)
			if !it.appendable() {
				return it.objectIn(sc)
			}
			return itemText{&it}
		}
	}, yield)
}

// parts calls yield with n entries (items, rejected lines or
// disagreements) cut into parts of streamBatch, in order, until it returns
// false. Each part makes its entries when it runs, with the function
// maker returns for it (entry i, read through d, for lo <= i < hi), through
// a decoder of its own that shares one walk's windows; those windows are read into again
// once no part holds them, so a walk of 1 GB reads into a few windows of
// partWin bytes at most. An entry is valid until the yield call that gets
// it returns (it may view a window), so that a writer may make and write
// several parts at the same time.
func (l *lineage) parts(n int, maker func(d *decoder, lo, hi int) func(i int) any, yield func(part func(yield func(any) bool)) bool) {
	d := l.decoder(partWin).reusing()
	for lo := 0; lo < n; lo += streamBatch {
		hi := min(lo+streamBatch, n)
		part := func(yield func(any) bool) {
			d := d.sharing()
			entry := maker(d, lo, hi)
			defer d.done()
			for i := lo; i < hi; i++ {
				if !yield(entry(i)) {
					return
				}
			}
		}
		if !yield(part) {
			return
		}
	}
}

// eachItem calls yield with the object of each item, in order, until it
// returns false. With more than one batch of items and more than one CPU,
// a second goroutine decodes every other batch (through a decoder of its
// own that shares the first one's windows), one batch ahead at most;
// eachItem returns once it has stopped.
func (s *state) eachItem(yield func(any) bool) {
	n := int(s.nItems)
	decode := func(d *decoder, b int) []any {
		objs := make([]any, 0, min(streamBatch, n-b*streamBatch))
		for i := b * streamBatch; i < min((b+1)*streamBatch, n); i++ {
			it := d.item(int32(i), s.seq)
			objs = append(objs, it.object())
		}
		return objs
	}
	batches := (n + streamBatch - 1) / streamBatch
	d := s.lin.decoder(walkWin)
	if batches < 2 || runtime.GOMAXPROCS(0) < 2 {
		for b := range batches {
			for _, o := range decode(d, b) {
				if !yield(o) {
					return
				}
			}
		}
		return
	}
	odd := make(chan []any)
	stop := make(chan struct{})
	go func() {
		defer close(odd)
		d := d.sharing()
		for b := 1; b < batches; b += 2 {
			objs := decode(d, b)
			select {
			case odd <- objs:
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range odd { // wait for it to stop
		}
	}()
	for b := range batches {
		var objs []any
		if b%2 == 0 {
			objs = decode(d, b)
		} else {
			objs = <-odd
		}
		for _, o := range objs {
			if !yield(o) {
				return
			}
		}
	}
}
