package journal

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// all returns every record of rs, read in order.
func all(rs Records) []Record {
	out := make([]Record, 0, rs.Len())
	for _, r := range rs.All(0) {
		out = append(out, r)
	}
	return out
}

// checkRecords asserts that every way of reading rs gives the same records:
// At, the in-order walk from any record, Event and EventIndex by
// position, EventsThrough, Type, Problem and IsEvent.
func checkRecords(t *testing.T, rs Records) {
	t.Helper()
	recs := all(rs)
	if len(recs) != rs.Len() {
		t.Fatalf("All gave %d records, Len is %d", len(recs), rs.Len())
	}
	events := 0
	for i, r := range recs {
		if got := rs.At(i); got != r {
			t.Fatalf("At(%d) = %+v, All gave %+v", i, got, r)
		}
		if rs.Type(i) != r.Type() || rs.Problem(i) != r.Problem || rs.IsEvent(i) != r.Event() {
			t.Fatalf("record %d: Type/Problem/IsEvent disagree with %+v", i, r)
		}
		if r.Event() {
			events++
			if int(r.Pos) != events {
				t.Fatalf("record %d has position %d, want %d", i, r.Pos, events)
			}
			if rs.EventIndex(events) != i || rs.Event(events) != r {
				t.Fatalf("event %d: EventIndex %d, want %d", events, rs.EventIndex(events), i)
			}
		} else if r.Pos != 0 {
			t.Fatalf("bad line %d has position %d", i, r.Pos)
		}
		if rs.EventsThrough(i) != events {
			t.Fatalf("EventsThrough(%d) = %d, want %d", i, rs.EventsThrough(i), events)
		}
	}
	if rs.Events() != events || rs.EventIndex(0) != -1 || rs.EventIndex(events+1) != -1 {
		t.Fatalf("Events() = %d, want %d", rs.Events(), events)
	}
	for _, from := range []int{0, 1, len(recs) / 3, len(recs) - 1} {
		if from < 0 || from >= len(recs) {
			continue
		}
		var tail []Record
		for i, r := range rs.All(from) {
			if i != from+len(tail) {
				t.Fatalf("All(%d) skipped to %d", from, i)
			}
			tail = append(tail, r)
		}
		if !reflect.DeepEqual(tail, recs[from:]) {
			t.Fatalf("All(%d) differs from the whole walk", from)
		}
	}
}

// The packed index gives back exactly the records it was given, whatever
// mix of bad lines, lines that share a line number, line endings and gaps
// between records, offsets past 4 GiB and lengths past 4 GiB, and a
// snapshot does not change as the index grows.
func TestRecordsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var st store
	var want []Record
	var snaps []Records
	var wantAt []int
	off, line := int64(3), int32(0)
	// Records are added in batches of random sizes, so that batches
	// start, end and cross chunks anywhere.
	var pending []Record
	flush := func() {
		st.addAll(pending)
		want = append(want, pending...)
		pending = pending[:0]
	}
	prev := OK
	for i := 0; i < 3*chunkRecs+77; i++ {
		r := Record{Off: off, Len: int64(rng.IntN(5000)), typ: uint16(rng.IntN(5))}
		if rng.IntN(30) == 0 {
			// A type whose index is the type byte's escape or past it.
			r.typ = uint16(oddType - 2 + rng.IntN(5))
		}
		switch rng.IntN(50) {
		case 0:
			r.Problem = ProblemNotJSON
		case 1:
			r.Problem = ProblemNUL // a NUL run: the next record shares its line
		case 2:
			r.Problem = WarnDuplicateKeys
		case 3:
			r.Len = 5 << 30 // a skipped line of 5 GiB
			r.Problem = ProblemTooLong
		case 4:
			off += 6 << 30 // a jump past the next 4 GiB
			r.Off = off
		}
		if prev != ProblemNUL {
			line++
		}
		prev = r.Problem
		if rng.IntN(200) == 0 {
			line += 7 // lines that are no records (a JSON array's)
		}
		r.Line = line
		if pending = append(pending, r); rng.IntN(300) == 0 {
			flush()
		}
		off += r.Len
		switch crlf := i >= chunkRecs-300 && i < chunkRecs+300; {
		case crlf && rng.IntN(50) != 0:
			off += 2 // a stretch of "\r\n" across a chunk's end
		case rng.IntN(40) == 0: // a record on the same line, after a NUL run
		case rng.IntN(40) == 0:
			off += 2 // "\r\n"
		case rng.IntN(40) == 0:
			off += 254
		case rng.IntN(40) == 0:
			off += 255 + int64(rng.IntN(1000)) // between a JSON array's elements
		default:
			off++
		}
		if i%chunkRecs == 100 || i == 10 || i == firstChunk {
			flush()
			snaps, wantAt = append(snaps, st.snapshot()), append(wantAt, len(want))
		}
	}
	flush()
	rs := st.snapshot()
	if !reflect.DeepEqual(all(rs), want) {
		t.Fatal("the records read back differ from the records added")
	}
	checkRecords(t, rs)
	for k, sn := range snaps {
		if !reflect.DeepEqual(all(sn), want[:wantAt[k]]) {
			t.Fatalf("snapshot %d changed as the index grew", k)
		}
		checkRecords(t, sn)
	}
}

// An index of broken lines reads back consistently every way.
func TestRecordsOfBrokenJournal(t *testing.T) {
	var b bytes.Buffer
	for i := range 3000 {
		switch i % 11 {
		case 1:
			b.WriteString("\n")
		case 4:
			b.WriteString("\x00\x00{\"type\":\"n\"}\n")
		case 6:
			b.WriteString("{\"type\":\n")
		case 9:
			b.WriteString(`{"type":"long","x":"` + strings.Repeat("y", 600) + "\"}\r\n")
		default:
			b.WriteString(`{"type":"t","seq":1}` + "\n")
		}
	}
	checkRecords(t, scanAll(t, b.Bytes(), 512, nil).Records())
}
