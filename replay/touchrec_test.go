package replay

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRecordsAsWritten writes random events' paths the way Extend does
// and checks what a user of blame sees: At gives each event's paths back
// (repeats dropped, coarse ones cut to their top-level field), and Blame
// lists exactly the events a plain comparison of paths names, with the
// same Maybe marks. The paths are made to reach every corner of the
// record: more than 256 top-level names (past the numbered ones), names
// that are prefixes of others, numbers and names of the same text, long
// names, negative and large indexes, and over 1 MiB of records, so that
// records cross chunks, and spans of events that change only a few names
// but now and then another (which blame must not skip).
func TestRecordsAsWritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	top := make([]string, 300)
	for i := range top {
		top[i] = fmt.Sprintf("f%d", i) // f1 is a prefix of f10
	}
	top = append(top, "", "3", strings.Repeat("k", 300))
	elem := func() any {
		switch rng.IntN(6) {
		case 0:
			return rng.IntN(5)
		case 1:
			return -rng.IntN(1 << 40)
		case 2:
			return fmt.Sprint(rng.IntN(5)) // "3" beside 3
		case 3:
			return strings.Repeat("x", rng.IntN(2000))
		}
		return top[rng.IntN(8)]
	}
	tc := NewTouches()
	narrow, edge := false, false // spans of events that change only a few names
	path := func() Path {
		p := Path{top[rng.IntN(len(top))]}
		// Narrow spans name only names that have a number (a name
		// without one could be anywhere: its spans are never skipped).
		rare := func() string { return tc.codes.list[3+rng.IntN(len(tc.codes.list)-3)] }
		switch {
		case narrow && edge:
			p[0] = rare() // on a span's first or last event
		case narrow && rng.IntN(700) == 0:
			p[0] = rare()
		case narrow:
			p[0] = tc.codes.list[rng.IntN(3)] // blame skips these spans for other names
		case rng.IntN(4) == 0:
			p[0] = top[rng.IntN(10)] // the first ten are common
		}
		for n := rng.IntN(4); n > 0; n-- {
			p = append(p, elem())
		}
		return p
	}
	type event struct {
		paths  []Path
		coarse bool
	}
	var events []event
	var w recWriter
	var edges []int // the events with a rare name at a span's edge
	for len(events) < 12000 || tc.data.n < 3<<chunkBits {
		narrow = len(events)%8000 >= 1500 && len(events)%8000 < 6500
		edge = (len(events)+1)%maskSpan <= 1 // position 1024k or 1024k+1
		e := event{coarse: rng.IntN(10) == 0}
		for n := rng.IntN(6); n > 0; n-- {
			p := path()
			e.paths = append(e.paths, p)
			if rng.IntN(3) == 0 {
				e.paths = append(e.paths, slices.Clone(p)) // a repeat
			}
		}
		if narrow && edge && len(e.paths) > 0 {
			edges = append(edges, len(events))
		}
		events = append(events, e)
		for _, p := range e.paths {
			tc.record(&w, p, e.coarse)
		}
		w.next()
		if len(w.recs) == 100 || rng.IntN(50) == 0 {
			tc.commit(&w)
		}
	}
	tc.commit(&w)
	if len(tc.data.c) < 3 || tc.Done() != len(events) {
		t.Fatalf("%d chunks, %d events recorded of %d", len(tc.data.c), tc.Done(), len(events))
	}

	// What the records must say: each event's paths, cut and without
	// repeats.
	want := make([][]Path, len(events))
	for i, e := range events {
		for _, p := range e.paths {
			if e.coarse {
				p = p[:1]
			}
			if !slices.ContainsFunc(want[i], func(q Path) bool { return slices.Equal(q, p) }) {
				want[i] = append(want[i], p)
			}
		}
	}
	for i := range events {
		got, coarse := tc.At(i + 1)
		if !slices.EqualFunc(got, want[i], func(a, b Path) bool { return slices.Equal(a, b) }) {
			t.Fatalf("event %d: At = %v, want %v", i+1, got, want[i])
		}
		if coarse != (events[i].coarse && len(want[i]) > 0) {
			t.Fatalf("event %d: coarse %v, want %v", i+1, coarse, events[i].coarse)
		}
	}
	prefix := func(a, b Path) bool { return len(a) <= len(b) && slices.Equal(a, b[:len(a)]) }
	if len(edges) < 10 {
		t.Fatalf("only %d events at a span's edge", len(edges))
	}
	for q := range 400 {
		p := path()
		switch {
		case q%4 == 0:
			// The name of an event at the edge of a span that blame may
			// skip for other names.
			e := events[edges[rng.IntN(len(edges))]]
			p = Path{e.paths[rng.IntN(len(e.paths))][0]}
		case rng.IntN(3) == 0:
			// A recorded path, one of its prefixes, or one below it.
			e := want[rng.IntN(len(want))]
			if len(e) == 0 {
				continue
			}
			p = slices.Clone(e[rng.IntN(len(e))])
			switch rng.IntN(3) {
			case 0:
				p = p[:1+rng.IntN(len(p))]
			case 1:
				p = append(p, elem())
			}
		}
		var ref []Hit
		for i := len(events) - 1; i >= 0; i-- {
			hit, maybe := false, false
			for _, q := range want[i] {
				switch {
				case !prefix(q, p) && !prefix(p, q):
				case events[i].coarse && len(q) < len(p):
					maybe = true
				default:
					hit = true
				}
			}
			if hit || maybe {
				ref = append(ref, Hit{Pos: i + 1, Maybe: !hit})
			}
		}
		if got := tc.Blame(p); !slices.Equal(got, ref) {
			t.Fatalf("Blame(%v) = %d hits, want %d\n%v\n%v", p, len(got), len(ref), got, ref)
		}
	}
}
