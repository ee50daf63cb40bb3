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

// member appends the separator before a member (a comma unless first),
// its line's indentation at depth and its name, lit (`"name": `).
func member(b []byte, depth int, lit string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	return append(model.AppendLine(b, depth), lit...)
}

// AppendIndented appends the item as objectIn's members, in its order
// (see model.Appender), its strings written by str.
func (t itemText) AppendIndented(b []byte, depth int, str func([]byte, string) []byte) []byte {
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
		id:          string(member([]byte("{"), in, `"id": `, true)),
		sid:         string(member(nil, in, `"semanticId": "`, false)),
		kind:        string(member(q, in, `"kind": "`, false)),
		summary:     string(member(q, in, `"summary": `, false)),
		status:      string(member(nil, in, `"status": "`, false)),
		confidence:  string(member(q, in, `"confidence": `, false)),
		turns:       string(member(member(nil, in, `"scope": "session"`, false), in, `"sourceTurns": [`, false)),
		turnFirst:   string(member(member(nil, in+1, "{", true), in+2, `"turnId": `, true)),
		turnNext:    string(member(member(nil, in+1, "{", false), in+2, `"turnId": `, true)),
		turnEnd:     string(append(model.AppendLine(nil, in+1), '}')),
		turnsEnd:    string(model.AppendLine(nil, in)),
		lastTouched: string(member([]byte("]"), in, `"lastTouched": `, false)),
		tags:        string(member(nil, in, `"tags": [`, false)),
		tagFirst:    string(member(nil, in+1, "", true)),
		tagNext:     string(member(nil, in+1, "", false)),
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
// (see model.Appender), its strings written by str.
func (e *entryText) AppendIndented(b []byte, depth int, str func([]byte, string) []byte) []byte {
	in := depth + 1
	b = strconv.AppendInt(member(append(b, '{'), in, `"seq": `, true), e.seq, 10)
	b = str(member(b, in, `"kind": `, false), e.kind)
	b = str(member(b, in, `"target": `, false), e.target)
	b = str(member(b, in, `"reason": `, false), e.reason)
	if !e.disagreement {
		b = str(member(b, in, `"timestamp": `, false), e.timestamp)
	}
	b = strconv.AppendInt(member(b, in, `"at": `, false), int64(e.at), 10)
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
