package deltamind

import (
	"strconv"

	"github.com/rewind-tui/rewind/model"
)

// itemText is an item of StreamView's Parts that writes its JSON text
// itself (model.Appender): the bytes an indenting writer writes for
// it.object(), made from the itemVal without building the object. An item
// with a sourceTurn offset is not one (its value is any JSON the line
// holds): the part gives its object instead.
type itemText struct{ it *itemVal }

// appendable reports whether itemText can write it: no sourceTurn has an
// offset.
func (it *itemVal) appendable() bool {
	for _, t := range it.turns {
		if t.off != nil {
			return false
		}
	}
	return true
}

// AppendIndented appends the item as objectIn's members, in its order
// (see model.Appender), its strings written by w.
func (t itemText) AppendIndented(b []byte, depth int, w model.Strings) []byte {
	str := w.String
	it := t.it
	l := itemLitsAt(depth)
	b = str(append(b, l.id...), it.id)
	b = appendSemanticID(append(b, l.sid...), sidPrefixes[it.sidKind], it.sid)
	b = append(append(b, l.kind...), itemKinds[it.kind]...)
	b = str(append(b, l.summary...), it.summary)
	b = append(append(b, l.status...), itemStatuses[it.status]...)
	b = str(append(b, l.confidence...), it.confidence)
	b = append(b, l.turns...)
	for i, turn := range it.turns {
		if i == 0 {
			b = append(b, l.turnFirst...)
		} else {
			b = append(b, l.turnNext...)
		}
		b = append(str(b, turn.id), l.turnEnd...)
	}
	if len(it.turns) > 0 {
		b = append(b, l.turnsEnd...)
	}
	b = str(append(b, l.lastTouched...), it.lastTouched)
	if len(it.tags) > 0 {
		b = append(b, l.tags...)
		for i, tag := range it.tags {
			if i == 0 {
				b = append(b, l.tagFirst...)
			} else {
				b = append(b, l.tagNext...)
			}
			b = str(b, tag)
		}
		b = append(b, l.tagsEnd...)
	}
	return append(b, l.end...)
}

// itemLits are the bytes itemText writes between the values of an item
// at one depth (the punctuation, line breaks, indentation and names),
// made by the calls that would write them one piece at a time: an item
// then takes one copy for each instead of three or four (member).
type itemLits struct {
	id, sid, kind, summary, status, confidence, turns   string
	turnFirst, turnNext, turnEnd, turnsEnd, lastTouched string
	tags, tagFirst, tagNext, tagsEnd, end               string
}

// itemLitsByDepth are the itemLits of the depths items are usually
// written at.
var itemLitsByDepth = func() (t [8]*itemLits) {
	for d := range t {
		t[d] = makeItemLits(d)
	}
	return t
}()

func itemLitsAt(depth int) *itemLits {
	if depth < len(itemLitsByDepth) {
		return itemLitsByDepth[depth]
	}
	return makeItemLits(depth)
}

func makeItemLits(depth int) *itemLits {
	in := depth + 1
	q := []byte(`"`)
	return &itemLits{
		id:          string(model.AppendMember([]byte("{"), in, `"id": `, true)),
		sid:         string(model.AppendMember(nil, in, `"semanticId": "`, false)),
		kind:        string(model.AppendMember(q, in, `"kind": "`, false)),
		summary:     string(model.AppendMember(q, in, `"summary": `, false)),
		status:      string(model.AppendMember(nil, in, `"status": "`, false)),
		confidence:  string(model.AppendMember(q, in, `"confidence": `, false)),
		turns:       string(model.AppendMember(model.AppendMember(nil, in, `"scope": "session"`, false), in, `"sourceTurns": [`, false)),
		turnFirst:   string(model.AppendMember(model.AppendMember(nil, in+1, "{", true), in+2, `"turnId": `, true)),
		turnNext:    string(model.AppendMember(model.AppendMember(nil, in+1, "{", false), in+2, `"turnId": `, true)),
		turnEnd:     string(append(model.AppendLine(nil, in+1), '}')),
		turnsEnd:    string(model.AppendLine(nil, in)),
		lastTouched: string(model.AppendMember([]byte("]"), in, `"lastTouched": `, false)),
		tags:        string(model.AppendMember(nil, in, `"tags": [`, false)),
		tagFirst:    string(model.AppendMember(nil, in+1, "", true)),
		tagNext:     string(model.AppendMember(nil, in+1, "", false)),
		tagsEnd:     string(append(model.AppendLine(nil, in), ']')),
		end:         string(append(model.AppendLine(nil, depth), '}')),
	}
}

// entryText is a rejected line or a disagreement of StreamView's Parts
// that writes its JSON text itself (model.Appender): the bytes an
// indenting writer writes for the entry's object (decoder.entryObject),
// made without building the object, for a line whose seq is an integer.
type entryText struct {
	seq                             int64
	kind, target, reason, timestamp string
	at                              int
	disagreement                    bool // no timestamp
}

// AppendIndented appends the entry as entryObject's members, in its order
// (see model.Appender), its strings written by w.
func (e *entryText) AppendIndented(b []byte, depth int, w model.Strings) []byte {
	str := w.String
	in := depth + 1
	b = strconv.AppendInt(model.AppendMember(append(b, '{'), in, `"seq": `, true), e.seq, 10)
	b = str(model.AppendMember(b, in, `"kind": `, false), e.kind)
	b = str(model.AppendMember(b, in, `"target": `, false), e.target)
	b = str(model.AppendMember(b, in, `"reason": `, false), e.reason)
	if !e.disagreement {
		b = str(model.AppendMember(b, in, `"timestamp": `, false), e.timestamp)
	}
	b = strconv.AppendInt(model.AppendMember(b, in, `"at": `, false), int64(e.at), 10)
	return append(model.AppendLine(b, depth), '}')
}

// intSeq returns a line's seq (a JSON number, as written) as an int64
// (strconv.ParseInt's, without making a string of it), and whether it is
// one.
func intSeq(raw []byte) (int64, bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		n, err := strconv.ParseInt(string(raw), 10, 64) // 19 digits may fit
		return n, err == nil
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
