package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/render"
)

// Headless commands that read a large journal (rewind state on a gigabyte
// takes seconds) say how far they are on one line of stderr, rewritten in
// place, when stderr is a terminal: nothing is written when it is a file
// or a pipe, and stdout is never touched, so output still pipes cleanly.
// rewind state says how far the reading is, then how much of the state it
// has written.
const (
	progressMin   = 64 << 20               // smaller journals are read too fast to need it
	progressDelay = 300 * time.Millisecond // nothing is shown for work that ends sooner
	progressEvery = 100 * time.Millisecond
)

// progress is one such line. The zero of *progress (nil) shows nothing;
// its methods may be called on nil. Safe for one goroutine to use while
// its own goroutine redraws.
type progress struct {
	w     io.Writer
	text  func(elapsed time.Duration) string // the line after elapsed
	start time.Time

	mu      sync.Mutex
	drawn   bool
	stop    chan struct{}
	stopped chan struct{}
}

// startProgress shows the line text gives (readingLine, writingLine) on
// stderr, from progressDelay after start on, when stderr is a terminal and
// the journal is large (size bytes); text must be safe to call while the
// work runs. It returns nil, which shows nothing, otherwise.
func startProgress(stderr io.Writer, size int64, start time.Time, text func(time.Duration) string) *progress {
	if !showsProgress(stderr, size) {
		return nil
	}
	return drawProgress(stderr, start, text)
}

// showsProgress reports whether reading a journal of size bytes shows
// progress on stderr: stderr is a terminal and the journal is large.
func showsProgress(stderr io.Writer, size int64) bool {
	f, ok := stderr.(*os.File)
	return ok && size >= progressMin && term.IsTerminal(f.Fd())
}

// drawProgress draws the line text gives on w, whatever w is (tests give
// a buffer), every progressEvery from progressDelay after start on.
func drawProgress(w io.Writer, start time.Time, text func(time.Duration) string) *progress {
	p := &progress{w: w, text: text, start: start, stop: make(chan struct{}), stopped: make(chan struct{})}
	go p.run()
	return p
}

func (p *progress) run() {
	defer close(p.stopped)
	delay := time.NewTimer(max(0, progressDelay-time.Since(p.start)))
	defer delay.Stop()
	select {
	case <-p.stop:
		return
	case <-delay.C:
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		p.draw()
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

// readingLine is the text of the progress of reading path (total bytes):
// done gives the bytes and events read so far.
func readingLine(path string, total int64, done func() (int64, int)) func(time.Duration) string {
	name := render.Line(filepath.Base(path))
	return func(elapsed time.Duration) string {
		n, evs := done()
		pct := 0
		if total > 0 {
			pct = int(n * 100 / total)
		}
		rate := float64(n) / max(elapsed.Seconds(), 1e-3)
		return fmt.Sprintf("rewind: reading %s  %s of %s (%d%%)  %s/s  %d events", name,
			journal.HumanBytes(n), journal.HumanBytes(total), pct, journal.HumanBytes(int64(rate)), evs)
	}
}

// checkingLine is the text of the progress of checking the events of path
// (total of them, rewind verify): done gives the position of the last event
// checked.
func checkingLine(path string, total int, done func() int64) func(time.Duration) string {
	name := render.Line(filepath.Base(path))
	return func(elapsed time.Duration) string {
		n := done()
		pct := 0
		if total > 0 {
			pct = int(n * 100 / int64(total))
		}
		rate := float64(n) / max(elapsed.Seconds(), 1e-3)
		return fmt.Sprintf("rewind: checking %s  %d of %d events (%d%%)  %.0f events/s", name, n, total, pct, rate)
	}
}

// writingLine is the text of the progress of writing the state of path:
// written gives the bytes written so far.
func writingLine(path string, written func() int64) func(time.Duration) string {
	name := render.Line(filepath.Base(path))
	return func(time.Duration) string {
		return fmt.Sprintf("rewind: writing the state of %s  %s written", name, journal.HumanBytes(written()))
	}
}

func (p *progress) draw() {
	s := p.text(time.Since(p.start))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawn = true
	// \r and erase-to-end-of-line: the line is rewritten in place.
	fmt.Fprint(p.w, "\r"+s+"\x1b[K")
}

// End stops the progress line and erases it, leaving stderr as it was
// before anything else is written to the terminal.
func (p *progress) End() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
