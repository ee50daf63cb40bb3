package deltamind_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// The views read each item's lines back from the journal, the lines the
// fold read with a layout by that layout's program (what rewind state
// does). A line that changed after the fold read it shows the note of a
// broken item, never the changed text, whether its layout is the same
// (a letter of a summary changed in place) or not (other bytes, a file
// cut short); the items whose lines did not change show as they did.
func TestViewsAfterFileChanged(t *testing.T) {
	var g bytes.Buffer
	if err := demo.Generate(&g, "deltamind", 3000, 5); err != nil {
		t.Fatal(err)
	}
	data := g.Bytes()
	// A summary the fold reads past the first 4 KiB, where rewind state
	// folds what the index's workers read (with a program).
	at := 64<<10 + bytes.Index(data[64<<10:], []byte(`"summary":"`)) + len(`"summary":"`)
	end := at + bytes.IndexByte(data[at:], '"')
	summary := string(data[at:end])
	changed := strings.ToUpper(summary[:1]) + summary[1:]
	if changed == summary {
		changed = strings.ToLower(summary[:1]) + summary[1:]
	}
	const note = "the journal changed at offset"
	for _, tc := range []struct {
		name   string
		change func([]byte) []byte
		broken func(n int) bool // of the number of broken items
	}{
		{"a letter of a summary", func(b []byte) []byte {
			c := bytes.Clone(b)
			copy(c[at:], changed)
			return c
		}, func(n int) bool { return n == 1 }},
		{"other bytes", func(b []byte) []byte { return bytes.Repeat([]byte("x"), len(b)) }, func(n int) bool { return n > 100 }},
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }, func(n int) bool { return n > 10 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "provenance.jsonl")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			target, err := app.Resolve(p)
			if err != nil {
				t.Fatal(err)
			}
			// As rewind state folds: the index's workers read the lines
			// after the first 4 KiB for the fold.
			s, err := app.Open(target, app.Options{Format: model.DeltaMind, Prefix: 4 << 10})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.R.OneShot()
			if err := s.FoldWhileIndexing(); err != nil {
				t.Fatal(err)
			}
			pos := s.R.Events()
			st, err := s.R.StateAt(pos)
			if err != nil {
				t.Fatal(err)
			}
			for i, before := range stateTexts(t, s.F, st, pos) {
				if strings.Contains(before, note) || !strings.Contains(before, summary) {
					t.Fatalf("%s before the change: a broken item, or no %q", viewNames[i], summary)
				}
			}
			if err := os.WriteFile(p, tc.change(data), 0o644); err != nil {
				t.Fatal(err)
			}
			for i, after := range stateTexts(t, s.F, st, pos) {
				if n := strings.Count(after, note); !tc.broken(n) {
					t.Errorf("%s: %d broken items after the change", viewNames[i], n)
				}
				if strings.Contains(after, `"summary": "`+changed) || strings.Contains(after, `"summary":"`+changed) {
					t.Errorf("%s: an item shows the changed summary %q", viewNames[i], changed)
				}
			}
		})
	}
}

var viewNames = []string{"View", "StreamView's parts"}

// stateTexts are the state JSON of st, whose items View's decoder makes,
// and the items as StreamView's parts make them (the walk of rewind state,
// through windows of the file).
func stateTexts(t *testing.T, f model.Format, st model.State, pos int) []string {
	t.Helper()
	view, err := model.StateJSON(f, st, pos).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	lazy, _ := f.(model.StreamViews).StreamView(st).Get("items")
	lazy.(model.Lazy).Parts(func(part func(func(any) bool)) bool {
		part(func(o any) bool {
			b = o.(model.Appender).AppendIndented(b, 0, model.Strings{String: render.AppendJSONString, Literal: render.AppendJSONLiteral})
			return true
		})
		return true
	})
	return []string{string(view), string(b)}
}
