package deltamind

import (
	"hash/maphash"
	"unsafe"
)

// An idTable finds an item's index (its place in creation order) by its
// id, exactly: no two ids ever share an entry.
//
// DeltaMind's extractors name items "<prefix>-<n>" with one counter shared
// by all prefixes (g-1, d-2, task-3, …), so most ids are found by their
// number in a direct array, in pages of pageSize numbers: an entry holds
// the id's prefix (one of up to 15 per table) and the item's index. The
// items whose numbers share a page are made about when the counter passes
// through it, so a page holds their indexes as 12-bit offsets from the
// first one's in 2 bytes per number (short), until one does not fit and
// the page is widened to 4 bytes per number (wide). Other ids (and a
// counter id whose number another prefix holds, or that is far above the
// numbers seen) go to an open-addressing hash table (linear probing) whose
// entries hold 32 bits of a seeded hash and an index into keys, which
// holds the item's index and a copy of the id in names.
//
// A table is not safe for concurrent use (its lineage's mu guards it).
type idTable struct {
	prefixes []string // the prefixes of counter ids, code i+1
	packed   []uint64 // prefixes[i] packed (packPrefix), 0 when longer
	pages    []page   // direct entries by number
	e        []uint64 // hash<<32 | (position in keys)+1; 0 is empty
	keys     []idKey
	names    pool
	n        int // items in the table
}

// A page holds the direct entries of pageSize numbers, short or wide (or
// none, for a page no number of which is used yet). An entry is 0 when no
// item has the number, else the prefix code in its low 4 bits and, above,
// the item's index + 1 (wide) or its offset from base + 1 (short).
type page struct {
	base  int32
	short []uint16
	wide  []uint32
}

// get returns the prefix code and item index of entry j (code 0: none).
func (p *page) get(j uint32) (uint32, int32) {
	if p.short != nil {
		e := p.short[j]
		return uint32(e) & maxPrefix, p.base + int32(e>>4) - 1
	}
	if p.wide != nil {
		e := p.wide[j]
		return e & maxPrefix, int32(e>>4) - 1
	}
	return 0, 0
}

// set makes entry j (empty) code c for item i.
func (p *page) set(j uint32, c uint32, i int32) {
	if p.short == nil && p.wide == nil {
		p.short, p.base = make([]uint16, pageSize), i
	}
	if p.short != nil {
		if off := i - p.base + 1; off > 0 && off < 1<<12 {
			p.short[j] = uint16(off)<<4 | uint16(c)
			return
		}
		p.wide = make([]uint32, pageSize)
		for k, e := range p.short {
			if e != 0 {
				p.wide[k] = uint32(p.base+int32(e>>4))<<4 | uint32(e)&maxPrefix
			}
		}
		p.short = nil
	}
	p.wide[j] = uint32(i+1)<<4 | c
}

// idKey is an item whose id the hash table holds.
type idKey struct {
	name ref
	item int32
}

const (
	pageBits   = 12
	pageSize   = 1 << pageBits
	maxPrefix  = 15 // prefix codes fit in 4 bits
	maxDirect  = 1<<28 - 1
	prefixMax  = 16 // longest prefix kept as a code, in bytes
	digitsMax  = 9  // longest counter kept directly, in digits
	directSlop = 1 << 16
)

var seed = maphash.MakeSeed()

// idHash is the hash of id the table keeps.
func idHash(id []byte) uint32 { return uint32(maphash.Bytes(seed, id)) }

// An idRef is an id the fold looks up (an accepted delta's id, or its
// targetId for a revision): its decoded bytes and, split ahead of the
// fold by idRef.set on the goroutine that read the line (so that the fold
// does not read the line from another CPU's cache), its counter's
// prefix packed (packPrefix) and number. pre is 0 when the id was not
// split (an idRef with only b set) or is not a counter id with a prefix
// of at most 7 bytes; the table then reads b.
type idRef struct {
	b   []byte
	pre uint64
	n   uint32
}

// set makes r the idRef of id, split, in place. The fold's workers set
// the ref of each line they read this way (scanned.setRef): an idRef
// returned by value and copied through the stack into the line's scanned
// stalled on its copy (1 GB DeltaMind journal, rewind state: 190-270 ms
// of the 4.3-5.4 s of CPU, at one store).
func (r *idRef) set(id []byte) {
	r.b, r.pre, r.n = id, 0, 0
	if prefix, n, ok := counter(id); ok {
		r.pre, r.n = packPrefix(prefix), n
	}
}

// packPrefix packs a prefix of 1 to 7 bytes into a word (its bytes
// little-endian, its length in the top byte), never 0; 0 for any other.
func packPrefix(prefix []byte) uint64 {
	if len(prefix) == 0 || len(prefix) > 7 {
		return 0
	}
	w := uint64(len(prefix)) << 56
	for i, c := range prefix {
		w |= uint64(c) << (8 * i)
	}
	return w
}

// counter splits a counter id "<prefix>-<n>" (n written without leading
// zeros, at most digitsMax digits) into its prefix and number.
func counter(id []byte) (prefix []byte, n uint32, ok bool) {
	dash := -1
	for i := len(id) - 1; i >= 0; i-- {
		c := id[i]
		if c == '-' {
			dash = i
			break
		}
		if c < '0' || c > '9' {
			return nil, 0, false
		}
	}
	digits := len(id) - dash - 1
	if dash <= 0 || dash > prefixMax || digits == 0 || digits > digitsMax || digits > 1 && id[dash+1] == '0' {
		return nil, 0, false
	}
	for _, c := range id[dash+1:] {
		n = n*10 + uint32(c-'0')
	}
	return id[:dash], n, true
}

// code returns the code of prefix, 0 when it has none.
func (t *idTable) code(prefix []byte) uint32 {
	for i, p := range t.prefixes {
		if p == string(prefix) {
			return uint32(i + 1)
		}
	}
	return 0
}

// counterOf returns, when id is a counter id, its prefix's code (0 when
// the table has none) and its number.
func (t *idTable) counterOf(id idRef) (c, n uint32, ok bool) {
	if id.pre != 0 {
		for i, p := range t.packed {
			if p == id.pre {
				return uint32(i + 1), id.n, true
			}
		}
		return 0, id.n, true
	}
	prefix, n, ok := counter(id.b)
	if !ok {
		return 0, 0, false
	}
	return t.code(prefix), n, true
}

// direct returns the prefix code and item index of number n (code 0:
// none).
func (t *idTable) direct(n uint32) (uint32, int32) {
	p := int(n >> pageBits)
	if p >= len(t.pages) {
		return 0, 0
	}
	return t.pages[p].get(n & (pageSize - 1))
}

// lookup returns the index of the item whose id is ref's, among the
// items below limit.
func (t *idTable) lookup(ref idRef, limit int32) (int32, bool) {
	if c, n, ok := t.counterOf(ref); ok && c != 0 {
		if ec, i := t.direct(n); ec == c {
			return i, i < limit
		}
	}
	if len(t.keys) == 0 {
		return 0, false
	}
	id := ref.b
	h := idHash(id)
	mask := uint64(len(t.e) - 1)
	for p := uint64(h) & mask; ; p = (p + 1) & mask {
		e := t.e[p]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == h {
			k := &t.keys[uint32(e)-1]
			if t.names.str(k.name) == string(id) {
				return k.item, k.item < limit
			}
		}
	}
}

// add records that item i (the next in creation order) has ref's id,
// which no item has yet.
func (t *idTable) add(ref idRef, i int32) {
	t.n++
	id := ref.b
	if c, n, ok := t.counterOf(ref); ok && i < maxDirect && n < uint32(8*t.n+directSlop) {
		if c == 0 && len(t.prefixes) < maxPrefix {
			prefix, _, _ := counter(id)
			t.prefixes = append(t.prefixes, string(prefix))
			t.packed = append(t.packed, packPrefix(prefix))
			c = uint32(len(t.prefixes))
		}
		if c != 0 {
			p := int(n >> pageBits)
			for p >= len(t.pages) {
				t.pages = append(t.pages, page{})
			}
			if ec, _ := t.pages[p].get(n & (pageSize - 1)); ec == 0 {
				t.pages[p].set(n&(pageSize-1), c, i)
				return
			}
		}
	}
	t.keys = append(t.keys, idKey{name: t.names.add(id), item: i})
	t.put(uint64(idHash(id))<<32 | uint64(len(t.keys)))
}

// put adds entry e to the hash table, growing it to keep it at most three
// quarters full.
func (t *idTable) put(e uint64) {
	if 4*len(t.keys) > 3*len(t.e) {
		old := t.e
		t.e = make([]uint64, max(2*len(old), 64))
		for _, o := range old {
			if o != 0 {
				t.insert(o)
			}
		}
	}
	t.insert(e)
}

func (t *idTable) insert(e uint64) {
	mask := uint64(len(t.e) - 1)
	p := (e >> 32) & mask
	for t.e[p] != 0 {
		p = (p + 1) & mask
	}
	t.e[p] = e
}

// fork returns a copy of t holding the items below n, for a lineage forked
// with n items: the direct pages are copied without the later items, the
// hash table is rebuilt from the earlier keys, and names is shared.
func (t *idTable) fork(n int32) idTable {
	f := idTable{prefixes: t.prefixes[:len(t.prefixes):len(t.prefixes)], packed: t.packed[:len(t.packed):len(t.packed)], pages: make([]page, len(t.pages)), names: t.names.fork()}
	for p := range t.pages {
		for j := range uint32(pageSize) {
			if c, i := t.pages[p].get(j); c != 0 && i < n {
				f.pages[p].set(j, c, i)
				f.n++
			}
		}
	}
	for _, k := range t.keys {
		if k.item < n {
			f.keys = append(f.keys, k)
			f.n++
			f.put(uint64(idHash(f.names.get(k.name)))<<32 | uint64(len(f.keys)))
		}
	}
	return f
}

// bytesOf returns s's bytes without copying; the caller must not modify them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
