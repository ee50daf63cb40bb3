package statediff

import (
	"context"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/rewind-tui/rewind/model"
)

// contextLines is how many unchanged lines a projection's diff shows
// around each change, as udiff.Unified and diff -u do.
const contextLines = udiff.DefaultContextLines

// docDiff returns the unified diff, labelled fromLabel and toLabel, of
// projection doc of states sa and sb, and whether the two differ; nothing
// once ctx is done, which it checks every 256 parts. The
// documents are read a part at a time, both at once when the format makes
// the parts they share once (model.PairParts), else each on a goroutine of
// its own (model.RenderParts), and compared place by place: parts that are equal are
// only counted, and the runs of parts that differ or that one document
// alone has, with the lines of context around them, are diffed on their
// own (udiff) and their hunks moved to their lines in the whole documents.
// A diff at the end of a Delta Engine conversation of millions of messages
// then holds a few messages, not the two conversations (1.2 GB at 250 MB
// of journal).
//
// Where the parts that differ are more than 2*contextLines lines apart,
// their hunks are apart too, as in udiff's diff of the whole documents.
func docDiff(ctx context.Context, f model.Format, sa, sb model.State, doc, fromLabel, toLabel string) (string, bool) {
	d := partDiff{ctx: contextLines}
	if pp, ok := f.(model.PairParts); ok && pp.RenderPairParts(sa, sb, doc, func(_ int64, a, b string, inA, inB bool) bool {
		if !inA {
			a = ""
		}
		if !inB {
			b = ""
		}
		d.add(a, b, inA && inB && a == b)
		return !d.stopped(ctx)
	}) {
		return d.result(ctx, fromLabel, toLabel)
	}
	done := make(chan struct{})
	defer close(done)
	as, bs := make(chan []placed, 4), make(chan []placed, 4)
	go sendParts(f, sa, doc, as, done)
	go sendParts(f, sb, doc, bs, done)
	var pa, pb []placed
	for {
		if len(pa) == 0 {
			pa = <-as
		}
		if len(pb) == 0 {
			pb = <-bs
		}
		switch {
		case len(pa) == 0 && len(pb) == 0 || d.stopped(ctx):
			return d.result(ctx, fromLabel, toLabel)
		case len(pa) > 0 && len(pb) > 0 && pa[0].place == pb[0].place:
			d.add(pa[0].text, pb[0].text, pa[0].text == pb[0].text)
			pa, pb = pa[1:], pb[1:]
		case len(pb) == 0 || len(pa) > 0 && pa[0].place < pb[0].place:
			d.add(pa[0].text, "", false) // a part only sa's document has
			pa = pa[1:]
		default:
			d.add("", pb[0].text, false)
			pb = pb[1:]
		}
	}
}

// stopped reports, every 256 parts, whether ctx is done.
func (d *partDiff) stopped(ctx context.Context) bool {
	d.parts++
	return d.parts%256 == 0 && ctx.Err() != nil
}

// result closes the diff and returns it as docDiff does: nothing when ctx
// is done.
func (d *partDiff) result(ctx context.Context, fromLabel, toLabel string) (string, bool) {
	if ctx.Err() != nil {
		return "", false
	}
	d.close()
	if len(d.hunks) == 0 {
		return "", false // equal, or parts cut in other places
	}
	return unifiedText(fromLabel, toLabel, d.hunks), true
}

// placed is a part of a projection and its place (model.DocParts).
type placed struct {
	place int64
	text  string
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
// newline is sent with the parts after it up to one that does, at its own
// place), until the parts end or done is closed; then it closes out.
func sendParts(f model.Format, s model.State, doc string, out chan<- []placed, done <-chan struct{}) {
	defer close(out)
	const batchBytes = 64 << 10
	var (
		batch []placed
		size  int
		carry strings.Builder // a part's last line, not ended yet
		at    int64           // carry's place
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
	model.RenderParts(f, s, doc, func(place int64, part string) bool {
		if carry.Len() > 0 {
			carry.WriteString(part)
			if !strings.HasSuffix(part, "\n") {
				return true
			}
			place, part = at, carry.String()
			carry.Reset()
		} else if part == "" {
			return true
		} else if !strings.HasSuffix(part, "\n") {
			carry.WriteString(part)
			at = place
			return true
		}
		batch = append(batch, placed{place, part})
		if size += len(part); size >= batchBytes {
			ok = send()
		}
		return ok
	})
	if !ok {
		return
	}
	if carry.Len() > 0 {
		batch = append(batch, placed{at, carry.String()})
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
	parts int // parts added, for stopped

	lineA int // lines of the old document before the next part

	// The run being diffed: its text in each document, where it starts,
	// and how many equal lines end it; the bytes of context it starts
	// with (before) and of equal text it ends with.
	open       bool
	runA, runB strings.Builder
	fromA      int
	equalRun   int
	head, tail int

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
			d.head = len(d.before)
		}
		d.runA.WriteString(a)
		d.runB.WriteString(b)
		d.equalRun, d.tail = 0, 0
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
			d.tail += len(a)
		} else {
			head := firstLines(a, need)
			d.runA.WriteString(head)
			d.runB.WriteString(head)
			d.tail += len(head)
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
	// udiff diffs what lies between the context the run starts with and
	// the equal lines it ends with: given a few lines, it may otherwise
	// put what was added at the end of a conversation before the lines
	// it repeats (a message's closing fence), or match a repeated line of
	// the changes with a line of the context, so that a hunk ran into the
	// next run's.
	edits := udiff.Lines(a[d.head:len(a)-d.tail], b[d.head:len(b)-d.tail])
	for i := range edits {
		edits[i].Start += d.head
		edits[i].End += d.head
	}
	u, err := udiff.ToUnifiedDiff("", "", a, edits, d.ctx)
	if err != nil {
		panic("statediff: udiff's edits do not apply: " + err.Error()) // udiff made them from a
	}
	for _, h := range u.Hunks {
		h.FromLine += d.fromA // ToLine: unifiedText
		d.hunks = append(d.hunks, h)
	}
	d.open, d.equalRun, d.head, d.tail = false, 0, 0, 0
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
