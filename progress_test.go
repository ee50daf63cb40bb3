package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/replay"
)

// syncBuffer is a bytes.Buffer the progress goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Reading a large journal shows how far it is (bytes of the total, the
// percentage, the rate, the events) on one line rewritten in place, with
// the file's name made safe, and erases it when the reading is over.
func TestProgressLine(t *testing.T) {
	var w syncBuffer
	p := drawProgress(&w, time.Now(), readingLine("/runs/evil\x1b]0;pwned\x07.jsonl", 200<<20, func() (int64, int) { return 50 << 20, 1234 }))
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(w.String(), "of 200.0 MiB") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	p.End()
	out := w.String()
	for _, want := range []string{"\rrewind: reading evil", "50.0 MiB of 200.0 MiB (25%)", "1234 events", "/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress line %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x07") {
		t.Errorf("the file name's terminal controls were written raw: %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the line was not erased at the end: %q", out)
	}
}

// Writing the state says how much is written, from the delay after the
// command started on: right away when the reading took longer.
func TestProgressWriting(t *testing.T) {
	var w syncBuffer
	var n atomic.Int64
	n.Store(300 << 20)
	start := time.Now().Add(-time.Second)
	p := drawProgress(&w, start, writingLine("/runs/big\u202e.jsonl", n.Load))
	deadline := time.Now().Add(progressDelay / 2)
	for w.String() == "" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	p.End()
	out := w.String()
	if !strings.Contains(out, "\rrewind: writing the state of big") || !strings.Contains(out, "300.0 MiB written") {
		t.Errorf("progress of the writing, %s after the start, is %q", progressDelay/2, out)
	}
	if strings.Contains(out, "\u202e") {
		t.Errorf("the file name's bidi control was written raw: %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the line was not erased at the end: %q", out)
	}
}

// Work that ends within the delay shows nothing, and stderr that is not a
// terminal (a file, a pipe, a buffer) never gets a progress line.
func TestProgressQuiet(t *testing.T) {
	var w syncBuffer
	drawProgress(&w, time.Now(), readingLine("j.jsonl", 1<<30, func() (int64, int) { return 0, 0 })).End()
	if w.String() != "" {
		t.Errorf("progress of quick work wrote %q", w.String())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, stderr := range []io.Writer{f, &w} {
		if p := startProgress(stderr, 1<<30, time.Now(), readingLine("j.jsonl", 1<<30, nil)); p != nil {
			p.End()
			t.Errorf("progress started on %T, which is not a terminal", stderr)
		}
	}
	var nilProgress *progress
	nilProgress.End() // what startProgress gives when it shows nothing
}

// Blame's recording pass says which path, how many events of how many are
// recorded and the percentage; a key from the journal cannot reach the
// terminal raw.
func TestProgressBlame(t *testing.T) {
	var w syncBuffer
	var n atomic.Int64
	n.Store(440000)
	p := drawProgress(&w, time.Now().Add(-time.Second), blameLine(replay.Path{"actions", "call\x1b[2J\u202e"}, 880000, n.Load))
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(w.String(), "(50%)") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	p.End()
	out := w.String()
	if !strings.Contains(out, "\rrewind: blame .actions[") || !strings.Contains(out, "recording what each event changed  440000 of 880000 events (50%)") {
		t.Errorf("blame's progress line: %q", out)
	}
	if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\u202e") {
		t.Errorf("a journal's key reached the terminal raw: %q", out)
	}
}

// Checking a large journal (rewind verify) says how many of its events are
// checked, with the file's name made safe.
func TestCheckingLine(t *testing.T) {
	line := checkingLine("/runs/evil\x1b]0;pwned\x07.jsonl", 4000, func() int64 { return 1000 })(2 * time.Second)
	for _, want := range []string{"rewind: checking evil", "1000 of 4000 events (25%)", "500 events/s"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "\x1b]") || strings.Contains(line, "\x07") {
		t.Errorf("the file name's terminal controls were written raw: %q", line)
	}
}
