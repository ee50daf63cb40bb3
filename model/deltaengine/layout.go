package deltaengine

import (
	"sync"

	"github.com/rewind-tui/rewind/model"
)

// A lineLayout is where readLine finds its values in the lines of one of
// the index's layouts (model.LineScalars.Layout), learned from one of them
// that it read whole. A layout fixes the names, the kinds of the scalars
// and how the values nest, so everything readLine finds in a line of it
// but the values' bytes is the same in each: which members there are,
// which payload was the last, payload.bad, whether the line is read at
// all. The type's value is the one exception (a type with escapes, or a
// journal of many types, is a scalar of the layout): it is read from each
// line.
type lineLayout struct {
	seq, ts, typ model.LayoutSpan
	env          uint8 // hasSeq, hasTS, hasTyp: the envelope members the line had
	vals         []layoutVal
	bad          uint32 // payload.bad
}

// layoutVal is where the value of payload member n is.
type layoutVal struct {
	n  uint8
	sp model.LayoutSpan
}

const (
	hasSeq uint8 = 1 << iota
	hasTS
	hasTyp
)

// learnLine returns where readLine found l's envelope, typ and p's members
// in raw, a line whose scalars end at ends, for the other lines of its
// layout, or nil when raw does not start with its object.
func learnLine(raw []byte, ends []uint32, l *line, typ []byte, p *payload) *lineLayout {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	ll := &lineLayout{bad: p.bad}
	env := func(v []byte, bit uint8) model.LayoutSpan {
		if v == nil {
			return model.LayoutSpan{}
		}
		ll.env |= bit
		sp, _ := model.SpanOf(raw, ends, v)
		return sp
	}
	ll.seq, ll.ts, ll.typ = env(l.seq, hasSeq), env(l.ts, hasTS), env(typ, hasTyp)
	for n, v := range p.v {
		if v != nil {
			sp, _ := model.SpanOf(raw, ends, v)
			ll.vals = append(ll.vals, layoutVal{uint8(n), sp})
		}
	}
	return ll
}

// read is readLine of raw, a line of ll's layout whose scalars end at
// ends: it reads the envelope into l and the payload into p (which must
// be empty, its calls not asked for) where the learned line had them. ok
// is false when ends do not fit raw (readLine reads it then).
func (ll *lineLayout) read(raw []byte, ends []uint32, p *payload) (l line, ok bool) {
	var typ []byte
	if ll.env&hasSeq != 0 {
		if l.seq = ll.seq.In(raw, ends); l.seq == nil {
			return line{}, false
		}
	}
	if ll.env&hasTS != 0 {
		if l.ts = ll.ts.In(raw, ends); l.ts == nil {
			return line{}, false
		}
	}
	if ll.env&hasTyp != 0 {
		if typ = ll.typ.In(raw, ends); typ == nil {
			return line{}, false
		}
	}
	for _, v := range ll.vals {
		if p.v[v.n] = v.sp.In(raw, ends); p.v[v.n] == nil {
			return line{}, false
		}
	}
	p.bad = ll.bad
	l.typ = typeOfLiteral(typ)
	return l, true
}

// lineCache is where readLine finds the values of the lines of the
// index's layouts a PrepareEnds has seen. Not safe for concurrent use:
// each PrepareEnds takes one from lineCaches.
type lineCache struct{ model.LayoutCache[lineLayout] }

var lineCaches = sync.Pool{New: func() any { return new(lineCache) }}

// parse is parseLine(raw), reading raw where the first line of its layout
// (ls, from the index) had its values when c knows it, and learning that
// otherwise.
func (c *lineCache) parse(raw []byte, ls *model.LineScalars) (line, bool) {
	if ls.Layout == nil {
		return parseLine(raw)
	}
	var p payload
	if ll := c.Get(ls.Layout); ll != nil {
		if l, ok := ll.read(raw, ls.Ends, &p); ok {
			return l.checked(&p)
		}
		p = payload{}
	}
	l, typ, ok := readLine(raw, &p)
	if !ok {
		return line{}, false
	}
	if ll := learnLine(raw, ls.Ends, &l, typ, &p); ll != nil {
		c.Put(ls.Layout, ll)
	}
	return l.checked(&p)
}
