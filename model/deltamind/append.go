package deltamind

import "github.com/rewind-tui/rewind/model"

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
