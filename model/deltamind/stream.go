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
// (1 GB journal, rewind state on 2 CPUs: 4.5 s with Each, 4.0 s).
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
			it := l.decoder(0).item(int32(i), st.seq)
			return it.object()
		}}
	entries := func(n int32, disagreement bool) model.Lazy {
		return model.Lazy{Len: int(n), Each: func(yield func(any) bool) {
			d := l.decoder(walkWin)
			for i := range int(n) {
				if !yield(d.entry(l.rec(disagreement, i), disagreement)) {
					return
				}
			}
		}, At: func(i int) any { return l.decoder(0).entry(l.rec(disagreement, i), disagreement) }}
	}
	return st.view(items, entries(st.nRejected, false), entries(st.nDisagreements, true))
}

// partWin is the largest window of itemParts' walk: walkWin, and smaller
// in tests, whose journals are too small for windows of walkWin to be
// reused.
var partWin = walkWin

// streamBatch is how many items a goroutine of eachItem decodes at a time
// (about 1 MiB of a generated journal's lines): few enough that the
// objects waiting to be written cost the collector little.
const streamBatch = 2048

// itemParts calls yield with the items cut into parts of streamBatch
// items, in order, until it returns false: each part decodes its items
// (through a decoder of its own that shares one walk's windows) when it
// runs, so a writer may decode and write several parts at the same time.
// A part's items are itemText appenders, or for an item with sourceTurn
// offsets its object made in scratch space of the part's own (objectIn):
// each is valid until the yield call that gets it returns.
func (s *state) itemParts(yield func(part func(yield func(any) bool)) bool) {
	n := int(s.nItems)
	d := s.lin.decoder(partWin).reusing()
	for lo := 0; lo < n; lo += streamBatch {
		hi := min(lo+streamBatch, n)
		part := func(yield func(any) bool) {
			d, sc := d.sharing(), &itemScratch{}
			defer d.done()
			var it itemVal
			for i := lo; i < hi; i++ {
				it = d.item(int32(i), s.seq)
				var v any = itemText{&it}
				if !it.appendable() {
					v = it.objectIn(sc)
				}
				if !yield(v) {
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
