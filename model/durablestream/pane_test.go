package durablestream

import (
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// The panes' views must be View and Render, cut as model.PaneViews says:
// the same objects and the same Markdown for what they show.

var paneFormat = Format.(model.PaneViews)

// wantPaneView builds what PaneView(s, n) must return from View.
func wantPaneView(s model.State, n int) model.Object {
	cut := func(o model.Object, keys ...string) model.Object {
		out := model.Object{}
		for _, f := range o {
			for _, k := range keys {
				if f.Key != k {
					continue
				}
				if l := f.Value.([]any); len(l) > n {
					f.Value = model.Window{Items: l[len(l)-n:], From: len(l) - n, Total: len(l)}
				}
			}
			out = append(out, f)
		}
		return out
	}
	out := cut(s.View(), "pending_checkpoints", "active_intents", "decided_checkpoints", "finished_intents", "sessions")
	for i, f := range out {
		if f.Key == "ledger" {
			out[i].Value = cut(f.Value.(model.Object), "epics", "tasks", "directives", "assumptions", "learnings", "handoffs")
		}
	}
	return out
}

func marshalObj(t *testing.T, v model.Object) string {
	t.Helper()
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:300] + " … " + s[len(s)-300:]
	}
	return s
}

var noteRE = regexp.MustCompile(`\n\*… ([0-9,]+) more entr(y|ies) not shown \(rewind render prints the whole document\)\*\n$`)

// entryLines counts the entries written in part of the document: the
// pending checkpoints' headings and the other entries' first lines.
func entryLines(doc string) int {
	n := 0
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "- **") || strings.HasPrefix(l, "### ") && l != "### Epics" && l != "### Tasks" {
			n++
		}
	}
	return n
}

// checkPane compares the panes' views of s (at pos) with View and Render.
func checkPane(t *testing.T, s model.State, pos int) {
	t.Helper()
	if got, want := marshalObj(t, paneFormat.PaneView(s, 1<<30)), marshalObj(t, s.View()); got != want {
		t.Fatalf("position %d: PaneView(large n) differs from View\n got %s\nwant %s", pos, clip(got), clip(want))
	}
	for _, n := range []int{0, 1, 3, 10} {
		got, want := paneFormat.PaneView(s, n), wantPaneView(s, n)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("position %d: PaneView(%d) differs\n got %s\nwant %s", pos, n, clip(marshalObj(t, got)), clip(marshalObj(t, want)))
		}
	}
	if got := paneFormat.PaneRender(s, "OTHER", 100); got != "" {
		t.Fatalf("PaneRender of another doc = %q", got)
	}
	full := Format.Render(s, DocCheckpoints)
	if got := paneFormat.PaneRender(s, DocCheckpoints, 1<<30); got != full {
		t.Fatalf("position %d: PaneRender(large max) differs from Render\n got %q\nwant %q", pos, clip(got), clip(full))
	}
	for _, max := range []int{0, 100, 300, 1000, 5000, len(full) - 1, len(full)} {
		got := paneFormat.PaneRender(s, DocCheckpoints, max)
		m := noteRE.FindStringSubmatchIndex(got)
		if m == nil {
			// Nothing cut: Render, whose entries fit in max bytes.
			if got != full {
				t.Fatalf("position %d max %d: no note and not Render\n got %q", pos, max, clip(got))
			}
			continue
		}
		if len(full) <= max {
			t.Fatalf("position %d max %d: a %d-byte document is cut", pos, max, len(full))
		}
		shown := got[:m[0]]
		if !strings.HasPrefix(full, shown) || !strings.HasSuffix(shown, "\n") {
			t.Fatalf("position %d max %d: does not start as Render\n got %q", pos, max, clip(got))
		}
		rest := full[len(shown):]
		if !strings.HasPrefix(rest, "- **") && !strings.HasPrefix(rest, "### ") && !strings.HasPrefix(rest, "## ") {
			t.Fatalf("position %d max %d: not cut at an entry\n rest %q", pos, max, clip(rest))
		}
		if entryLines(shown) > 0 && len(shown) > max {
			t.Fatalf("position %d max %d: %d bytes shown", pos, max, len(shown))
		}
		if n, _ := strconv.Atoi(strings.ReplaceAll(got[m[2]:m[3]], ",", "")); n != entryLines(rest) || n == 0 {
			t.Fatalf("position %d max %d: note says %d entries left out, Render has %d more", pos, max, n, entryLines(rest))
		}
	}
}

func TestPaneFixture(t *testing.T) {
	s := Format.Init()
	checkPane(t, s, 0)
	for _, ev := range events(t) {
		s = Format.Apply(s, ev)
		checkPane(t, s, ev.Pos)
	}
}

// TestPaneGenerated checks a generated journal through a replay, as the
// TUI asks for it, at many positions in any order.
func TestPaneGenerated(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 3000
	}
	j := journaltest.Generated(t, "durable-stream", "durable_stream.jsonl", n, 5)
	r := replay.New(j, Format)
	events := r.Events()
	rng := rand.New(rand.NewSource(1))
	positions := []int{0, 1, 2, 3, events - 1, events}
	for range 40 {
		positions = append(positions, rng.Intn(events+1))
	}
	for pos := 4; pos < events; pos += 311 {
		positions = append(positions, pos)
	}
	for _, pos := range positions {
		s, err := r.StateAt(pos)
		if err != nil {
			t.Fatal(err)
		}
		checkPane(t, s, pos)
	}
	s, _ := r.StateAt(events)
	v := paneFormat.PaneView(s, 2)
	if _, ok := v[2].Value.(model.Window); !ok {
		t.Errorf("%s is not cut at the end of a %d-event journal", v[2].Key, events)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 xs", 1: "1 x", 999: "999 xs", 1000: "1,000 xs", 1234567: "1,234,567 xs"} {
		if got := count(n, "x", "xs"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestPaneBenchFiles times the panes' views against View and Render at
// the end of the journals named in REWIND_PANE_FILES (comma-separated).
func TestPaneBenchFiles(t *testing.T) {
	files := os.Getenv("REWIND_PANE_FILES")
	if files == "" {
		t.Skip("REWIND_PANE_FILES not set")
	}
	for _, p := range strings.Split(files, ",") {
		j, err := journal.Open(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := Format.Init()
		t0 := time.Now()
		_ = j.Each(1, 1<<40, func(ev model.Event) error {
			s = Format.Apply(s, ev)
			return nil
		})
		t.Logf("%s: %d events folded in %v", filepath.Base(p), s.(*state).n, time.Since(t0))
		best := func(f func()) time.Duration {
			b := time.Duration(1 << 62)
			for range 3 {
				t0 := time.Now()
				f()
				b = min(b, time.Since(t0))
			}
			return b
		}
		var pr, full string
		t.Logf("  PaneView(s, 200) %v; View %v", best(func() { paneFormat.PaneView(s, 200) }), best(func() { s.View() }))
		t.Logf("  PaneRender(48 KiB) %v; Render %v", best(func() { pr = paneFormat.PaneRender(s, DocCheckpoints, 48<<10) }),
			best(func() { full = Format.Render(s, DocCheckpoints) }))
		t.Logf("  %d bytes of %d", len(pr), len(full))
		j.Close()
	}
}

// The pane's state cuts the head's "pending" as PaneView cuts its lists:
// the last n pending checkpoints, numbered as in the whole list, which
// StateJSON (rewind state) still prints whole.
func TestPaneStateJSONCutsPending(t *testing.T) {
	j := journaltest.Generated(t, "durable-stream", "durable_stream.jsonl", 6000, 5)
	r := replay.New(j, Format)
	pos := r.Events()
	s, err := r.StateAt(pos)
	if err != nil {
		t.Fatal(err)
	}
	all := model.PendingObjects(s)
	if len(all) < 3 {
		t.Fatalf("%d pending checkpoints at the end of the journal; the test needs 3 or more", len(all))
	}
	if full, _ := model.StateJSON(Format, s, pos).Get("pending"); !reflect.DeepEqual(full, all) {
		t.Errorf("StateJSON's pending is not every pending checkpoint")
	}
	for _, n := range []int{0, 2, len(all) - 1, len(all), len(all) + 5} {
		got := model.PaneStateJSON(Format, s, pos, n)
		var want any = all
		if n < len(all) {
			want = model.Window{Items: all[len(all)-n:], From: len(all) - n, Total: len(all)}
		}
		if p, _ := got.Get("pending"); !reflect.DeepEqual(p, want) {
			t.Errorf("n=%d: pending is %s, want %s", n, clip(marshalAny(t, p)), clip(marshalAny(t, want)))
		}
		if f, _ := got.Get("format"); f != Format.Name() {
			t.Errorf("n=%d: format %v", n, f)
		}
		if at, _ := got.Get("at"); at != pos {
			t.Errorf("n=%d: at %v, want %d", n, at, pos)
		}
		if len(got) < 3 || !reflect.DeepEqual(got[3:], paneFormat.PaneView(s, n)) {
			t.Errorf("n=%d: the fields after the head are not PaneView's", n)
		}
	}
}

func marshalAny(t *testing.T, v any) string {
	t.Helper()
	return marshalObj(t, model.Object{{Key: "v", Value: v}})
}
