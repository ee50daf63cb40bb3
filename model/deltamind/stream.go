package deltamind

import "github.com/rewind-tui/rewind/model"

// StreamView is View with the items, rejected lines and disagreements as
// model.Lazy values, each object made when it is written, so that `rewind
// state` on a long provenance.jsonl holds one item's object at a time, not
// millions. Written out it gives View's bytes. It takes the lineage's lock
// once per object, so it may be written while the lineage grows.
func (format) StreamView(s model.State) model.Object {
	st, ok := s.(*state)
	if !ok || st == nil {
		if s == nil {
			return Format.Init().View()
		}
		return s.View()
	}
	l := st.lin
	lazy := func(n int, object func(i int) model.Object) model.Lazy {
		return model.Lazy{Len: n, Each: func(yield func(any) bool) {
			for i := range n {
				l.mu.Lock()
				o := object(i)
				l.mu.Unlock()
				if !yield(o) {
					return
				}
			}
		}}
	}
	items := lazy(int(st.nItems), func(i int) model.Object { return l.at(int32(i), st.v).object(&l.mem) })
	rej := lazy(int(st.nRejected), func(i int) model.Object { return l.rejected[i].object(&l.mem) })
	dis := lazy(int(st.nDisagreements), func(i int) model.Object { return l.disagreements[i].object(&l.mem) })
	return st.view(items, rej, dis)
}
