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
// MB at the peak when Render made each projection whole, 170 MB).
//
// Places (see partPlace) are the section's and the item's: an item that
// moves from one section to another (a decision superseded) is a part
// removed at one place and added at another, and the items between keep
// their places. It is RenderPairParts of s with itself.
func (f format) RenderParts(st model.State, doc string, yield func(place int64, part string) bool) {
	f.RenderPairParts(st, st, doc, func(place int64, a, _ string, _, _ bool) bool { return yield(place, a) })
}

// sectionLists returns the items each of secs lists, in order, and the
// last section that lists any (-1: none), whose closing line ends the
// document.
func (s *state) sectionLists(secs []section) (lists [][]int32, last int) {
	lists, last = make([][]int32, len(secs)), -1
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
	for k := range secs {
		if len(lists[k]) > 0 {
			last = k
		}
	}
	return lists, last
}

// headPart is the part of a projection that head, its heading lines,
// make: every line but the last, an empty one, with its newline.
func headPart(head []string) string { return strings.Join(head[:len(head)-1], "\n") + "\n" }

// RenderPairParts is RenderParts of sa and of sb at once, merged by place
// (model.PairParts): an item that both list in a section, at a version
// neither changed, is read back and written once for the two. A diff of
// neighbouring states then reads each item once, not twice. It returns
// false, having yielded nothing, when the two states are not of one fold.
func (format) RenderPairParts(ma, mb model.State, doc string, yield func(place int64, a, b string, inA, inB bool) bool) bool {
	a, okA := ma.(*state)
	b, okB := mb.(*state)
	if !okA || !okB || a == nil || b == nil || a.lin != b.lin {
		return false
	}
	headA, secs, ok := a.plan(doc)
	headB, _, _ := b.plan(doc)
	if !ok {
		return true
	}
	listsA, lastA := a.sectionLists(secs)
	listsB, lastB := listsA, lastA
	if b != a {
		listsB, lastB = b.sectionLists(secs)
	}
	if !yield(0, headPart(headA), headPart(headB), true, true) ||
		(lastA >= 0 || lastB >= 0) && !yield(1, "\n", "\n", lastA >= 0, lastB >= 0) {
		return true
	}
	l := a.lin
	for k, sec := range secs {
		la, lb := listsA[k], listsB[k]
		if len(la) == 0 && len(lb) == 0 {
			continue
		}
		title := sec.title + "\n\n"
		if !yield(partPlace(k, 0), title, title, len(la) > 0, len(lb) > 0) {
			return true
		}
		d := l.decoder(walkWin)
		line := func(i int32, seq int64) string {
			it := d.item(i, seq)
			return sec.line(&it) + "\n"
		}
		for len(la) > 0 || len(lb) > 0 {
			var i int32
			var ta, tb string
			switch {
			case len(lb) == 0 || len(la) > 0 && la[0] < lb[0]:
				i, ta, la = la[0], line(la[0], a.seq), la[1:]
			case len(la) == 0 || lb[0] < la[0]:
				i, tb, lb = lb[0], line(lb[0], b.seq), lb[1:]
			default:
				i, la, lb = la[0], la[1:], lb[1:]
				same := a.seq == b.seq
				if !same {
					l.mu.Lock()
					same = l.version(i, a.seq) == l.version(i, b.seq)
					l.mu.Unlock()
				}
				if ta = line(i, a.seq); same {
					tb = ta
				} else {
					tb = line(i, b.seq)
				}
			}
			if !yield(partPlace(k, int64(i)+1), ta, tb, ta != "", tb != "") {
				d.done()
				return true
			}
		}
		d.done()
		endA, endB := len(listsA[k]) > 0 && k != lastA, len(listsB[k]) > 0 && k != lastB
		if (endA || endB) && !yield(partPlace(k, sectionEnd), "\n", "\n", endA, endB) {
			return true
		}
	}
	return true
}

// sectionEnd is the place in a section of the blank line that closes it,
// after its items'.
const sectionEnd = 1<<40 - 1

// partPlace is the place of a part of section k: its title at 0, item i at
// i+1, its closing line at sectionEnd. The heading is at 0 and the blank
// line after it at 1, before any section's.
func partPlace(k int, at int64) int64 { return int64(k+1)<<40 | at }
