package app_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
)

// generated writes a journal of n events in format made with seed to a
// file called name in a temporary directory (journaltest.GeneratedPath)
// and returns its path and bytes.
func generated(t *testing.T, format, name string, n int, seed int64) (string, []byte) {
	t.Helper()
	path := journaltest.GeneratedPath(t, format, name, n, seed)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// lastState opens path whole and returns the format and the JSON of the
// state after its last event, the way rewind state printed it before it
// folded while indexing.
func lastState(t *testing.T, path string) (string, string) {
	t.Helper()
	s, err := app.OpenPath(path, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	obj, err := s.R.JSON(s.R.Events())
	if err != nil {
		t.Fatal(err)
	}
	b, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return s.F.Name(), string(b)
}

// rewind state and rewind render fold while they index: the state after
// the last event, its position and the detected format must be what
// opening the whole journal first gives, whatever the prefix indexed
// before folding starts.
func TestFoldWhileIndexingGivesTheLastState(t *testing.T) {
	for _, format := range []string{demo.FormatDurableStream, demo.FormatDeltaEngine, demo.FormatDeltaMind} {
		path, b := generated(t, format, format+".jsonl", 4000, 7)
		wantFormat, want := lastState(t, path)
		if wantFormat != format {
			t.Fatalf("%s detected as %s", format, wantFormat)
		}
		for _, prefix := range []int64{1, 200, 64 << 10, int64(len(b)) + 1} {
			s, err := app.OpenPath(path, app.Options{Prefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			s.R.OneShot()
			if err := s.FoldWhileIndexing(); err != nil {
				t.Fatal(err)
			}
			if s.F.Name() != format {
				t.Errorf("%s, prefix %d: detected as %s", format, prefix, s.F.Name())
			}
			if n := s.R.Events(); n != 4000 {
				t.Errorf("%s, prefix %d: %d events indexed, want 4000", format, prefix, n)
			}
			// A one-shot fold that starts after the prefix's events keeps their
			// records only.
			if kept := s.J.Index.Records().Events(); prefix == 64<<10 && kept >= 4000 {
				t.Errorf("%s, prefix %d: the index kept all %d records past the prefix", format, prefix, kept)
			}
			obj, err := s.R.JSON(s.R.Events())
			if err != nil {
				t.Fatal(err)
			}
			got, _ := obj.MarshalJSON()
			if string(got) != want {
				t.Errorf("%s, prefix %d: the last state differs from a whole open:\n got %.300s\nwant %.300s", format, prefix, got, want)
			}
			s.Close()
		}
	}
}

// rewind state --at N folds while it indexes, up to event N only: the
// state after N must be what opening the whole journal first gives,
// whatever the prefix and the step, and the reading stops within a step
// of event N.
func TestFoldWhileIndexingThroughAPosition(t *testing.T) {
	for _, format := range []string{demo.FormatDurableStream, demo.FormatDeltaEngine, demo.FormatDeltaMind} {
		path, b := generated(t, format, format+".jsonl", 3000, 11)
		whole, err := app.OpenPath(path, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := func(pos int) string {
			obj, err := whole.R.JSON(pos)
			if err != nil {
				t.Fatal(err)
			}
			j, _ := obj.MarshalJSON()
			return string(j)
		}
		step := int64(len(b) / 20)
		for _, prefix := range []int64{200, 32 << 10} {
			for _, pos := range []int{0, 1, 255, 256, 1234, 2999, 3000} {
				s, err := app.OpenPath(path, app.Options{Prefix: prefix})
				if err != nil {
					t.Fatal(err)
				}
				s.R.OneShot()
				if err := s.FoldWhileIndexingThrough(pos, step); err != nil {
					t.Fatal(err)
				}
				obj, err := s.R.JSON(pos)
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := obj.MarshalJSON(); string(got) != want(pos) {
					t.Errorf("%s, prefix %d, through %d: the state differs from a whole open:\n got %.300s\nwant %.300s", format, prefix, pos, got, want(pos))
				}
				if pos < 3000 {
					ev := whole.J.Index.Records().Event(max(pos, 1))
					if read := s.J.Index.Consumed(); read > max(prefix, ev.Off+ev.Len+1+step) {
						t.Errorf("%s, prefix %d, through %d: %d of %d bytes indexed, want at most a step past the event's end (%d)",
							format, prefix, pos, read, len(b), ev.Off+ev.Len+1)
					}
				}
				s.Close()
			}
		}
		whole.Close()
	}
}

// A journal cut after rewind state began to read it is an error, not the
// state of what was left of it.
func TestFoldWhileIndexingJournalCut(t *testing.T) {
	path, _ := generated(t, demo.FormatDurableStream, "durable_stream.jsonl", 2000, 5)
	s, err := app.OpenPath(path, app.Options{Prefix: 32 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.R.OneShot()
	// The prefix's events are folded before the cut (as the fold does
	// first), so what finds the cut is the reading of the rest.
	if _, err := s.R.StateAt(s.R.Events()); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 10<<10); err != nil {
		t.Fatal(err)
	}
	if err := s.FoldWhileIndexingThrough(-1, 0); err == nil || !strings.Contains(err.Error(), "shrank") {
		t.Fatalf("the journal cut to 10 KiB after 32 KiB were read: %v, want an error that says it shrank", err)
	}
}

// A journal whose first line is longer than the prefix holds no event
// when folding starts: the format is detected once the rest is indexed.
func TestFoldWhileIndexingDetectsPastThePrefix(t *testing.T) {
	path, b := generated(t, demo.FormatDeltaEngine, "journal.jsonl", 50, 3)
	first := int64(strings.IndexByte(string(b), '\n'))
	s, err := app.Open(journal.Target{Journal: path}, app.Options{Prefix: first / 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.R.OneShot()
	if err := s.FoldWhileIndexing(); err != nil {
		t.Fatal(err)
	}
	if s.F.Name() != model.DeltaEngine || s.R.Events() != 50 {
		t.Fatalf("format %s, %d events; want delta-engine, 50", s.F.Name(), s.R.Events())
	}
	// The replay of the format detected is one-shot too: rewind state
	// keeps neither its keyframes nor the records it folded.
	if !s.R.IsOneShot() {
		t.Error("the replay made for the detected format is not one-shot")
	}
}
