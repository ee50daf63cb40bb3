package hostile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/internal/scalartest"
	"github.com/rewind-tui/rewind/model"
)

// A Harness compares a fold with its reference (the fold it replaced, kept
// in the package's tests) on journals of one format. Its zero value is not
// usable: File and Format are needed to open a journal.
type Harness struct {
	// File is the name the journal is written under, Format the format it
	// is opened as (app.Options.Format, such as model.DeltaMind).
	File, Format string
	// Docs are documents Output renders besides the format's own and the
	// unknown document "" (say, a document another format offers).
	Docs []string
}

// Open writes data to h.File in a temporary directory and opens it the way
// rewind does, so that events carry their file (ev.Src) and offsets. The
// session is closed when the test ends.
func (h Harness) Open(t testing.TB, data []byte) *app.Session {
	t.Helper()
	p := filepath.Join(t.TempDir(), h.File)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := app.OpenPath(p, app.Options{Format: h.Format})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Output is everything state s of format f shows at position pos: the
// state JSON, then every document f offers, the unknown document "" and
// h.Docs, each after a line "---- " and its name.
func (h Harness) Output(t testing.TB, f model.Format, s model.State, pos int) []byte {
	t.Helper()
	b, err := model.StateJSON(f, s, pos).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range slices.Concat(f.Docs(), []string{""}, h.Docs) {
		b = append(append(b, "\n---- "+doc+"\n"...), f.Render(s, doc)...)
	}
	return b
}

// FirstDiff describes where got and want first differ: the byte offset,
// and each around it (200 bytes either side at the most).
func FirstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-200, 0)
	return fmt.Sprintf("at byte %d:\n got …%s…\nwant …%s…", i, got[lo:min(i+200, len(got))], want[lo:min(i+200, len(want))])
}

// Match opens data (see Open) and folds each of its events through fold
// and through ref, comparing the two after every event, and the initial
// states first: t fails at the first position where their Output differs,
// where one Apply returned the state it was given and the other did not,
// or where their Describe rows differ. check, when not nil, is called
// after every event with the states fold and ref reached, for the checks
// a format adds. A journal that yields fewer than nine events for ten
// lines is logged.
func (h Harness) Match(t testing.TB, data []byte, fold, ref model.Format, check func(ev model.Event, s, rs model.State)) {
	t.Helper()
	sess := h.Open(t, data)
	n := sess.R.Events()
	if lines := bytes.Count(data, []byte("\n")); n < lines*9/10 {
		t.Logf("%d events of %d lines", n, lines)
	}
	ns, rs := fold.Init(), ref.Init()
	if got, want := h.Output(t, fold, ns, 0), h.Output(t, ref, rs, 0); !bytes.Equal(got, want) {
		t.Fatalf("initial state: %s", FirstDiff(got, want))
	}
	err := sess.J.Each(1, n, func(ev model.Event) error {
		prev, rprev := ns, rs
		ns, rs = fold.Apply(ns, ev), ref.Apply(rs, ev)
		if (ns == prev) != (rs == rprev) {
			t.Fatalf("event %d (%s): changed the state %v, the reference %v", ev.Pos, ev.Raw, ns != prev, rs != rprev)
		}
		if got, want := h.Output(t, fold, ns, ev.Pos), h.Output(t, ref, rs, ev.Pos); !bytes.Equal(got, want) {
			t.Fatalf("event %d (%s): %s", ev.Pos, ev.Raw, FirstDiff(got, want))
		}
		if g, w := fold.Describe(ev), ref.Describe(ev); g != w {
			t.Fatalf("event %d: Describe = %+v, want %+v", ev.Pos, g, w)
		}
		if check != nil {
			check(ev, ns, rs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// MatchPrepared opens data (see Open) and folds its events with f's
// Prepare and ApplyPrepared (f must be a model.Preparer), in batches of 1,
// 5 and 257 lines, each batch read into the memory of the one before, and
// with Apply: t fails where their Output differs, compared after every
// event of a journal of fewer than 300 events, and after every 97th and
// the last of a longer one (the state compared grows with the journal).
// As journal.UpdateEachPrepared does, each event's Raw is the very slice
// its batch held. For a model.EndsPreparer it does the same with
// PrepareEnds, given what the index finds of each line's scalars
// (scalartest.LineScalars).
func (h Harness) MatchPrepared(t testing.TB, data []byte, f model.Format) {
	t.Helper()
	p, ok := f.(model.Preparer)
	if !ok {
		t.Fatalf("%s is not a model.Preparer", f.Name())
	}
	sess := h.Open(t, data)
	evs := Events(t, sess)
	for _, batch := range []int{1, 5, 257} {
		h.matchBatches(t, evs, p, batch, "", func(lines [][]byte, lo int, prev any) any { return p.Prepare(lines, prev) })
	}
	ep, ok := f.(model.EndsPreparer)
	if !ok {
		return
	}
	scalars := make([]model.LineScalars, len(evs))
	for i, ev := range evs {
		scalars[i], _ = scalartest.LineScalars(ev.Raw)
	}
	for _, batch := range []int{1, 7, 300} {
		h.matchBatches(t, evs, p, batch, " with the index's scalars", func(lines [][]byte, lo int, prev any) any {
			return ep.PrepareEnds(lines, scalars[lo:lo+len(lines)], prev)
		})
	}
}

// matchBatches folds evs with prepare (given the lines of a batch, the
// index of its first event and what it returned for the batch before) and
// ApplyPrepared, in batches of batch lines, and with Apply, and fails
// where their Output differs (see MatchPrepared); how says how the lines
// were prepared.
func (h Harness) matchBatches(t testing.TB, evs []model.Event, p model.Preparer, batch int, how string, prepare func(lines [][]byte, lo int, prev any) any) {
	t.Helper()
	s, ps := p.Init(), p.Init()
	var prep any
	for lo := 0; lo < len(evs); lo += batch {
		hi := min(lo+batch, len(evs))
		lines := make([][]byte, 0, hi-lo)
		for _, ev := range evs[lo:hi] {
			lines = append(lines, ev.Raw)
		}
		prep = prepare(lines, lo, prep)
		for i, ev := range evs[lo:hi] {
			s, ps = p.Apply(s, ev), p.ApplyPrepared(ps, ev, prep, i)
			if len(evs) < 300 || ev.Pos%97 == 0 || ev.Pos == len(evs) {
				if got, want := h.Output(t, p, ps, ev.Pos), h.Output(t, p, s, ev.Pos); !bytes.Equal(got, want) {
					t.Fatalf("batches of %d%s, after event %d (%.120q): prepared and applied differ %s", batch, how, ev.Pos, ev.Raw, FirstDiff(got, want))
				}
			}
		}
	}
}

// Events returns every event of s's journal, in order, each with a copy of
// its line as Raw (a journal's Each gives lines valid only during the
// call).
func Events(t testing.TB, s *app.Session) []model.Event {
	t.Helper()
	var evs []model.Event
	if err := s.J.Each(1, s.R.Events(), func(ev model.Event) error {
		ev.Raw = bytes.Clone(ev.Raw)
		evs = append(evs, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return evs
}
