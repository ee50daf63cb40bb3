package deltaengine

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// The panes' views must be View and Render, cut as model.PaneViews says:
// the same objects and the same Markdown for what they show.

var paneFormat = Format.(model.PaneViews)

// wantPaneView builds what PaneView(s, n) must return from View.
func wantPaneView(t *testing.T, s model.State, n int) model.Object {
	t.Helper()
	out := model.Object{}
	for _, f := range s.View() {
		switch f.Key {
		case "messages", "seq_problems":
			l := f.Value.([]any)
			if len(l) > n {
				f.Value = model.Window{Items: l[len(l)-n:], From: len(l) - n, Total: len(l)}
			}
		case "actions":
			o := f.Value.(model.Object)
			if len(o) > n {
				cut := model.Object{{Key: "…", Value: count(len(o)-n, "earlier action", "earlier actions") + " not shown (rewind state prints them all)"}}
				f.Value = append(cut, o[len(o)-n:]...)
			}
		}
		out = append(out, f)
	}
	return out
}

func marshal(t *testing.T, v model.Object) string {
	t.Helper()
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var noteRE = regexp.MustCompile("^\n\\*… ([0-9,]+) earlier messages? not shown \\(`rewind render` prints the whole conversation\\)\\*\n")

// checkPane compares the panes' views of s (at pos) with View and Render,
// and the items rewind state writes with View's (checkParts, whose counts
// of Appenders it returns).
func checkPane(t *testing.T, s model.State, pos int) map[string]int {
	t.Helper()
	full := s.View()
	if got, want := marshal(t, paneFormat.PaneView(s, 1<<30)), marshal(t, full); got != want {
		t.Fatalf("position %d: PaneView(large n) differs from View\n got %s\nwant %s", pos, clip(got), clip(want))
	}
	// rewind state prints StreamView: it must write what View holds.
	if got, want := marshal(t, Format.(model.StreamViews).StreamView(s)), marshal(t, full); got != want {
		t.Fatalf("position %d: StreamView differs from View\n got %s\nwant %s", pos, clip(got), clip(want))
	}
	appenders := checkParts(t, s, pos)
	for _, n := range []int{0, 1, 5} {
		got, want := paneFormat.PaneView(s, n), wantPaneView(t, s, n)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("position %d: PaneView(%d) differs\n got %s\nwant %s", pos, n, clip(marshal(t, got)), clip(marshal(t, want)))
		}
	}

	doc := Format.Render(s, Doc)
	if got := paneFormat.PaneRender(s, Doc, 1<<30); got != doc {
		t.Fatalf("position %d: PaneRender(large max) differs from Render\n got %q\nwant %q", pos, clip(got), clip(doc))
	}
	if got := paneFormat.PaneRender(s, "OTHER", 100); got != "" {
		t.Fatalf("PaneRender of another doc = %q", got)
	}
	// rewind render writes the parts as they are made: it must write
	// Render's bytes.
	var streamed strings.Builder
	if err := model.WriteRender(Format, s, Doc, &streamed); err != nil || streamed.String() != doc {
		t.Fatalf("position %d: WriteRender differs from Render (%v)\n got %q\nwant %q", pos, err, clip(streamed.String()), clip(doc))
	}
	// The projection as header and message parts, checked against Render.
	st := s.(*state)
	var head strings.Builder
	writeHeader(&head, st)
	var parts []string
	if st.log != nil {
		sn := st.log.snapshot(st.nLog)
		r := sn.reader(0, nil)
		for i := range st.nLog {
			if sn.get(i).isMessage() {
				var b strings.Builder
				writeMessage(&b, r, r, i)
				parts = append(parts, b.String())
			}
		}
	}
	if head.String()+strings.Join(parts, "") != doc {
		t.Fatalf("position %d: header and messages are not Render", pos)
	}
	for _, max := range []int{0, 200, 1000, 3000, 20000, len(doc), len(doc) - 1} {
		got := paneFormat.PaneRender(s, Doc, max)
		if len(doc) <= max || len(parts) <= 1 {
			if got != doc {
				t.Fatalf("position %d: PaneRender(%d) of a %d-byte projection is not Render\n got %q", pos, max, len(doc), clip(got))
			}
			continue
		}
		if !strings.HasPrefix(got, head.String()) {
			t.Fatalf("position %d max %d: PaneRender does not start with the header\n got %q", pos, max, clip(got))
		}
		rest := got[head.Len():]
		m := noteRE.FindStringSubmatch(rest)
		if m == nil {
			t.Fatalf("position %d max %d: no note after the header\n got %q", pos, max, clip(rest))
		}
		earlier, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		k := len(parts) - earlier
		if k < 1 || earlier < 1 {
			t.Fatalf("position %d max %d: %d earlier messages of %d", pos, max, earlier, len(parts))
		}
		if shown := rest[len(m[0]):]; shown != strings.Join(parts[earlier:], "") {
			t.Fatalf("position %d max %d: the messages shown are not Render's last %d\n got %q", pos, max, k, clip(shown))
		}
		if !strings.HasSuffix(doc, rest[len(m[0]):]) {
			t.Fatalf("position %d max %d: does not end as Render", pos, max)
		}
		if k > 1 && len(got) > max {
			t.Fatalf("position %d max %d: %d bytes for %d messages", pos, max, len(got), k)
		}
		// One more message would not fit.
		more := head.Len() + len(strings.Join(parts[earlier-1:], "")) + len(earlierNote(earlier-1))
		if more <= max {
			t.Fatalf("position %d max %d: %d messages shown, %d would fit (%d bytes)", pos, max, k, k+1, more)
		}
	}
	return appenders
}

// addCounts adds the counts of b to a.
func addCounts(a, b map[string]int) {
	for k, n := range b {
		a[k] += n
	}
}

// wantAppenders fails t unless rewind state wrote at least min messages
// and min actions as Appenders (counts from checkPane).
func wantAppenders(t *testing.T, counts map[string]int, min int) {
	t.Helper()
	for _, list := range []string{"messages", "actions"} {
		if counts[list] < min {
			t.Errorf("rewind state wrote %d %s as Appenders, want at least %d", counts[list], list, min)
		}
	}
}

func TestPaneFixtures(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.jsonl")
	runs, _ := filepath.Glob(ws + "/*/journal.jsonl")
	paths = append(paths, runs...)
	counts := map[string]int{}
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), func(t *testing.T) {
			j, err := journal.Open(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			s := Format.Init()
			checkPane(t, s, 0)
			_ = j.Each(1, 1<<30, func(ev model.Event) error {
				s = Format.Apply(s, ev)
				addCounts(counts, checkPane(t, s, ev.Pos))
				return nil
			})
			// Without a file (readEvents): the log keeps the events' bytes.
			s = Format.Init()
			for _, ev := range readEvents(t, p) {
				s = Format.Apply(s, ev)
				checkPane(t, s, ev.Pos)
			}
		})
	}
	wantAppenders(t, counts, 10)
}

// TestPaneHostile: seq problems, broken ids, requests without results and
// results without requests, events with and without a file.
func TestPaneHostile(t *testing.T) {
	counts := map[string]int{}
	defer wantAppenders(t, counts, 100)
	for seed := int64(1); seed <= 3; seed++ {
		lines := hostileLines(rand.New(rand.NewSource(seed)), 300)
		p := filepath.Join(t.TempDir(), "hostile.jsonl")
		writeFile(t, p, []byte(strings.Join(lines, "\n")+"\n"))
		j, err := journal.Open(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := Format.Init()
		_ = j.Each(1, 1<<30, func(ev model.Event) error {
			s = Format.Apply(s, ev)
			addCounts(counts, checkPane(t, s, ev.Pos))
			return nil
		})
		j.Close()
	}
}

// TestPaneGenerated checks a generated journal through a replay, as the
// TUI asks for it, at many positions in any order (states refolded from
// keyframes share the log).
func TestPaneGenerated(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 800
	}
	var b bytes.Buffer
	if err := demo.Generate(&b, "delta-engine", n, 3); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "gen.jsonl")
	writeFile(t, p, b.Bytes())
	j, err := journal.Open(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	r := replay.New(j, Format)
	events := r.Events()
	rng := rand.New(rand.NewSource(1))
	positions := []int{0, 1, 2, 3, events - 1, events}
	for range 60 {
		positions = append(positions, rng.Intn(events+1))
	}
	for pos := 4; pos < events; pos += 97 {
		positions = append(positions, pos)
	}
	counts := map[string]int{}
	for _, pos := range positions {
		s, err := r.StateAt(pos)
		if err != nil {
			t.Fatal(err)
		}
		addCounts(counts, checkPane(t, s, pos))
	}
	wantAppenders(t, counts, 1000)
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 xs", 1: "1 x", 999: "999 xs", 1000: "1,000 xs", 12345: "12,345 xs", 1234567: "1,234,567 xs"} {
		if got := count(n, "x", "xs"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
	if !model.IsLogDoc(Format, Doc) || model.IsLogDoc(Format, "OTHER") {
		t.Error("LogDoc")
	}
	// model.Window marshals as its items.
	s := fold(readEvents(t, runA+"/journal.jsonl"))
	var v map[string]any
	if err := json.Unmarshal([]byte(marshal(t, model.PaneStateJSON(Format, s, 1, 2))), &v); err != nil {
		t.Fatal(err)
	}
	if msgs := v["messages"].([]any); len(msgs) != 2 {
		t.Errorf("PaneStateJSON(n=2) has %d messages", len(msgs))
	}
}

// countingReader counts what the views read back from the journal.
type countingReader struct {
	r            io.ReaderAt
	reads, bytes atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	c.bytes.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

// TestPaneCost: at the end of a journal the panes' views read about what
// they show, as at its middle, and a small part of what View and Render
// read (the whole journal).
func TestPaneCost(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 35 MB journal")
	}
	var b bytes.Buffer
	if err := demo.Generate(&b, "delta-engine", 30000, 9); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "big.jsonl")
	writeFile(t, p, b.Bytes())
	j, err := journal.Open(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	states := map[int]model.State{}
	s := Format.Init()
	_ = j.Each(1, 1<<30, func(ev model.Event) error {
		s = Format.Apply(s, ev)
		if ev.Pos == 15000 || ev.Pos == 30000 {
			states[ev.Pos] = s
		}
		return nil
	})
	// Fill the views' cache (the first 8 MiB of decoded events) first, so
	// that neither position below is helped by it.
	s.View()
	c := &countingReader{r: s.(*state).log.src}
	s.(*state).log.src = c // the states share the log
	read := func(f func()) (int64, int64, time.Duration) {
		c.reads.Store(0)
		c.bytes.Store(0)
		t0 := time.Now()
		f()
		return c.reads.Load(), c.bytes.Load(), time.Since(t0)
	}
	var figures [2][3]int64
	for k, pos := range []int{15000, 30000} {
		s := states[pos]
		vr, vb, vt := read(func() { paneFormat.PaneView(s, 200) })
		rr, rb, rt := read(func() { paneFormat.PaneRender(s, Doc, 48<<10) })
		_, fvb, fvt := read(func() { s.View() })
		_, frb, frt := read(func() { Format.Render(s, Doc) })
		t.Logf("position %d: PaneView(200) %d reads, %d KiB, %v; View %d KiB, %v", pos, vr, vb>>10, vt, fvb>>10, fvt)
		t.Logf("position %d: PaneRender(48 KiB) %d reads, %d KiB, %v; Render %d KiB, %v", pos, rr, rb>>10, rt, frb>>10, frt)
		figures[k] = [3]int64{vb, rb, fvb}
		if vb > int64(b.Len())/10 || rb > int64(b.Len())/10 {
			t.Errorf("position %d: the panes' views read %d and %d bytes of a %d-byte journal", pos, vb, rb, b.Len())
		}
	}
	mid, end := figures[0], figures[1]
	if end[0] > 2*mid[0]+(1<<20) || end[1] > 2*mid[1]+(1<<20) {
		t.Errorf("the panes' views read more at the end (%d, %d bytes) than at the middle (%d, %d)", end[0], end[1], mid[0], mid[1])
	}
}

// TestPaneBenchFiles times the panes' views against View and Render near
// the start and at the end of the journals named in REWIND_PANE_FILES
// (comma-separated), for example /tmp/rewind-bench/delta-engine.250M.jsonl:
// the first call (nothing decoded yet) and the best of 5.
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
		const early = 2000
		var start model.State
		s := Format.Init()
		t0 := time.Now()
		_ = j.Each(1, 1<<40, func(ev model.Event) error {
			s = Format.Apply(s, ev)
			if ev.Pos == early {
				start = s
			}
			return nil
		})
		st := s.(*state)
		t.Logf("%s: %d events, %d messages, %d actions, folded in %v", filepath.Base(p), st.events, st.msgs, st.acts, time.Since(t0))
		timed := func(f func()) (first, best time.Duration) {
			best = time.Duration(1 << 62)
			for k := range 5 {
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
		for _, at := range []struct {
			name string
			s    model.State
		}{{"end", s}, {"position " + strconv.Itoa(early), start}} {
			var pv model.Object
			var pr string
			f, b := timed(func() { pv = paneFormat.PaneView(at.s, 200) })
			t.Logf("  %s: PaneView(s, 200): first %v, best %v", at.name, f, b)
			f, b = timed(func() { pr = paneFormat.PaneRender(at.s, Doc, 48<<10) })
			t.Logf("  %s: PaneRender(s, CONVERSATION, 48 KiB): first %v, best %v (%d bytes)", at.name, f, b, len(pr))
			t0 = time.Now()
			v := at.s.View()
			t.Logf("  %s: View %v", at.name, time.Since(t0))
			t0 = time.Now()
			doc := Format.Render(at.s, Doc)
			t.Logf("  %s: Render %v (%d bytes)", at.name, time.Since(t0), len(doc))
			if want := wantPaneView(t, at.s, 200); !reflect.DeepEqual(pv, want) || len(v) != len(want) {
				t.Error("PaneView differs from View cut")
			}
			if !strings.HasSuffix(doc, pr[strings.LastIndex(pr, "*\n")+2:]) {
				t.Error("PaneRender does not end as Render")
			}
		}
		j.Close()
	}
}
