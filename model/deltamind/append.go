package deltamind

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

// The indentation appendIndent takes its spaces from.
const spaces = "                                                                "

// appendIndent appends a newline and two spaces per depth.
func appendIndent(b []byte, depth int) []byte {
	b = append(b, '\n')
	for n := 2 * depth; n > 0; n -= len(spaces) {
		b = append(b, spaces[:min(n, len(spaces))]...)
	}
	return b
}

// AppendIndented appends the item as objectIn's members, in its order
// (see model.Appender), its strings written by str.
func (t itemText) AppendIndented(b []byte, depth int, str func([]byte, string) []byte) []byte {
	it := t.it
	in := depth + 1
	b = append(b, '{')
	b = appendIndent(b, in)
	b = append(b, `"id": `...)
	b = str(b, it.id)
	b = append(b, ',')
	b = appendIndent(b, in)
	b = append(b, `"semanticId": "`...)
	b = appendSemanticID(b, sidPrefixes[it.sidKind], it.sid)
	b = append(b, `",`...)
	b = appendIndent(b, in)
	b = append(b, `"kind": "`...)
	b = append(b, itemKinds[it.kind]...)
	b = append(b, `",`...)
	b = appendIndent(b, in)
	b = append(b, `"summary": `...)
	b = str(b, it.summary)
	b = append(b, ',')
	b = appendIndent(b, in)
	b = append(b, `"status": "`...)
	b = append(b, itemStatuses[it.status]...)
	b = append(b, `",`...)
	b = appendIndent(b, in)
	b = append(b, `"confidence": `...)
	b = str(b, it.confidence)
	b = append(b, ',')
	b = appendIndent(b, in)
	b = append(b, `"scope": "session",`...)
	b = appendIndent(b, in)
	b = append(b, `"sourceTurns": [`...)
	for i, turn := range it.turns {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendIndent(b, in+1)
		b = append(b, '{')
		b = appendIndent(b, in+2)
		b = append(b, `"turnId": `...)
		b = str(b, turn.id)
		b = appendIndent(b, in+1)
		b = append(b, '}')
	}
	if len(it.turns) > 0 {
		b = appendIndent(b, in)
	}
	b = append(b, "],"...)
	b = appendIndent(b, in)
	b = append(b, `"lastTouched": `...)
	b = str(b, it.lastTouched)
	if len(it.tags) > 0 {
		b = append(b, ',')
		b = appendIndent(b, in)
		b = append(b, `"tags": [`...)
		for i, tag := range it.tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendIndent(b, in+1)
			b = str(b, tag)
		}
		b = appendIndent(b, in)
		b = append(b, ']')
	}
	b = appendIndent(b, depth)
	return append(b, '}')
}
