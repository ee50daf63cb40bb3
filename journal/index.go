package journal

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rewind-tui/rewind/internal/prefault"
)

// DefaultMaxRecord is the longest line read as a record (16 MiB). Longer
// lines are skipped without being held in memory and marked.
const DefaultMaxRecord = 16 << 20

// chunkSize is the size of a block read and classified at once. 1 MiB
// blocks index 1 GB about 8% faster than 4 MiB blocks (a block a worker
// classifies is still in cache from the read) and keep 18 MiB fewer read
// buffers resident. 512 KiB blocks index as fast as 1 MiB ones, and when a
// fold reads the blocks as they are committed (the TUI's catch-up) they
// keep 4-10 MiB less resident: every block in the pipeline holds its bytes,
// its records and what prepare read of its lines (see BENCHMARKS.md).
const chunkSize = 512 << 10

var bom = []byte{0xEF, 0xBB, 0xBF}

// Index is the list of records of one journal, built by scanning its bytes
// from the start and extended as the file grows. Only complete lines (ended
// by "\n") become records; an incomplete last line is held back and reported
// by Incomplete.
//
// An Index is safe for concurrent use: one goroutine scans while others read
// snapshots (Records returns a snapshot that later scans never modify).
//
// It costs 8 bytes a record plus a few for each bad line (see Records).
type Index struct {
	mu        sync.RWMutex
	st        store
	details   map[int64]string // why each bad line is bad, by offset
	next      int64            // offset of the first byte not yet consumed
	line      int32            // lines consumed
	tailLen   int64            // bytes of the incomplete last line at next
	maxRecord int64
	cls       *classifier
	workers   []*classifier
	chunk     int64 // read size; 0 means chunkSize (tests make it tiny)
	serial    bool  // classify on the scanning goroutine (tests compare)
	maxWork   atomic.Int32
}

// NewIndex returns an empty index that skips lines longer than maxRecord
// bytes (DefaultMaxRecord when maxRecord <= 0).
func NewIndex(maxRecord int64) *Index {
	if maxRecord <= 0 {
		maxRecord = DefaultMaxRecord
	}
	return &Index{maxRecord: maxRecord, cls: newClassifier()}
}

// block is a run of complete lines read by Scan, classified by a worker and
// committed in file order.
type block struct {
	data  []byte // whole lines, each ended by '\n'; nil for a skipped line
	off   int64  // file offset of data[0]
	long  Record // the record of a line over the limit, when data is nil
	recs  []Record
	bad   []badDetail
	lines int32
	done  chan struct{}
	spare chan []Record // reusable record buffers, so blocks make no garbage
	// prepared is what ScanBlocks' prepare returned for the block, and
	// spareP the results the committer is done with, for reuse.
	prepared any
	spareP   chan any
}

// badDetail is why the record at index i of a block is bad.
type badDetail struct {
	i    int
	text string
}

// Scan reads r from the end of the last complete line consumed up to size
// and appends a record for each complete line found. It returns the number
// of records added. One goroutine reads blocks of whole lines; up to two
// workers (one per CPU) classify them, and records are committed in file
// order as each block is done, so readers see the index grow. Scan must not
// be called concurrently with itself.
func (ix *Index) Scan(r io.ReaderAt, size int64) (int, error) {
	return ix.ScanBlocks(r, size, nil, false, nil)
}

// ScanBlocks is Scan calling fn, when not nil, on the committing goroutine
// after each block of lines is committed: data holds the block's bytes,
// which start at offset off of the file, and recs are the block's records
// as committed (with their lines and positions). data and recs are only
// valid during the call, and the scan waits for fn, so a caller that folds
// the events there reads each byte once, from the index's own buffer.
//
// prepare, when not nil, is called with each block (its records
// classified, their lines and positions not yet counted from the file's
// start) on the goroutine that classified it, right after, and fn gets
// what it returned as p: work on the block's lines that does not depend on
// the blocks before runs there, on another CPU than fn's. prev is what an
// earlier call returned, once fn is done with it (nil at first), for its
// memory to be reused. With ends set, prepare also gets where the
// classifier found the scalars of each line (Ends); otherwise an empty
// Ends.
func (ix *Index) ScanBlocks(r io.ReaderAt, size int64, prepare BlockPrepare, ends bool,
	fn func(data []byte, off int64, recs []Record, p any)) (int, error) {
	ix.mu.RLock()
	pos, line := ix.next, ix.line
	ix.mu.RUnlock()
	if size <= pos {
		ix.commit(nil, nil, pos, line, 0)
		return 0, nil
	}
	chunk := ix.chunk
	if chunk <= 0 {
		// Small reads for small work: a live tail's few new lines cost
		// no full-size buffer.
		chunk = min(max(size-pos, 64<<10), chunkSize)
	}
	workers := min(runtime.GOMAXPROCS(0), 2)
	if m := int(ix.maxWork.Load()); m > 0 {
		workers = min(workers, m)
	}
	if ix.serial || size-pos <= chunk {
		workers = 0
	}
	for len(ix.workers) < workers {
		ix.workers = append(ix.workers, newClassifier())
	}
	ix.cls.skel.record = ends && prepare != nil
	for _, c := range ix.workers {
		c.skel.record = ix.cls.skel.record
	}
	var (
		total   int
		jobs    chan *block
		order   = make(chan *block, 2*workers+1)
		free    = make(chan []byte, 2*workers+2)
		spare   = make(chan []Record, 2*workers+2) // record buffers back from the committer
		spareP  = make(chan any, 2*workers+2)      // prepare's results back from the committer
		wg      sync.WaitGroup
		commitW sync.WaitGroup
		scanErr error
	)
	if workers > 0 {
		jobs = make(chan *block, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(c *classifier) {
				defer wg.Done()
				for b := range jobs {
					b.spare, b.spareP = spare, spareP
					ix.classifyBlock(c, b, prepare)
					close(b.done)
				}
			}(ix.workers[w])
		}
	}
	// The committer publishes blocks in order and recycles their buffers.
	commitW.Add(1)
	go func() {
		defer commitW.Done()
		for b := range order {
			<-b.done
			l := line
			for i := range b.recs {
				b.recs[i].Line += l
			}
			line += b.lines
			next := b.off + int64(len(b.data))
			if b.data == nil {
				next = b.long.Off + b.long.Len + 1
			}
			ix.commit(b.recs, b.bad, next, line, 0)
			if fn != nil && b.data != nil {
				fn(b.data, b.off, b.recs, b.prepared)
			}
			total += len(b.recs)
			if b.data != nil {
				select {
				case free <- b.data[:0]:
				default:
				}
				select {
				case spare <- b.recs[:0]:
				default:
				}
				if b.prepared != nil {
					select {
					case spareP <- b.prepared:
					default:
					}
				}
			}
		}
	}()
	send := func(b *block) {
		b.done = make(chan struct{})
		order <- b
		if workers == 0 {
			b.spare, b.spareP = spare, spareP
			ix.classifyBlock(ix.cls, b, prepare)
			close(b.done)
		} else {
			jobs <- b
		}
	}

	var (
		readAt = pos
		carry  []byte // the start of a line whose end is not read yet
		skip   = int64(-1)
	)
	for readAt < size {
		var buf []byte
		select {
		case buf = <-free:
		default:
		}
		// Read so that carry and new bytes fill one chunk-sized buffer,
		// which comes back for reuse once its block is committed.
		want := int(min(chunk, size-readAt))
		if room := int(chunk) - len(carry); room >= int(chunk)/2 {
			want = int(min(int64(room), size-readAt))
		}
		if cap(buf) < len(carry)+want {
			buf = prefault.Make[byte](0, len(carry)+want)
		}
		buf = append(buf[:0], carry...)
		m, err := r.ReadAt(buf[len(carry):len(carry)+want], readAt)
		if m == 0 && err != nil {
			if err != io.EOF {
				scanErr = err
			}
			break
		}
		start := readAt - int64(len(carry))
		data := buf[:len(carry)+m]
		readAt += int64(m)
		if skip >= 0 {
			// Inside a line over the limit: drop bytes up to its end.
			k := bytes.IndexByte(data, '\n')
			if k < 0 {
				carry = carry[:0]
				continue
			}
			end := start + int64(k)
			send(&block{off: skip, long: Record{Off: skip, Len: end - skip, Problem: ProblemTooLong}})
			data, start, skip = data[k+1:], end+1, -1
		}
		k := bytes.LastIndexByte(data, '\n')
		if k < 0 {
			if int64(len(data)) > ix.maxRecord {
				skip, carry = start, carry[:0]
			} else {
				carry = append(carry[:0], data...)
			}
			continue
		}
		carry = append(carry[:0], data[k+1:]...)
		if int64(len(carry)) > ix.maxRecord {
			skip, carry = start+int64(k)+1, carry[:0]
		}
		send(&block{data: data[:k+1], off: start})
		if cap(carry) > 4*chunkSize && len(carry) < chunkSize {
			carry = append([]byte(nil), carry...)
		}
	}
	if jobs != nil {
		close(jobs)
	}
	close(order)
	wg.Wait()
	commitW.Wait()
	tail := int64(len(carry))
	next := readAt - tail
	if skip >= 0 {
		tail, next = readAt-skip, skip
	}
	ix.commit(nil, nil, next, line, tail)
	return total, scanErr
}

// BlockPrepare is ScanBlocks' prepare: it gets a block's bytes (from
// offset off of the file), its records and, when ScanBlocks was asked for
// them, where its lines' scalars end; prev is what an earlier call
// returned, or nil.
type BlockPrepare func(data []byte, off int64, recs []Record, ends Ends, prev any) any

// Ends are where the classifier found the scalars of a block's lines, as
// it validated them through its skeletons (see skeletons.match), and
// their skeletons. They are valid during the prepare call they are given
// to only (the Skeletons may be kept).
type Ends struct {
	all []uint32
	of  []lineEnds
}

// lineEnds are the ends of a record's line, all[lo:hi] of its block's
// Ends, and its skeleton (nil: not read through one).
type lineEnds struct {
	lo, hi int32
	skel   *skelNode
}

// Of returns the skeleton of the block's record i and the ends of its
// line's scalars (strings, numbers, true, false and null, in the order of
// the line, each the index just after the scalar from the line's first
// byte, '{'), or the zero Skeleton and nil when the classifier did not
// read the line through a skeleton (nor for a bad line).
func (e Ends) Of(i int) (Skeleton, []uint32) {
	if i < 0 || i >= len(e.of) || e.of[i].skel == nil {
		return Skeleton{}, nil
	}
	l := e.of[i]
	return Skeleton{l.skel}, e.all[l.lo:l.hi:l.hi]
}

// classifyBlock splits a block into lines and classifies each, then calls
// prepare (when not nil) on it. Record line numbers are relative to the
// block (the committer adds the base).
func (ix *Index) classifyBlock(c *classifier, b *block, prepare BlockPrepare) {
	ix.classify(c, b)
	if prepare != nil && b.data != nil {
		var prev any
		select {
		case prev = <-b.spareP:
		default:
		}
		var ends Ends
		if c.skel.record {
			ends = Ends{all: c.skel.ends, of: c.endsOf}
		}
		b.prepared = prepare(b.data, b.off, b.recs, ends, prev)
	}
}

// classify is classifyBlock's splitting and classifying.
func (ix *Index) classify(c *classifier, b *block) {
	if b.data == nil {
		b.long.Line = 1
		b.recs, b.lines = []Record{b.long}, 1
		b.bad = []badDetail{{0, tooLongDetail(b.long.Len, ix.maxRecord)}}
		return
	}
	data := b.data
	select {
	case b.recs = <-b.spare:
	default:
		b.recs = make([]Record, 0, max(len(data)/512, 16))
	}
	var n int32
	record := c.skel.record
	c.skel.ends, c.endsOf = c.skel.ends[:0], c.endsOf[:0]
	for off := 0; off < len(data); {
		// A line that starts with its object is read by the fast path,
		// which finds its end as it goes; the file's first line may
		// start with a BOM.
		if data[off] == '{' && b.off+int64(off) > 0 {
			rec := Record{Off: b.off + int64(off), Line: n + 1}
			from := len(c.skel.ends)
			c.skel.leaf = nil // set by a line read through the skeletons
			if e := c.fastLine(data, off, &rec); e >= 0 && int64(e-off) <= ix.maxRecord {
				n++
				b.recs = append(b.recs, rec)
				if record {
					c.endsOf = append(c.endsOf, lineEnds{int32(from), int32(len(c.skel.ends)), c.skel.leaf})
				}
				off = e + 1
				continue
			}
			c.skel.ends = c.skel.ends[:from]
		}
		k := bytes.IndexByte(data[off:], '\n')
		if k < 0 {
			break
		}
		n++
		if int64(k) > ix.maxRecord {
			b.bad = append(b.bad, badDetail{len(b.recs), tooLongDetail(int64(k), ix.maxRecord)})
			b.recs = append(b.recs, Record{Off: b.off + int64(off), Len: int64(k), Line: n, Problem: ProblemTooLong})
		} else {
			b.recs, b.bad = lineRecords(c, b.recs, b.bad, data[off:off+k], b.off+int64(off), n)
		}
		for record && len(c.endsOf) < len(b.recs) {
			c.endsOf = append(c.endsOf, lineEnds{}) // read without a skeleton
		}
		off += k + 1
	}
	b.lines = n
}

func tooLongDetail(n, limit int64) string {
	return "record of " + HumanBytes(n) + " skipped (limit " + HumanBytes(limit) + ")"
}

// lineRecords classifies one complete line (without its "\n") that starts
// at off and appends its record(s). A BOM at offset 0 is stripped and noted;
// a trailing "\r" is not part of the record.
func lineRecords(cls *classifier, out []Record, bad []badDetail, body []byte, off int64, line int32) ([]Record, []badDetail) {
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
			bad = append(bad, badDetail{len(out), humanCount(n) + " NUL bytes before a record on the same line"})
			out = append(out, Record{Off: off, Len: int64(n), Line: line, Problem: ProblemNUL})
			body, off = body[n:], off+int64(n)
		}
	}
	rec := Record{Off: off, Len: int64(len(body)), Line: line}
	cls.classify(body, &rec)
	if warnBOM && rec.Problem == OK {
		rec.Problem = WarnBOM
	}
	if cls.detail != "" {
		bad = append(bad, badDetail{len(out), cls.detail})
	}
	return append(out, rec), bad
}

// commit publishes added records (setting their lines' positions in
// added), why the bad ones are bad, and the new scan position.
func (ix *Index) commit(added []Record, bad []badDetail, next int64, line int32, tail int64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, d := range bad {
		if ix.details == nil {
			ix.details = map[int64]string{}
		}
		ix.details[added[d.i].Off] = d.text
	}
	ix.st.addAll(added)
	ix.next, ix.line, ix.tailLen = next, line, tail
}

// LimitWorkers makes the following scans classify with at most n workers
// (0: one per CPU, at most two), so that a caller folding while Scan runs
// keeps a CPU for itself. Safe to call while a scan runs; it takes effect
// at the next Scan.
func (ix *Index) LimitWorkers(n int) { ix.maxWork.Store(int32(n)) }

// Records returns the records indexed so far, in file order: a snapshot
// that later scans append to without changing.
func (ix *Index) Records() Records {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.st.snapshot()
}

// recordsKept returns Records and whether events after its last were
// indexed and dropped (DropRecords), read at once.
func (ix *Index) recordsKept() (Records, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n, _ := ix.st.kept()
	return ix.st.snapshot(), n < ix.st.n
}

// Counts returns the number of records and of events indexed so far.
func (ix *Index) Counts() (records, events int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.st.n, ix.st.n - len(ix.st.bad)
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
	return Record{Off: ix.next, Len: ix.tailLen, Line: ix.line + 1, Problem: ProblemIncomplete}, true
}

// Detail returns a short explanation of why r, one of this index's records
// (or its Incomplete marker), is a bad line: the JSON error, the size of a
// skipped line. It is "" for events, and quotes no journal text.
func (ix *Index) Detail(r Record) string {
	switch r.Problem {
	case ProblemIncomplete:
		return "no newline at the end of the file yet (a writer may be in the middle of it, or was killed)"
	case OK, ProblemBlank:
		return ""
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.details[r.Off]
}

// Describe returns a one-line description of a bad line: its line number,
// offset, length and reason. It quotes no journal bytes, so it needs no
// sanitizing.
func (ix *Index) Describe(r Record) string {
	s := fmt.Sprintf("line %d, offset %d, %d bytes: %s", r.Line, r.Off, r.Len, r.Problem)
	if d := ix.Detail(r); d != "" {
		s += ": " + d
	}
	return s
}

// DropRecords makes the scans from now on count the records they commit
// (Counts, their positions, Consumed) without keeping them: Records then
// holds those kept before, and no later one until Reset. It is for a fold
// that reads each block's records as they are committed (ScanBlocks' fn)
// and the journal never by position afterwards (rewind state): 8 bytes a
// line it would not read again.
func (ix *Index) DropRecords() {
	ix.mu.Lock()
	ix.st.dropFromNow()
	ix.mu.Unlock()
}

// Reset empties the index, for a journal that was truncated or replaced.
func (ix *Index) Reset() {
	ix.mu.Lock()
	ix.st, ix.details = store{}, nil
	ix.next, ix.line, ix.tailLen = 0, 0, 0
	ix.mu.Unlock()
}

func humanCount(n int) string {
	return itoa(int64(n))
}
