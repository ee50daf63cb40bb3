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

// While one decoder reads a chunk of a window, the others go on: a decoder
// whose line is in a window already read gets it at once, and one whose
// line is in the chunk being read waits for it and then sees its bytes
// (when a window was read under the windows' lock, every other part of
// rewind state's walk stood still through each read).
func TestWindowReadDoesNotHoldTheOthers(t *testing.T) {
	data := make([]byte, 4*firstWin)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	for _, reuse := range []bool{false, true} {
		src := &gatedReader{data: data, gate: firstWin, started: make(chan struct{}), open: make(chan struct{})}
		ws := &windows{src: src, maxWin: firstWin, reuse: reuse}
		first, _ := ws.at(10, true, nil)
		if first == nil || first.lo != 0 || first.upTo(10+lineAhead) < 10+lineAhead {
			t.Fatalf("reuse %v: the first window is %+v, want one from 0 read past its first line", reuse, first)
		}
		loaded := make(chan *fileWindow)
		go func() { // reads the second cell's window, held at the gate
			w, _ := ws.at(firstWin+5, true, nil)
			w.upTo(5 + lineAhead)
			loaded <- w
		}()
		<-src.started
		got := make(chan int64)
		go func() {
			w, _ := ws.at(20, true, nil)
			if w != first {
				t.Errorf("reuse %v: the window of offset 20 is %+v", reuse, w)
			}
			got <- w.upTo(20 + lineAhead)
		}()
		select {
		case n := <-got:
			if n < 20+lineAhead {
				t.Fatalf("reuse %v: the first window holds %d bytes", reuse, n)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("reuse %v: a window already read waits for another one's read", reuse)
		}
		waiter := make(chan *fileWindow)
		held := make(chan int64)
		go func() { // wants a line of the chunk being read
			w, _ := ws.at(firstWin+100, true, nil)
			waiter <- w
			held <- w.upTo(100 + lineAhead)
		}()
		w := <-waiter
		select {
		case n := <-held:
			t.Fatalf("reuse %v: a decoder was given %d bytes of a chunk still being read", reuse, n)
		case <-time.After(50 * time.Millisecond):
		}
		close(src.open)
		a, n := <-loaded, <-held
		if a != w {
			t.Fatalf("reuse %v: two windows made for one cell", reuse)
		}
		if w.lo != firstWin || n < 100+lineAhead || !bytes.Equal(w.b[:n], data[firstWin:firstWin+n]) {
			t.Fatalf("reuse %v: the waiting decoder got %d bytes from %d that are not the file's", reuse, n, w.lo)
		}
	}
}

// loggingReader reads from data and keeps the offset and length of each
// read.
type loggingReader struct {
	data  []byte
	reads [][2]int64
}

func (c *loggingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads = append(c.reads, [2]int64{off, int64(len(p))})
	return bytes.NewReader(c.data).ReadAt(p, off)
}

// A window is read as its lines are asked for, a chunk at a time, each
// byte once; a file that ends inside it is read to its end once, and
// what the window holds is the file's.
func TestWindowIsReadAsItsLinesAreAskedFor(t *testing.T) {
	data := make([]byte, 700<<10)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	src := &loggingReader{data: data}
	w := &fileWindow{b: make([]byte, 1<<20), src: src}
	steps := []struct {
		rel, holds int64
		read       [2]int64
	}{
		{100, fillChunk, [2]int64{0, fillChunk}},                         // a chunk, though 100 bytes were asked for
		{fillChunk - 1, fillChunk, [2]int64{}},                           // held: nothing read
		{500 << 10, 500 << 10, [2]int64{fillChunk, 500<<10 - fillChunk}}, // a jump: read up to it
		{1 << 30, 700 << 10, [2]int64{500 << 10, 1<<20 - 500<<10}},       // past the window: to its end, the file ends first
		{1 << 30, 700 << 10, [2]int64{}},                                 // the file ended: not read again
	}
	for i, st := range steps {
		before := len(src.reads)
		if got := w.upTo(st.rel); got != st.holds {
			t.Fatalf("step %d: upTo(%d) holds %d bytes, want %d", i, st.rel, got, st.holds)
		}
		var read [2]int64
		if len(src.reads) > before+1 {
			t.Fatalf("step %d: %d reads, want one at most", i, len(src.reads)-before)
		} else if len(src.reads) == before+1 {
			read = src.reads[before]
		}
		if read != st.read {
			t.Fatalf("step %d: read %v (offset, length), want %v", i, read, st.read)
		}
	}
	if !bytes.Equal(w.b[:w.filled.Load()], data) {
		t.Fatal("the window's bytes are not the file's")
	}
}
