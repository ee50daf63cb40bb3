package deltamind

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// gatedReader reads from data, but a read at offset gate waits until open
// is closed, and says on started that it began.
type gatedReader struct {
	data    []byte
	gate    int64
	started chan struct{}
	open    chan struct{}
	once    sync.Once
}

func (g *gatedReader) ReadAt(p []byte, off int64) (int, error) {
	if off == g.gate {
		g.once.Do(func() { close(g.started) })
		<-g.open
	}
	return bytes.NewReader(g.data).ReadAt(p, off)
}

// While one decoder's window is being read, the others go on: a decoder
// whose line is in a window already read gets it at once, and one whose
// line is in the window being read waits for it and then sees its bytes
// (when a window was read under the lock, every other part of rewind
// state's walk stood still through each 2 MiB read).
func TestWindowReadDoesNotHoldTheOthers(t *testing.T) {
	data := make([]byte, 4*firstWin)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	for _, reuse := range []bool{false, true} {
		src := &gatedReader{data: data, gate: firstWin, started: make(chan struct{}), open: make(chan struct{})}
		ws := &windows{src: src, maxWin: firstWin, reuse: reuse}
		if w, _ := ws.at(10, true, nil); w == nil || w.lo != 0 {
			t.Fatalf("reuse %v: the first window is %+v, want one from 0", reuse, w)
		}
		loaded := make(chan *fileWindow)
		go func() { // reads the second cell's window, held at the gate
			w, _ := ws.at(firstWin+5, true, nil)
			loaded <- w
		}()
		<-src.started
		got := make(chan *fileWindow)
		go func() {
			w, _ := ws.at(20, true, nil)
			got <- w
		}()
		select {
		case w := <-got:
			if w == nil || w.lo != 0 {
				t.Fatalf("reuse %v: the window of offset 20 is %+v", reuse, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("reuse %v: a window already read waits for another one's read", reuse)
		}
		waiter := make(chan *fileWindow)
		go func() { // wants a line of the window being read
			w, _ := ws.at(firstWin+100, true, nil)
			waiter <- w
		}()
		close(src.open)
		a, b := <-loaded, <-waiter
		if a != b {
			t.Fatalf("reuse %v: two windows read for one cell", reuse)
		}
		if b.lo != firstWin || !bytes.Equal(b.b, data[firstWin:firstWin+len(b.b)]) || len(b.b) == 0 {
			t.Fatalf("reuse %v: the waiting decoder got a window from %d of %d bytes that are not the file's", reuse, b.lo, len(b.b))
		}
	}
}
