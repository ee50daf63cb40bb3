package journal

import (
	"encoding/binary"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// Skeletons: the fast path's memory of how the lines it accepted are laid
// out.
//
// A line's skeleton is the line with its scalars (strings, numbers, true,
// false, null) taken out: what is left between them, the punctuation, the
// whitespace and the names, are the skeleton's literals. An engine writes
// every line with one serializer, so a journal has few skeletons: 14 in
// 200,000 lines of a generated DeltaMind journal, 36 in as many of Durable
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

// skelKind is what follows a skeleton node's literal.
type skelKind uint8

const (
	skelNone skelKind = iota // not a scalar's first byte; the root's kind
	skelString
	skelNumber
	skelTrue
	skelFalse
	skelNull
	skelEnd // the literal closes the line's object
)

// scalarKind is the kind of scalar that a byte starts.
var scalarKind = func() (t [256]skelKind) {
	t['"'] = skelString
	t['-'] = skelNumber
	for c := '0'; c <= '9'; c++ {
		t[c] = skelNumber
	}
	t['t'], t['f'], t['n'] = skelTrue, skelFalse, skelNull
	return t
}()

type skelNode struct {
	// The literal's first eight bytes, its last eight when it has more than
	// eight, and the mask of the first word's bytes (all of them from
	// eight bytes on): most literals are compared as one or two words.
	w0, w1, mask uint64
	lit          string
	kind         skelKind
	typ          bool // the scalar is the top-level "type"
	folded       bool // skelEnd: two top-level names differ only in case
	kids         []*skelNode
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
}

// skelSeg is a literal of a line being learned, b[lit:val], and the kind
// of the scalar at b[val].
type skelSeg struct {
	lit, val int
	kind     skelKind
	typ      bool
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
// returns the index just after the object, its top-level "type" scalar as
// written (nil when there is none) and whether two top-level names differ
// only in case, or end -1 when the line's skeleton is not in the trie or
// one of its scalars is not valid.
func (s *skeletons) match(b []byte, i int) (end int, typ []byte, folded bool) {
	n := s.root
	if n == nil {
		return -1, nil, false
	}
	for {
		var next *skelNode
		for _, kn := range n.kids {
			j := i + len(kn.lit)
			if !kn.at(b, i, j) {
				continue
			}
			if kn.kind == skelEnd {
				s.hits++
				return j, typ, kn.folded
			}
			if j < len(b) && scalarKind[b[j]] == kn.kind {
				next, i = kn, j
				break
			}
		}
		if next == nil {
			return -1, nil, false
		}
		vs := i
		if i = scalarEnd(b, i, next.kind); i < 0 {
			return -1, nil, false
		}
		if next.typ {
			typ = b[vs:i]
		}
		n = next
	}
}

// scalarEnd validates the scalar of kind k (not skelNone or skelEnd) that
// starts at b[i] and returns the index just after it, or -1.
func scalarEnd(b []byte, i int, k skelKind) int {
	switch k {
	case skelString:
		end, _ := scanString(b, i)
		return end
	case skelNumber:
		return rawjson.NumberEnd(b, i)
	case skelTrue:
		return literal(b, i, "true")
	case skelFalse:
		return literal(b, i, "false")
	}
	return literal(b, i, "null")
}

// at reports whether b[i:j] is n's literal (j is i plus its length). A
// literal of up to 16 bytes is compared as one or two words.
func (n *skelNode) at(b []byte, i, j int) bool {
	if len(b)-i < 8 || j > len(b) || len(n.lit) > 16 {
		return j <= len(b) && n.lit == string(b[i:j])
	}
	if binary.LittleEndian.Uint64(b[i:])&n.mask != n.w0 {
		return false
	}
	return len(n.lit) <= 8 || binary.LittleEndian.Uint64(b[j-8:]) == n.w1
}

// newSkelNode returns the node of literal lit.
func newSkelNode(lit string, kind skelKind, typ, folded bool) *skelNode {
	n := &skelNode{lit: lit, kind: kind, typ: typ, folded: folded, mask: ^uint64(0)}
	var w [8]byte
	copy(w[:], lit)
	n.w0 = binary.LittleEndian.Uint64(w[:])
	if len(lit) < 8 {
		n.mask = 1<<(8*len(lit)) - 1
	} else {
		n.w1 = binary.LittleEndian.Uint64([]byte(lit[len(lit)-8:]))
	}
	return n
}

// learn adds the skeleton of the object that starts at b[i], which the
// fast path accepted (folded: two of its top-level names differ only in
// case), to the trie.
func (s *skeletons) learn(b []byte, i int, folded bool) {
	if s.nodes >= maxSkelNodes || s.litBytes >= maxSkelBytes {
		s.root = nil
	}
	if s.root == nil {
		s.root, s.nodes, s.litBytes = &skelNode{}, 1, 0
	}
	l := skelLearner{b: b, lit: i, segs: s.segs[:0]}
	end := l.value(i, 0, false)
	segs := append(l.segs, skelSeg{lit: l.lit, val: end, kind: skelEnd})
	s.segs = segs
	if len(segs) > maxSkelSegs {
		return // a line of thousands of scalars would fill the trie alone
	}
	n := s.root
	for _, sg := range segs {
		lit := b[sg.lit:sg.val]
		var next *skelNode
		for _, kn := range n.kids {
			if kn.kind == sg.kind && kn.lit == string(lit) {
				next = kn
				break
			}
		}
		if next == nil {
			next = newSkelNode(string(lit), sg.kind, sg.typ, folded && sg.kind == skelEnd)
			n.kids = append(n.kids, next)
			s.nodes++
			s.litBytes += len(lit)
		}
		n = next
	}
}

// skelLearner walks a valid object and cuts it into skeleton segments.
type skelLearner struct {
	b    []byte
	lit  int // where the current literal starts
	segs []skelSeg
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
	k := scalarKind[b[i]]
	e := scalarEnd(b, i, k)
	l.segs = append(l.segs, skelSeg{lit: l.lit, val: i, kind: k, typ: typ})
	l.lit = e
	return e
}
