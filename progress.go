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
	name  string
	total int64
	done  func() (bytes int64, events int)
	start time.Time

	mu      sync.Mutex
	drawn   bool
	stop    chan struct{}
	stopped chan struct{}
}

// startProgress shows progress reading path (total bytes) on stderr when
// stderr is a terminal and the journal is large; done reports the bytes
// and events read so far and must be safe to call while the work runs.
// It returns nil, which shows nothing, otherwise.
func startProgress(stderr io.Writer, path string, total int64, done func() (int64, int)) *progress {
	if !showsProgress(stderr, total) {
		return nil
	}
	return newProgress(stderr, path, total, done)
}

// showsProgress reports whether reading a journal of size bytes shows
// progress on stderr: stderr is a terminal and the journal is large.
func showsProgress(stderr io.Writer, size int64) bool {
	f, ok := stderr.(*os.File)
	return ok && size >= progressMin && term.IsTerminal(f.Fd())
}

// newProgress draws on w whatever it is (tests give a buffer).
func newProgress(w io.Writer, path string, total int64, done func() (int64, int)) *progress {
	p := &progress{w: w, name: render.Line(filepath.Base(path)), total: total, done: done,
		start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	go p.run()
	return p
}

func (p *progress) run() {
	defer close(p.stopped)
	delay := time.NewTimer(progressDelay)
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

// line is the text of the progress line now.
func (p *progress) line() string {
	elapsed := time.Since(p.start)
	n, evs := p.done()
	pct := 0
	if p.total > 0 {
		pct = int(n * 100 / p.total)
	}
	rate := float64(n) / max(elapsed.Seconds(), 1e-3)
	return fmt.Sprintf("rewind: reading %s  %s of %s (%d%%)  %s/s  %d events", p.name,
		journal.HumanBytes(n), journal.HumanBytes(p.total), pct, journal.HumanBytes(int64(rate)), evs)
}

func (p *progress) draw() {
	s := p.line()
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
