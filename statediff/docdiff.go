package statediff

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/rewind-tui/rewind/model"
)

// contextLines is how many unchanged lines a projection's diff shows
// around each change, as udiff.Unified and diff -u do.
const contextLines = udiff.DefaultContextLines

// docDiff returns the unified diff, labelled fromLabel and toLabel, of
// projection doc of states sa and sb, and whether the two differ. The
// documents are read a part at a time (model.RenderParts), those of sa on
// another goroutine, and compared part by part: parts that are equal are
// only counted, and the runs of parts that differ, with the lines of
// context around them, are diffed on their own (udiff) and their hunks
// moved to their lines in the whole documents. A diff at the end of a Delta
// Engine conversation of millions of messages then holds a few messages,
// not the two conversations (1.2 GB at 250 MB of journal).
//
// It gives udiff.Unified of the two whole documents when the parts that
// differ are more than 2*contextLines lines apart, as udiff would keep
// their hunks apart too; where it aligns the documents differently (a
// part inserted before others: the parts after it are compared with the
// ones that were in their place), the diff is as long as the part the
// run covers, and still turns the one document into the other.
func docDiff(f model.Format, sa, sb model.State, doc, fromLabel, toLabel string) (string, bool) {
	as := make(chan []string, 4)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(as)
		sendParts(f, sa, doc, as, done)
	}()
	bs := make(chan []string, 4)
	go func() {
		defer close(bs)
		sendParts(f, sb, doc, bs, done)
	}()
	d := partDiff{ctx: contextLines}
	var pa, pb []string
	for {
		if len(pa) == 0 {
			pa = <-as
		}
		if len(pb) == 0 {
			pb = <-bs
		}
		if len(pa) == 0 && len(pb) == 0 {
			break
		}
		a, b, hasA, hasB := "", "", len(pa) > 0, len(pb) > 0
		if hasA {
			a, pa = pa[0], pa[1:]
		}
		if hasB {
			b, pb = pb[0], pb[1:]
		}
		d.add(a, b, hasA && hasB && a == b)
	}
	d.close()
	if len(d.hunks) == 0 {
		return "", false // equal, or parts cut in other places
	}
	return unifiedText(fromLabel, toLabel, d.hunks), true
}

// unified returns the unified diff of a and b, labelled fromLabel and
// toLabel, with contextLines lines of context: udiff.Unified with each
// hunk's line in b numbered right (see unifiedText).
func unified(fromLabel, toLabel, a, b string) string {
	d := partDiff{ctx: contextLines}
	d.add(a, b, false)
	d.close()
	return unifiedText(fromLabel, toLabel, d.hunks)
}

// unifiedText writes hunks, in order, as a unified diff. It numbers each
// hunk's first line in the new document from its line in the old one and
// the lines the hunks before it added and removed: udiff counts the new
// document's lines only up to a hunk's first change, so the hunks after
// one with equal lines between two changes were numbered short by those
// lines.
func unifiedText(fromLabel, toLabel string, hunks []*udiff.Hunk) string {
	shift := 0
	for _, h := range hunks {
		h.ToLine = h.FromLine + shift
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				shift++
			case udiff.Delete:
				shift--
			}
		}
	}
	u := udiff.UnifiedDiff{From: fromLabel, To: toLabel, Hunks: hunks}
	return u.String()
}

// sendParts sends the parts of projection doc of s to out in batches of
// about 64 KiB, each part whole lines (a part that does not end with a
// newline is sent with the parts after it up to one that does), until the
// parts end or done is closed.
func sendParts(f model.Format, s model.State, doc string, out chan<- []string, done <-chan struct{}) {
	const batchBytes = 64 << 10
	var (
		batch []string
		size  int
		carry strings.Builder // a part's last line, not ended yet
	)
	send := func() bool {
		select {
		case out <- batch:
			batch, size = nil, 0
			return true
		case <-done:
			return false
		}
	}
	ok := true
	model.RenderParts(f, s, doc, func(part string) bool {
		if carry.Len() > 0 {
			carry.WriteString(part)
			if !strings.HasSuffix(part, "\n") {
				return true
			}
			part = carry.String()
			carry.Reset()
		} else if part != "" && !strings.HasSuffix(part, "\n") {
			carry.WriteString(part)
			return true
		}
		batch = append(batch, part)
		if size += len(part); size >= batchBytes {
			ok = send()
		}
		return ok
	})
	if !ok {
		return
	}
	if carry.Len() > 0 {
		batch = append(batch, carry.String())
	}
	if len(batch) > 0 {
		send()
	}
}

// partDiff diffs two documents given as parts in lockstep (add), each part
// whole lines but the last.
type partDiff struct {
	ctx   int
	hunks []*udiff.Hunk

	lineA int // lines of the old document before the next part

	// The run being diffed: its text in each document, where it starts,
	// and how many equal lines end it.
	open       bool
	runA, runB strings.Builder
	fromA      int
	equalRun   int

	// before is the last ctx lines of the equal text since the last run:
	// the context a run that opens now starts with.
	before string
}

// add takes the next part of each document (a or b is "" past the end of
// its document); equal says they are the same.
func (d *partDiff) add(a, b string, equal bool) {
	if !equal {
		if !d.open {
			d.open = true
			d.fromA = d.lineA - strings.Count(d.before, "\n")
			d.runA.WriteString(d.before)
			d.runB.WriteString(d.before)
		}
		d.runA.WriteString(a)
		d.runB.WriteString(b)
		d.equalRun = 0
		d.before = ""
		d.lineA += strings.Count(a, "\n")
		return
	}
	n := strings.Count(a, "\n")
	d.lineA += n
	if d.open {
		// Past 2*ctx equal lines, a change after them is a hunk of
		// its own: the run ends once it has them.
		if need := 2*d.ctx + 1 - d.equalRun; n < need {
			d.runA.WriteString(a)
			d.runB.WriteString(a)
			d.equalRun += n
		} else {
			head := firstLines(a, need)
			d.runA.WriteString(head)
			d.runB.WriteString(head)
			d.close()
		}
	}
	d.before = lastLines(d.before+lastLines(a, d.ctx), d.ctx)
}

// close diffs the open run, if any, and adds its hunks at their lines.
func (d *partDiff) close() {
	if !d.open {
		return
	}
	a, b := d.runA.String(), d.runB.String()
	// The lines both start with are left out of udiff's search, which,
	// given a run of a few lines, may put what was added at the end of a
	// conversation before the lines it repeats (a message's closing
	// fence): with them out, it goes after the last line both have, as in
	// a diff of the whole documents.
	p := commonLinePrefix(a, b)
	edits := udiff.Lines(a[p:], b[p:])
	for i := range edits {
		edits[i].Start += p
		edits[i].End += p
	}
	u, err := udiff.ToUnifiedDiff("", "", a, edits, d.ctx)
	if err != nil {
		panic("statediff: udiff's edits do not apply: " + err.Error()) // udiff made them from a
	}
	for _, h := range u.Hunks {
		h.FromLine += d.fromA // ToLine: unifiedText
		d.hunks = append(d.hunks, h)
	}
	d.open, d.equalRun = false, 0
	d.runA.Reset()
	d.runB.Reset()
}

// firstLines returns the first n lines of s (all of s when it has fewer).
func firstLines(s string, n int) string {
	i := 0
	for ; n > 0; n-- {
		k := strings.IndexByte(s[i:], '\n')
		if k < 0 {
			return s
		}
		i += k + 1
	}
	return s[:i]
}

// lastLines returns the last n lines of s, which ends with a newline or is
// "" (all of s when it has fewer).
func lastLines(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		k := strings.LastIndexByte(s[:i-1], '\n')
		i = k + 1
	}
	return s[i:]
}

// commonLinePrefix returns the length of the whole lines a and b start
// with.
func commonLinePrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n == len(a) && n == len(b) {
		return n
	}
	return strings.LastIndexByte(a[:n], '\n') + 1
}
