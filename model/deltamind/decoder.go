package deltamind

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rewind-tui/rewind/internal/prefault"
	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/model"
)

// A decoder reads the lines of a lineage's entries back (from the journal
// file, or inline) and decodes what the views show of them
// (lineFields.read, which decodes as line.parse and parseDelta do): an item
// is rebuilt by applying the deltas of its versions in order, as the
// reconciler applied them.
//
// A sequential decoder, for the views that walk items in creation order,
// reads the file in windows (up to 8 MiB for those that walk them all,
// View, StreamView and Render; up to 256 KiB for the panes, which show a
// few hundred), in which the lines of an item's later versions are usually
// found too (a journal revises an item soon after it creates it); others
// read each line on its own.
//
// A decoder takes the lineage's lock only to read the lineage, never while
// it reads the file. It is not safe for concurrent use; the decoders of
// one walk on several goroutines share their windows (see windows).
type decoder struct {
	l      *lineage
	src    io.ReaderAt // l.src when the decoder was made
	shared *windows    // nil for a decoder without windows
	win    *fileWindow // the window last used
	// lf is scratch for a line, turns for the sourceTurns of the item
	// item returns last.
	lf    lineFields
	turns []turnVal
	// chains are the versions of the items being read (those of a part,
	// or the one item asked for).
	chains chains
	// lay are the layouts of the lines read, for a decoder with windows
	// (taken from layoutPool at the first line).
	lay *layouts
	// held are the windows the current item's strings may point into,
	// when the windows are reused (windows.reuse): d.win and any other
	// its lines were read from. They are released when the next item
	// starts, or when the decoder is done.
	held []*fileWindow
}

// Window sizes, in bytes: a walk's first window is firstWin, each next one
// twice the one before up to its maxWin. A window of size n holds the
// first lines that start in one cell of n bytes of the file, from a
// multiple of n (so that the decoders of one walk on several goroutines,
// whose items' lines interleave, ask for the same windows), and reads
// n/8 bytes past it (winSlack at most) for the last of those lines to end
// in; a longer line there is read on its own.
const (
	firstWin = 64 << 10
	walkWin  = 8 << 20
	paneWin  = 256 << 10
	winSlack = 32 << 10
)

// decoder returns a decoder of l whose windows are at most maxWin bytes
// (0: no window).
func (l *lineage) decoder(maxWin int) *decoder {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := &decoder{l: l, src: l.src}
	if maxWin > 0 {
		d.shared = &windows{src: l.src, maxWin: maxWin}
	}
	return d
}

// plain returns a decoder of l without windows, for one item or entry
// (an At, Touched): taken from plainDecoders, and given back with
// putPlain once nothing it returned that is in its memory (item's
// sourceTurns) is used. A state search remakes items at every event, and
// a new decoder for each (576 bytes, and its chains and scratch) was a
// large part of what the search allocated.
func (l *lineage) plain() *decoder {
	d := plainDecoders.Get().(*decoder)
	l.mu.Lock()
	d.l, d.src = l, l.src
	l.mu.Unlock()
	return d
}

// putPlain gives d, from plain, back to plainDecoders once done has
// released its layouts and chains, keeping its scratch memory; d is not
// used afterwards.
func (d *decoder) putPlain() {
	d.done()
	*d = decoder{turns: d.turns[:0], lf: lineFields{turns: d.lf.turns[:0]}}
	plainDecoders.Put(d)
}

var plainDecoders = sync.Pool{New: func() any { return new(decoder) }}

// sharing returns a decoder of d's lineage that shares d's windows, for
// another goroutine of the same walk.
func (d *decoder) sharing() *decoder { return &decoder{l: d.l, src: d.src, shared: d.shared} }

// reusing makes d's windows reused once no decoder holds them (see
// windows.reuse): for a walk whose items are written before the next one
// is made, and whose decoders call done.
func (d *decoder) reusing() *decoder {
	d.shared.reuse = true
	return d
}

// keepOnly releases the windows d holds but keep (nil: all of them).
func (d *decoder) keepOnly(keep *fileWindow) {
	if len(d.held) == 0 || len(d.held) == 1 && d.held[0] == keep {
		return
	}
	d.shared.release(d.held, keep)
	kept := slices.Contains(d.held, keep)
	d.held = d.held[:0]
	if kept {
		d.held = append(d.held, keep)
	}
}

// done releases the windows d holds, and its layouts; d is not used
// afterwards.
func (d *decoder) done() {
	d.keepOnly(nil)
	if d.lay != nil {
		layoutPool.Put(d.lay)
		d.lay = nil
	}
	if d.chains.ks != nil {
		c := d.chains
		chainsPool.Put(&c)
		d.chains = chains{}
	}
}

// chainsPool holds the memory of the chains of decoders that are done,
// for the next ones: StreamView's parts each read through a decoder of
// their own, whose chains grew from nothing (1 GB journal, rewind state:
// 170 MB of garbage).
var chainsPool = sync.Pool{New: func() any { return &chains{ks: []int32{}} }}

// A fileWindow is part of the file, from lo: b[:filled] holds the file's
// bytes from lo. A walk's window is read a fillChunk at a time, as its
// decoders ask for lines further on (upTo); cover reads its window whole.
// The bytes it holds never change while a decoder holds it (the strings
// decoded from it are views of it).
//
// Read as the lines are asked for, each chunk is walked while it is still
// in the reading CPU's cache, where a whole window read at once (2 MiB) had
// left its start only in memory shared by the CPUs (1 GB journal, rewind
// state, 12 runs side by side: 2153 → 2031 ms, CPU 3.96 → 3.84 s).
type fileWindow struct {
	lo    int64
	b     []byte // the window's memory, len(b) bytes from lo
	cell  int64  // the first lines it holds start before lo+cell
	fixed bool   // read by cover: a walk never moves on from it
	users int    // decoders holding it, when windows are reused (windows.mu)
	// filled is how many bytes of b hold the file's, from lo; src is what
	// the rest is read from, nil once b is read to its end or the file
	// ended before it (and for cover's windows, read whole). fill is held
	// while a chunk is read, and guards src.
	filled atomic.Int64
	fill   sync.Mutex
	src    io.ReaderAt
}

// fillChunk is the least a window reads at a time, in bytes; lineAhead is
// how far past a line's start it holds before the line is read, so that a
// line up to that long is read whole from it (a longer one is read on its
// own).
const (
	fillChunk = 128 << 10
	lineAhead = winSlack
)

// upTo reads w up to at least rel bytes from lo (or the end of w, or of
// the file) unless it holds them already, reading fillChunk bytes at
// least, and returns how many bytes from lo it holds. Safe for concurrent
// use: the bytes a caller was given are not written again.
func (w *fileWindow) upTo(rel int64) int64 {
	if n := w.filled.Load(); n >= rel {
		return n
	}
	w.fill.Lock()
	defer w.fill.Unlock()
	n := w.filled.Load()
	if n >= rel || w.src == nil {
		return n
	}
	to := min(int64(len(w.b)), max(rel, n+fillChunk))
	got, err := w.src.ReadAt(w.b[n:to], w.lo+n)
	if n += int64(got); n == int64(len(w.b)) || err != nil {
		w.src = nil // all of w is read, or the file ends before its end
	}
	w.filled.Store(n)
	return n
}

// holds reports whether line start off is in w, and in its cell unless
// first is false (a line of an item's later version, which never moves a
// walk on).
func (w *fileWindow) holds(off int64, first bool) bool {
	if w == nil || off < w.lo || off >= w.lo+int64(len(w.b)) {
		return false
	}
	return !first || w.fixed || off < w.lo+w.cell
}

// windows are the windows of one walk of a file, the last few of which its
// decoders share, so that decoders walking the items on two goroutines
// read the file once: each window holds a cell of the file (see firstWin),
// so a decoder whose items start a little before another's finds the
// window of their cell instead of reading one that starts at its own line
// (1 GB journal, rewind state: the items' walk read 2.0 GB of windows
// that started at its lines, and reads 1.1 GB of cells; the rejected
// lines' 1.3 GB, now 1.2 GB). It is safe for concurrent use.
//
// With reuse set, a window that is no longer recent and that no decoder
// holds is read into again, instead of a new one being made: a walk of
// 1 GB then reads into a few windows rather than zeroing and faulting in
// 128 of 8 MiB. A decoder holds the windows the strings of its current
// item may point into (decoder.held), so only a walk whose items are
// written before the next is made may reuse (StreamView's Parts).
type windows struct {
	mu     sync.Mutex
	src    io.ReaderAt
	maxWin int
	recent [3]*fileWindow // newest first
	reuse  bool
	free   []*fileWindow // with reuse: windows no decoder holds, not recent
}

// at returns a recent window that holds off (see fileWindow.holds), or
// makes the one of off's cell when none does and first is set; nil
// otherwise. A new window has read nothing yet: its decoders read it as
// they go (fileWindow.upTo), without holding ws.mu.
// With reuse, the window returned counts one more user unless it is one of
// held (the caller's), and counted says that it did.
func (ws *windows) at(off int64, first bool, held []*fileWindow) (w *fileWindow, counted bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range ws.recent {
		if w.holds(off, first) {
			if counted = ws.reuse && !slices.Contains(held, w); counted {
				w.users++
			}
			return w, counted
		}
	}
	if !first {
		return nil, false
	}
	cell := int64(min(firstWin, ws.maxWin))
	if w := ws.recent[0]; w != nil {
		cell = min(2*w.cell, int64(ws.maxWin))
	}
	size := int(cell + min(cell/8, winSlack))
	for len(ws.free) > 0 && w == nil {
		w, ws.free = ws.free[len(ws.free)-1], ws.free[:len(ws.free)-1]
		if cap(w.b) < size {
			w = nil // too small for the walk now: let it go
		}
	}
	if w == nil {
		w = &fileWindow{b: prefault.Make[byte](size, size)}
	}
	// Nothing is read yet: the decoders read w as they walk it (upTo).
	w.lo, w.b, w.cell, w.users, w.src = off-off%cell, w.b[:size], cell, 1, ws.src
	w.filled.Store(0)
	if old := ws.recent[len(ws.recent)-1]; old != nil && old.users == 0 {
		ws.freed(old)
	}
	copy(ws.recent[1:], ws.recent[:])
	ws.recent[0] = w
	return w, ws.reuse
}

// release counts one user less of each window in held but keep, and keeps
// those no decoder holds any more and that are not recent for reuse.
func (ws *windows) release(held []*fileWindow, keep *fileWindow) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range held {
		if w == keep {
			continue
		}
		if w.users--; w.users == 0 && !slices.Contains(ws.recent[:], w) {
			ws.freed(w)
		}
	}
}

// freed keeps w for reuse, when the windows are reused. The caller holds
// ws.mu.
func (ws *windows) freed(w *fileWindow) {
	if ws.reuse && len(ws.free) < 2 {
		ws.free = append(ws.free, w)
	}
}

// readLine reads the line an entry's loc points to into d.lf, and reports
// false when it cannot be read, or is no longer the line folded (the file
// changed). first says that the line is the first of an item (whose
// offsets grow from item to item), which may move a walk on to a new
// window. The line ends where its object does: a window's bytes are walked
// from the line's start without looking for its end first.
func (d *decoder) readLine(loc uint64, prog uint8, first bool) bool {
	if loc&locInline != 0 {
		d.l.mu.Lock()
		b := d.l.inlineLine(loc)
		d.l.mu.Unlock()
		ok, _ := d.readAs(prog, b, loc)
		return ok
	}
	if d.src == nil {
		return false
	}
	off := int64(locOf(loc))
	if b := d.fromWindow(off, first); b != nil {
		if ok, read := d.readAs(prog, b, loc); read {
			return ok
		}
	}
	ok, _ := d.readAs(prog, d.read(off), loc) // not in a window, or not all of it
	return ok
}

// readAs reads the line at the start of b into d.lf, with program prog
// when it has one (see layoutProg) and otherwise as readFields does, and
// reports whether it read it (read) and whether it is the line loc
// folded (ok: its check is loc's).
func (d *decoder) readAs(prog uint8, b []byte, loc uint64) (ok, read bool) {
	if p := progAt(prog); p != nil && len(b) > 0 {
		if _, pok := d.lf.readProg(p, b); pok && lineCheck(b[:d.lf.end]) == checkOf(loc) {
			return true, true
		}
	}
	if b == nil || !d.readFields(b) {
		return false, false
	}
	return lineCheck(b[:d.lf.end]) == checkOf(loc), true
}

// readFields reads the line at the start of b into d.lf (lineFields.read,
// through d's layouts when it has windows: a walk of many lines).
func (d *decoder) readFields(b []byte) bool {
	if d.shared != nil {
		if d.lay == nil {
			d.lay = layoutPool.Get().(*layouts)
		}
		if ok, read := d.lf.readLayout(d.lay, b); read {
			return ok
		}
	}
	return d.lf.read(b)
}

// fromWindow returns the file's bytes from off to the end of a window
// that holds off, moving on to a new one when first is set (see
// windows.at), or nil.
func (d *decoder) fromWindow(off int64, first bool) []byte {
	if !d.win.holds(off, first) {
		if d.shared == nil {
			return nil
		}
		var counted bool
		if d.win, counted = d.shared.at(off, first, d.held); d.win == nil {
			return nil
		}
		if counted {
			d.held = append(d.held, d.win)
		}
	}
	rel := off - d.win.lo
	n := d.win.upTo(rel + lineAhead)
	if rel >= n {
		return nil // the file ends before off now
	}
	return d.win.b[rel:n]
}

// cover reads the part of the file that holds the lines of locs into the
// window in one read, when they are in the file and within maxCover bytes
// of each other, so that a view that shows a few hundred entries reads
// them at once. The caller holds d.l.mu.
func (d *decoder) cover(locs []uint64) {
	lo, hi := int64(-1), int64(-1)
	for _, loc := range locs {
		if loc&locInline != 0 {
			continue
		}
		off := int64(locOf(loc))
		if lo < 0 || off < lo {
			lo = off
		}
		hi = max(hi, off)
	}
	if d.src == nil || lo < 0 || hi-lo > maxCover {
		return
	}
	size := int(hi - lo + coverSlack)
	w := &fileWindow{lo: lo, b: prefault.Make[byte](size, size), fixed: true}
	n, _ := d.src.ReadAt(w.b, lo)
	w.b = w.b[:n]
	w.filled.Store(int64(n))
	d.win = w
}

// maxCover is the widest span of lines cover reads at once; coverSlack is
// what it reads after the last line's start, in bytes.
const (
	maxCover   = 4 << 20
	coverSlack = 4 << 10
)

// itemLocs appends to out the locs of the lines of items from to to-1 as
// of the first seq item versions. The caller holds l.mu.
func (l *lineage) itemLocs(from, to int32, seq int64, out []uint64) []uint64 {
	var ks []int32
	cur := verCursor{k: -1}
	for i := from; i < to; i++ {
		ks, out = l.appendVersions(ks[:0], out, i, seq, &cur)
	}
	return out
}

// recLocs appends to out the locs of rejected lines (or disagreements)
// from to to-1. The caller holds l.mu.
func (l *lineage) recLocs(disagreement bool, from, to int, out []uint64) []uint64 {
	list := l.recList(disagreement)
	for i := from; i < to; i++ {
		out = append(out, list.at(i).loc)
	}
	return out
}

// read reads the line at off (up to its '\n' or the end of the file) on
// its own, into memory of its own the size of the line (the strings
// decoded from it are views of it, and may outlive the decoder). The file
// is read into a buffer of readBufs: a journal's lines are a few hundred
// bytes, and each read allocating a buffer of 1 KiB or more made most of
// what a state search over the items allocated, and kept.
func (d *decoder) read(off int64) []byte {
	if d.src == nil {
		return nil
	}
	bp := readBufs.Get().(*[]byte)
	defer func() {
		if len(*bp) <= maxReadBuf {
			readBufs.Put(bp)
		}
	}()
	for have := 0; ; {
		buf := *bp
		n, err := d.src.ReadAt(buf[have:], off+int64(have))
		if nl := bytes.IndexByte(buf[have:have+n], '\n'); nl >= 0 {
			return bytes.Clone(buf[:have+nl])
		}
		have += n
		if err != nil {
			if err == io.EOF && have > 0 {
				return bytes.Clone(buf[:have])
			}
			return nil
		}
		if have == len(buf) {
			*bp = append(buf, make([]byte, len(buf))...)
		}
	}
}

// readBufs are read's buffers (*[]byte), 1 KiB to start with, each grown
// to the longest line read into it; one grown past maxReadBuf bytes is
// not kept.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 1<<10); return &b }}

const maxReadBuf = 64 << 10

// turnVal is one entry of an item's sourceTurns: the turnId and the
// offset as written (nil when absent, null or not kept).
type turnVal struct {
	id  string
	off []byte
}

// itemVal is a MemoryItem as the views show it, rebuilt from its lines.
// Its scope is always "session", and its semanticId is kept as the kind
// and the hash it is made of.
type itemVal struct {
	id, summary, confidence, lastTouched string
	turns                                []turnVal
	tags                                 []string
	touches                              int
	sid                                  uint32 // semanticHash of the summary the last upsert gave
	kind, sidKind, status                uint8  // indexes in itemKinds, itemStatuses
}

func (it *itemVal) statusName() string { return itemStatuses[it.status] }
func (it *itemVal) semanticID() string {
	return string(appendSemanticID(nil, sidPrefixes[it.sidKind], it.sid))
}

// item returns item i as of the first seq item versions. Its sourceTurns
// are in the decoder's memory: they are valid until the next call.
func (d *decoder) item(i int32, seq int64) itemVal {
	l := d.l
	d.keepOnly(d.win) // the item before is written: its windows may go
	c := &d.chains
	if !c.has(i, seq) {
		d.gather(i, i+1, seq) // a decoder that reads items one at a time
	}
	from, to := c.start[i-c.lo], c.start[i-c.lo+1]
	ks, locs, progs := c.ks[from:to], c.locs[from:to], c.progs[from:to]
	f := c.base
	it := itemVal{turns: d.turns[:0]}
	for j := len(ks) - 1; j >= 0; j-- {
		if !d.readLine(locs[j], progs[j], j == len(ks)-1) {
			return broken(locs[0])
		}
		if c.variants != nil {
			f = c.variants[from+int32(j)]
		}
		it.apply(&d.lf.delta, int64(ks[j])+1, j == len(ks)-1, f, l.sids)
	}
	d.turns = it.turns
	return it
}

// chains are the versions of items lo to hi-1 as of the first seq item
// versions, read from the lineage under one lock (decoder.gather): item i's,
// newest first, are ks[start[i-lo]:start[i-lo+1]], with their lines' locs
// and, when some were folded with another format, their formats (base,
// the lineage's own, otherwise).
type chains struct {
	lo, hi   int32
	seq      int64
	ks       []int32
	locs     []uint64
	progs    []uint8
	variants []format
	base     format
	start    []int32
	gathered bool
}

// has reports whether c holds item i as of the first seq item versions.
func (c *chains) has(i int32, seq int64) bool {
	return c.gathered && c.seq == seq && i >= c.lo && i < c.hi
}

// gather reads the versions of items lo to hi-1 as of the first seq item
// versions into d.chains, under one lock, for item: a part's, so that the
// decoders of StreamView's parts, which run on every CPU, do not each take
// the lineage's lock for each item, moving its cache line from CPU to CPU.
func (d *decoder) gather(lo, hi int32, seq int64) {
	l, c := d.l, &d.chains
	if c.ks == nil {
		*c = *chainsPool.Get().(*chains)
	}
	c.lo, c.hi, c.seq, c.gathered = lo, hi, seq, true
	c.ks, c.locs, c.progs, c.variants, c.start = c.ks[:0], c.locs[:0], c.progs[:0], c.variants[:0], c.start[:0]
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := verCursor{k: -1}
	for i := lo; i < hi; i++ {
		c.start = append(c.start, int32(len(c.ks)))
		c.ks, c.locs = l.appendVersions(c.ks, c.locs, i, seq, &cur)
	}
	for _, k := range c.ks {
		c.progs = append(c.progs, l.ivs.prog(int(k)))
	}
	c.start = append(c.start, int32(len(c.ks)))
	c.base = l.variants[0]
	if l.other == nil {
		c.variants = nil
		return
	}
	for _, k := range c.ks {
		c.variants = append(c.variants, l.variantOf(k))
	}
}

// appendVersions appends the versions of item i as of the first seq item
// versions to ks, newest first, and their lines' locs to locs. The caller
// holds l.mu.
// cur, when not nil, is the cursor of a walk of items in order (see
// verCursor).
func (l *lineage) appendVersions(ks []int32, locs []uint64, i int32, seq int64, cur *verCursor) ([]int32, []uint64) {
	for k := l.version(i, seq); k >= 0; k = l.revs.prev(int(k)) {
		ks = append(ks, k)
		locs = append(locs, l.ivs.atFrom(int(k), cur))
	}
	return ks, locs
}

// broken is what an item shows whose lines are no longer in the file as
// they were folded.
func broken(loc uint64) itemVal {
	c := classOf(loc)
	return itemVal{summary: "[rewind: the journal changed at offset " + strconv.FormatUint(locOf(loc), 10) + " since it was read]",
		kind: kindOfClass(c), sidKind: kindOfClass(c), status: statusOfClass(c)}
}

// apply applies d, the delta of the item version whose seq is seq (first:
// the one that created the item), as reconciler.ts applyDelta does.
func (it *itemVal) apply(d *delta, seq int64, first bool, f format, sids *sidCache) {
	id := d.id
	switch d.kind {
	case "decision_made":
		it.upsert(d, kDecision, d.summary, sActive, d.confidence, nil, first, sids)
	case "constraint_added":
		conf, tags := "high", softTags
		if d.hard {
			conf, tags = "certain", hardTags
		}
		it.upsert(d, kConstraint, d.summary, sActive, conf, tags, first, sids)
	case "task_opened":
		it.upsert(d, kTask, d.summary, sActive, "high", nil, first, sids)
	case "fact_learned":
		it.upsert(d, kFact, d.summary, sActive, d.confidence, nil, first, sids)
	case "hypothesis_introduced":
		it.upsert(d, kHypothesis, d.summary, sTentative, d.confidence, nil, first, sids)
	case "goal_set":
		it.upsert(d, kGoal, d.summary, sActive, d.confidence, nil, first, sids)
	case "branch_created":
		tags := append([]string{"branch"}, d.alternatives...)
		it.upsert(d, kHypothesis, strings.Join(d.alternatives, " | "), sTentative, "medium", tags, first, sids)
	default:
		id = d.targetID
		switch d.kind {
		case "decision_revised":
			it.summary = d.summary
			if d.confidence != "" {
				it.confidence = d.confidence
			}
		case "constraint_revised":
			it.summary = d.summary
			if d.mode != "" {
				it.tags = unionTags(it.tags, []string{d.mode})
			}
		case "task_closed":
			it.status = sResolved
			it.summary = it.summary + " → " + d.resolution
		case "item_superseded":
			it.status = sSuperseded
			it.summary = it.summary + " [superseded: " + d.reason + "]"
		}
		it.turns = appendTurns(it.turns, d.turns)
		it.lastTouched = d.timestamp
	}
	// touch: the snapshot's lastTouched, when its last touch of the item
	// is this very delta.
	it.touches++
	if f.snap != nil {
		if t, ok := f.snap[id]; ok && t.index == seq && t.count == it.touches && t.kind == d.kind && t.timestamp == d.timestamp {
			it.lastTouched = t.lastTouched
		}
	}
}

// The tags of constraint_added; never modified (unionTags makes a new
// list).
var softTags, hardTags = []string{"soft"}, []string{"hard"}

// upsert is reconciler.ts upsertItem: a new item (first), or an update of
// the existing one (whose kind and scope never change).
func (it *itemVal) upsert(d *delta, kind uint8, summary string, status uint8, confidence string, tags []string, first bool, sids *sidCache) {
	if first {
		turns := it.turns[:0]
		*it = itemVal{id: d.id, kind: kind, tags: tags}
		for _, t := range d.turns {
			turns = append(turns, turnVal{t.turnID, t.off})
		}
		it.turns = turns
	} else {
		it.turns = appendTurns(it.turns, d.turns)
		if tags != nil {
			it.tags = unionTags(it.tags, tags)
		}
	}
	it.status, it.confidence = status, confidence
	it.summary, it.sid, it.sidKind = summary, sids.hash(summary), kind
	it.lastTouched = d.timestamp
}

// appendTurns returns turns plus the new ones whose turnId is not there yet
// (appendSourceTurns), appended to turns.
func appendTurns(turns []turnVal, add []sourceRef) []turnVal {
	out := turns
	var seen map[string]bool
	if len(turns)+len(add) > 16 {
		seen = make(map[string]bool, len(turns)+len(add))
		for _, t := range turns {
			seen[t.id] = true
		}
	}
	for _, t := range add {
		if seen != nil {
			if seen[t.turnID] {
				continue
			}
			seen[t.turnID] = true
		} else if hasTurn(out, t.turnID) {
			continue
		}
		out = append(out, turnVal{t.turnID, t.off})
	}
	return out
}

func hasTurn(ts []turnVal, id string) bool {
	for _, t := range ts {
		if t.id == id {
			return true
		}
	}
	return false
}

// unionTags is [...new Set([...a, ...b])].
func unionTags(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, t := range a {
		if !hasTag(out, t) {
			out = append(out, t)
		}
	}
	for _, t := range b {
		if !hasTag(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// hasTag reports whether tags holds tag.
func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if t == tag {
			return true
		}
	}
	return false
}

// The names of kinds, statuses and confidences as view values, made once
// (an interface value of a string that is not a constant is an allocation).
var (
	kindValues       = values(itemKinds[:])
	statusValues     = values(itemStatuses[:])
	confidenceValues = values(confidences)
)

func values(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// object returns the item as View shows it: a snapshot.json SnapshotItem,
// made of its own memory (objectIn(nil)).
func (it *itemVal) object() model.Object { return it.objectIn(nil) }

// confidenceValue returns confidence c as a view value made once, when c
// is one of confidences.
func confidenceValue(c string) (any, bool) {
	for i, k := range confidences {
		if c == k {
			return confidenceValues[i], true
		}
	}
	return nil, false
}

// turnOffset returns a sourceTurn's offset, its JSON literal raw, as View
// shows it: nil when it has none.
func turnOffset(raw []byte) any {
	if raw == nil {
		return nil
	}
	off, err := model.FromRaw(raw)
	if err != nil {
		return nil
	}
	return off
}

// itemScratch is where a part of StreamView's items builds each item's
// object (objectIn): its members, sourceTurns, tags and strings, reused
// once the item is written, so that writing an item allocates little:
// its semanticId and the boxes of its two or three lists. A nil
// itemScratch makes each in memory of its own, with plain strings.
type itemScratch struct {
	fields []model.Field
	items  []any
	strs   []string
}

// reset empties sc for the next item.
func (sc *itemScratch) reset() {
	if sc == nil {
		return
	}
	sc.fields, sc.items, sc.strs = sc.fields[:0], sc.items[:0], sc.strs[:0]
}

// obj returns an Object of fs made in sc.
func (sc *itemScratch) obj(fs ...model.Field) model.Object {
	if sc == nil {
		return append(model.Object(nil), fs...)
	}
	n := len(sc.fields)
	if cap(sc.fields)-n < len(fs) {
		sc.fields, n = make([]model.Field, 0, max(64, 2*cap(sc.fields))), 0
	}
	sc.fields = append(sc.fields, fs...)
	return sc.fields[n : n+len(fs) : n+len(fs)]
}

// str returns s boxed as a *string kept in sc (boxing a string that is not
// a constant allocates; a pointer does not).
func (sc *itemScratch) str(s string) any {
	if sc == nil {
		return s
	}
	if len(sc.strs) == cap(sc.strs) {
		sc.strs = make([]string, 0, max(32, 2*cap(sc.strs)))
	}
	sc.strs = append(sc.strs, s)
	return &sc.strs[len(sc.strs)-1]
}

// list returns vs as a []any made in sc.
func (sc *itemScratch) list(n int, v func(i int) any) []any {
	if sc == nil {
		out := make([]any, n)
		for i := range out {
			out[i] = v(i)
		}
		return out
	}
	k := len(sc.items)
	if cap(sc.items)-k < n {
		sc.items, k = make([]any, 0, max(64, 2*cap(sc.items), n)), 0
	}
	for i := range n {
		sc.items = append(sc.items, v(i))
	}
	return sc.items[k : k+n : k+n]
}

// objectIn is the item as View shows it, made in sc, its strings boxed as
// *string: valid until sc is reset, and the decoder's next item. With sc
// nil it is made of its own memory, with plain strings (object).
func (it *itemVal) objectIn(sc *itemScratch) model.Object {
	sc.reset()
	turns := sc.list(len(it.turns), func(i int) any {
		t := it.turns[i]
		if off := turnOffset(t.off); off != nil {
			return sc.obj(model.Field{Key: "turnId", Value: sc.str(t.id)}, model.Field{Key: "offset", Value: off})
		}
		return sc.obj(model.Field{Key: "turnId", Value: sc.str(t.id)})
	})
	conf, ok := confidenceValue(it.confidence)
	if !ok {
		conf = sc.str(it.confidence)
	}
	fs := [10]model.Field{{Key: "id", Value: sc.str(it.id)}, {Key: "semanticId", Value: sc.str(it.semanticID())},
		{Key: "kind", Value: kindValues[it.kind]}, {Key: "summary", Value: sc.str(it.summary)},
		{Key: "status", Value: statusValues[it.status]}, {Key: "confidence", Value: conf},
		{Key: "scope", Value: "session"}, {Key: "sourceTurns", Value: turns},
		{Key: "lastTouched", Value: sc.str(it.lastTouched)}}
	if len(it.tags) == 0 {
		return sc.obj(fs[:9]...)
	}
	fs[9] = model.Field{Key: "tags", Value: sc.list(len(it.tags), func(i int) any { return sc.str(it.tags[i]) })}
	return sc.obj(fs[:]...)
}

// entry returns a rejected line or disagreement as View shows it: {seq,
// kind, target, reason, timestamp, at} for a rejected line (disagreement
// false), {seq, kind, target, reason, at} for a disagreement.
func (d *decoder) entry(r rec, disagreement bool) model.Object {
	d.keepOnly(d.win) // the entry before is written: its windows may go
	if !d.readLine(r.loc, r.prog(), true) {
		return brokenEntry(r, disagreement)
	}
	return d.entryObject(r, disagreement)
}

// brokenEntry is the object of a rejected line or disagreement whose line
// is no longer in the file as it was folded.
func brokenEntry(r rec, disagreement bool) model.Object {
	note := broken(r.loc).summary
	if disagreement {
		return obj("seq", nil, "kind", "", "target", "", "reason", note, "at", r.at())
	}
	return obj("seq", nil, "kind", "", "target", "", "reason", note, "timestamp", "", "at", r.at())
}

// entryObject is entry's object of r, whose line d.lf holds.
func (d *decoder) entryObject(r rec, disagreement bool) model.Object {
	l := &d.lf
	dl := &l.delta
	if disagreement {
		return obj("seq", seqValue(l.seq), "kind", dl.kind, "target", dl.target(), "reason", reason(r.why(), r.oldKind(), dl.kind, dl.targetID), "at", r.at())
	}
	return obj("seq", seqValue(l.seq), "kind", dl.kind, "target", dl.target(), "reason", l.reason, "timestamp", l.timestamp, "at", r.at())
}

// entryIn is entry for StreamView's Parts: the entry as an entryText in
// t, which it returns, when its seq is an integer; otherwise its object.
func (d *decoder) entryIn(r rec, disagreement bool, t *entryText) any {
	d.keepOnly(d.win) // the entry before is written: its windows may go
	if !d.readLine(r.loc, r.prog(), true) {
		return brokenEntry(r, disagreement)
	}
	l := &d.lf
	dl := &l.delta
	seq, ok := intSeq(l.seq)
	if !ok {
		return d.entryObject(r, disagreement)
	}
	*t = entryText{seq: seq, kind: dl.kind, target: dl.target(), reason: l.reason, timestamp: l.timestamp, at: r.at(), disagreement: disagreement}
	if disagreement {
		t.reason = reason(r.why(), r.oldKind(), dl.kind, dl.targetID)
	}
	return t
}

// read returns what the views need of a line the fold took (so one that
// line.parse and parseDelta decode): its seq, timestamp and reason and its
// delta, as they decode them. Strings without escapes are views of raw,
// which must not change afterwards.
func (lf *lineFields) read(raw []byte) bool {
	*lf = lineFields{turns: lf.turns}
	c, _ := open(raw, rawjson.SkipWS(raw, 0))
	for c.next() {
		switch string(c.name) {
		case "delta":
			if c.v < len(raw) && raw[c.v] == '{' {
				lf.delta = delta{}
				lf.hasDelta = true
				c.i = lf.delta.read(raw, c.v, &lf.turns)
				continue
			}
			lf.hasDelta = false
			c.value()
		case "seq":
			lf.seq = c.value()
		case "timestamp":
			lf.timestamp, _ = c.str()
		case "reason":
			lf.reason, _ = c.str()
		default:
			c.value()
		}
	}
	lf.end = c.i
	return c.i >= 0 && lf.hasDelta
}

// lineFields is what the views read of a line.
type lineFields struct {
	end               int // the index just after the line's object
	seq               []byte
	timestamp, reason string
	delta             delta
	hasDelta          bool
	turns             []sourceRef // memory for delta.turns, kept from line to line
}

// read reads the delta object at b[i] and returns the index after it.
// Its sourceTurns are kept in *buf, which it may replace by a longer one.
func (d *delta) read(b []byte, i int, buf *[]sourceRef) int {
	c, _ := open(b, i)
	for c.next() {
		switch string(c.name) {
		case "sourceTurns":
			c.i = d.readTurns(b, c.v, buf)
		case "alternatives":
			d.alternatives = nil
			a, ok := openArr(b, c.v)
			if !ok {
				c.value()
				continue
			}
			d.alternatives = []string{}
			for {
				e, more := a.next()
				if !more {
					break
				}
				a.i = skipVal(b, e)
				if a.i >= 0 {
					d.alternatives = append(d.alternatives, strOf(b[e:a.i], false))
				}
			}
			c.i = a.i
		case "kind":
			d.kind, _ = c.str()
		case "timestamp":
			d.timestamp, _ = c.str()
		case "id":
			d.id, _ = c.str()
		case "targetId":
			d.targetID, _ = c.str()
		case "summary":
			d.summary, _ = c.str()
		case "confidence":
			d.confidence, _ = c.str()
		case "hard":
			d.hard, _ = rawjson.Bool(c.value())
		case "mode":
			d.mode, _ = c.str()
		case "resolution":
			d.resolution, _ = c.str()
		case "reason":
			d.reason, _ = c.str()
		default:
			c.value()
		}
	}
	return c.i
}

// readTurns reads the sourceTurns array (or null) at b[i] into d, in
// *buf, and returns the index after it.
func (d *delta) readTurns(b []byte, i int, buf *[]sourceRef) int {
	d.turns = nil
	a, ok := openArr(b, i)
	if !ok { // null, or (in a delta that is not the last) anything
		return skipVal(b, i)
	}
	if d.turns = (*buf)[:0]; d.turns == nil {
		d.turns = []sourceRef{}
	}
	defer func() { *buf = d.turns }()
	for {
		e, more := a.next()
		if !more {
			break
		}
		var t sourceRef
		if b[e] != '{' {
			d.turns = append(d.turns, t)
			a.i = skipVal(b, e)
			continue
		}
		c, _ := open(b, e)
		for c.next() {
			switch string(c.name) {
			case "turnId":
				t.turnID, _ = c.str()
			case "offset":
				if t.off = c.value(); string(t.off) == "null" {
					t.off = nil
				}
			default:
				c.value()
			}
		}
		d.turns = append(d.turns, t)
		a.i = c.i
	}
	return a.i
}
