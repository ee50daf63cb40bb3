package deltamind

import (
	"unicode/utf8"

	"github.com/rewind-tui/rewind/model"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// The fold reads of each line only what the next lines depend on: the
// line's type, whether it decodes (every member the views read has the
// right JSON type, as line.parse and parseDelta, the full readers, say), and
// of its delta the kind, the id or targetId, whether its mode is "branch"
// and how many sourceTurns it has. scan does that in one walk of the line,
// decoding only those strings, and only when they hold escapes.

// The line types the fold tells apart.
const (
	lineOther = iota
	lineAccepted
	lineRejected
	lineCheckpoint
)

// scanned is what the fold reads of one provenance.jsonl line.
type scanned struct {
	typ uint8
	// delta reports whether the last "delta" member is an object that
	// parseDelta decodes; the fields below are that delta's.
	delta bool
	kind  int8 // index in deltaKinds, or -1 for any other kind
	// ref is the id the fold looks the delta up by: its targetId for a
	// revision (isRevision), else its id; decoded: views of the line, or
	// copies when they hold escapes or invalid UTF-8.
	ref    idRef
	branch bool // mode is "branch"
	turns  int  // entries of sourceTurns
	// check is the lineCheck of the line without the whitespace around
	// it, for a line of one of the types the fold tells apart, which is
	// raw[lead:lead+size].
	check      uint64
	lead, size int
	// prog is the program of the line's layout (see layoutProg), when
	// it was read through one, else 0.
	prog uint8
}

// line returns the line of ev (which sc read) without the whitespace
// around it, and the offset of its first byte, without reading ev's bytes:
// the fold's committing goroutine, to which a worker hands sc, would read
// them from another CPU's cache.
func (sc *scanned) line(ev model.Event) ([]byte, int64) {
	return ev.Raw[sc.lead : sc.lead+sc.size], ev.Off + int64(sc.lead)
}

// Indexes of the delta kinds in deltaKinds.
const (
	dDecisionMade = iota
	dDecisionRevised
	dConstraintAdded
	dConstraintRevised
	dTaskOpened
	dTaskClosed
	dFactLearned
	dHypothesisIntroduced
	dBranchCreated
	dItemSuperseded
	dGoalSet
)

// kindIndex returns the index of kind in deltaKinds, or -1.
func kindIndex(kind []byte) int8 {
	switch string(kind) {
	case "decision_made":
		return dDecisionMade
	case "decision_revised":
		return dDecisionRevised
	case "constraint_added":
		return dConstraintAdded
	case "constraint_revised":
		return dConstraintRevised
	case "task_opened":
		return dTaskOpened
	case "task_closed":
		return dTaskClosed
	case "fact_learned":
		return dFactLearned
	case "hypothesis_introduced":
		return dHypothesisIntroduced
	case "branch_created":
		return dBranchCreated
	case "item_superseded":
		return dItemSuperseded
	case "goal_set":
		return dGoalSet
	}
	return -1
}

// decoded returns the string v (a JSON string or null) decoded as strVal
// decodes it, without copying when it has no escapes and is valid UTF-8.
func decoded(v []byte) []byte {
	if v[0] == 'n' {
		return nil
	}
	if p, ok := rawjson.Plain(v); ok && utf8.Valid(p) {
		return p
	}
	if b, ok := unescape(v); ok {
		return b
	}
	s, _ := rawjson.Unquote(v)
	return bytesOf(s)
}

// unescape decodes the JSON string v when its escapes are all of one
// character (\" \\ \/ \b \f \n \r \t) and it is valid UTF-8, as
// rawjson.Unquote would, without its general decoder; it reports false for
// any other string (with \u escapes, or invalid UTF-8).
func unescape(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	in := v[1 : len(v)-1]
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"' || c < ' ':
			return nil, false
		case c != '\\':
			out = append(out, c)
			continue
		}
		if i++; i == len(in) {
			return nil, false
		}
		switch in[i] {
		case '"', '\\', '/':
			out = append(out, in[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default:
			return nil, false
		}
	}
	if !utf8.Valid(out) {
		return nil, false
	}
	return out, true
}

// scan reads raw, one line, into sc. It reports false when line.parse
// would: raw is not an object, a "type", "timestamp" or "reason" is not a
// string or null, or the last "seq" is not a number.
func (sc *scanned) scan(raw []byte) bool {
	*sc = scanned{}
	var typ, seq []byte
	c, _ := open(raw, rawjson.SkipWS(raw, 0))
	for c.next() {
		switch string(c.name) {
		case "delta":
			if c.v < len(raw) && raw[c.v] == '{' {
				c.i, sc.delta = sc.scanDelta(raw, c.v)
				continue
			}
			sc.delta = false
			c.value()
		case "type":
			if typ = c.value(); typ != nil && !rawjson.IsStr(typ) {
				return false
			}
		case "seq":
			seq = c.value()
		case "timestamp", "reason":
			if !c.isStrVal() {
				return false
			}
		default:
			c.value()
		}
	}
	if c.i < 0 || len(seq) == 0 || !rawjson.IsNumber(seq) {
		return false
	}
	if typ != nil {
		typ = decoded(typ)
	}
	sc.typed(raw, typ)
	return true
}

// typed sets sc's type from the line's "type", decoded (nil or empty:
// none, or null) and, for a line of a type the fold tells apart, its
// check.
func (sc *scanned) typed(raw, typ []byte) {
	switch string(typ) {
	case "accepted":
		sc.typ = lineAccepted
	case "rejected":
		sc.typ = lineRejected
	case "checkpoint":
		sc.typ = lineCheckpoint
	}
	if sc.typ != lineOther {
		line, start := trimSpace(raw)
		sc.check = lineCheck(line)
		sc.lead, sc.size = start, len(line)
	}
}

// setRef sets sc.ref from the delta's id and targetId (see scanned),
// split ahead of the fold (idRef.set).
func (sc *scanned) setRef(id, target []byte) {
	if isRevision(sc.kind) {
		id = target
	}
	sc.ref.set(id)
}

// scanDelta reads the delta object at b[i] into sc and returns the index
// just after it, and whether parseDelta decodes it.
func (sc *scanned) scanDelta(b []byte, i int) (int, bool) {
	sc.kind, sc.branch, sc.turns = -1, false, 0
	var id, target []byte
	ok := true
	c, _ := open(b, i)
	for c.next() {
		var s string
		var sok bool
		switch string(c.name) {
		case "sourceTurns":
			c.i, sc.turns, sok = scanTurns(b, c.v)
		case "alternatives":
			c.i, sok = scanStrings(b, c.v)
		case "kind":
			s, sok = c.str()
			sc.kind = kindIndex(bytesOf(s))
		case "id":
			s, sok = c.str()
			id = bytesOf(s)
		case "targetId":
			s, sok = c.str()
			target = bytesOf(s)
		case "mode":
			s, sok = c.str()
			sc.branch = s == "branch"
		case "timestamp", "summary", "confidence", "resolution", "reason":
			sok = c.isStrVal()
		case "hard":
			_, sok = rawjson.Bool(c.value())
		default:
			sok = c.value() != nil
		}
		if c.i < 0 {
			break
		}
		ok = ok && sok
	}
	sc.setRef(id, target)
	return c.i, ok && c.i >= 0
}

// scanTurns reads a sourceTurns value at b[i]: null, or an array whose
// elements are null or objects whose turnIds are strings or null. It
// returns the index after it, the number of elements and whether it is
// such a value.
func scanTurns(b []byte, i int) (int, int, bool) {
	if i < len(b) && b[i] == 'n' {
		return skipVal(b, i), 0, true
	}
	a, isArr := openArr(b, i)
	if !isArr {
		return skipVal(b, i), 0, false
	}
	n := 0
	ok := true
	for {
		e, more := a.next()
		if !more {
			break
		}
		n++
		if b[e] != '{' {
			ok = ok && b[e] == 'n'
			a.i = skipVal(b, e)
			continue
		}
		c, _ := open(b, e)
		for c.next() {
			if string(c.name) == "turnId" {
				_, sok := c.str()
				ok = ok && sok
			} else {
				c.value()
			}
		}
		a.i = c.i
	}
	return a.i, n, ok
}

// scanStrings reads an alternatives value at b[i]: null, or an array of
// strings and nulls.
func scanStrings(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == 'n' {
		return skipVal(b, i), true
	}
	a, isArr := openArr(b, i)
	if !isArr {
		return skipVal(b, i), false
	}
	ok := true
	for {
		e, more := a.next()
		if !more {
			break
		}
		j := skipVal(b, e)
		ok = ok && j >= 0 && rawjson.IsStr(b[e:j])
		a.i = j
	}
	return a.i, ok
}
