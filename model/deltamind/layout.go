package deltamind

import (
	"slices"
	"sync"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/internal/skel"
	"github.com/rewind-tui/rewind/model"
)

// Layouts: the readers' memory of how the lines they read are laid out.
//
// DeltaMind writes every line with JSON.stringify of objects it builds in
// a fixed order, so a journal has a handful of layouts: the line with its
// scalars taken out (what is left, the punctuation and the names, are the
// layout's literals). A line made of a known layout's literals, with a
// scalar of the same kind (string, number, true, false, null) between each
// two, has that layout's members, in the same objects, with values of the
// same JSON types: what the general walk (scanned.scan, lineFields.read)
// would find is then where the layout says, and the line is read by
// comparing its literals and skipping its scalars, without walking the
// grammar or telling the names apart (1 GB journal, rewind state: the
// fold's scan and the views' reads each at about 2.5 GB/s instead of 1.1).
//
// Only lines whose members the readers would all take are learned: every
// member the readers read has a value of a type they accept, no name is
// escaped or given twice in an object they read, and each sourceTurns
// element is null or an object with one turnId and nothing else the
// readers read. Any other line is read by the general walk, as before.
//
// The layouts are a trie, as journal's skeletons are: each node is a
// literal, the kind of the scalar after it and what the readers take it
// for (a field), or the literal that closes the line's object, which holds
// what the layout says of the line as a whole (a lineShape).

// A field is what the readers take a scalar for.
type field uint8

const (
	fSkip       field = iota // a scalar neither reader reads
	fType                    // the line's "type"
	fSeq                     // the line's "seq"
	fTimestamp               // the line's "timestamp"
	fReason                  // the line's "reason"
	fKind                    // the delta's "kind"
	fDTimestamp              // the delta's "timestamp"
	fID                      // the delta's "id"
	fTarget                  // the delta's "targetId"
	fSummary                 // the delta's "summary"
	fConfidence              // the delta's "confidence"
	fHard                    // the delta's "hard"
	fMode                    // the delta's "mode"
	fResolution              // the delta's "resolution"
	fDReason                 // the delta's "reason"
	fAlt                     // an element of the delta's "alternatives"
	fTurnID                  // the turnId of an element of the delta's "sourceTurns"
	fTurnNull                // a null element of the delta's "sourceTurns"
)

// topFields and deltaFields are the fields of the names the readers read
// at the top level of a line and in its delta.
var (
	topFields   = map[string]field{"type": fType, "seq": fSeq, "timestamp": fTimestamp, "reason": fReason}
	deltaFields = map[string]field{"kind": fKind, "timestamp": fDTimestamp, "id": fID, "targetId": fTarget,
		"summary": fSummary, "confidence": fConfidence, "hard": fHard, "mode": fMode,
		"resolution": fResolution, "reason": fDReason}
)

// A span is a scalar a layout found: b[lo:hi], the field it is, and for a
// string whether it is plain (see skipStr).
type span struct {
	lo, hi int32
	f      field
	plain  bool
}

// lineShape is what a layout says of its lines as a whole: whether the
// delta member is an object (the only one: a layout has no name twice),
// whether its sourceTurns and alternatives are arrays, and whether the
// line has a "seq".
type lineShape struct {
	delta, turns, alts, seq bool
	// prog is the id of the layout's program (see layoutProg), 0 for
	// none.
	prog uint8
}

// A layoutNode is a literal, the kind of the scalar after it (skel.End:
// the literal closes the line's object) and the field the readers take
// that scalar for, and the nodes of the literals after it.
type layoutNode struct {
	skel.Lit
	kind  skel.Kind
	f     field
	fold  bool       // the fold reads the scalar (scanLayout)
	shape *lineShape // skel.End: the layout's
	kids  []*layoutNode
}

const (
	maxLayoutNodes = 1 << 11  // a trie that grows past this starts again
	maxLayoutSpans = 256      // a line with more scalars is not learned
	layoutWindow   = 1 << 10  // lines between looks at how often the trie helps
	layoutRest     = 64       // windows the trie sits out after one where it missed more than it hit
	maxLayoutLit   = 64 << 10 // bytes of literals, the same as maxLayoutNodes
)

// layouts is a reader's trie of the layouts of the lines it learned, and
// its scratch. A journal whose lines rarely share a layout would pay for
// it (a miss is learned, a second walk of the line) without gain: after a
// window of lines with more misses than hits the trie sits out layoutRest
// windows. Not safe for concurrent use: the readers take one from
// layoutPool for a batch of lines.
type layouts struct {
	root     *layoutNode
	nodes    int
	litBytes int
	spans    []span // the spans of the line read last
	segs     []layoutSeg

	lines, hits int
	rest        int

	// bySkel are the fields of the index's layouts (see skelFields).
	bySkel map[any]*skelFields
}

var layoutPool = sync.Pool{New: func() any { return &layouts{} }}

// layoutSeg is a literal of a line being learned, b[lit:val], and the
// scalar b[val:end] (plain: see skipStr).
type layoutSeg struct {
	lit, val, end int
	kind          skel.Kind
	f             field
	plain         bool
}

// read reads the line raw through the trie, learning its layout when it
// is not known and the readers would take it. It returns the spans of the
// line's scalars (in t's memory: valid until the next call), the line's
// shape, and the index just after its object; shape is nil when the line
// is read by the general walk instead. ends, when not nil, are where the
// index found the ends of the line's scalars (model.EndsPreparer): a
// scalar the fold does not read is then skipped to its end, its span not
// plain (and only the fold's spans are to be read).
func (t *layouts) read(raw []byte, ends []uint32) ([]span, *lineShape, int) {
	if t.rest > 0 {
		t.rest--
		return nil, nil, 0
	}
	if t.lines++; t.lines == layoutWindow {
		if 2*t.hits < t.lines {
			t.rest = layoutRest * layoutWindow
		}
		t.lines, t.hits = 0, 0
	}
	i := ws(raw, 0)
	if spans, shape, end := t.match(raw, i, ends); shape != nil {
		t.hits++
		return spans, shape, end
	}
	return t.learn(raw, i)
}

// match reads the object at b[i] through the trie, or returns a nil shape
// when its layout is not there (see read for ends, each an index from
// b[i]).
func (t *layouts) match(b []byte, i int, ends []uint32) ([]span, *lineShape, int) {
	n := t.root
	if n == nil {
		return nil, nil, 0
	}
	spans := t.spans[:0]
	start, k := i, 0
	for {
		var next *layoutNode
		for _, kn := range n.kids {
			j := i + kn.Len()
			if !kn.At(b, i, j) {
				continue
			}
			if kn.kind == skel.End {
				t.spans = spans
				return spans, kn.shape, j
			}
			if j < len(b) && skel.KindOf[b[j]] == kn.kind {
				next, i = kn, j
				break
			}
		}
		if next == nil {
			t.spans = spans
			return nil, nil, 0
		}
		vs := i
		plain := true
		switch {
		case k < len(ends) && !next.fold:
			// The index found where it ends; it is the scalar at b[i]
			// when the literals before matched, which a line whose
			// bytes disagree does not get past.
			if i, plain = start+int(ends[k]), false; i <= vs || i > len(b) {
				i = -1
			}
		case next.kind == skel.String:
			i, plain = skipStr(b, i)
		default:
			i = scalarEnd(b, i, next.kind)
		}
		k++
		if i < 0 {
			t.spans = spans
			return nil, nil, 0
		}
		if next.f != fSkip {
			spans = append(spans, span{lo: int32(vs), hi: int32(i), f: next.f, plain: plain})
		}
		n = next
	}
}

// scalarEnd returns the index just after the number or literal of kind k
// at b[i], or -1.
func scalarEnd(b []byte, i int, k skel.Kind) int {
	lit := "null"
	switch k {
	case skel.Number:
		return rawjson.NumberEnd(b, i)
	case skel.True:
		lit = "true"
	case skel.False:
		lit = "false"
	}
	if i+len(lit) > len(b) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// learn walks the object at b[i] and, when the readers would take it (see
// layoutLearner), adds its layout to the trie and returns what match would
// have; otherwise a nil shape.
func (t *layouts) learn(b []byte, i int) ([]span, *lineShape, int) {
	l := layoutLearner{b: b, lit: i, segs: t.segs[:0]}
	end := l.top(i)
	t.segs = l.segs
	if end < 0 || len(l.segs) > maxLayoutSpans || !l.shape.seq {
		return nil, nil, 0
	}
	if t.nodes >= maxLayoutNodes || t.litBytes >= maxLayoutLit {
		t.root = nil
	}
	if t.root == nil {
		t.root, t.nodes, t.litBytes = &layoutNode{}, 1, 0
	}
	n := t.root
	spans := t.spans[:0]
	segs := append(l.segs, layoutSeg{lit: l.lit, val: end, kind: skel.End})
	for _, sg := range segs {
		lit := b[sg.lit:sg.val]
		var next *layoutNode
		for _, kn := range n.kids {
			if kn.kind == sg.kind && kn.String() == string(lit) {
				next = kn
				break
			}
		}
		if next == nil {
			next = &layoutNode{Lit: skel.NewLit(string(lit)), kind: sg.kind, f: sg.f, fold: foldReads(sg.f)}
			if sg.kind == skel.End {
				shape := l.shape
				shape.prog = progID(newProg(segs, l.shape))
				next.shape = &shape
			}
			n.kids = append(n.kids, next)
			t.nodes++
			t.litBytes += len(lit)
		}
		n = next
		if sg.kind != skel.End && sg.f != fSkip {
			spans = append(spans, span{lo: int32(sg.val), hi: int32(sg.end), f: sg.f, plain: sg.plain})
		}
	}
	t.spans = spans
	return spans, n.shape, end
}

// layoutLearner walks a line and cuts it into segments, each scalar with
// the field the readers take it for; it gives up (returns -1) on a line
// the readers would not all take as a layout says (see layouts).
type layoutLearner struct {
	b     []byte
	lit   int
	segs  []layoutSeg
	shape lineShape
}

// Contexts of a value, for the fields of its scalars.
const (
	inSkip  = iota // a value neither reader reads
	inTop          // the line's object
	inDelta        // the delta object
	inTurns        // the sourceTurns array
	inTurn         // an element of it
	inAlts         // the alternatives array
)

// top walks the line's object at b[i] and returns the index after it.
func (l *layoutLearner) top(i int) int {
	return l.object(i, inTop)
}

// object walks the object at b[i] whose members are read in context ctx.
func (l *layoutLearner) object(i int, ctx int) int {
	b := l.b
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	var seen [16]field // the fields named in this object so far, for duplicates
	nSeen, turnIDs := 0, 0
	i = ws(b, i+1)
	if i < len(b) && b[i] == '}' {
		if ctx == inTurn {
			return -1 // an element without a turnId: a turn no span stands for
		}
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		e, plain := skipStr(b, i)
		if e < 0 || !plain {
			return -1
		}
		name := string(b[i+1 : e-1])
		if i = ws(b, e); i >= len(b) || b[i] != ':' {
			return -1
		}
		i = ws(b, i+1)
		f, sub := fSkip, inSkip
		switch ctx {
		case inTop:
			f = topFields[name]
			if name == "delta" {
				f, sub = fSkip, -1
			}
		case inDelta:
			f = deltaFields[name]
			switch name {
			case "sourceTurns":
				sub = inTurns
			case "alternatives":
				sub = inAlts
			}
		case inTurn:
			switch name {
			case "turnId":
				f = fTurnID
				turnIDs++
			case "offset":
				return -1
			}
		}
		if ctx != inSkip && (f != fSkip || sub != inSkip) {
			key := f
			if f == fSkip {
				key = field(200 + sub) // delta, sourceTurns, alternatives
			}
			for _, s := range seen[:nSeen] {
				if s == key {
					return -1 // named twice: the last one wins in the readers
				}
			}
			if nSeen == len(seen) {
				return -1
			}
			seen[nSeen] = key
			nSeen++
		}
		switch {
		case sub == -1: // the delta
			if i < len(b) && b[i] == '{' {
				l.shape.delta = true
				i = l.object(i, inDelta)
			} else {
				i = l.value(i, inSkip, fSkip) // not an object: no delta
			}
		case sub != inSkip: // sourceTurns or alternatives
			i = l.value(i, sub, fSkip)
		default:
			i = l.value(i, inSkip, f)
		}
		if i < 0 {
			return -1
		}
		if i = ws(b, i); i < len(b) && b[i] == '}' {
			if ctx == inTurn && turnIDs != 1 {
				return -1
			}
			return i + 1
		}
		if i >= len(b) || b[i] != ',' {
			return -1
		}
		i = ws(b, i+1)
	}
}

// value walks the value at b[i] in context ctx (inSkip: any value, whose
// scalar, when it is one, is taken for f; inTurns, inAlts: the value of
// sourceTurns or alternatives; inTurn: an element of sourceTurns) and
// returns the index after it.
func (l *layoutLearner) value(i int, ctx int, f field) int {
	b := l.b
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case ctx == inTurn && c == '{':
		return l.object(i, inTurn)
	case ctx == inTurn:
		f = fTurnNull // or not null: accepts says no
	case c == '{' || c == '[':
		if ctx == inSkip && f == fSkip {
			return l.array(i, c, inSkip)
		}
		if c == '[' && (ctx == inTurns || ctx == inAlts) {
			return l.array(i, c, ctx)
		}
		return -1 // an object or array where the readers want a scalar
	case ctx != inSkip: // sourceTurns or alternatives: null, or not read
		if c != 'n' {
			return -1
		}
	}
	k := skel.KindOf[b[i]]
	if k == skel.None || !accepts(f, k) {
		return -1
	}
	e, plain := 0, true
	if k == skel.String {
		e, plain = skipStr(b, i)
	} else {
		e = scalarEnd(b, i, k)
	}
	if e < 0 {
		return -1
	}
	if f == fSeq {
		l.shape.seq = true
	}
	l.segs = append(l.segs, layoutSeg{lit: l.lit, val: i, end: e, kind: k, f: f, plain: plain})
	l.lit = e
	return e
}

// array walks the object or array (open is its first byte) at b[i]: a
// value neither reader reads (ctx inSkip), or the array of sourceTurns or
// alternatives.
func (l *layoutLearner) array(i int, open byte, ctx int) int {
	if open == '{' {
		return l.object(i, inSkip)
	}
	b := l.b
	elem, f := inSkip, fSkip
	switch ctx {
	case inTurns:
		l.shape.turns, elem = true, inTurn
	case inAlts:
		l.shape.alts, f = true, fAlt
	}
	i = ws(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		if i = l.value(i, elem, f); i < 0 {
			return -1
		}
		if i = ws(b, i); i < len(b) && b[i] == ']' {
			return i + 1
		}
		if i >= len(b) || b[i] != ',' {
			return -1
		}
		i = ws(b, i+1)
	}
}

// accepts reports whether the readers take a scalar of kind k for f.
func accepts(f field, k skel.Kind) bool {
	switch f {
	case fSkip:
		return true
	case fSeq:
		return k == skel.Number
	case fHard:
		return k == skel.True || k == skel.False
	case fTurnNull:
		return k == skel.Null
	}
	return k == skel.String || k == skel.Null
}

// str returns the string or null s of b decoded, as cursor.str does.
func (s span) str(b []byte) string {
	v := b[s.lo:s.hi]
	if v[0] != '"' {
		return ""
	}
	return strOf(v, s.plain)
}

// foldReads reports whether scanLayout reads the scalars of field f.
func foldReads(f field) bool {
	switch f {
	case fType, fKind, fID, fTarget, fMode, fTurnID, fTurnNull:
		return true
	}
	return false
}

// scanLayout is scan for a line t knows the layout of, or that t learns;
// it reports ok false (leaving sc as it was) for a line t leaves to scan.
//
// ls is what the index found of the line's scalars, if anything
// (model.EndsPreparer): a line whose layout t learned the fold's fields of
// (skelFields) is read where they are, without a walk; another is read
// through the trie, its strings the fold does not read skipped to their
// ends, and the fields of its layout learned.
func (sc *scanned) scanLayout(t *layouts, raw []byte, ls *model.LineScalars) (valid, ok bool) {
	if ls.Layout != nil {
		if sf := t.bySkel[ls.Layout]; sf != nil {
			if spans := sf.read(t, raw, ls.Ends); spans != nil {
				sc.fromSpans(raw, spans, sf.shape)
				return true, true
			}
		}
	}
	spans, shape, _ := t.read(raw, ls.Ends)
	if shape == nil {
		return false, false
	}
	if ls.Layout != nil {
		t.learnFields(ls, raw, spans, shape)
	}
	sc.fromSpans(raw, spans, shape)
	return true, true
}

// fromSpans sets sc from the spans of the line raw, whose shape is shape.
func (sc *scanned) fromSpans(raw []byte, spans []span, shape *lineShape) {
	*sc = scanned{}
	if shape.delta {
		sc.delta, sc.kind = true, -1
	}
	var typ, id, target []byte
	for _, s := range spans {
		switch s.f {
		case fType:
			typ = bytesOf(s.str(raw))
		case fKind:
			sc.kind = kindIndex(bytesOf(s.str(raw)))
		case fID:
			id = bytesOf(s.str(raw))
		case fTarget:
			target = bytesOf(s.str(raw))
		case fMode:
			sc.branch = s.str(raw) == "branch"
		case fTurnID, fTurnNull:
			sc.turns++
		}
	}
	if shape.delta {
		sc.setRef(id, target)
	}
	sc.typed(raw, typ)
	sc.prog = shape.prog
}

// skelFields are where the scalars the fold reads are in the lines of one
// of the index's layouts (model.LineScalars.Layout), learned from one of
// them: the lines' shape, and for each of those scalars its index among
// the line's scalars, the length of the literal before it, and its field.
type skelFields struct {
	shape  *lineShape
	fields []skelField
}

type skelField struct {
	k, lit int32
	f      field
}

// maxSkelFields is how many layouts' fields a trie keeps; it forgets them
// all when it has more.
const maxSkelFields = 256

// learnFields keeps the fields of the layout of ls (see skelFields) from
// raw, one of its lines, which t read into spans and shape; it keeps
// nothing when a span the fold reads is not at one of ls.Ends.
func (t *layouts) learnFields(ls *model.LineScalars, raw []byte, spans []span, shape *lineShape) {
	start := ws(raw, 0)
	sf := &skelFields{shape: shape}
	for _, s := range spans {
		if !foldReads(s.f) {
			continue
		}
		k, found := slices.BinarySearch(ls.Ends, uint32(int(s.hi)-start))
		if !found {
			return
		}
		prev := start
		if k > 0 {
			prev += int(ls.Ends[k-1])
		}
		sf.fields = append(sf.fields, skelField{k: int32(k), lit: s.lo - int32(prev), f: s.f})
	}
	if t.bySkel == nil || len(t.bySkel) >= maxSkelFields {
		t.bySkel = map[any]*skelFields{}
	}
	t.bySkel[ls.Layout] = sf
}

// read returns the spans of the fold's scalars of raw, a line of sf's
// layout whose scalars end at ends (in t's memory: valid until the next
// call), or nil when ends do not fit raw.
func (sf *skelFields) read(t *layouts, raw []byte, ends []uint32) []span {
	// ends count from the object's '{', after any whitespace before it,
	// as learnFields counts them.
	start := ws(raw, 0)
	if start >= len(raw) || raw[start] != '{' {
		return nil
	}
	spans := t.spans[:0]
	for _, f := range sf.fields {
		if int(f.k) >= len(ends) {
			return nil
		}
		prev := start
		if f.k > 0 {
			prev += int(ends[f.k-1])
		}
		lo, hi := prev+int(f.lit), start+int(ends[f.k])
		if lo < prev || lo >= hi || hi > len(raw) {
			return nil
		}
		plain := true
		if raw[lo] == '"' {
			if hi-lo < 2 || raw[hi-1] != '"' {
				return nil
			}
			plain = plainStr(raw[lo+1 : hi-1])
		}
		spans = append(spans, span{lo: int32(lo), hi: int32(hi), f: f.f, plain: plain})
	}
	t.spans = spans
	return spans
}

// readLayout is read for a line t knows the layout of, or that t learns;
// it reports ok false (leaving lf as it was) for a line t leaves to read.
func (lf *lineFields) readLayout(t *layouts, raw []byte) (read, ok bool) {
	spans, shape, end := t.read(raw, nil)
	if shape == nil {
		return false, false
	}
	return lf.fromSpans(raw, spans, shape, end), true
}

// fromSpans sets lf from the spans of the line raw, whose shape is shape
// and whose object ends at end, and reports whether it has a delta.
func (lf *lineFields) fromSpans(raw []byte, spans []span, shape *lineShape, end int) bool {
	lf.begin(shape, end)
	for _, s := range spans {
		lf.set(raw, s)
	}
	return lf.finish(shape)
}

// begin starts lf on a line whose shape is shape and whose object ends at
// end, before its spans are set; finish ends it, and reports whether it
// has a delta.
func (lf *lineFields) begin(shape *lineShape, end int) {
	*lf = lineFields{turns: lf.turns, end: end, hasDelta: shape.delta}
	d := &lf.delta
	if shape.alts {
		d.alternatives = []string{}
	}
	if shape.turns {
		if d.turns = lf.turns[:0]; d.turns == nil {
			d.turns = []sourceRef{}
		}
	}
}

func (lf *lineFields) finish(shape *lineShape) bool {
	if shape.turns {
		lf.turns = lf.delta.turns
	}
	return shape.delta
}

// set sets the field of span s of the line raw.
func (lf *lineFields) set(raw []byte, s span) {
	d := &lf.delta
	switch s.f {
	case fSeq:
		lf.seq = raw[s.lo:s.hi]
	case fTimestamp:
		lf.timestamp = s.str(raw)
	case fReason:
		lf.reason = s.str(raw)
	case fKind:
		d.kind = s.str(raw)
	case fDTimestamp:
		d.timestamp = s.str(raw)
	case fID:
		d.id = s.str(raw)
	case fTarget:
		d.targetID = s.str(raw)
	case fSummary:
		d.summary = s.str(raw)
	case fConfidence:
		d.confidence = s.str(raw)
	case fHard:
		d.hard = raw[s.lo] == 't'
	case fMode:
		d.mode = s.str(raw)
	case fResolution:
		d.resolution = s.str(raw)
	case fDReason:
		d.reason = s.str(raw)
	case fAlt:
		d.alternatives = append(d.alternatives, strOf(raw[s.lo:s.hi], false))
	case fTurnID:
		d.turns = append(d.turns, sourceRef{turnID: s.str(raw)})
	case fTurnNull:
		d.turns = append(d.turns, sourceRef{})
	}
}
