package deltamind

import (
	"math/bits"
	"slices"
	"unsafe"
)

// What a lineage holds (millions of entries on a long journal) is kept free
// of pointers, so that the garbage collector never scans it: entries are
// values in chunks of a dense array, and the few bytes a lineage must copy
// (lines that came without a file, ids that are not counters) are runs in
// byte chunks addressed by a ref. Only the slices of chunks hold pointers,
// one per chunk.

// denseBits sets the size of a dense array's chunks: 4096 values.
const (
	denseBits = 12
	denseSize = 1 << denseBits
)

// A dense array holds values of a pointer-free type T at indexes 0, 1, 2,
// … in chunks of denseSize values, so that it grows without copying what it
// holds and a fork shares its full chunks. The last chunk grows by append
// until it is full (so small arrays stay small); the next ones are made
// full size.
type dense[T any] struct {
	chunks [][]T
	n      int
}

// len returns the number of values.
func (d *dense[T]) len() int { return d.n }

// add appends v and returns its index.
func (d *dense[T]) add(v T) int {
	c := d.n >> denseBits
	if c == len(d.chunks) {
		size := denseSize
		if c == 0 {
			size = 16
		}
		d.chunks = append(d.chunks, make([]T, 0, size))
	}
	if ch := d.chunks[c]; len(ch) == cap(ch) {
		d.chunks[c] = append(make([]T, 0, min(2*cap(ch), denseSize)), ch...)
	}
	d.chunks[c] = append(d.chunks[c], v)
	d.n++
	return d.n - 1
}

// at returns the value at index i (< len).
func (d *dense[T]) at(i int) T { return d.chunks[i>>denseBits][i&(denseSize-1)] }

// set replaces the value at index i (< len). It must only be called on a
// value no other array shares (see fork).
func (d *dense[T]) set(i int, v T) { d.chunks[i>>denseBits][i&(denseSize-1)] = v }

// fork returns an array holding the first n values of d: it shares d's full
// chunks below n and copies the chunk n falls in, so that appending to
// either array never shows in the other. Values below n must not be set
// afterwards in either (they are shared).
func (d *dense[T]) fork(n int) dense[T] {
	c := n >> denseBits
	f := dense[T]{chunks: make([][]T, c, c+1), n: n}
	copy(f.chunks, d.chunks[:c])
	if rest := n & (denseSize - 1); rest > 0 {
		f.chunks = append(f.chunks, slices.Clone(d.chunks[c][:rest]))
	}
	return f
}

// copyOf returns a copy of the first n values of d that shares nothing with
// it, for arrays whose values are set in place.
func (d *dense[T]) copyOf(n int) dense[T] {
	f := dense[T]{chunks: make([][]T, 0, (n+denseSize-1)>>denseBits), n: n}
	for c := 0; c < n; c += denseSize {
		f.chunks = append(f.chunks, slices.Clone(d.chunks[c>>denseBits][:min(denseSize, n-c)]))
	}
	return f
}

// A ref addresses a run of bytes in a pool: the position of its first byte
// (chunk<<chunkBits | offset) in its high 40 bits and its length in its low
// lenBits bits, or, when the length bits are all ones, the index of a run
// of its own (longer than a chunk) in its high bits. The zero ref is the
// empty run.
type ref uint64

const (
	chunkBits = 16
	maxChunk  = 1 << chunkBits // bytes in a chunk, at most
	lenBits   = 24
	bigLen    = 1<<lenBits - 1
	// firstChunk is the size of a pool's first chunk; each next one is
	// twice the size of the one before, up to maxChunk.
	firstChunk = 64
)

// A pool keeps runs of bytes, appended one run at a time and never changed.
// A forked pool shares the chunks of the pool it was forked from, reading
// only the runs written before the fork, and appends only to chunks of its
// own.
type pool struct {
	chunks [][]byte
	big    [][]byte // runs longer than a chunk
	// owned is the number of chunks shared with other pools (from a
	// fork), which this one never appends to.
	owned int
}

// add copies b into the pool and returns its ref.
func (p *pool) add(b []byte) ref {
	n := len(b)
	if n == 0 {
		return 0
	}
	if n > maxChunk {
		p.big = append(p.big, slices.Clone(b))
		return ref(len(p.big)-1)<<lenBits | bigLen
	}
	c := len(p.chunks) - 1
	if c < p.owned || cap(p.chunks[c])-len(p.chunks[c]) < n {
		size := firstChunk
		if c >= p.owned {
			size = min(2*cap(p.chunks[c]), maxChunk)
		}
		p.chunks = append(p.chunks, make([]byte, 0, max(size, n)))
		c++
	}
	off := len(p.chunks[c])
	p.chunks[c] = append(p.chunks[c], b...)
	return ref(c<<chunkBits|off)<<lenBits | ref(n)
}

// get returns the run r addresses. The caller must not modify it; it
// stays valid (and unchanged) as long as the pool is reachable.
func (p *pool) get(r ref) []byte {
	n := int(r & bigLen)
	pos := uint64(r >> lenBits)
	switch n {
	case 0:
		return nil
	case bigLen:
		return p.big[pos]
	}
	c, off := pos>>chunkBits, int(pos&(maxChunk-1))
	return p.chunks[c][off : off+n : off+n]
}

// str returns the run r addresses as a string.
func (p *pool) str(r ref) string {
	b := p.get(r)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// fork returns a pool that shares p's chunks as they are now.
func (p *pool) fork() pool {
	return pool{chunks: slices.Clone(p.chunks), big: slices.Clone(p.big), owned: len(p.chunks)}
}

// revisions holds, for each item version k (an index in a lineage's ivs),
// the item's version before it, or none when k created the item. Most
// versions create their item, so the links are kept only for the others:
// bit k&63 of words[k>>6] is set when version k has one, ranks[w] counts
// the links before words[w], and links holds them in order of k.
type revisions struct {
	words dense[uint64]
	ranks dense[uint32]
	links dense[uint32]
	n     int // versions
}

// add records version n (the next): prev is the item's version before
// it, or -1.
func (r *revisions) add(prev int32) {
	k := r.n
	r.n++
	if k&63 == 0 {
		r.words.add(0)
		r.ranks.add(uint32(r.links.len()))
	}
	if prev >= 0 {
		w := k >> 6
		r.words.set(w, r.words.at(w)|1<<(k&63))
		r.links.add(uint32(prev))
	}
}

// prev returns the item's version before version k, or -1.
func (r *revisions) prev(k int) int32 {
	word := r.words.at(k >> 6)
	if word>>(k&63)&1 == 0 {
		return -1
	}
	return int32(r.links.at(r.rank(k)))
}

// rank returns the number of links of the versions below k.
func (r *revisions) rank(k int) int {
	if k >= r.n {
		return r.links.len()
	}
	return int(r.ranks.at(k>>6)) + bits.OnesCount64(r.words.at(k>>6)&(1<<(k&63)-1))
}

// fork returns the links of the first n versions, sharing what it can
// with r (see dense.fork); the word being filled is copied.
func (r *revisions) fork(n int) revisions {
	f := revisions{words: r.words.fork(n >> 6), ranks: r.ranks.fork((n + 63) >> 6), links: r.links.fork(r.rank(n)), n: n}
	if n&63 != 0 {
		f.words.add(r.words.at(n>>6) & (1<<(n&63) - 1))
	}
	return f
}

// versions holds the locs of a lineage's item versions (see lineage) in
// about five bytes each instead of eight: the lines of a journal's item
// versions follow each other in the file, so each keeps the distance from
// the line of the version before (of those in the file) in 16 bits, with
// the offset of the line before each block of 32 versions in bases. A
// version whose distance does not fit, or whose line is kept inline, is
// escaped: its loc is in far, by index. The class and the low 10 bits of
// the check share a uint32 with the distance; the other 8 bits of the check
// are in checks.
type versions struct {
	meta   dense[uint32] // distance | class<<16 | check&0x3ff<<22
	checks dense[uint8]  // check>>10
	bases  dense[uint64] // the offset run had before versions 32b…
	far    dense[farLoc] // escaped versions, by index
	progs  dense[uint8]  // the program each version's line was read with (layoutProg)
	run    uint64        // the offset of the last version in the file
	n      int
}

// farLoc is the loc of escaped version k.
type farLoc struct {
	k   uint64
	loc uint64
}

const (
	blockBits = 5
	escaped   = 0xffff
)

func (vs *versions) len() int { return vs.n }

// add appends loc (with its class and check), whose line was read with
// program prog (0: none), and returns its index.
func (vs *versions) add(loc uint64, prog uint8) int {
	k := vs.n
	vs.n++
	if k&(1<<blockBits-1) == 0 {
		vs.bases.add(vs.run)
	}
	dist := uint64(escaped)
	if off := locOf(loc); loc&locInline == 0 {
		if off >= vs.run && off-vs.run < escaped {
			dist = off - vs.run
		}
		vs.run = off
	}
	if dist == escaped {
		vs.far.add(farLoc{uint64(k), locOf(loc)})
	}
	check := checkOf(loc)
	vs.meta.add(uint32(dist) | uint32(classOf(loc))<<16 | uint32(check&0x3ff)<<22)
	vs.checks.add(uint8(check >> 10))
	vs.progs.add(prog)
	return k
}

// prog returns the program version k's line was read with (0: none).
func (vs *versions) prog(k int) uint8 { return vs.progs.at(k) }

// class returns the class of version k.
func (vs *versions) class(k int) uint8 { return uint8(vs.meta.at(k)>>16) & (1<<classBits - 1) }

// at returns the loc of version k.
func (vs *versions) at(k int) uint64 { return vs.atFrom(k, nil) }

// A verCursor remembers the offset run had after a version that at found,
// so that the next version at is asked for in the same block, after it,
// is found from there instead of from the block's start.
type verCursor struct {
	k   int // -1: none
	run uint64
}

// atFrom is at, starting from cur (when not nil and of a version before k
// in k's block), which it moves to k.
func (vs *versions) atFrom(k int, cur *verCursor) uint64 {
	m := vs.meta.at(k)
	loc := uint64(m>>16&(1<<classBits-1))<<classOff | (uint64(m>>22)|uint64(vs.checks.at(k))<<10)<<checkOff
	if m&0xffff == escaped {
		return loc | vs.farAt(k)
	}
	// Add the distances from the start of the block (or from the cursor)
	// to k, starting again at each escaped version in the file. The block
	// is within one chunk.
	start := k &^ (1<<blockBits - 1)
	j, run := start, uint64(0)
	if cur != nil && cur.k >= start && cur.k < k {
		j, run = cur.k+1, cur.run
	} else {
		run = vs.bases.at(k >> blockBits)
	}
	chunk := vs.meta.chunks[k>>denseBits]
	for ; j <= k; j++ {
		d := chunk[j&(denseSize-1)] & 0xffff
		if d != escaped {
			run += uint64(d)
		} else if f := vs.farAt(j); f&locInline == 0 {
			run = f
		}
	}
	if cur != nil {
		*cur = verCursor{k, run}
	}
	return loc | run
}

// farAt returns the offset (or inline index, with locInline) of escaped
// version k.
func (vs *versions) farAt(k int) uint64 {
	lo, hi := 0, vs.far.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if vs.far.at(m).k < uint64(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return vs.far.at(lo).loc
}

// fork returns the first n versions, sharing what it can with vs (see
// dense.fork).
func (vs *versions) fork(n int) versions {
	nf := 0
	for nf < vs.far.len() && vs.far.at(nf).k < uint64(n) {
		nf++
	}
	f := versions{meta: vs.meta.fork(n), checks: vs.checks.fork(n), bases: vs.bases.fork((n + 1<<blockBits - 1) >> blockBits),
		far: vs.far.fork(nf), progs: vs.progs.fork(n), n: n}
	for k := n - 1; k >= 0; k-- {
		if loc := vs.at(k); loc&locInline == 0 {
			f.run = locOf(loc)
			break
		}
	}
	return f
}
