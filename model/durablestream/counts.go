package durablestream

import (
	"slices"
	"sort"

	"github.com/rewind-tui/rewind/model"
)

// typeLog records the type of the event behind every version of a
// lineage, one byte per event, so that a state does not carry its counts
// of events by type: the counts as of version n are those of the last
// snapshot at or before n plus the types logged since (at most snapEvery
// of them). A state stays a few words, which matters since one is made
// for every event.
//
// Types are coded: the known types by their index in knownTypes, others
// from nKnown on as they appear, and past the 255th type by the code
// rareType, their names kept by version in rare. It is guarded by the
// lineage's mu.
type typeLog struct {
	chunks [][]uint8        // version v is at (v-1)/logChunk, (v-1)%logChunk
	names  []string         // code -> type, from nKnown on
	codes  map[string]uint8 // type -> code, for the types past the known ones
	rare   map[int64]string // version -> type, for the code rareType
	snaps  []*snapshot      // snaps[k] holds the counts as of version k*snapEvery
}

// logChunk and snapEvery are variables so that tests can make them small.
var (
	logChunk  int64 = 1 << 16
	snapEvery int64 = 1 << 12
)

const rareType = 255

// snapshot is the counts as of one version: by code, and by name for the
// rare types.
type snapshot struct {
	byCode []int64
	rare   map[string]int64
}

func newTypeLog() *typeLog {
	return &typeLog{codes: map[string]uint8{}, rare: map[int64]string{}, snaps: []*snapshot{{}}}
}

// code returns the code of e's type, adding one for a new type.
func (t *typeLog) code(e *envelope) uint8 {
	if e.known >= 0 {
		return uint8(e.known)
	}
	if c, ok := t.codes[e.typ]; ok {
		return c
	}
	if nKnown+len(t.names) >= rareType {
		return rareType
	}
	c := uint8(nKnown + len(t.names))
	t.names = append(t.names, e.typ)
	t.codes[e.typ] = c
	return c
}

// at returns the code logged for version v.
func (t *typeLog) at(v int64) uint8 {
	return t.chunks[(v-1)/logChunk][(v-1)%logChunk]
}

// nameAt returns the type of the event logged for version v. The caller
// holds the lineage's mu.
func (t *typeLog) nameAt(v int64) string {
	if c := t.at(v); c != rareType {
		return t.name(c)
	}
	return t.rare[v]
}

// name returns the type of code c, which is not rareType.
func (t *typeLog) name(c uint8) string {
	if c < nKnown {
		return knownTypes[c]
	}
	return t.names[c-nKnown]
}

// logType logs code c of e's type for version v, the newest.
func (l *lineage) logType(v int64, e *envelope, c uint8) {
	t := l.types
	i := int((v - 1) / logChunk)
	if i >= len(t.chunks) {
		t.chunks = append(t.chunks, make([]uint8, logChunk))
	}
	if c == rareType {
		t.rare[v] = l.mem.str(e.typ)
	}
	t.chunks[i][(v-1)%logChunk] = c
	if v%snapEvery == 0 && int(v/snapEvery) == len(t.snaps) {
		s := t.countsAt(v)
		// Kept only as long as the codes in use (255 counts were 2 KB a
		// snapshot, 1 MB on 1 GB of Durable Stream).
		s.byCode = slices.Clip(s.byCode[:nKnown+len(t.names)])
		t.snaps = append(t.snaps, &s)
	}
}

// sameType reports whether the event logged for version v has e's type.
// The caller holds the lineage's mu.
func (t *typeLog) sameType(v int64, e *envelope) bool {
	c := t.at(v)
	switch {
	case c < nKnown:
		return int(c) == e.known
	case c == rareType:
		return t.rare[v] == e.typ
	}
	return e.known < 0 && t.names[c-nKnown] == e.typ
}

// countsAt returns the counts as of version v. The caller holds the
// lineage's mu.
func (t *typeLog) countsAt(v int64) snapshot {
	k := min(int(v/snapEvery), len(t.snaps)-1)
	base := t.snaps[k]
	s := snapshot{byCode: make([]int64, rareType)}
	copy(s.byCode, base.byCode)
	if len(base.rare) > 0 {
		s.rare = make(map[string]int64, len(base.rare))
		for n, c := range base.rare {
			s.rare[n] = c
		}
	}
	for u := int64(k)*snapEvery + 1; u <= v; u++ {
		c := t.at(u)
		if c == rareType {
			if s.rare == nil {
				s.rare = map[string]int64{}
			}
			s.rare[t.rare[u]]++
			continue
		}
		s.byCode[c]++
	}
	return s
}

// object returns the counts as of version v by type name, in byte order of
// the names. The caller holds the lineage's mu.
func (t *typeLog) object(v int64) model.Object {
	s := t.countsAt(v)
	out := model.Object{}
	for c, n := range s.byCode {
		if n == 0 {
			continue
		}
		out = append(out, model.Field{Key: t.name(uint8(c)), Value: n})
	}
	for name, n := range s.rare {
		out = append(out, model.Field{Key: name, Value: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// upTo returns a copy of t as of version v, for a fork. The caller holds
// the lineage's mu.
func (t *typeLog) upTo(v int64) *typeLog {
	nt := &typeLog{
		names: t.names[:len(t.names):len(t.names)],
		codes: make(map[string]uint8, len(t.codes)),
		rare:  map[int64]string{},
	}
	for n, c := range t.codes {
		nt.codes[n] = c
	}
	for u, n := range t.rare {
		if u <= v {
			nt.rare[u] = n
		}
	}
	k := int(v/snapEvery) + 1
	nt.snaps = t.snaps[:min(k, len(t.snaps)):min(k, len(t.snaps))]
	full := int(v / logChunk)
	nt.chunks = append([][]uint8(nil), t.chunks[:full]...)
	if v%logChunk != 0 {
		part := make([]uint8, logChunk)
		copy(part, t.chunks[full][:v%logChunk])
		nt.chunks = append(nt.chunks, part)
	}
	return nt
}
