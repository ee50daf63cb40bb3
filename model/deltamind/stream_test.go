package deltamind

import (
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
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

// StreamView's items cut into Parts, each run on a goroutine of its own
// (as rewind state runs them, several at a time and the later ones first
// here), give View's items in order, each written when its yield gets it
// (the items are Transient); a part stopped early stops.
func TestStreamViewParts(t *testing.T) {
	s := foldGenerated(t, 3*streamBatch+100, 7)
	want, _ := s.View().Get("items")
	lazy, _ := Format.(model.StreamViews).StreamView(s).Get("items")
	if !lazy.(model.Lazy).Transient {
		t.Fatal("items whose parts reuse their memory are not marked Transient")
	}
	var parts []func(func(any) bool)
	lazy.(model.Lazy).Parts(func(p func(func(any) bool)) bool { parts = append(parts, p); return true })
	if len(parts) < 2 {
		t.Fatalf("%d parts of %d items: want several", len(parts), len(want.([]any)))
	}
	got := make([][]string, len(parts))
	var wg sync.WaitGroup
	for k := len(parts) - 1; k >= 0; k-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[k](func(o any) bool {
				if a, ok := o.(model.Appender); ok {
					got[k] = append(got[k], string(a.AppendIndented(nil, 0, render.AppendJSONString)))
				} else {
					got[k] = append(got[k], string(indented(t, o, 0)))
				}
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
		t.Fatalf("the parts give %d items, View %d", len(all), len(want.([]any)))
	}
	for i, w := range want.([]any) {
		if b := indented(t, w, 0); string(b) != all[i] {
			t.Fatalf("item %d from a part:\n%s\nView:\n%s", i, all[i], b)
		}
	}
	n := 0
	parts[1](func(any) bool { n++; return n < 5 })
	if n != 5 {
		t.Fatalf("a part stopped after 5 items yielded %d", n)
	}
}

// foldGenerated is the state after every event of a generated DeltaMind
// journal of n events.
func foldGenerated(t *testing.T, n int, seed int64) model.State {
	t.Helper()
	return foldJournal(t, journaltest.Generated(t, "deltamind", "provenance.jsonl", n, seed))
}
