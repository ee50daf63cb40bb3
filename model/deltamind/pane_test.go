package deltamind

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/demo"
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
	out := model.Object{}
	for _, f := range s.View() {
		switch f.Key {
		case "items", "rejected", "disagreements":
			l := f.Value.([]any)
			if len(l) > n {
				f.Value = model.Window{Items: l[len(l)-n:], From: len(l) - n, Total: len(l)}
			}
		}
		out = append(out, f)
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

var noteRE = regexp.MustCompile(`\*… ([0-9,]+) more (items?|decisions?|tasks?|constraints?) not shown \(rewind render prints the whole document\)\*$`)

// checkPane compares the panes' views of s (at pos) with View and Render.
func checkPane(t *testing.T, f model.Format, s model.State, pos int) {
	t.Helper()
	pf := f.(model.PaneViews)
	if got, want := marshalObj(t, pf.PaneView(s, 1<<30)), marshalObj(t, s.View()); got != want {
		t.Fatalf("position %d: PaneView(large n) differs from View\n got %s\nwant %s", pos, clip(got), clip(want))
	}
	// rewind state prints StreamView: it must write what View holds.
	if got, want := marshalObj(t, f.(model.StreamViews).StreamView(s)), marshalObj(t, s.View()); got != want {
		t.Fatalf("position %d: StreamView differs from View\n got %s\nwant %s", pos, clip(got), clip(want))
	}
	for _, n := range []int{0, 1, 3, 10} {
		got, want := pf.PaneView(s, n), wantPaneView(s, n)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("position %d: PaneView(%d) differs\n got %s\nwant %s", pos, n, clip(marshalObj(t, got)), clip(marshalObj(t, want)))
		}
	}
	if got := pf.PaneRender(s, "OTHER", 100); got != "" {
		t.Fatalf("PaneRender of another doc = %q", got)
	}
	for _, doc := range f.Docs() {
		full := f.Render(s, doc)
		if got := pf.PaneRender(s, doc, 1<<30); got != full {
			t.Fatalf("position %d %s: PaneRender(large max) differs from Render\n got %q\nwant %q", pos, doc, clip(got), clip(full))
		}
		itemLine := "- **"
		if doc != DocActiveState {
			itemLine = "### "
		}
		for _, max := range []int{0, 50, 120, 300, 1000, 5000, len(full) - 1, len(full)} {
			got := pf.PaneRender(s, doc, max)
			if got == full && strings.Contains(full, "\n"+itemLine) && len(full) <= max+1 {
				continue // all the items fit (all but the final blank line)
			}
			if len(full) <= max || !strings.Contains(full, "\n"+itemLine) {
				// Fits, or only the head: nothing to leave out.
				if got != full {
					t.Fatalf("position %d %s: PaneRender(%d) of a %d-byte projection is not Render\n got %q", pos, doc, max, len(full), clip(got))
				}
				continue
			}
			m := noteRE.FindStringSubmatchIndex(got)
			if m == nil {
				t.Fatalf("position %d %s max %d: no note at the end\n got %q", pos, doc, max, clip(got))
			}
			shown := got[:m[0]]
			if !strings.HasPrefix(full, shown) || !strings.HasSuffix(shown, "\n") {
				t.Fatalf("position %d %s max %d: does not start as Render\n got %q", pos, doc, max, clip(got))
			}
			rest := full[len(shown):]
			if !strings.HasPrefix(rest, itemLine) && !strings.HasPrefix(rest, "## ") {
				t.Fatalf("position %d %s max %d: not cut at an item\n rest %q", pos, doc, max, clip(rest))
			}
			if len(shown) > max+1 && strings.Contains(shown, "\n"+itemLine) { // the head is always shown
				t.Fatalf("position %d %s max %d: %d bytes shown", pos, doc, max, len(shown))
			}
			left := 0
			for _, l := range strings.Split(rest, "\n") {
				if strings.HasPrefix(l, itemLine) {
					left++
				}
			}
			if n, _ := strconv.Atoi(strings.ReplaceAll(got[m[2]:m[3]], ",", "")); n != left {
				t.Fatalf("position %d %s max %d: note says %d items left out, Render has %d more", pos, doc, max, n, left)
			}
		}
	}
}

func TestPaneFixtures(t *testing.T) {
	withSnap, _ := dogfoodSnapshot(t)
	for _, c := range []struct {
		name string
		f    model.Format
	}{{"coverage.jsonl", Format}, {"dogfood/provenance.jsonl", Format}, {"dogfood/provenance.jsonl", withSnap}} {
		evs := events(t, c.name)
		s := c.f.Init()
		checkPane(t, c.f, s, 0)
		for _, ev := range evs {
			s = c.f.Apply(s, ev)
			checkPane(t, c.f, s, ev.Pos)
		}
	}
}

// TestPaneGenerated checks a generated journal through a replay, as the
// TUI asks for it, at many positions in any order.
func TestPaneGenerated(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 2000
	}
	j := journaltest.Generated(t, "deltamind", "provenance.jsonl", n, 5)
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
		checkPane(t, Format, s, pos)
		checkCounts(t, s, pos)
	}
	// The model.Window of a long list marshals as its items.
	s, _ := r.StateAt(events)
	o := model.PaneStateJSON(Format, s, events, 2)
	if !strings.Contains(marshalObj(t, o), `"items":[{`) {
		t.Error("PaneStateJSON does not marshal the window's items")
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 xs", 1: "1 x", 999: "999 xs", 1000: "1,000 xs", 12345: "12,345 xs", 1234567: "1,234,567 xs"} {
		if got := count(n, "x", "xs"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestPaneBenchFiles times the panes' views against View and Render at
// the end of the journals named in REWIND_PANE_FILES (comma-separated),
// for example /tmp/rewind-bench/deltamind.250M.jsonl: the first call and
// the best of 3.
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
		var prev model.State
		t0 := time.Now()
		_ = j.Each(1, 1<<40, func(ev model.Event) error {
			prev, s = s, Format.Apply(s, ev)
			return nil
		})
		st := s.(*state)
		t.Logf("%s: %d items, %d rejected, folded in %v", filepath.Base(p), st.nItems, st.nRejected, time.Since(t0))
		timed := func(f func()) (first, best time.Duration) {
			best = time.Duration(1 << 62)
			for k := range 3 {
				t0 := time.Now()
				f()
				d := time.Since(t0)
				if k == 0 {
					first = d
				}
				best = min(best, d)
			}
			return first, best
		}
		var pv model.Object
		f, b := timed(func() { pv = paneFormat.PaneView(s, 200) })
		t.Logf("  PaneView(s, 200): first %v, best %v", f, b)
		t0 = time.Now()
		s.View()
		t.Logf("  View %v", time.Since(t0))
		if want := wantPaneView(s, 200); !reflect.DeepEqual(pv, want) {
			t.Error("PaneView differs from View cut")
		}
		f, b = timed(func() { st.Touched(prev) })
		t.Logf("  Touched(the state before): first %v, best %v", f, b)
		for _, doc := range Format.Docs() {
			var pr string
			f, b = timed(func() { pr = paneFormat.PaneRender(s, doc, 48<<10) })
			t0 = time.Now()
			full := Format.Render(s, doc)
			t.Logf("  %s: PaneRender(48 KiB): first %v, best %v (%d bytes); Render %v (%d bytes)", doc, f, b, len(pr), time.Since(t0), len(full))
			if len(full) > 48<<10 && !strings.HasPrefix(full, pr[:strings.LastIndex(pr, "*…")]) {
				t.Error("PaneRender does not start as Render")
			}
		}
		j.Close()
	}
}

// checkCounts compares the lineage's counts by class with the items.
func checkCounts(t *testing.T, st model.State, pos int) {
	t.Helper()
	s := st.(*state)
	l := s.lin
	l.mu.Lock()
	defer l.mu.Unlock()
	var want classCounts
	for i := range s.nItems {
		want[class(l.at(i, s.v))]++
	}
	if got := l.countsAt(s.v); got != want {
		t.Fatalf("position %d: counts by class %v, want %v", pos, got, want)
	}
	if s.v == l.claimed && l.cur != want {
		t.Fatalf("position %d: current counts %v, want %v", pos, l.cur, want)
	}
}

// TestPaneForks folds other lines from earlier states (forking their
// lineage), long enough for the counts to be kept every countsEvery
// versions, and checks the counts and the panes on both branches.
func TestPaneForks(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, "deltamind", 1500, 7); err != nil {
		t.Fatal(err)
	}
	var evs, other []model.Event
	for i, l := range bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n")) {
		evs = append(evs, model.Event{Pos: i + 1, Line: i + 1, Raw: l})
	}
	b.Reset()
	if err := demo.Generate(&b, "deltamind", 1500, 8); err != nil {
		t.Fatal(err)
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n")) {
		other = append(other, model.Event{Pos: i + 1, Line: i + 1, Raw: l})
	}
	states := []model.State{Format.Init()}
	for _, ev := range evs {
		states = append(states, Format.Apply(states[len(states)-1], ev))
	}
	for _, at := range []int{0, 255, 256, 700, 1023, len(evs) - 1} {
		s := states[at]
		for k, ev := range other[min(at, len(other)-500):][:500] {
			next := Format.Apply(s, ev)
			checkTouched(t, s, next, "fork")
			s = next
			checkCounts(t, s, at+k+1)
			if k%97 == 0 {
				checkPane(t, Format, s, at+k+1)
			}
		}
	}
	for pos, s := range states {
		checkCounts(t, s, pos)
	}
}
