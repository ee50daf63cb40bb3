package deltamind

import (
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// RenderParts calls yield with the parts of projection doc of s
// (model.DocParts): its heading lines, then each section's title, each of
// its items' lines and its closing blank line, as Render writes them. It
// finds which items each section lists from their classes first, then
// reads the items back a section at a time, so it holds the item numbers
// of the projection, not its text (1 GB journal, rewind render: 490-550
// MB at the peak with Render, 170 MB).
//
// Places (see partPlace) are the section's and the item's: an item that
// moves from one section to another (a decision superseded) is a part
// removed at one place and added at another, and the items between keep
// their places.
func (format) RenderParts(st model.State, doc string, yield func(place int64, part string) bool) {
	s, ok := st.(*state)
	if !ok || s == nil {
		return
	}
	head, secs, ok := s.plan(doc)
	if !ok {
		return
	}
	lists := make([][]int32, len(secs))
	var classes []uint8
	for from := int32(0); from < s.nItems; from += classBatch {
		classes = s.lin.classes(from, min(from+classBatch, s.nItems), s.seq, classes[:0])
		for j, c := range classes {
			for k := range secs {
				if secs[k].keep(c) {
					lists[k] = append(lists[k], from+int32(j))
				}
			}
		}
	}
	last := -1 // the last section with items: its closing line ends the document
	for k := range secs {
		if len(lists[k]) > 0 {
			last = k
		}
	}
	// Render joins the lines with "\n": every line but the last, an
	// empty one, ends with a newline.
	if !yield(0, strings.Join(head[:len(head)-1], "\n")+"\n") || last < 0 || !yield(1, "\n") {
		return
	}
	for k, sec := range secs {
		if len(lists[k]) == 0 {
			continue
		}
		if !yield(partPlace(k, 0), sec.title+"\n\n") {
			return
		}
		d := s.lin.decoder(walkWin)
		for _, i := range lists[k] {
			it := d.item(i, s.seq)
			if !yield(partPlace(k, int64(i)+1), sec.line(&it)+"\n") {
				d.done()
				return
			}
		}
		d.done()
		if k != last && !yield(partPlace(k, sectionEnd), "\n") {
			return
		}
	}
}

// sectionEnd is the place in a section of the blank line that closes it,
// after its items'.
const sectionEnd = 1<<40 - 1

// partPlace is the place of a part of section k: its title at 0, item i at
// i+1, its closing line at sectionEnd. The heading is at 0 and the blank
// line after it at 1, before any section's.
func partPlace(k int, at int64) int64 { return int64(k+1)<<40 | at }
