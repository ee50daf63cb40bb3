package statediff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aymanbagabas/go-udiff"

	"github.com/rewind-tui/rewind/model"
)

// partsFormat is a format whose state is its projection's parts.
type partsFormat struct{ model.Format }

type partsState []placed

func (partsState) View() model.Object       { return nil }
func (partsState) Pending() []model.Pending { return nil }
func (partsFormat) Docs() []string          { return []string{"DOC"} }
func (partsFormat) Render(s model.State, _ string) string {
	var b strings.Builder
	for _, p := range s.(partsState) {
		b.WriteString(p.text)
	}
	return b.String()
}
func (partsFormat) RenderParts(s model.State, _ string, yield func(int64, string) bool) {
	for _, p := range s.(partsState) {
		if !yield(p.place, p.text) {
			return
		}
	}
}

// randomText returns a part of 1 to 12 lines, drawn from few distinct
// lines so that lines repeat as a conversation's do.
func randomText(rng *rand.Rand) string {
	words := []string{"", "### tool", "```", "ok", "=== EXIT CODE: 0 ===", "### assistant", "- `run`"}
	var b strings.Builder
	for range 1 + rng.IntN(12) {
		b.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, " %d", rng.IntN(50))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// randomParts returns n random parts, at places 1024 apart from 1024.
func randomParts(rng *rand.Rand, n int) partsState {
	parts := make(partsState, n)
	for i := range parts {
		parts[i] = placed{int64(i+1) * 1024, randomText(rng)}
	}
	return parts
}

// cut splits part k of ps in two at byte at of its text, the second half
// at the next place.
func cut(ps partsState, k, at int) partsState {
	p := ps[k]
	return slices.Insert(slices.Clone(ps), k+1, placed{p.place + 1, p.text[at:]}).set(k, placed{p.place, p.text[:at]})
}

func (ps partsState) set(k int, p placed) partsState {
	ps[k] = p
	return ps
}

// TestDocDiffIsTheWholeDiff checks the part by part diff against the two
// whole documents, for the changes a journal makes to a projection as it
// grows: parts changed in place (a header, a tool's status), parts added
// or gone at the end, changes close enough together that their hunks join,
// parts inserted and removed in the middle (an item that moves between two
// sections), and lines cut between two parts: every hunk's header numbers
// its lines in both documents right, and the hunks turn the one into the
// other.
func TestDocDiffIsTheWholeDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	f := partsFormat{}
	edits := 0
	for round := range 3000 {
		a := randomParts(rng, 1+rng.IntN(40))
		b := slices.Clone(a)
		for range 1 + rng.IntN(4) {
			if len(b) == 0 {
				b = randomParts(rng, 1)
			}
			switch k := rng.IntN(len(b) + 1); {
			case rng.IntN(3) == 0:
				for range 1 + rng.IntN(3) {
					b = append(b, placed{b[len(b)-1].place + 1024, randomText(rng)})
				}
			case rng.IntN(3) == 0 && len(b) > 1:
				b = b[:len(b)-1]
			case k < len(b):
				b[k].text = randomText(rng)
			}
			if k := rng.IntN(len(b)); round%4 == 3 {
				before := int64(0)
				if k > 0 {
					before = b[k-1].place
				}
				b = slices.Insert(b, k, placed{(before + b[k].place) / 2, randomText(rng)})
			} else if round%4 == 2 && len(b) > 1 {
				b = slices.Delete(b, k, k+1)
			}
		}
		if round%3 == 0 {
			// A line cut between two parts, in both documents or in b.
			k := rng.IntN(len(b))
			at := rng.IntN(len(b[k].text) + 1)
			b = cut(b, k, at)
			if i := slices.IndexFunc(a, func(p placed) bool { return p.place == b[k].place }); i >= 0 && round%2 == 0 {
				a = cut(a, i, min(at, len(a[i].text)))
			}
		}
		if round%5 == 0 {
			// The last part without its newline.
			b[len(b)-1].text = strings.TrimSuffix(b[len(b)-1].text, "\n")
		}
		da, db := f.Render(a, ""), f.Render(b, "")
		got, differ := docDiff(context.Background(), f, a, b, "DOC", "DOC@1", "DOC@2")
		if differ != (da != db) {
			t.Fatalf("round %d: differ %v, documents differ %v", round, differ, da != db)
		}
		if !differ {
			continue
		}
		edits++
		checkUnified(t, fmt.Sprintf("round %d", round), got, da, db)
	}
	if edits < 2250 {
		t.Fatalf("%d of 3000 rounds changed the document", edits)
	}
}

// TestDocDiffHoldsAStretch checks the ends of an equal stretch between
// two changes: 2*contextLines lines join the two hunks, one more keeps
// them apart, as diff -u does, whether the stretch is one part or several.
func TestDocDiffHoldsAStretch(t *testing.T) {
	f := partsFormat{}
	lines := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s %d\n", prefix, i)
		}
		return b.String()
	}
	for _, n := range []int{0, 1, 5, 6, 7, 8, 20} {
		for _, cut := range []int{1, 2, 3} {
			var equal []string
			for i := range cut {
				equal = append(equal, lines(fmt.Sprint("eq", i), n/cut+boolInt(i < n%cut)))
			}
			a := append(append([]string{"old head\n"}, equal...), "old tail\n", lines("end", 10))
			b := append(append([]string{"new head\n"}, equal...), "new tail\n", lines("end", 10))
			got, _ := docDiff(context.Background(), f, placedInOrder(a), placedInOrder(b), "DOC", "a", "b")
			checkUnified(t, fmt.Sprintf("%d equal lines in %d parts", n, cut), got, strings.Join(a, ""), strings.Join(b, ""))
			if hunks := strings.Count(got, "\n@@ "); (n > 2*contextLines) != (hunks == 2) {
				t.Fatalf("%d equal lines: %d hunks\n%s", n, hunks, got)
			}
		}
	}
}

// placedInOrder returns texts as parts at places 0, 1, 2…
func placedInOrder(texts []string) partsState {
	ps := make(partsState, len(texts))
	for i, t := range texts {
		ps[i] = placed{int64(i), t}
	}
	return ps
}

// TestDocDiffAlignsByPlace moves a part as DeltaMind moves an item from one
// section to another: gone from its place, at a new one further on. The
// diff removes and adds that part's lines, and compares each part between
// with the part of its place, not the one after it.
func TestDocDiffAlignsByPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	f := partsFormat{}
	a := randomParts(rng, 60)
	moved := a[10]
	b := slices.Delete(slices.Clone(a), 10, 11)
	b = slices.Insert(b, 39, placed{b[38].place + 1, moved.text}) // after a's part 39
	got, _ := docDiff(context.Background(), f, a, b, "DOC", "a", "b")
	checkUnified(t, "a part moved", got, f.Render(a, ""), f.Render(b, ""))
	if n, want := changedLines(got), 2*strings.Count(moved.text, "\n"); n != want {
		t.Fatalf("%d lines added and removed, want %d (the part's, twice):\n%s", n, want, got)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkDocs checks the projection diffs of rep, Compute's report of a → b
// in replay r of format f, against the two whole projections, and holds
// each to no more lines added and removed than udiff's diff of the whole
// projections. It returns how many projections differ.
func checkDocs(t *testing.T, f model.Format, rep Report, sa, sb model.State, what string) int {
	t.Helper()
	n := 0
	for _, doc := range f.Docs() {
		da, db := f.Render(sa, doc), f.Render(sb, doc)
		i := slices.IndexFunc(rep.Docs, func(d DocDiff) bool { return d.Name == doc })
		if (i >= 0) != (da != db) {
			t.Fatalf("%s: projection %s in the report %v, differs %v", what, doc, i >= 0, da != db)
		}
		if i < 0 {
			continue
		}
		n++
		got := rep.Docs[i].Unified
		checkUnified(t, what+", "+doc, got, da, db)
		want := udiff.Unified(fmt.Sprintf("%s@%d", doc, rep.From), fmt.Sprintf("%s@%d", doc, rep.To), da, db)
		if g, w := changedLines(got), changedLines(want); g > w {
			t.Fatalf("%s, %s: %d lines added and removed, udiff %d\n%s", what, doc, g, w, got)
		}
	}
	return n
}

// checkUnified parses diff, a unified diff of a and b, and fails t unless
// every hunk's header counts its lines and numbers them where they are in
// a and in b, the hunks come in order without overlapping, and a with the
// hunks applied is b.
func checkUnified(t *testing.T, what, diff, a, b string) {
	t.Helper()
	la, lb := docLines(a), docLines(b)
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("%s: not a unified diff:\n%s", what, diff)
	}
	var out []string // b, made from a and the hunks
	nextA := 0       // a's lines before nextA are in out
	for i := 2; i < len(lines); {
		var fa, ca, fb, cb int
		if !parseHunkHeader(lines[i], &fa, &ca, &fb, &cb) {
			t.Fatalf("%s: line %d: not a hunk header: %q\n%s", what, i, lines[i], diff)
		}
		i++
		var old, new, kinds []string
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "@@ "); i++ {
			l := lines[i]
			if l == `\ No newline at end of file` {
				continue
			}
			kinds = append(kinds, l[:1])
			switch l[0] {
			case ' ':
				old, new = append(old, l[1:]), append(new, l[1:])
			case '-':
				old = append(old, l[1:])
			case '+':
				new = append(new, l[1:])
			default:
				t.Fatalf("%s: %q in a hunk", what, l)
			}
		}
		if len(old) != ca || len(new) != cb {
			t.Fatalf("%s: hunk %q has %d old and %d new lines", what, lines[i-1-len(old)], len(old), len(new))
		}
		startA, startB := max(fa-1, 0), max(fb-1, 0)
		if startA < nextA || startA+ca > len(la) || !slices.Equal(la[startA:startA+ca], old) {
			t.Fatalf("%s: hunk -%d,%d is not a's lines there\n%s", what, fa, ca, diff)
		}
		if startB+cb > len(lb) || !slices.Equal(lb[startB:startB+cb], new) {
			t.Fatalf("%s: hunk +%d,%d is not b's lines there\n%s", what, fb, cb, diff)
		}
		// contextLines of context around the changes, fewer only at
		// the documents' ends; hunks closer than that are one.
		lead, trail := equalEnds(kinds)
		if want := min(contextLines, startA+lead); lead != want || nextA > 0 && startA <= nextA {
			t.Fatalf("%s: hunk -%d,%d: %d lines of context before, want %d (previous hunk ends at %d)\n%s", what, fa, ca, lead, want, nextA, diff)
		}
		if want := min(contextLines, len(la)-(startA+ca-trail)); trail != want {
			t.Fatalf("%s: hunk -%d,%d: %d lines of context after, want %d\n%s", what, fa, ca, trail, want, diff)
		}
		out = append(append(out, la[nextA:startA]...), new...)
		nextA = startA + ca
		if len(out) != startB+cb {
			t.Fatalf("%s: hunk +%d,%d: b has %d lines before its end", what, fb, cb, len(out))
		}
	}
	out = append(out, la[nextA:]...)
	if !slices.Equal(out, lb) {
		t.Fatalf("%s: the hunks do not turn a into b\n%s", what, diff)
	}
}

// equalEnds counts the context lines (" ") a hunk starts and ends with,
// given the first character of each of its lines.
func equalEnds(kinds []string) (lead, trail int) {
	for lead < len(kinds) && kinds[lead] == " " {
		lead++
	}
	for trail < len(kinds)-lead && kinds[len(kinds)-1-trail] == " " {
		trail++
	}
	return lead, trail
}

// docLines returns s's lines without their newlines.
func docLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// parseHunkHeader reads "@@ -fa,ca +fb,cb @@" (a count of 1 left out).
func parseHunkHeader(h string, fa, ca, fb, cb *int) bool {
	f := strings.Fields(h)
	if len(f) != 4 || f[0] != "@@" || f[3] != "@@" || f[1][0] != '-' || f[2][0] != '+' {
		return false
	}
	return parseRange(f[1][1:], fa, ca) && parseRange(f[2][1:], fb, cb)
}

func parseRange(s string, from, count *int) bool {
	a, c, ok := strings.Cut(s, ",")
	var err1, err2 error
	*from, err1 = strconv.Atoi(a)
	*count = 1
	if ok {
		*count, err2 = strconv.Atoi(c)
	}
	return err1 == nil && err2 == nil
}

// changedLines counts the lines a unified diff adds and removes.
func changedLines(diff string) int {
	n := 0
	for i, l := range strings.Split(diff, "\n") {
		if i >= 2 && (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) {
			n++
		}
	}
	return n
}

// TestDocDiffKeepsChangesInTheirParts adds a line at the end of a part
// that the equal part after it starts with: the hunk adds it in its part,
// not after the equal line, so that the hunk ends where the equal lines
// leave room for the next one's context; the equal lines in one part or
// two.
func TestDocDiffKeepsChangesInTheirParts(t *testing.T) {
	f := partsFormat{}
	for _, rep := range []string{"x\n", "x\nx\n", "```\n\n"} {
		equal := rep + "1\n2\n3\n4\n5\n6\n"[:14-2*strings.Count(rep, "\n")]
		for _, parts := range [][]string{{equal}, {equal[:len(rep)+2], equal[len(rep)+2:]}} {
			a := placedInOrder(append(append([]string{"head\n", "part a\n"}, parts...), "last a\n"))
			b := placedInOrder(append(append([]string{"head\n", "part a\n" + rep}, parts...), "last b\n"))
			got, _ := docDiff(context.Background(), f, a, b, "DOC", "a", "b")
			checkUnified(t, fmt.Sprintf("%q repeated, the equal lines in %d parts", rep, len(parts)), got, f.Render(a, ""), f.Render(b, ""))
		}
	}
}

// cancelling is partsFormat that cancels a diff after n of its parts and
// counts the parts it is asked for.
type cancelling struct {
	partsFormat
	n      int
	asked  *atomic.Int64
	cancel context.CancelFunc
}

func (c cancelling) RenderParts(s model.State, doc string, yield func(int64, string) bool) {
	c.partsFormat.RenderParts(s, doc, func(place int64, p string) bool {
		if c.asked.Add(1) == int64(c.n) {
			c.cancel()
		}
		return yield(place, p)
	})
}

// A diff whose overlay is closed stops comparing the projections within a
// few hundred parts, and leaves the report without them.
func TestDocDiffStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randomParts(rng, 100000)
	b := slices.Clone(a)
	b[len(b)-1].text = "changed\n"
	ctx, cancel := context.WithCancel(context.Background())
	asked := new(atomic.Int64)
	f := cancelling{n: 1000, asked: asked, cancel: cancel}
	if got, differ := docDiff(ctx, f, a, b, "DOC", "a", "b"); differ || got != "" {
		t.Errorf("a stopped diff gave %v %q", differ, got)
	}
	// Each side's sender may have made up to seven batches of 64 KiB
	// (about a thousand parts each here: four queued, one taken, one
	// being read, one being made) before it sees the stop.
	if n := asked.Load(); n > 1000+2*7*1200 {
		t.Errorf("%d of %d parts made after the stop at 1000", n, 2*len(a))
	}
	rep := Report{f: f, sa: a, sb: b}
	if err := rep.AddDocsContext(ctx); err != context.Canceled || rep.Docs != nil {
		t.Errorf("AddDocsContext after the stop: %v, %d diffs", err, len(rep.Docs))
	}
}
