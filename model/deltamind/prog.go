package deltamind

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rewind-tui/rewind/internal/skel"
)

// Programs: a layout as the views read its lines again.
//
// The fold reads each line where the index found its scalars, and knows
// its layout (the trie's leaf, lineShape); the views read the lines of
// 2.3 M items back when they write them (1 GB journal, rewind state),
// and walked the trie again for each, comparing every literal (layouts.
// match: a third of the walk's CPU). A line's bytes are checked against
// the check the fold kept of them (lineCheck) anyway, so a line the fold
// read with a layout is read again by that layout's program, which skips
// each literal by its length and each scalar to its end, comparing
// nothing; the check then says whether the line is still the one folded
// (and, when it is not, the line is read as before).

// A layoutProg is what the views need of a layout to read its lines: for
// each scalar of the line, in order, the length of the literal before it,
// its kind and its field; the length of the literal that closes the line;
// and the line's shape. Layouts that agree on these are read alike and
// share a program. Programs never change once made.
type layoutProg struct {
	steps []progStep
	last  int32
	shape lineShape
}

// A progStep is one scalar of a layoutProg and the literal before it.
type progStep struct {
	lit  int32
	kind skel.Kind
	f    field
}

// progs are the process's layoutProgs: program id k (1 to maxProgs) is
// (*list)[k-1]. An id, once given, never changes; lines of layouts past
// the first maxProgs get none (0), and are read through the trie.
var progs struct {
	mu    sync.Mutex // guards byKey and replacing list
	byKey map[string]uint8
	list  atomic.Pointer[[]*layoutProg]
}

const maxProgs = 255

// progID returns the id of p's program, making it when it is new, or 0
// when there are maxProgs already. Safe for concurrent use.
func progID(p *layoutProg) uint8 {
	key := fmt.Sprint(p.steps, p.last, p.shape) // made once per layout learned
	progs.mu.Lock()
	defer progs.mu.Unlock()
	if id, ok := progs.byKey[key]; ok {
		return id
	}
	var list []*layoutProg
	if l := progs.list.Load(); l != nil {
		list = *l
	}
	if len(list) >= maxProgs {
		return 0
	}
	list = append(list[:len(list):len(list)], p)
	progs.list.Store(&list)
	if progs.byKey == nil {
		progs.byKey = map[string]uint8{}
	}
	id := uint8(len(list))
	progs.byKey[key] = id
	return id
}

// progAt returns program id, or nil for 0 and ids not given. Safe for
// concurrent use.
func progAt(id uint8) *layoutProg {
	l := progs.list.Load()
	if id == 0 || l == nil || int(id) > len(*l) {
		return nil
	}
	return (*l)[id-1]
}

// newProg returns the program of the layout learned from segs (the last
// one closes the line; see layouts.learn), whose lines have shape shape.
func newProg(segs []layoutSeg, shape lineShape) *layoutProg {
	p := &layoutProg{shape: shape}
	for _, sg := range segs {
		if sg.kind == skel.End {
			p.last = int32(sg.val - sg.lit)
			break
		}
		p.steps = append(p.steps, progStep{lit: int32(sg.val - sg.lit), kind: sg.kind, f: sg.f})
	}
	return p
}

// readProg reads raw, a line the fold read with layout p, into lf as
// readLayout does, and reports whether it has a delta; ok is false when
// raw's scalars are not where p has them (lf is then to be read another
// way). It compares no literal: the caller checks the bytes it read
// (raw[:lf.end]) against the line folded.
func (lf *lineFields) readProg(p *layoutProg, raw []byte) (hasDelta, ok bool) {
	i := ws(raw, 0)
	lf.begin(&p.shape, 0)
	for _, st := range p.steps {
		i += int(st.lit)
		if i >= len(raw) || skel.KindOf[raw[i]] != st.kind {
			return false, false
		}
		vs, plain := i, true
		if st.kind == skel.String {
			i, plain = skipStr(raw, i)
		} else {
			i = scalarEnd(raw, i, st.kind)
		}
		if i < 0 {
			return false, false
		}
		if st.f != fSkip {
			lf.set(raw, span{lo: int32(vs), hi: int32(i), f: st.f, plain: plain})
		}
	}
	if i += int(p.last); i > len(raw) {
		return false, false
	}
	lf.end = i
	return lf.finish(&p.shape), true
}
