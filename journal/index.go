package journal

import (
	"bytes"
	"io"
	"runtime"
	"sync"
)

// DefaultMaxRecord is the longest line read as a record (16 MiB). Longer
// lines are skipped without being held in memory and marked.
const DefaultMaxRecord = 16 << 20

const chunkSize = 4 << 20

var bom = []byte{0xEF, 0xBB, 0xBF}

// Index is the list of records of one journal, built by scanning its bytes
// from the start and extended as the file grows. Only complete lines (ended
// by "\n") become records; an incomplete last line is held back and reported
// by Incomplete.
//
// An Index is safe for concurrent use: one goroutine scans while others read
// snapshots (Records and Events return slices that later scans never
// modify).
type Index struct {
	mu        sync.RWMutex
	recs      []Record
	events    []int32 // record index of each event, by Pos-1
	next      int64   // offset of the first byte not yet consumed
	line      int32   // lines consumed
	tailLen   int64   // bytes of the incomplete last line at next
	maxRecord int64
	cls, cls2 *classifier
	buf       []byte
	chunk     int64 // read size; 0 means chunkSize (tests make it tiny)
}

// NewIndex returns an empty index that skips lines longer than maxRecord
// bytes (DefaultMaxRecord when maxRecord <= 0).
func NewIndex(maxRecord int64) *Index {
	if maxRecord <= 0 {
		maxRecord = DefaultMaxRecord
	}
	return &Index{maxRecord: maxRecord, cls: newClassifier()}
}

// Scan reads r from the end of the last complete line consumed up to size
// and appends a record for each complete line found. It returns the number
// of records added. Lines are split on one goroutine and classified on as
// many as there are CPUs (at most two per block). Scan must not be called
// concurrently with itself.
func (ix *Index) Scan(r io.ReaderAt, size int64) (int, error) {
	ix.mu.RLock()
	pos, line := ix.next, ix.line
	ix.mu.RUnlock()
	if size <= pos {
		ix.commit(nil, pos, line, 0)
		return 0, nil
	}
	// The read buffer grows with the work, up to chunkSize: a small journal
	// (or a live tail's few new lines) does not cost a 4 MiB buffer.
	want := min(max(size-pos, 64<<10), chunkSize)
	if ix.chunk > 0 {
		want = ix.chunk
	}
	if int64(len(ix.buf)) < want || (ix.chunk > 0 && int64(len(ix.buf)) != want) {
		ix.buf = make([]byte, want)
	}
	total := 0
	var (
		lineStart = pos   // offset of the current line's first byte
		carry     []byte  // bytes of the current line read so far
		skipping  = false // the current line is over the limit
		readAt    = pos
		batch     []lineRef
	)
	for readAt < size {
		n := int64(len(ix.buf))
		if size-readAt < n {
			n = size - readAt
		}
		m, err := r.ReadAt(ix.buf[:n], readAt)
		if m == 0 && err != nil {
			if err == io.EOF {
				break
			}
			ix.commit(nil, lineStart, line, size-lineStart)
			return total, err
		}
		chunk := ix.buf[:m]
		base := readAt
		readAt += int64(m)
		batch = batch[:0]
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				if !skipping {
					if int64(len(carry)+len(chunk)) > ix.maxRecord {
						skipping, carry = true, nil
					} else {
						carry = append(carry, chunk...)
					}
				}
				break
			}
			end := base + int64(i) // offset of the '\n'
			line++
			switch {
			case skipping:
				batch = append(batch, lineRef{off: lineStart, line: line, tooLong: end - lineStart})
			case len(carry) > 0:
				body := append(carry, chunk[:i]...)
				if int64(len(body)) > ix.maxRecord {
					batch = append(batch, lineRef{off: lineStart, line: line, tooLong: int64(len(body))})
				} else {
					batch = append(batch, lineRef{off: lineStart, line: line, body: append([]byte(nil), body...)})
				}
			default:
				if int64(i) > ix.maxRecord {
					batch = append(batch, lineRef{off: lineStart, line: line, tooLong: int64(i)})
				} else {
					batch = append(batch, lineRef{off: lineStart, line: line, body: chunk[:i]})
				}
			}
			chunk = chunk[i+1:]
			base = end + 1
			lineStart = end + 1
			carry, skipping = carry[:0], false
			if cap(carry) > 4*chunkSize {
				carry = nil
			}
		}
		// Classify this block's lines before the buffer is read over.
		recs := ix.classifyBatch(batch)
		ix.reserve(len(recs), readAt-pos, size-pos)
		total += len(recs)
		ix.commit(recs, lineStart, line, readAt-lineStart)
	}
	ix.commit(nil, lineStart, line, size-lineStart)
	return total, nil
}

// lineRef is one complete line found by Scan, not yet classified.
type lineRef struct {
	off     int64
	line    int32
	body    []byte // nil when tooLong
	tooLong int64  // the line's length when it is over the limit
}

// classifyBatch turns lines into records, on two goroutines for large
// blocks; the order of the records is the order of the lines.
func (ix *Index) classifyBatch(batch []lineRef) []Record {
	if len(batch) == 0 {
		return nil
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > 2 {
		workers = 2
	}
	if workers < 2 || len(batch) < 64 {
		return ix.classifyLines(ix.cls, batch, make([]Record, 0, len(batch)))
	}
	if ix.cls2 == nil {
		ix.cls2 = newClassifier()
	}
	half := len(batch) / 2
	var second []Record
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		second = ix.classifyLines(ix.cls2, batch[half:], make([]Record, 0, len(batch)-half))
	}()
	first := ix.classifyLines(ix.cls, batch[:half], make([]Record, 0, len(batch)))
	wg.Wait()
	return append(first, second...)
}

func (ix *Index) classifyLines(c *classifier, batch []lineRef, out []Record) []Record {
	for _, l := range batch {
		if l.body == nil {
			out = append(out, Record{Off: l.off, Len: l.tooLong, Line: l.line, Problem: ProblemTooLong,
				Detail: tooLongDetail(l.tooLong, ix.maxRecord)})
			continue
		}
		out = lineRecords(c, out, l.body, l.off, l.line)
	}
	return out
}

func tooLongDetail(n, limit int64) string {
	return "record of " + HumanBytes(n) + " skipped (limit " + HumanBytes(limit) + ")"
}

// lineRecords classifies one complete line (without its "\n") that starts
// at off and appends its record(s). A BOM at offset 0 is stripped and noted;
// a trailing "\r" is not part of the record.
func lineRecords(cls *classifier, out []Record, body []byte, off int64, line int32) []Record {
	warnBOM := false
	if off == 0 && bytes.HasPrefix(body, bom) {
		body, off, warnBOM = body[len(bom):], off+int64(len(bom)), true
	}
	body = bytes.TrimSuffix(body, []byte{'\r'})
	// A run of NUL bytes (a preallocated or crashed write) followed by a
	// record: mark the run, then read the record after it.
	if len(body) > 0 && body[0] == 0 {
		n := 0
		for n < len(body) && body[n] == 0 {
			n++
		}
		if n < len(body) && bytes.IndexByte(body[n:], 0) < 0 {
			out = append(out, Record{Off: off, Len: int64(n), Line: line, Problem: ProblemNUL,
				Detail: humanCount(n) + " NUL bytes before a record on the same line"})
			body, off = body[n:], off+int64(n)
		}
	}
	rec := Record{Off: off, Len: int64(len(body)), Line: line}
	cls.classify(body, &rec)
	if warnBOM && rec.Problem == OK {
		rec.Problem = WarnBOM
	}
	return append(out, rec)
}

// commit publishes added records and the new scan position.
func (ix *Index) commit(added []Record, next int64, line int32, tail int64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for i := range added {
		if !added[i].Problem.Bad() {
			ix.events = append(ix.events, int32(len(ix.recs)))
			added[i].Pos = int32(len(ix.events))
		}
		ix.recs = append(ix.recs, added[i])
	}
	ix.next, ix.line, ix.tailLen = next, line, tail
}

// reserve grows the record slices once to the expected count, estimated
// from the lines per byte seen so far, so that a large file is not indexed
// into slices that double (and copy) a dozen times.
func (ix *Index) reserve(n int, seen, want int64) {
	if n == 0 || seen <= 0 || want <= seen {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	expect := len(ix.recs) + int(float64(n)*float64(want-seen)/float64(seen)*1.05) + n
	if expect <= cap(ix.recs) || expect > 1<<31 {
		return
	}
	recs := make([]Record, len(ix.recs), expect)
	copy(recs, ix.recs)
	evs := make([]int32, len(ix.events), expect)
	copy(evs, ix.events)
	ix.recs, ix.events = recs, evs
}

// Records returns the records indexed so far, in file order. The slice is a
// snapshot: later scans append to the index without changing it.
func (ix *Index) Records() []Record {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.recs[:len(ix.recs):len(ix.recs)]
}

// Events returns, for each event position p (1-based), the index in Records
// of its record at [p-1]. A snapshot, like Records.
func (ix *Index) Events() []int32 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.events[:len(ix.events):len(ix.events)]
}

// Counts returns the number of records and of events indexed so far.
func (ix *Index) Counts() (records, events int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.recs), len(ix.events)
}

// Consumed returns the offset just after the last complete line indexed.
func (ix *Index) Consumed() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.next
}

// Incomplete returns a marker record for the bytes after the last complete
// line (a line whose "\n" has not been written yet, or a torn last line),
// and false when there are none. It is not part of Records: when its
// newline arrives, the next Scan turns it into a record.
func (ix *Index) Incomplete() (Record, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.tailLen <= 0 {
		return Record{}, false
	}
	return Record{Off: ix.next, Len: ix.tailLen, Line: ix.line + 1, Problem: ProblemIncomplete,
		Detail: "no newline at the end of the file yet (a writer may be in the middle of it, or was killed)"}, true
}

// Reset empties the index, for a journal that was truncated or replaced.
func (ix *Index) Reset() {
	ix.mu.Lock()
	ix.recs, ix.events = nil, nil
	ix.next, ix.line, ix.tailLen = 0, 0, 0
	ix.mu.Unlock()
}

func humanCount(n int) string {
	return itoa(int64(n))
}
