package deltamind

import "github.com/rewind-tui/rewind/model"

// StreamView is View with the items, rejected lines and disagreements as
// model.Lazy values, each object made when it is written (its lines read
// back from the journal then), so that `rewind state` on a long
// provenance.jsonl holds one item's object at a time, not millions.
// Written out it gives View's bytes. Each Lazy reads through a decoder of
// its own and takes the lineage's lock only to read the lineage, so it may
// be written on another goroutine while the lineage grows.
func (format) StreamView(s model.State) model.Object {
	st, ok := s.(*state)
	if !ok || st == nil {
		if s == nil {
			return Format.Init().View()
		}
		return s.View()
	}
	l := st.lin
	items := model.Lazy{Len: int(st.nItems), Each: func(yield func(any) bool) {
		d := l.decoder(true)
		for i := range st.nItems {
			it := d.item(i, st.seq)
			if !yield(it.object()) {
				return
			}
		}
	}}
	entries := func(n int32, disagreement bool) model.Lazy {
		return model.Lazy{Len: int(n), Each: func(yield func(any) bool) {
			d := l.decoder(true)
			for i := range int(n) {
				if !yield(d.entry(l.rec(disagreement, i), disagreement)) {
					return
				}
			}
		}}
	}
	return st.view(items, entries(st.nRejected, false), entries(st.nDisagreements, true))
}
