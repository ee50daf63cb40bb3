package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/query"
	"github.com/rewind-tui/rewind/replay"
)

// visReference is visFor the straightforward way: each record read on its
// own, decoded with encoding/json's rules, matched with Query.Match.
func visReference(t *testing.T, s *app.Session, q *query.Query, hidden map[string]bool, probs bool) ([]int, int, string) {
	t.Helper()
	var vis []int
	matches, firstErr := 0, ""
	for i, rec := range s.J.Index.Records().All(0) {
		if !rec.Event() {
			vis = append(vis, i)
			continue
		}
		if hidden[rec.Type()] {
			continue
		}
		raw, err := s.J.Read(rec)
		if err != nil {
			t.Fatal(err)
		}
		if probs && !s.F.Describe(model.Event{Pos: int(rec.Pos), Line: int(rec.Line), Off: rec.Off, Raw: raw}).Problem {
			continue
		}
		if q != nil {
			v, err := query.Event(raw)
			if err != nil {
				continue
			}
			ok, err := q.Match(v)
			if err != nil && firstErr == "" {
				firstErr = err.Error()
			}
			if !ok {
				continue
			}
		}
		matches++
		vis = append(vis, i)
	}
	return vis, matches, firstErr
}

// The filter, read in chunks on every CPU, shows the records that reading
// them one by one shows (bad lines always), with the first run-time error
// in file order; a newer request stops it.
func TestVisForEqualsOneByOne(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, model.DurableStream, 3*visChunk+500, 5); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	// Bad lines here and there, one in the middle of a chunk.
	for _, at := range []int{7, visChunk + 100, 2*visChunk + 3} {
		lines[at] = "{not json\n" + lines[at]
	}
	// An event whose payload is a string: `.payload.status` fails on it.
	lines = append(lines[:visChunk+50], append([]string{`{"type":"odd","payload":"text","id":"x","timestamp":1}` + "\n"}, lines[visChunk+50:]...)...)
	p := filepath.Join(t.TempDir(), "durable_stream.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := app.Open(journal.Target{Journal: p}, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recs := s.J.Index.Records()
	for _, c := range []struct {
		src    string
		hidden map[string]bool
		probs  bool
	}{
		{`.type == "agent.spawned"`, nil, false},
		{`.payload.status == "pending"`, nil, false},
		{`.actor | test("orch")`, map[string]bool{"agent.spawned": true}, false},
		{``, map[string]bool{"ledger.task.created": true}, false},
		{``, nil, true},
		{`.type | startswith("a") | not`, nil, true},
	} {
		var q *query.Query
		if c.src != "" {
			if q, err = query.Compile(c.src); err != nil {
				t.Fatal(err)
			}
		}
		name := fmt.Sprintf("%s hidden=%v probs=%v", c.src, c.hidden, c.probs)
		vis, n, firstErr, ok := visFor(s, recs, 0, q, c.hidden, c.probs, new(bgRun), 0)
		wvis, wn, werr := visReference(t, s, q, c.hidden, c.probs)
		if !ok || n != wn || firstErr != werr || !reflect.DeepEqual(vis, wvis) {
			t.Errorf("%s: %d matches, %d shown, error %q; one by one: %d, %d, %q", name, n, len(vis), firstErr, wn, len(wvis), werr)
		}
		if n == 0 || n == recs.Events() {
			t.Errorf("%s: %d of %d events match; the case shows nothing", name, n, recs.Events())
		}
	}
	// A journal that grows: the records added, looked at on their own,
	// extend the shown ones to what looking at all of them gives.
	half, err := journal.OpenPrefix(p, 0, int64(len(strings.Join(lines, "")))/2)
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	early := half.Index.Records()
	if early.Len() <= visChunk || early.Len() >= recs.Len() {
		t.Fatalf("the prefix has %d of %d records", early.Len(), recs.Len())
	}
	q, _ := query.Compile(`.payload.status == "pending"`)
	vis, n, firstErr, _ := visFor(s, early, 0, q, nil, false, new(bgRun), 0)
	more, m, moreErr, ok := visFor(s, recs, early.Len(), q, nil, false, new(bgRun), 0)
	wvis, wn, _ := visReference(t, s, q, nil, false)
	if firstErr == "" {
		firstErr = moreErr
	}
	if got := append(vis, more...); !ok || n+m != wn || firstErr == "" || !reflect.DeepEqual(got, wvis) {
		t.Errorf("grown in two parts: %d matches, %d shown, error %q; at once: %d, %d", n+m, len(got), firstErr, wn, len(wvis))
	}

	q, _ = query.Compile(`.type == "agent.spawned"`)
	run := new(bgRun)
	run.gen.Store(2)
	if _, _, _, ok := visFor(s, recs, 0, q, nil, false, run, 1); ok {
		t.Error("a filter replaced by a newer one ran to its end")
	}
}

// While a filter reads the events, the status line says how far it is.
func TestFilterProgressInStatus(t *testing.T) {
	m := openModel(t, deltaCompleted)
	m.w, m.h = 140, 30
	q, _ := query.Compile(`.type == "THOUGHT"`)
	m.tv.filter, m.tv.visPending, m.tv.visFull = q, true, true
	m.tv.run.total.Store(2000)
	m.tv.run.done.Store(900)
	if s := m.statusLine(); !strings.Contains(s, `/.type == "THOUGHT": filtering… 45%`) {
		t.Errorf("status line while filtering: %q", s)
	}
	m.tv.visPending = false
	m.tv.matches = 3
	if s := m.statusLine(); !strings.Contains(s, "3 match(es)") || strings.Contains(s, "%") {
		t.Errorf("status line after filtering: %q", s)
	}
	// Events appended to a filtered journal are looked at without the
	// count going away.
	m.tv.visPending, m.tv.visFull = true, false
	if s := m.statusLine(); !strings.Contains(s, "3 match(es)") || strings.Contains(s, "filtering") {
		t.Errorf("status line while appended events are filtered: %q", s)
	}
}

// Events appended to a filtered journal are filtered as they come, the
// matches counted on from the earlier ones: a matching event appears, one
// that does not match stays hidden.
func TestFilterWhileTheJournalGrows(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(deltaCompleted, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	p := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines[:11], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	w := start(t, openModel(t, p), 110, 34)
	w.waitFor(t, "State after #11 ")
	w.keys("/")
	typeText(w, `select(.type == "THOUGHT")`)
	w.keys("enter")
	w.waitFor(t, "2 match(es)")
	appendTo := func(s string) {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(lines[11]) // the last THOUGHT
	s := w.waitFor(t, "3 match(es)", "All 45 steps passed")
	if strings.Contains(s, "ACTION_RESULT") {
		t.Errorf("the filter shows other events after the append:\n%s", s)
	}
	appendTo(lines[12]) // RUN_END: 13 events, the last shown is still #12
	s = w.waitFor(t, "12/13", "3 match(es)")
	if strings.Contains(s, "RUN_END") {
		t.Errorf("an appended event the filter does not match is shown:\n%s", s)
	}
	w.quit(t)
}

// A state search says how far it is while it folds, and the result of a
// search that a newer one replaced is dropped.
func TestSearchProgressAndReplacement(t *testing.T) {
	m := openModel(t, deltaCompleted)
	m.w, m.h = 140, 30
	q, _ := query.Compile(`.iterations == 2`)
	m.requestSearch(q) // not run: only its bookkeeping matters here
	gen := m.tv.search.gen.Load()
	m.tv.search.total.Store(400)
	m.tv.search.done.Store(100)
	m, _, _ = m.travelMsg(searchTickMsg{gen})
	if !strings.Contains(m.statusLine(), "searching for the first state where .iterations == 2… 25%") {
		t.Errorf("status line during a search: %q", m.statusLine())
	}
	old := gen
	m.requestSearch(q)
	m, _, _ = m.travelMsg(searchMsg{gen: old, dataGen: m.dataGen, src: q.Src, pos: 4})
	if strings.Contains(m.statusLine(), "first true at #4") {
		t.Error("a replaced search's result was shown")
	}
	m, _, _ = m.travelMsg(searchMsg{gen: m.tv.search.gen.Load(), dataGen: m.dataGen, src: q.Src, pos: 4})
	if !strings.Contains(m.statusLine(), "first true at #4") {
		t.Errorf("the search's result is not shown: %q", m.statusLine())
	}
}

// While the blame record is built (once, on the first b), and while the
// events it names are checked, the status line says how far it is.
func TestBlameProgress(t *testing.T) {
	m := openModel(t, deltaCompleted)
	m.w, m.h = 160, 30
	m.requestBlame(replay.Path{"status"}) // not run: only its bookkeeping matters here
	m.tv.blame.total.Store(1000)
	m.tv.blame.done.Store(512)
	m, _, _ = m.travelMsg(blameTickMsg{m.tv.blame.gen.Load()})
	if !strings.Contains(m.statusLine(), "blame .status… recording what each event changed, 51%") {
		t.Errorf("status line while the blame record is built: %q", m.statusLine())
	}
	m.tv.blame.phase.Store(1) // recorded: the candidates are checked
	m.tv.blame.total.Store(40)
	m.tv.blame.done.Store(10)
	m, _, _ = m.travelMsg(blameTickMsg{m.tv.blame.gen.Load()})
	if !strings.Contains(m.statusLine(), "blame .status… checking the events that may have changed it, 25%") {
		t.Errorf("status line while the candidates are checked: %q", m.statusLine())
	}
	m.tv.blame.total.Store(0) // done
	m.setStatus("", false)
	if m, cmd, _ := m.travelMsg(blameTickMsg{m.tv.blame.gen.Load()}); cmd != nil || strings.Contains(m.statusLine(), "recording") {
		t.Errorf("the progress went on after the blame was done: %q", m.statusLine())
	}
}

// esc stops a state search under way: its goroutine ends, its result is
// dropped and the status line says so.
func TestEscStopsASearch(t *testing.T) {
	m := openModel(t, journaltest.GeneratedPath(t, model.DeltaEngine, "journal.jsonl", 3000, 1))
	m.w, m.h = 140, 30
	// tojson writes the whole state at every position, the conversation
	// with it: jq's own work grows with the journal.
	q, _ := query.Compile(`tojson | length < 0`)
	batch, ok := m.requestSearch(q)().(tea.BatchMsg)
	if !ok || len(batch) == 0 {
		t.Fatal("requestSearch gives no command")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- batch[0]() }()
	time.Sleep(100 * time.Millisecond)
	if !m.tv.search.running() {
		t.Fatal("the search ended before esc; the journal is too small to show anything")
	}
	m, _, _ = m.travelKey(tea.KeyPressMsg{Code: tea.KeyEscape})
	if !strings.Contains(m.statusLine(), "stopped") || m.tv.search.running() {
		t.Errorf("after esc: status %q, running %v", m.statusLine(), m.tv.search.running())
	}
	select {
	case msg := <-done:
		if msg != nil {
			t.Errorf("a stopped search gave %#v", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the search went on after esc")
	}
}

// A diff says on the status line that it is comparing the states (seconds
// between far positions of a large journal); its overlay replaces the
// message and shows the state changes while the projections are compared
// (seconds more), then their diff below them.
func TestDiffSaysItIsComputing(t *testing.T) {
	m := openModel(t, mindCoverage)
	m.w, m.h = 110, 34
	cmd := m.requestDiff(15, 16)
	if !strings.Contains(m.statusLine(), "diff #15 → #16: comparing the states") {
		t.Errorf("status line while the diff is computed: %q", m.statusLine())
	}
	m, cmd, _ = m.travelMsg(cmd())
	if m.tv.overlay == nil || strings.Contains(m.statusLine(), "comparing") || cmd == nil {
		t.Fatalf("after the state changes: overlay %v, status %q", m.tv.overlay != nil, m.statusLine())
	}
	first := m.View().Content
	for _, want := range []string{`~ .items[1].summary: "use Go for the TUI" → "use Go and Bubble Tea for the TUI"`, "projection: comparing…"} {
		if !strings.Contains(first, want) {
			t.Errorf("the overlay before the projections lacks %q:\n%s", want, first)
		}
	}
	m, _, _ = m.travelMsg(cmd())
	after := m.View().Content
	if strings.Contains(after, "comparing") || !strings.Contains(after, "projection ") || !strings.Contains(after, "+- **d-2**") {
		t.Errorf("the overlay after the projections:\n%s", after)
	}
}

// esc on a diff whose projections are still being compared closes it and
// stops them: their command gives nothing to show.
func TestDiffClosedStopsItsProjections(t *testing.T) {
	m := openModel(t, mindCoverage)
	m.w, m.h = 110, 34
	m, cmd, _ := m.travelMsg(m.requestDiff(15, 16)())
	if m.tv.overlay == nil || cmd == nil {
		t.Fatal("no overlay for the state changes")
	}
	next, _ := m.overlayKey(tea.KeyPressMsg{Code: tea.KeyEscape})
	m = next.(Model)
	if m.tv.overlay != nil {
		t.Fatal("esc left the overlay open")
	}
	if msg := cmd(); msg != nil {
		t.Errorf("the projections went on after esc: %T", msg)
	}
}
