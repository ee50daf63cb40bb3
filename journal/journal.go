package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// Form is the overall shape of a journal file.
type Form uint8

const (
	// FormJSONL is one JSON object per line, the form every seed system writes.
	FormJSONL Form = iota
	// FormArray is a JSON array of objects: the file was reformatted by a
	// tool (Delta Engine's 2025-10-09 incident). Read-only.
	FormArray
	// FormPretty is JSONL whose first object is pretty-printed over several
	// lines. Read-only.
	FormPretty
)

// Fix is the advice shown for a journal reformatted into a JSON array. The
// output must be a new file: redirecting onto FILE itself would empty it.
const Fix = "convert it back into a new file with: jq -c '.[]' FILE > journal.jsonl (never onto FILE itself; rewind never rewrites a journal)"

// FixPretty is the advice for a journal of pretty-printed objects.
const FixPretty = "convert it back into a new file with: jq -c . FILE > journal.jsonl (never onto FILE itself; rewind never rewrites a journal)"

// Warning returns a plain-words description of a non-JSONL form, or "".
func (f Form) Warning() string {
	switch f {
	case FormArray:
		return "this file is a JSON array, not JSONL: probably reformatted by an editor or tool; shown read-only, decisions are refused; " + Fix
	case FormPretty:
		return "this file holds pretty-printed JSON, not one object per line: probably reformatted by an editor or tool; shown read-only, decisions are refused; " + FixPretty
	}
	return ""
}

// maxArrayFile bounds the best-effort reading of a JSON-array journal,
// which has to be held in memory whole.
const maxArrayFile = 512 << 20

// Journal is an open journal file (read-only) and its index.
//
// Update may run in one goroutine while others call the read methods.
type Journal struct {
	// Path is the path the journal was opened with.
	Path string
	// Index holds the records found so far.
	Index *Index

	f    *os.File
	form atomic.Uint32 // Form
	size atomic.Int64
}

// Open opens path read-only and indexes what it holds now. It fails only
// when the file cannot be opened or read; broken content becomes records.
func Open(path string, maxRecord int64) (*Journal, error) {
	return OpenPrefix(path, maxRecord, 0)
}

// OpenPrefix is Open indexing only the lines within the first n bytes of a
// JSONL journal (n <= 0: all of it), so that a large journal can be shown
// at once and indexed on in steps with UpdateTo. JSON-array and
// pretty-printed journals are read whole.
func OpenPrefix(path string, maxRecord, n int64) (*Journal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory, not a journal file", path)
	}
	j := &Journal{Path: path, f: f, Index: NewIndex(maxRecord)}
	size := st.Size()
	if n > 0 && n < size && detectForm(f, size) == FormJSONL {
		size = n
	}
	if _, err := j.UpdateTo(size); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// Shrunk returns an error when the file is now shorter than size bytes,
// which it was when it was read up to there: it was truncated, or
// rewritten in place, while it was read, so what was read is not all that
// it holds, nor maybe what it holds now. It returns nil otherwise, and
// when the file cannot be stat'ed (the read said so already).
func (j *Journal) Shrunk(size int64) error {
	st, err := j.f.Stat()
	if err != nil || st.Size() >= size {
		return nil
	}
	return fmt.Errorf("the journal shrank from %s to %s while it was read (truncated, or rewritten in place): read it again",
		HumanBytes(size), HumanBytes(st.Size()))
}

// Close closes the file.
func (j *Journal) Close() error { return j.f.Close() }

// File returns the open read-only file, for tailers that compare identity.
func (j *Journal) File() *os.File { return j.f }

// Form returns the journal's shape as of the last Update.
func (j *Journal) Form() Form { return Form(j.form.Load()) }

// Size returns the file size seen by the last Update.
func (j *Journal) Size() int64 { return j.size.Load() }

// Update re-stats the file and indexes complete lines appended since the
// last call. It returns the number of records added.
func (j *Journal) Update() (int, error) {
	st, err := j.f.Stat()
	if err != nil {
		return 0, err
	}
	return j.UpdateTo(st.Size())
}

// UpdateTo indexes the file up to size bytes.
func (j *Journal) UpdateTo(size int64) (int, error) {
	if j.size.Load() == 0 && j.Index.Consumed() == 0 {
		j.form.Store(uint32(detectForm(j.f, size)))
	}
	j.size.Store(size)
	if j.Form() == FormArray {
		return j.scanArray(size)
	}
	return j.Index.Scan(j.f, size)
}

// UpdateEach is UpdateTo calling fn for each event it indexes, in order,
// with the bytes the index has just read (the file is not read twice;
// a JSON-array journal, read whole, is read back). ev.Raw is only valid
// during the call. After fn returns an error it is not called again; the
// index is still completed, and the error is returned.
func (j *Journal) UpdateEach(size int64, fn func(ev model.Event) error) (int, error) {
	return j.UpdateEachPrepared(size, nil, func(ev model.Event, _ any, _ int) error { return fn(ev) })
}

// UpdateEachPrepared is UpdateEach for a fold that reads the lines of a
// block before folding them (model.Preparer): prepare, when not nil, gets
// the lines (Raw) of each block's events, in order, on the goroutine that
// classified them (Index.ScanBlocks), and fn gets each event with what
// prepare returned for its block (nil without prepare) and the event's
// index i among those lines: ev.Raw is the very slice lines[i].
// The lines stay valid until fn returns for the block's last event. prev
// is prepare's result for an earlier block that fn is done with, or nil.
// A JSON-array journal's events are read back one at a time, each its own
// block.
func (j *Journal) UpdateEachPrepared(size int64, prepare func(lines [][]byte, prev any) any, fn func(ev model.Event, p any, i int) error) (int, error) {
	var prep func(lines [][]byte, _ []model.LineScalars, prev any) any
	if prepare != nil {
		prep = func(lines [][]byte, _ []model.LineScalars, prev any) any { return prepare(lines, prev) }
	}
	return j.updateEach(size, prep, false, fn)
}

// UpdateEachPreparedEnds is UpdateEachPrepared for a prepare that also
// reads what the index found of each line's scalars (model.EndsPreparer):
// scalars[i] is lines[i]'s skeleton (a Skeleton, as the Layout) and the
// ends of its scalars (Ends.Of), or nothing for a line the index did not
// read through a skeleton. scalars is valid during the prepare call only.
// Without prepare (nil) it is UpdateEach.
func (j *Journal) UpdateEachPreparedEnds(size int64, prepare func(lines [][]byte, scalars []model.LineScalars, prev any) any, fn func(ev model.Event, p any, i int) error) (int, error) {
	return j.updateEach(size, prepare, true, fn)
}

// UpdateThrough indexes the file step bytes at a time (step <= 0: up to
// size at once) until the index holds event n (n < 0: no such limit) or
// the file's first size bytes are indexed: a caller that needs the journal
// only as far as event n reads it within a step of there.
func (j *Journal) UpdateThrough(size, step int64, n int) error {
	if n < 0 {
		n = math.MaxInt
	}
	for at := j.Size(); at < size; {
		if _, evs := j.Index.Counts(); evs >= n {
			return nil
		}
		at = stepTo(at, size, step)
		if _, err := j.UpdateTo(at); err != nil {
			return err
		}
	}
	return nil
}

// UpdateEachSteps is UpdateEachPreparedEnds (withEnds) or
// UpdateEachPrepared up to size, step bytes at a time (step <= 0: at
// once), that stops after the step in which fn returned an error and
// returns that error: a caller that needs the journal only as far as some
// event stops reading within a step of it (UpdateEach alone indexes the
// rest whatever fn says).
func (j *Journal) UpdateEachSteps(size, step int64, prepare func(lines [][]byte, scalars []model.LineScalars, prev any) any, withEnds bool, fn func(ev model.Event, p any, i int) error) error {
	var err error
	for at := j.Size(); err == nil && at < size; {
		at = stepTo(at, size, step)
		_, err = j.updateEach(at, prepare, withEnds, fn)
	}
	return err
}

// stepTo is where a reading in steps of step bytes (step <= 0: one step)
// goes next from at, up to size.
func stepTo(at, size, step int64) int64 {
	if step <= 0 {
		return size
	}
	return min(size, at+step)
}

// updateEach is UpdateEachPrepared and UpdateEachPreparedEnds.
func (j *Journal) updateEach(size int64, prepare func(lines [][]byte, scalars []model.LineScalars, prev any) any, withEnds bool, fn func(ev model.Event, p any, i int) error) (int, error) {
	if j.size.Load() == 0 && j.Index.Consumed() == 0 {
		j.form.Store(uint32(detectForm(j.f, size)))
	}
	if j.Form() == FormArray {
		// A JSON-array journal is read whole again when it changes.
		n, err := j.UpdateTo(size)
		if err != nil || n == 0 {
			return n, err
		}
		var p any
		var line [1][]byte
		return n, j.Each(1, int(^uint(0)>>1), func(ev model.Event) error {
			if prepare != nil {
				line[0] = ev.Raw
				p = prepare(line[:], nil, p)
			}
			return fn(ev, p, 0)
		})
	}
	j.size.Store(size)
	var prep BlockPrepare
	if prepare != nil {
		prep = func(data []byte, off int64, recs []Record, ends Ends, prev any) any {
			pb, _ := prev.(*preparedBlock)
			if pb == nil {
				pb = &preparedBlock{}
			}
			pb.lines, pb.ends = pb.lines[:0], pb.ends[:0]
			for i, rec := range recs {
				if !rec.Problem.Bad() {
					s := rec.Off - off
					pb.lines = append(pb.lines, data[s:s+rec.Len])
					if withEnds {
						sk, e := ends.Of(i)
						var ls model.LineScalars
						if sk.n != nil {
							ls = model.LineScalars{Layout: sk, Ends: e}
						}
						pb.ends = append(pb.ends, ls)
					}
				}
			}
			var e []model.LineScalars
			if withEnds {
				e = pb.ends
			}
			pb.p = prepare(pb.lines, e, pb.p)
			return pb
		}
	}
	var fnErr error
	n, err := j.Index.ScanBlocks(j.f, size, prep, withEnds, func(data []byte, off int64, recs []Record, p any) {
		var bp any
		if pb, ok := p.(*preparedBlock); ok {
			bp = pb.p
		}
		i := 0
		for _, rec := range recs {
			if fnErr != nil {
				return
			}
			if rec.Problem.Bad() {
				continue
			}
			s := rec.Off - off
			fnErr = fn(model.Event{Pos: int(rec.Pos), Line: int(rec.Line), Off: rec.Off, Raw: data[s : s+rec.Len], Src: j.f}, bp, i)
			i++
		}
	})
	if err == nil {
		err = fnErr
	}
	return n, err
}

// preparedBlock is UpdateEachPrepared's result of prepare for one block:
// the lines and ends it was given (kept for reuse) and what it returned.
type preparedBlock struct {
	lines [][]byte
	ends  []model.LineScalars
	p     any
}

// detectForm looks at the first bytes of the file.
func detectForm(r io.ReaderAt, size int64) Form {
	head := make([]byte, 4096)
	n, _ := r.ReadAt(head, 0)
	head = bytes.TrimPrefix(head[:n], bom)
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) > 0 && t[0] == '[' {
		return FormArray
	}
	first := head
	if len(first) > 10 {
		first = first[:10]
	}
	if bytes.Contains(first, []byte("\n  ")) || bytes.Contains(first, []byte("\n{")) ||
		(len(t) > 0 && t[0] == '{' && bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t\r"), []byte("\n"))) {
		return FormPretty
	}
	return FormJSONL
}

// scanArray reads a JSON-array journal whole (bounded) and indexes each
// element as a record. A file larger than the bound is marked instead.
func (j *Journal) scanArray(size int64) (int, error) {
	if size == j.Index.Consumed() && size > 0 {
		return 0, nil
	}
	j.Index.Reset()
	if size > maxArrayFile {
		rec := Record{Off: 0, Len: size, Line: 1, Problem: ProblemTooLong}
		j.Index.commit([]Record{rec}, []badDetail{{0, "JSON array journal of " + HumanBytes(size) + " is too large to read (limit " + HumanBytes(maxArrayFile) + "); " + Fix}}, size, 1, 0)
		return 1, nil
	}
	data := make([]byte, size)
	if _, err := j.f.ReadAt(data, 0); err != nil && err != io.EOF {
		return 0, err
	}
	start := int64(0)
	if bytes.HasPrefix(data, bom) {
		start = int64(len(bom))
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data[start:]), lenientOpts...)
	var recs []Record
	var bad []badDetail
	lineAt := func(off int64) int32 { return int32(bytes.Count(data[:off], []byte{'\n'}) + 1) }
	fail := func(off int64, err error) {
		bad = append(bad, badDetail{len(recs), "JSON array ends badly: " + jsonErrorText(err)})
		recs = append(recs, Record{Off: off, Len: size - off, Line: lineAt(off), Problem: ProblemNotJSON})
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		fail(start, errors.New("not an array"))
	} else {
		for dec.PeekKind() != ']' && dec.PeekKind() != 0 {
			v, err := dec.ReadValue()
			if err != nil {
				fail(start+dec.InputOffset(), err)
				break
			}
			end := start + dec.InputOffset()
			off := end - int64(len(v))
			rec := Record{Off: off, Len: int64(len(v)), Line: lineAt(off)}
			j.Index.cls.classify(v, &rec)
			if j.Index.cls.detail != "" {
				bad = append(bad, badDetail{len(recs), j.Index.cls.detail})
			}
			recs = append(recs, rec)
		}
	}
	j.Index.commit(recs, bad, size, lineAt(size), 0)
	return len(recs), nil
}

// Read returns the bytes of one record.
func (j *Journal) Read(r Record) ([]byte, error) {
	if r.Len > j.Index.maxRecord {
		return nil, fmt.Errorf("record of %s is over the %s limit", HumanBytes(r.Len), HumanBytes(j.Index.maxRecord))
	}
	b := make([]byte, r.Len)
	n, err := j.f.ReadAt(b, r.Off)
	if n == len(b) {
		return b, nil
	}
	if err == nil || err == io.EOF {
		err = fmt.Errorf("journal %s is shorter than its index (truncated?)", j.Path)
	}
	return nil, err
}

// Event returns the event at position pos (1-based).
func (j *Journal) Event(pos int) (model.Event, error) {
	recs := j.Index.Records()
	if pos < 1 || pos > recs.Events() {
		return model.Event{}, fmt.Errorf("no event %d (the journal has %d)", pos, recs.Events())
	}
	rec := recs.Event(pos)
	raw, err := j.Read(rec)
	if err != nil {
		return model.Event{}, err
	}
	return model.Event{Pos: pos, Line: int(rec.Line), Off: rec.Off, Raw: raw, Src: j.f}, nil
}

// Head returns copies of the lines of the first n events (fewer when the
// journal has fewer, or when reading them fails), as format detection
// reads them (formats.Detect).
func (j *Journal) Head(n int) [][]byte {
	var out [][]byte
	_ = j.Each(1, n, func(ev model.Event) error {
		out = append(out, append([]byte(nil), ev.Raw...))
		return nil
	})
	return out
}

// Each calls fn for the events at positions from..to (1-based, inclusive)
// in order, reading the file sequentially in large blocks. ev.Raw is only
// valid during the call. It stops at the first error fn returns. It
// returns an error, calling fn for none, when some of those events were
// indexed without their records being kept (Index.DropRecords).
func (j *Journal) Each(from, to int, fn func(ev model.Event) error) error {
	recs, dropped := j.Index.recordsKept()
	if from < 1 {
		from = 1
	}
	if to > recs.Events() {
		if dropped && from <= to {
			return fmt.Errorf("journal: events %d to %d were indexed without keeping their records (Index.DropRecords)", max(from, recs.Events()+1), to)
		}
		to = recs.Events()
	}
	if from > to {
		return nil
	}
	const block = 4 << 20
	bp := eachBufs.Get().(*[]byte)
	defer eachBufs.Put(bp)
	buf := (*bp)[:0]
	var bufOff int64 = -1
	last := recs.Event(to)
	end := last.Off + last.Len // the last byte any event asked for
	for _, rec := range recs.All(recs.EventIndex(from)) {
		if rec.Pos == 0 {
			continue
		}
		if int(rec.Pos) > to {
			break
		}
		if bufOff < 0 || rec.Off < bufOff || rec.Off+rec.Len > bufOff+int64(len(buf)) {
			// Read a block, but no further than the last event asked for:
			// a keyframe's 256 events are often a few KiB.
			n := min(int64(block), end-rec.Off)
			n = max(n, rec.Len)
			if int64(cap(buf)) < n {
				buf = make([]byte, n)
				if n <= block {
					*bp = buf
				}
			}
			buf = buf[:n]
			m, err := j.f.ReadAt(buf, rec.Off)
			if int64(m) < rec.Len {
				if err == nil || err == io.EOF {
					err = fmt.Errorf("journal %s is shorter than its index (truncated?)", j.Path)
				}
				return err
			}
			buf, bufOff = buf[:m], rec.Off
		}
		s := rec.Off - bufOff
		if err := fn(model.Event{Pos: int(rec.Pos), Line: int(rec.Line), Off: rec.Off, Raw: buf[s : s+rec.Len], Src: j.f}); err != nil {
			return err
		}
	}
	return nil
}

// eachBufs are Each's read buffers, kept between calls: a replay calls Each
// once per keyframe and a fresh 4 MiB buffer costs more to clear than the
// few KiB it reads.
var eachBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// HumanBytes formats a size in bytes the way rewind's messages do: 512 B,
// 12.3 KiB, 4.0 MiB, 1.2 GiB.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return itoa(n) + " B"
}

// Key returns r's key (its top-level "seq", else its "id"; see LineKey),
// read back from the file. It is "" when r has none, is a bad line, or the
// file no longer holds it.
func (j *Journal) Key(r Record) string {
	if !r.Event() {
		return ""
	}
	raw, err := j.Read(r)
	if err != nil {
		return ""
	}
	return LineKey(raw)
}

// FindKey returns the position of the first event whose key (see LineKey) is
// key, reading the file sequentially; 0 when there is none.
func (j *Journal) FindKey(key string) (int, error) {
	found := 0
	err := j.Each(1, j.Index.Records().Events(), func(ev model.Event) error {
		// A line without escapes holds the key's text as it is, or
		// cannot have it as its key: most lines are passed over here.
		if bytes.IndexByte(ev.Raw, '\\') < 0 && !bytes.Contains(ev.Raw, []byte(key)) {
			return nil
		}
		if LineKey(ev.Raw) == key {
			found = ev.Pos
			return errFound
		}
		return nil
	})
	if err == errFound {
		err = nil
	}
	return found, err
}

var errFound = errors.New("found")
