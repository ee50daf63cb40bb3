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
	in := depth + 1
	b = append(b, '{')
	b = str(member(b, in, `"id": `, true), it.id)
	b = appendSemanticID(member(b, in, `"semanticId": "`, false), sidPrefixes[it.sidKind], it.sid)
	b = append(member(append(b, '"'), in, `"kind": "`, false), itemKinds[it.kind]...)
	b = str(member(append(b, '"'), in, `"summary": `, false), it.summary)
	b = append(member(b, in, `"status": "`, false), itemStatuses[it.status]...)
	b = str(member(append(b, '"'), in, `"confidence": `, false), it.confidence)
	b = member(b, in, `"scope": "session"`, false)
	b = member(b, in, `"sourceTurns": [`, false)
	for i, turn := range it.turns {
		b = member(b, in+1, "{", i == 0)
		b = str(member(b, in+2, `"turnId": `, true), turn.id)
		b = append(model.AppendLine(b, in+1), '}')
	}
	if len(it.turns) > 0 {
		b = model.AppendLine(b, in)
	}
	b = str(member(append(b, ']'), in, `"lastTouched": `, false), it.lastTouched)
	if len(it.tags) > 0 {
		b = member(b, in, `"tags": [`, false)
		for i, tag := range it.tags {
			b = str(member(b, in+1, "", i == 0), tag)
		}
		b = append(model.AppendLine(b, in), ']')
	}
	return append(model.AppendLine(b, depth), '}')
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

// intSeq returns a line's seq (a JSON number, as written) as an int64, as
// seqValue does, and whether it is one.
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
