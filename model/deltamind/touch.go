package deltamind

import (
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

var _ replay.Toucher = (*state)(nil)

// Touched returns the paths of the state JSON (model.StateJSON without
// "at") that differ between prev and s, the paths replay.Diff would report
// between their views, for replay's blame records and the TUI's change
// marks (replay.Toucher). When prev is an earlier version of s's lineage
// (s was folded from prev, or refolded the same way), only the items the
// lines between them changed are built, from the lineage's record of
// which item each line touched; for any other prev both views are built
// and diffed.
func (s *state) Touched(prev model.State) []replay.Path {
	p, ok := prev.(*state)
	if !ok || p == nil || p.lin != s.lin || p.v > s.v {
		return replay.DiffPaths(nil, replay.StateView(Format, prev), replay.StateView(Format, s))
	}
	l := s.lin
	var out []replay.Path
	if p.seq != s.seq {
		out = append(out, replay.Path{"seq"})
	}
	var idx []int32
	switch {
	case s.seq == p.seq+1:
		idx = []int32{s.item}
	case s.seq > p.seq:
		l.mu.Lock()
		for i := range s.nItems {
			if int64(l.version(i, s.seq)) >= p.seq {
				idx = append(idx, i)
			}
		}
		l.mu.Unlock()
	}
	d := l.plain()
	defer d.putPlain()
	for _, i := range idx {
		if i >= p.nItems {
			out = append(out, replay.Path{"items", int(i)})
			continue
		}
		a := d.item(i, p.seq)
		ao := a.object() // before the next item, which reuses its memory
		b := d.item(i, s.seq)
		out = replay.DiffPaths(out, ao, b.object(), "items", int(i))
	}
	for k := p.nRejected; k < s.nRejected; k++ {
		out = append(out, replay.Path{"rejected", int(k)})
	}
	if p.seq != s.seq {
		out = append(out, replay.Path{"deltas"})
	}
	if p.checkpoint != s.checkpoint {
		out = replay.DiffPaths(out, p.checkpointObject(), s.checkpointObject(), "checkpoint")
	}
	for k := p.nDisagreements; k < s.nDisagreements; k++ {
		out = append(out, replay.Path{"disagreements", int(k)})
	}
	return out
}
