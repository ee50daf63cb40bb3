package journal

import (
	"math"
	"slices"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/internal/skel"
)

// Skeletons: the fast path's memory of how the lines it accepted are laid
// out.
//
// A line's skeleton is the line with its scalars (strings, numbers, true,
// false, null) taken out: what is left between them, the punctuation, the
// whitespace and the names, are the skeleton's literals. An engine writes
// every line with one serializer, so a journal has few skeletons: 14 in
// 200,000 lines of a generated DeltaMind journal, 37 in as many of Durable
// Stream. A line made of the literals of a line the fast path accepted,
// with a valid scalar of the same kind between each two, is valid JSON
// with that line's names, so it is read by comparing its literals and
// scanning its scalars: no grammar between the values, no name read as a
// string or compared with the others.
//
// The skeletons are a trie: each node is a literal and the kind of the
// scalar after it, or the literal that closes the line's object. Two
// children of a node never both match a line: when one's literal is the
// start of the other's, the byte after the shorter one is, in a line of the
// longer one, a byte of that literal at a place where a value starts, so
// '{', '[' or whitespace, never the first byte of a scalar, which the
// shorter one needs.
//
// A line's top-level "type", when it is a string of at most maxTypLit
// bytes without escapes (ending less than 64 KiB into the literal), is
// not a scalar of its skeleton but part of a literal: most journals have
// a few types, each laid out its own way, and a line read through such a
// skeleton gets its type from the trie without scanning it or looking it
// up. That is the one exception to the rule
// above: such a literal and one that ends where the type starts (the type
// as a scalar: one with escapes, a long one, or any type past a node's
// maxTypeKids) may both match a line. Kids whose literals hold types come
// first, in the order of how many lines they read, so a line of a known
// type is read through its type's skeletons, and one that misses there is
// learned under them.

// A skelNode is a literal, the kind of the scalar after it (skel.End: the
// literal closes the line's object) and the nodes of the literals after
// that scalar.
type skelNode struct {
	skel.Lit
	kind   skel.Kind
	typ    bool // the scalar is the top-level "type"
	folded bool // skel.End: two top-level names differ only in case
	// typEnd, when not 0, is where the top-level "type" value ends in the
	// literal, which holds it (a short string without escapes: most
	// journals have few types), and typID the type's index.
	typEnd uint16
	typID  uint16
	uses   uint32 // lines read through the node, when typEnd is not 0
	kids   []*skelNode
}

const (
	maxSkelNodes = 1 << 12   // a trie that grows past this starts again
	maxSkelBytes = 256 << 10 // the same for the literals' bytes
	maxSkelSegs  = 512       // a line with more scalars than this is not learned
	skelWindow   = 1 << 10   // lines between looks at how often the trie helps
	skelRest     = 64        // windows the trie sits out after one where it missed more than it hit
)

// skeletons is a classifier's trie of the skeletons of the lines it
// accepted. A journal whose lines rarely share a skeleton would pay for
// the trie (a miss is a second walk of the line, to learn it) without
// gain: after a window of lines with more misses than hits, the trie sits
// out skelRest windows. Not safe for concurrent use.
type skeletons struct {
	root     *skelNode // nil until a line is learned
	nodes    int
	litBytes int
	segs     []skelSeg // learn's scratch

	lines, hits int // in the current window
	rest        int // lines left to sit out

	// ends, when record is set, gets the end of each scalar of every line
	// match reads, in order, as its index from the object's first byte;
	// leaf is the last node of the last line match read.
	ends   []uint32
	record bool
	leaf   *skelNode

	// match's results while it walks a line (see walk): the type as
	// written or its index in the type table, and len(ends) before the
	// line, to undo its ends when the line misses.
	typ  []byte
	tid  int32
	from int
}

// A Skeleton identifies the layout of a line the index read through its
// skeletons (see Ends.Of): lines with the same non-zero Skeleton have the
// same bytes between their scalars (punctuation, whitespace, names) and
// scalars of the same kinds (string, number, true, false, null), in the
// same order. The zero Skeleton says nothing. Skeletons are comparable;
// one kept keeps its layout's memory (a few hundred bytes) alive.
type Skeleton struct{ n *skelNode }

// skelSeg is a literal of a line being learned, b[lit:val], and the kind
// of the scalar at b[val].
type skelSeg struct {
	lit, val int
	kind     skel.Kind
	typ      bool
	// b[lit:val] holds the top-level "type" value, b[typAt:typEnd], a
	// string without escapes (typEnd 0: it does not)
	typAt, typEnd int
}

// on reports whether the trie is to be used for the next line, and counts
// the line.
func (s *skeletons) on() bool {
	if s.rest > 0 {
		s.rest--
		return false
	}
	s.lines++
	if s.lines == skelWindow {
		if 2*s.hits < s.lines {
			s.rest = skelRest * skelWindow
		}
		s.lines, s.hits = 0, 0
	}
	return true
}

// match reads the object that starts at b[i] ('{') through the trie. It
// returns the index just after the object, its top-level "type" (tid, its
// index in the type table, when the skeleton holds it; else -1 and typ,
// the scalar as written, nil when there is none) and whether two
// top-level names differ only in case, or end -1 when the line's skeleton
// is not in the trie or one of its scalars is not valid. With s.record,
// it appends the end of each scalar (the type's too) to s.ends, as an
// index from b[i], which it leaves as it was when it returns -1.
func (s *skeletons) match(b []byte, i int) (end int, typ []byte, tid int32, folded bool) {
	if s.root == nil {
		return -1, nil, -1, false
	}
	s.typ, s.tid = nil, -1
	if end = s.walk(b[i:]); end < 0 {
		return -1, nil, -1, false
	}
	return i + end, s.typ, s.tid, s.leaf.folded
}

// walk is match of the object at b[0]: it returns the index just after
// it, or -1, and leaves the type in s.typ and s.tid. The line's start is
// b's, so that the loop keeps few values live (b, i, n and s): with more,
// they were kept on the stack and loaded again at every literal.
func (s *skeletons) walk(b []byte) int {
	n, i := s.root, 0
	s.from = len(s.ends)
	for {
		var next *skelNode
		k := 0
		for ; k < len(n.kids); k++ {
			kn := n.kids[k]
			j := i + kn.Len()
			if !kn.At(b, i, j) {
				continue
			}
			if kn.kind == skel.End || j < len(b) && skel.KindOf[b[j]] == kn.kind {
				next = kn
				break
			}
		}
		if next == nil {
			s.ends = s.ends[:s.from]
			return -1
		}
		if next.typEnd != 0 {
			s.tid = s.typeIn(n, k, i)
		}
		i += next.Len()
		if next.kind == skel.End {
			s.hits++
			s.leaf = next
			return i
		}
		vs := i
		if next.kind == skel.String {
			i, _ = scanString(b, i) // most scalars: one call, not two
		} else {
			i = scalarEnd(b, i, next.kind)
		}
		if i < 0 {
			s.ends = s.ends[:s.from]
			return -1
		}
		if next.typ {
			s.typ = b[vs:i]
		}
		if s.record {
			s.ends = append(s.ends, uint32(i))
		}
		n = next
	}
}

// typeIn returns the index of the type that the literal of n's kid k
// holds, and appends the type's end to s.ends with s.record (at is where
// the literal starts, from the object's first byte). It counts the kid's
// lines, and moves it before the kid before it once it has read more:
// kids that hold types come in the order of how often they are read.
func (s *skeletons) typeIn(n *skelNode, k, at int) int32 {
	kn := n.kids[k]
	if s.record {
		s.ends = append(s.ends, uint32(at+int(kn.typEnd)))
	}
	kn.uses++
	if k > 0 && n.kids[k-1].typEnd != 0 && kn.uses > n.kids[k-1].uses {
		n.kids[k-1], n.kids[k] = kn, n.kids[k-1]
	}
	return int32(kn.typID)
}

// scalarEnd validates the scalar of kind k (not skel.None or skel.End) that
// starts at b[i] and returns the index just after it, or -1.
func scalarEnd(b []byte, i int, k skel.Kind) int {
	switch k {
	case skel.String:
		end, _ := scanString(b, i)
		return end
	case skel.Number:
		return rawjson.NumberEnd(b, i)
	case skel.True:
		return literal(b, i, "true")
	case skel.False:
		return literal(b, i, "false")
	}
	return literal(b, i, "null")
}

// newSkelNode returns the node of literal lit.
func newSkelNode(lit string, kind skel.Kind, typ, folded bool) *skelNode {
	return &skelNode{Lit: skel.NewLit(lit), kind: kind, typ: typ, folded: folded}
}

const (
	// maxTypLit is the longest top-level "type" value, quotes included,
	// that a skeleton's literal holds.
	maxTypLit = 64
	// maxTypeKids is how many kids of a node may hold types: a journal of
	// more types than this (one per line, say) is read as if its types
	// were any other scalar.
	maxTypeKids = 64
)

// learn adds the skeleton of the object that starts at b[i], which the
// fast path accepted (folded: two of its top-level names differ only in
// case), to the trie.
func (s *skeletons) learn(b []byte, i int, folded bool, intern func([]byte) uint16) {
	if s.nodes >= maxSkelNodes || s.litBytes >= maxSkelBytes {
		s.root = nil
	}
	if s.root == nil {
		s.root, s.nodes, s.litBytes = &skelNode{}, 1, 0
	}
	l := skelLearner{b: b, lit: i, segs: s.segs[:0]}
	end := l.value(i, 0, false)
	segs := append(l.segs, skelSeg{lit: l.lit, val: end, kind: skel.End, typAt: l.typAt, typEnd: l.typEnd})
	s.segs = segs
	if len(segs) > maxSkelSegs {
		return // a line of thousands of scalars would fill the trie alone
	}
	n := s.root
	for _, sg := range segs {
		if sg.typEnd != 0 && n.kid(b[sg.lit:sg.val], sg.kind) == nil && n.typeKids() >= maxTypeKids {
			// Too many types after this node: the type is a scalar of
			// the skeletons that go on from here.
			n = s.add(n, b, skelSeg{lit: sg.lit, val: sg.typAt, kind: skel.String, typ: true}, false, intern)
			sg.lit, sg.typEnd = sg.typEnd, 0
		}
		n = s.add(n, b, sg, folded, intern)
	}
}

// kid returns n's kid of literal lit followed by a scalar of kind k (or
// closing the object: skel.End), or nil.
func (n *skelNode) kid(lit []byte, k skel.Kind) *skelNode {
	for _, kn := range n.kids {
		if kn.kind == k && kn.String() == string(lit) {
			return kn
		}
	}
	return nil
}

// typeKids returns how many of n's kids hold a type in their literal.
func (n *skelNode) typeKids() int {
	c := 0
	for _, kn := range n.kids {
		if kn.typEnd != 0 {
			c++
		}
	}
	return c
}

// add returns n's kid for the segment sg of line b, which it adds when n
// has none (folded: the line's top-level names differ only in case).
func (s *skeletons) add(n *skelNode, b []byte, sg skelSeg, folded bool, intern func([]byte) uint16) *skelNode {
	lit := b[sg.lit:sg.val]
	if kn := n.kid(lit, sg.kind); kn != nil {
		return kn
	}
	kn := newSkelNode(string(lit), sg.kind, sg.typ, folded && sg.kind == skel.End)
	if sg.typEnd != 0 {
		kn.typEnd = uint16(sg.typEnd - sg.lit)
		kn.typID = intern(b[sg.typAt+1 : sg.typEnd-1])
	}
	n.kids = kidsWith(n.kids, kn)
	s.nodes++
	s.litBytes += len(lit)
	return kn
}

// kidsWith returns kids with kn added: after the others, but before the
// first whose scalar is the type when kn's literal holds the type (see
// skeletons).
func kidsWith(kids []*skelNode, kn *skelNode) []*skelNode {
	at := len(kids)
	if kn.typEnd != 0 {
		for k, o := range kids {
			if o.typ {
				at = k
				break
			}
		}
	}
	return slices.Insert(kids, at, kn)
}

// skelLearner walks a valid object and cuts it into skeleton segments.
type skelLearner struct {
	b   []byte
	lit int // where the current literal starts
	// the current literal holds the top-level "type" value,
	// b[typAt:typEnd] (typEnd 0: it does not)
	typAt, typEnd int
	segs          []skelSeg
}

// value walks the valid value at b[i] (in an object depth levels deep;
// typ: it is the top-level "type") and returns the index just after it.
func (l *skelLearner) value(i, depth int, typ bool) int {
	b := l.b
	switch b[i] {
	case '{':
		i = skipWS(b, i+1)
		if b[i] == '}' {
			return i + 1
		}
		for {
			ks := i
			i, _ = scanString(b, i)
			isType := depth == 0 && string(b[ks:i]) == `"type"`
			i = skipWS(b, skipWS(b, i)+1) // past the ':'
			i = skipWS(b, l.value(i, depth+1, isType))
			if b[i] == '}' {
				return i + 1
			}
			i = skipWS(b, i+1) // past the ','
		}
	case '[':
		i = skipWS(b, i+1)
		if b[i] == ']' {
			return i + 1
		}
		for {
			i = skipWS(b, l.value(i, depth+1, false))
			if b[i] == ']' {
				return i + 1
			}
			i = skipWS(b, i+1)
		}
	}
	k := skel.KindOf[b[i]]
	if typ && k == skel.String {
		if e, esc := scanString(b, i); e > i && !esc && e-i <= maxTypLit && e-l.lit <= math.MaxUint16 {
			// The literal goes on through the type: a line of another
			// type has another skeleton, whose type is known. (A type
			// further into its literal than a skelNode's typEnd can say,
			// after 64 KiB of whitespace, is a scalar.)
			l.typAt, l.typEnd = i, e
			return e
		}
	}
	e := scalarEnd(b, i, k)
	l.segs = append(l.segs, skelSeg{lit: l.lit, val: i, kind: k, typ: typ, typAt: l.typAt, typEnd: l.typEnd})
	l.lit, l.typEnd = e, 0
	return e
}
