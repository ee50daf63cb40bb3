package deltamind

import (
	"io"
	"iter"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
)

// StreamView's items, decoded in batches on two goroutines, are View's, in
// order; a writer that stops early (yield returns false) anywhere, in a
// batch of either goroutine, gets the items up to there and leaves no
// goroutine behind.
func TestStreamViewBatches(t *testing.T) {
	s := foldGenerated(t, 5*streamBatch+300, 6)
	want, _ := s.View().Get("items")
	items := want.([]any)
	if len(items) < 3*streamBatch {
		t.Fatalf("only %d items: not enough batches", len(items))
	}
	sv := Format.(model.StreamViews).StreamView(s)
	if got, want := marshalObj(t, sv), marshalObj(t, s.View()); got != want {
		t.Fatal("StreamView differs from View")
	}
	lazy, _ := sv.Get("items")
	before := runtime.NumGoroutine()
	for _, stop := range []int{0, 1, streamBatch - 1, streamBatch, streamBatch + 7, 2*streamBatch + 1, 3*streamBatch + 5, len(items) - 1} {
		var got []any
		lazy.(model.Lazy).Each(func(o any) bool {
			got = append(got, o)
			return len(got) <= stop
		})
		if len(got) != stop+1 || !reflect.DeepEqual(got, items[:stop+1]) {
			t.Fatalf("stopping after %d items: got %d items, or other ones", stop+1, len(got))
		}
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left running, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// StreamView's items and rejected lines cut into Parts, each run on a
// goroutine of its own (as rewind state runs them, several at a time and
// the later ones first here), give View's in order, each written when its
// yield gets it (they are Transient); a part stopped early stops.
func TestStreamViewParts(t *testing.T) {
	s := foldGenerated(t, 30000, 7)
	for _, win := range []int{walkWin, firstWin} {
		for _, list := range []string{"items", "rejected"} {
			t.Run(list+"/"+strconv.Itoa(win), func(t *testing.T) {
				// With windows of 64 KiB the parts' walk reuses them.
				defer func(w int) { partWin = w }(partWin)
				partWin = win
				testStreamViewParts(t, s, list)
			})
		}
	}
}

func testStreamViewParts(t *testing.T, s model.State, list string) {
	want, _ := s.View().Get(list)
	lazy, _ := Format.(model.StreamViews).StreamView(s).Get(list)
	if !lazy.(model.Lazy).Transient {
		t.Fatalf("%s whose parts reuse their memory are not marked Transient", list)
	}
	var parts []func(func(any) bool)
	lazy.(model.Lazy).Parts(func(p func(func(any) bool)) bool { parts = append(parts, p); return true })
	if len(parts) < 2 {
		t.Fatalf("%d parts of %d %s: want several", len(parts), len(want.([]any)), list)
	}
	got := make([][]string, len(parts))
	var wg sync.WaitGroup
	for k := len(parts) - 1; k >= 0; k-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[k](func(o any) bool {
				got[k] = append(got[k], written(t, o))
				return true
			})
		}()
	}
	wg.Wait()
	var all []string
	for _, g := range got {
		all = append(all, g...)
	}
	if len(all) != len(want.([]any)) {
		t.Fatalf("the parts give %d %s, View %d", len(all), list, len(want.([]any)))
	}
	for i, w := range want.([]any) {
		if b := indented(t, w, 0); string(b) != all[i] {
			t.Fatalf("%s %d from a part:\n%s\nView:\n%s", list, i, all[i], b)
		}
	}
	n := 0
	parts[1](func(any) bool { n++; return n < 5 })
	if n != 5 {
		t.Fatalf("a part stopped after 5 %s yielded %d", list, n)
	}
}

// written is the text of o, an item of a part, as rewind state writes it
// at depth 0.
func written(t *testing.T, o any) string {
	if a, ok := o.(model.Appender); ok {
		return string(a.AppendIndented(nil, 0, safeStrings))
	}
	return string(indented(t, o, 0))
}

// foldGenerated is the state after every event of a generated DeltaMind
// journal of n events.
func foldGenerated(t *testing.T, n int, seed int64) model.State {
	t.Helper()
	return foldJournal(t, journaltest.Generated(t, "deltamind", "provenance.jsonl", n, seed))
}

// Two parts of a walk that reuses its windows (partWin small), run in turn,
// each leaving an item unwritten while the other makes 300, write View's
// items and rejected lines: no part reads into a window that holds the
// strings of an item the other has not written yet.
func TestStreamViewPartsReuseWindows(t *testing.T) {
	defer func(w int) { partWin = w }(partWin)
	partWin = firstWin
	s := foldGenerated(t, 40000, 3)
	for _, list := range []string{"items", "rejected"} {
		t.Run(list, func(t *testing.T) { testPartsReuseWindows(t, s, list) })
	}
}

func testPartsReuseWindows(t *testing.T, s model.State, list string) {
	want, _ := s.View().Get(list)
	lazy, _ := Format.(model.StreamViews).StreamView(s).Get(list)
	var parts []func(func(any) bool)
	lazy.(model.Lazy).Parts(func(p func(func(any) bool)) bool { parts = append(parts, p); return true })
	if len(parts) < 2 {
		t.Fatalf("%d parts: want two at least", len(parts))
	}
	// Part k makes items when it has the turn (a value on turns[k]); at
	// every 300th it hands the turn to the other before writing the item,
	// and writes it once it has the turn back, after the other has made
	// (and read windows for) 300 items of its own. When it ends it closes
	// the other's channel, and the other goes on alone.
	turns := [2]chan bool{make(chan bool), make(chan bool)}
	got := [2][]string{}
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, alone := <-turns[k]
			alone = !alone
			n := 0
			parts[k](func(o any) bool {
				if n++; !alone && n%300 == 0 {
					turns[1-k] <- true // the other makes its next item now
					_, ok := <-turns[k]
					alone = !ok
				}
				got[k] = append(got[k], written(t, o))
				return true
			})
			if !alone {
				close(turns[1-k])
			}
		}()
	}
	turns[0] <- true
	wg.Wait()
	for k := range 2 {
		for i, g := range got[k] {
			if w := string(indented(t, want.([]any)[k*streamBatch+i], 0)); g != w {
				t.Fatalf("part %d, %s %d written as\n%s\nView's\n%s", k, list, i, g, w)
			}
		}
		if n := min(streamBatch, len(want.([]any))-k*streamBatch); len(got[k]) != n {
			t.Fatalf("part %d wrote %d %s, want %d", k, len(got[k]), list, n)
		}
	}
}

// A walk holds the windows of the item it is on, not those of the items
// before: a decoder that reads every item and every rejected line of a
// journal through small windows ends holding two at most, whether its
// windows are reused or not (holding every one was a gigabyte on 1 GB).
func TestWalkHoldsFewWindows(t *testing.T) {
	st := foldGenerated(t, 6000, 4).(*state)
	if st.nRejected == 0 {
		t.Fatal("the journal has no rejected line")
	}
	for _, reuse := range []bool{false, true} {
		d := st.lin.decoder(firstWin)
		if reuse {
			d.reusing()
		}
		for i := range st.nItems {
			d.item(i, st.seq)
		}
		for i := range int(st.nRejected) {
			d.entry(st.lin.rec(false, i), false)
		}
		if len(d.held) > 2 {
			t.Errorf("reuse %v: the decoder holds %d windows after the walk", reuse, len(d.held))
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// The items' parts made two at a time, one item of each in turn (as the
// two CPUs of rewind state make them, each part's items starting a little
// after the other's), read the journal about once: a window read for one
// part's lines serves the other's too (it read the file twice when each
// read its windows from its own lines on).
func TestStreamViewPartsReadTheFileOnce(t *testing.T) {
	defer func(w int) { partWin = w }(partWin)
	partWin = 1 << 20
	s := foldGenerated(t, 60000, 5).(*state)
	src := &countingReader{r: s.lin.src}
	size, err := src.r.(io.Seeker).Seek(0, io.SeekEnd)
	if err != nil {
		t.Fatal(err)
	}
	s.lin.src = src
	lazy, _ := Format.(model.StreamViews).StreamView(s).Get("items")
	var parts []func(func(any) bool)
	lazy.(model.Lazy).Parts(func(p func(func(any) bool)) bool { parts = append(parts, p); return true })
	if len(parts) < 8 {
		t.Fatalf("%d parts: want several pairs", len(parts))
	}
	items := 0
	for k := 0; k < len(parts); k += 2 {
		pair := parts[k:min(k+2, len(parts))]
		next := make([]func() (any, bool), len(pair))
		for i, p := range pair {
			var stop func()
			next[i], stop = iter.Pull(iter.Seq[any](p))
			defer stop()
		}
		for left := len(pair); left > 0; {
			left = 0
			for _, n := range next {
				if _, ok := n(); ok {
					items, left = items+1, left+1
				}
			}
		}
	}
	if items != int(s.nItems) {
		t.Fatalf("the parts made %d items, want %d", items, s.nItems)
	}
	read := src.n.Load()
	t.Logf("read %.2f times the journal", float64(read)/float64(size))
	if float64(read) > 1.2*float64(size) {
		t.Errorf("the items' parts read %d bytes of a journal of %d (%.2f times)", read, size, float64(read)/float64(size))
	}
}
