package tui

import (
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/query"
)

// bench100k returns a session of a generated 100,000-event Durable Stream
// journal (written once per machine, in the temporary directory).
func bench100k(b *testing.B) *app.Session {
	p := filepath.Join(os.TempDir(), "rewind-tui-bench-durable-100000.jsonl")
	if _, err := os.Stat(p); err != nil {
		f, err := os.Create(p + ".tmp")
		if err != nil {
			b.Fatal(err)
		}
		if err := demo.Generate(f, "durable-stream", 100000, 1); err != nil {
			b.Fatal(err)
		}
		f.Close()
		os.Rename(p+".tmp", p)
	}
	s, err := app.OpenPath(p, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkFilterFrame100k is the UI goroutine's share of a filter on
// 100,000 events: installing the matches, moving to the next match and
// drawing the timeline. It must fit in one frame (16 ms); the jq scan
// itself runs in a command off the UI goroutine (BenchmarkFilterScan100k).
func BenchmarkFilterFrame100k(b *testing.B) {
	s := bench100k(b)
	m := New(s.Target, s, Options{Dark: true})
	m.w, m.h = 160, 50
	m.layout()
	q, _ := query.Compile(`select(.type | startswith("checkpoint"))`)
	vis, n, _, _ := visFor(s, s.J.Index.Records(), 0, q, nil, false, new(bgRun), 0)
	b.ReportMetric(float64(n), "matches")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.tl.setVisible(nil)
		m.tl.setVisible(vis)
		if m.tl.count() > 0 {
			m.tl.selectRecord(m.tl.at(0))
		}
		m.tl.move(1)
		_ = m.tl.view()
	}
}

// BenchmarkFilterScan100k is the background jq scan over 100,000 events.
func BenchmarkFilterScan100k(b *testing.B) {
	s := bench100k(b)
	q, _ := query.Compile(`.type == "checkpoint.requested"`)
	recs := s.J.Index.Records()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		visFor(s, recs, 0, q, nil, false, new(bgRun), 0)
	}
}

// BenchmarkView100k draws the whole screen (timeline, state pane,
// projection, status line) of a 160x50 terminal on 100,000 events with
// the last event's state shown: what Bubble Tea does after every message,
// so at least once a frame while j is held down.
func BenchmarkView100k(b *testing.B) {
	s := bench100k(b)
	m := updateWithState(New(s.Target, s, Options{Dark: true}), tea.WindowSizeMsg{Width: 160, Height: 50}).(Model)
	if m.shownPos == 0 {
		b.Fatal("no state shown")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}
