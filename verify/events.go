package verify

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
)

// field is one top-level member of an event: its JSON kind (0 when the
// member is absent) and, for a string or a number, its text.
type field struct {
	kind jsontext.Kind
	text string
}

// top holds the top-level members verify looks at. The last of duplicate
// members counts, as in JSON.parse.
type top struct {
	seq, id, typ, timestamp, payload field
	ts                               time.Time // the timestamp, read as the timeline reads it

	streamID, correlationID, causationID field
	actor, metadata                      field
}

// scanner reads the top-level members of events with rawjson's member
// walk over the bytes the index has validated: no tokens are built and
// only the values verify looks at are decoded. Not safe for concurrent use.
type scanner struct{}

func newScanner() *scanner { return &scanner{} }

// scan reads raw, one JSON object, into t. It reports false when raw is not
// a JSON object (the index has marked such a record already).
func (s *scanner) scan(raw []byte, t *top) bool {
	*t = top{}
	return rawjson.Members(raw, func(n, v []byte) bool {
		if bytes.IndexByte(n, '\\') >= 0 {
			// A name written with escapes: compare it decoded.
			if d, ok := rawjson.Unquote(append(append([]byte{'"'}, n...), '"')); ok {
				n = []byte(d)
			}
		}
		var f *field
		switch string(n) {
		case "seq":
			f = &t.seq
		case "id":
			f = &t.id
		case "type":
			f = &t.typ
		case "timestamp":
			f = &t.timestamp
			t.ts = journal.ParseTimestamp(v)
		case "payload":
			f = &t.payload
		case "stream_id":
			f = &t.streamID
		case "correlation_id":
			f = &t.correlationID
		case "causation_id":
			f = &t.causationID
		case "actor":
			f = &t.actor
		case "metadata":
			f = &t.metadata
		}
		if f == nil || len(v) == 0 {
			return true
		}
		switch c := v[0]; {
		case c == '{' || c == '[':
			*f = field{kind: jsontext.Kind(c)}
		case c == '"':
			text, _ := rawjson.Unquote(v)
			*f = field{kind: '"', text: text}
		case c == 't' || c == 'f':
			*f = field{kind: 't', text: string(v)}
		case c == 'n':
			*f = field{kind: 'n', text: string(v)}
		default:
			*f = field{kind: '0', text: string(v)}
		}
		return true
	})
}

// kindName names a JSON kind for a message.
func kindName(k jsontext.Kind) string {
	switch k {
	case 0:
		return "missing"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a JSON value"
}

// want describes a member that does not have the kind it should: "payload
// is an array, want an object", "id missing".
func want(name string, f field, kind string) string {
	if f.kind == 0 {
		return name + " missing"
	}
	return name + " is " + kindName(f.kind) + ", want " + kind
}

// integer reads a JSON number that holds an integer (1, 1.0, 1e3).
func integer(text string) (int64, bool) {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// seqEntry is an event's integer seq.
type seqEntry struct {
	rec journal.Record
	v   int64
}

// events reads every event once and checks, by format, its envelope and
// its seq, and for every format the timestamps in file order. The events'
// members are scanned on every CPU, a chunk at a time (scanEvents); the
// checks, which depend on the events before, run in file order on the
// calling goroutine.
func (c *checker) events() error {
	recs := c.s.J.Index.Records()
	if recs.Events() == 0 {
		return nil
	}
	sc := newScanner()
	var (
		seqs     []seqEntry
		prev     journal.Record   // the last event with a timestamp
		prevTS   time.Time        // its timestamp; zero before the first
		ids      map[uint64]int32 // event ids seen (Durable Stream), by hash: the position of the first
		others   map[string]int32 // ids whose hash an earlier, different id has
		maxSeq   int64
		seenSeqs map[int64]int32
	)
	format := c.rep.Format
	switch format {
	case model.DurableStream:
		ids = map[uint64]int32{}
	case model.Generic:
		seenSeqs = map[int64]int32{}
	}
	err := c.scanEvents(recs.Events(), func(e *scanned) {
		rec := e.rec
		r := &rec
		t := &e.t
		if c.checked != nil && (rec.Pos&1023 == 0 || int(rec.Pos) == recs.Events()) {
			c.checked.Store(int64(rec.Pos))
		}
		if !e.ok {
			return
		}
		if ts := t.ts; !ts.IsZero() {
			if !prevTS.IsZero() && ts.Before(prevTS) {
				c.addAt(r, KindTimeBackwards, "timestamp %s is %s earlier than the one before it (line %d, %s); shown in file order, the order of the appends",
					model.FormatTime(ts), prevTS.Sub(ts), prev.Line, model.FormatTime(prevTS))
			}
			prev, prevTS = rec, ts
		}
		switch format {
		case model.DeltaEngine:
			c.deltaEngineEnvelope(r, t)
			if v, ok := c.seqOf(r, t, 1); ok {
				seqs = append(seqs, seqEntry{rec, v})
			}
		case model.DeltaMind:
			if v, ok := c.seqOf(r, t, 0); ok {
				if v < maxSeq {
					c.addAt(r, KindSeqOutOfOrder, "seq %d after seq %d: DeltaMind seqs may repeat (one per batch) but never decrease", v, maxSeq)
				}
				maxSeq = max(maxSeq, v)
			}
		case model.DurableStream:
			c.durableEnvelope(r, t)
			if t.id.kind == '"' {
				// Ids are kept as 64-bit hashes (a string per event would
				// be most of verify's memory on a large stream); a hash
				// seen before is a repeat only if the first event's id,
				// read back, is the same.
				first, seen := ids[hashID(t.id.text)]
				if seen && c.idAt(int(first), sc) != t.id.text {
					// Another id has this hash: look this one up exactly.
					if others == nil {
						others = map[string]int32{}
					}
					first, seen = others[t.id.text]
					if !seen {
						others[t.id.text] = rec.Pos
					}
				} else if !seen {
					ids[hashID(t.id.text)] = rec.Pos
				}
				if seen {
					c.addAt(r, KindIDDuplicate, "event id %s repeated (first at line %d): the same event was appended twice, or two writers share ids", clip(t.id.text), recs.Event(int(first)).Line)
				}
			}
		default:
			if t.seq.kind != '0' {
				break
			}
			v, ok := integer(t.seq.text)
			if !ok {
				break
			}
			if first, dup := seenSeqs[v]; dup {
				c.addAt(r, KindSeqDuplicate, "seq %d repeated (first at line %d)", v, first)
				break
			}
			seenSeqs[v] = r.Line
			if v < maxSeq {
				c.addAt(r, KindSeqOutOfOrder, "seq %d after seq %d: seqs decrease here", v, maxSeq)
			}
			maxSeq = max(maxSeq, v)
		}
	})
	if format == model.DeltaEngine {
		c.deltaEngineSeqs(seqs)
	}
	return err
}

// scanned is one event as a worker of scanEvents read it: its record
// and, when ok (it is a JSON object), its top-level members.
type scanned struct {
	rec journal.Record
	ok  bool
	t   top
}

// scanChunk is how many events a worker of scanEvents scans at a time. (A
// variable, for tests.)
var scanChunk = 4096

// scanEvents scans events 1 to n on every CPU, each worker a chunk of
// scanChunk events at a time through journal.Each with a scanner of its
// own, and calls check with each, in file order, on the calling goroutine,
// while the workers scan the chunks after it (at most two per worker
// ahead). It returns the first error of a chunk's reading, after check
// has seen the events of the chunks before it.
func (c *checker) scanEvents(n int, check func(e *scanned)) error {
	chunks := (n + scanChunk - 1) / scanChunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	type result struct {
		evs []scanned
		err error
	}
	slots := make([]chan result, chunks)
	for k := range slots {
		slots[k] = make(chan result, 1)
	}
	ahead := make(chan struct{}, 2*workers) // chunks scanned and not yet checked
	stop := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := newScanner()
			for {
				select {
				case ahead <- struct{}{}:
				case <-stop:
					return
				}
				k := int(next.Add(1)) - 1
				if k >= chunks {
					return
				}
				first, last := k*scanChunk+1, min((k+1)*scanChunk, n)
				evs := make([]scanned, 0, last-first+1)
				err := c.s.J.Each(first, last, func(ev model.Event) error {
					e := scanned{rec: journal.Record{Off: ev.Off, Len: int64(len(ev.Raw)), Line: int32(ev.Line), Pos: int32(ev.Pos)}}
					e.ok = sc.scan(ev.Raw, &e.t)
					evs = append(evs, e)
					return nil
				})
				slots[k] <- result{evs, err}
			}
		}()
	}
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for k := range chunks {
		r := <-slots[k]
		for i := range r.evs {
			check(&r.evs[i])
		}
		if r.err != nil {
			return r.err
		}
		<-ahead
	}
	return nil
}

// hashID hashes the event ids verify compares (a variable: a test makes
// every id collide).
var hashID = func() func(string) uint64 {
	seed := maphash.MakeSeed()
	return func(s string) uint64 { return maphash.String(seed, s) }
}()

// idAt returns the top-level string id of the event at pos, read back from
// the journal ("" when it cannot be read or has none).
func (c *checker) idAt(pos int, sc *scanner) string {
	ev, err := c.s.J.Event(pos)
	if err != nil {
		return ""
	}
	var t top
	if !sc.scan(ev.Raw, &t) || t.id.kind != '"' {
		return ""
	}
	return t.id.text
}

// seqOf returns the event's integer seq, reporting a missing or non-integer
// seq, or one below least.
func (c *checker) seqOf(r *journal.Record, t *top, least int64) (int64, bool) {
	switch t.seq.kind {
	case 0:
		c.addAt(r, KindSeqMissing, "no seq: every %s line has an integer seq", c.rep.Format)
		return 0, false
	case '0':
		v, ok := integer(t.seq.text)
		if !ok {
			c.addAt(r, KindSeqInvalid, "seq %s is not an integer", clip(t.seq.text))
			return 0, false
		}
		if v < least {
			c.addAt(r, KindSeqInvalid, "seq %d is below %d, where %s seqs start", v, least, c.rep.Format)
			return 0, false
		}
		return v, true
	case '"':
		c.addAt(r, KindSeqInvalid, "seq is a string (%s), want an integer", clip(strconv.Quote(t.seq.text)))
	default:
		c.addAt(r, KindSeqInvalid, "seq is %s, want an integer", kindName(t.seq.kind))
	}
	return 0, false
}

// deltaEngineSeqs checks Delta Engine's rule: seqs run 1, 2, 3… in file
// order, each once. A gap names only the seqs that appear nowhere in the
// file; a seq that appears later, after a higher one, is reported there as
// out of order instead.
func (c *checker) deltaEngineSeqs(seqs []seqEntry) {
	all := make([]int64, len(seqs))
	for i, e := range seqs {
		all[i] = e.v
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	seen := make(map[int64]int32, len(seqs))
	var top int64
	for _, e := range seqs {
		if first, dup := seen[e.v]; dup {
			c.addAt(&e.rec, KindSeqDuplicate, "seq %d repeated (first at line %d)", e.v, first)
			continue
		}
		seen[e.v] = e.rec.Line
		if e.v < top {
			c.addAt(&e.rec, KindSeqOutOfOrder, "seq %d after seq %d: out of order", e.v, top)
			continue
		}
		if e.v > top+1 {
			if gaps := missing(all, top+1, e.v-1); gaps != "" {
				c.addAt(&e.rec, KindSeqGap, "seq %s missing before seq %d (lost or torn records; rewind never invents events)", gaps, e.v)
			}
		}
		top = e.v
	}
}

// missing describes the integers of [lo, hi] that are not in sorted:
// "3-6", "3, 5-6", "" when there are none. It lists at most four ranges.
func missing(sorted []int64, lo, hi int64) string {
	var parts []string
	more := 0
	put := func(a, b int64) {
		if a > b {
			return
		}
		if len(parts) == 4 {
			more++
			return
		}
		if a == b {
			parts = append(parts, strconv.FormatInt(a, 10))
		} else {
			parts = append(parts, strconv.FormatInt(a, 10)+"-"+strconv.FormatInt(b, 10))
		}
	}
	next := lo
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i] >= lo })
	for ; i < len(sorted) && sorted[i] <= hi; i++ {
		put(next, sorted[i]-1)
		next = max(next, sorted[i]+1)
	}
	put(next, hi)
	s := strings.Join(parts, ", ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more range(s)", more)
	}
	return s
}

// deltaEngineEnvelope checks Delta Engine's envelope (JournalEventSchema):
// a string type, an ISO-8601 timestamp, an object payload. The seq is
// checked apart.
func (c *checker) deltaEngineEnvelope(r *journal.Record, t *top) {
	var bad []string
	if t.typ.kind != '"' {
		bad = append(bad, want("type", t.typ, "a string"))
	}
	switch {
	case t.timestamp.kind != '"':
		bad = append(bad, want("timestamp", t.timestamp, "an ISO-8601 string"))
	case model.ParseTime(t.timestamp.text).IsZero():
		bad = append(bad, "timestamp is not an ISO-8601 time")
	}
	if t.payload.kind != '{' {
		bad = append(bad, want("payload", t.payload, "an object"))
	}
	if len(bad) > 0 {
		c.addAt(r, KindEnvelope, "Delta Engine envelope: %s", strings.Join(bad, "; "))
	}
}

// durableEnvelope checks Durable Stream's StreamEvent envelope: string id,
// type, stream_id, correlation_id and actor, a number timestamp (Unix
// milliseconds), an object payload, and when present a string causation_id
// and an object metadata.
func (c *checker) durableEnvelope(r *journal.Record, t *top) {
	var bad []string
	for _, m := range []struct {
		name string
		f    field
	}{{"id", t.id}, {"type", t.typ}, {"stream_id", t.streamID}, {"correlation_id", t.correlationID}, {"actor", t.actor}} {
		if m.f.kind != '"' {
			bad = append(bad, want(m.name, m.f, "a string"))
		}
	}
	if t.timestamp.kind != '0' {
		bad = append(bad, want("timestamp", t.timestamp, "a number (Unix milliseconds)"))
	}
	if t.payload.kind != '{' {
		bad = append(bad, want("payload", t.payload, "an object"))
	}
	if t.causationID.kind != 0 && t.causationID.kind != '"' {
		bad = append(bad, want("causation_id", t.causationID, "a string"))
	}
	if t.metadata.kind != 0 && t.metadata.kind != '{' {
		bad = append(bad, want("metadata", t.metadata, "an object"))
	}
	if len(bad) > 0 {
		c.addAt(r, KindEnvelope, "Durable Stream envelope: %s", strings.Join(bad, "; "))
	}
}
