package deltamind

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/internal/scalartest"
	"github.com/rewind-tui/rewind/model"
)

// ScanDiffers compares what the fold and the views read of raw with what
// line.parse and parseDelta, the readers they stand for, decode, and says
// how they differ ("" when they agree). It is for the tests of package
// deltamind_test, which build hostile lines.
func ScanDiffers(raw []byte) string {
	var l line
	ok := l.parse(raw)
	var sc scanned
	if got := sc.scan(raw); got != ok {
		return fmt.Sprintf("%s: scan %v, parse %v", raw, got, ok)
	}
	if !ok {
		return ""
	}
	typ := map[string]uint8{"accepted": lineAccepted, "rejected": lineRejected, "checkpoint": lineCheckpoint}[l.typ]
	if sc.typ != typ {
		return fmt.Sprintf("%s: type %d, want %q", raw, sc.typ, l.typ)
	}
	d, dok := parseDelta(l.delta)
	if typ != lineAccepted && typ != lineRejected {
		return ""
	}
	if sc.delta != dok {
		return fmt.Sprintf("%s: delta %v, parseDelta %v", raw, sc.delta, dok)
	}
	if !dok {
		return ""
	}
	if want := d.scanned(); sc.kind != want.kind || !sameRef(sc.ref, want.ref) || sc.branch != want.branch || sc.turns != want.turns {
		return fmt.Sprintf("%s: scanned %+v, want %+v", raw, sc, want)
	}
	var lf lineFields
	if !lf.read(raw) {
		return fmt.Sprintf("%s: the views cannot read it", raw)
	}
	if string(lf.seq) != string(l.seq) || lf.timestamp != l.timestamp || lf.reason != l.reason {
		return fmt.Sprintf("%s: views read seq %s, timestamp %q, reason %q", raw, lf.seq, lf.timestamp, lf.reason)
	}
	if !reflect.DeepEqual(lf.delta, *d) {
		return fmt.Sprintf("%s: views read\n%+v\nwant\n%+v", raw, lf.delta, *d)
	}
	return ""
}

// Layouts is a reader's trie of line layouts, for LayoutDiffers.
type Layouts = layouts

// NewLayouts returns an empty trie.
func NewLayouts() *Layouts { return &layouts{} }

// LayoutDiffers reads raw through t (learning its layout, or matching one
// learned before) for the fold (scanLayout) and for the views
// (readLayout), and says how that differs from the general walk (scan,
// lineFields.read), or "" when it does not, or when t leaves raw to the
// general walk. It also reports, in learned, whether t read raw.
//
// The fold's reading is also checked with the ends of the line's scalars
// a JSON tokenizer finds (as the index hands them to PrepareEnds), when it
// reads the line as JSON.
func LayoutDiffers(t *Layouts, raw []byte) (diff string, read bool) {
	t.rest = 0 // a trie that sat out would test nothing
	var want, got scanned
	wantOK := want.scan(raw)
	gotOK, ok := got.scanLayout(t, raw, &model.LineScalars{})
	if !ok {
		return "", false
	}
	if d := scanDiffers(raw, "scanLayout", got, gotOK, want, wantOK); d != "" {
		return d, true
	}
	if ls, err := lineScalars(raw); err == nil {
		// Read twice: the second time (at least) where the first found
		// the fold's fields of the line's layout.
		for i := range 2 {
			t.rest = 0
			var withEnds scanned
			hits := t.hits
			gotOK, ok := withEnds.scanLayout(t, raw, &ls)
			if !ok {
				// Its layout is in t now: the ends must not make it miss.
				return fmt.Sprintf("%s: scanLayout with ends %v did not read it through its layout", raw, ls.Ends), true
			}
			if i == 1 && (t.hits != hits || t.bySkel[ls.Layout] == nil) {
				return fmt.Sprintf("%s: scanLayout with ends %v did not read it where the fields of its layout are", raw, ls.Ends), true
			}
			how := fmt.Sprintf("scanLayout with ends %v (%s)", ls.Ends, [2]string{"through the trie", "where its fields are"}[i])
			if d := scanDiffers(raw, how, withEnds, gotOK, want, wantOK); d != "" {
				return d, true
			}
		}
	}
	var wl, gl lineFields
	wantRead := wl.read(raw)
	t.rest = 0
	gotRead, ok := gl.readLayout(t, raw)
	if !ok {
		return fmt.Sprintf("%s: scanLayout read it, readLayout did not", raw), true
	}
	if gotRead != wantRead {
		return fmt.Sprintf("%s: readLayout %v, read %v", raw, gotRead, wantRead), true
	}
	if d := fieldsDiffer(raw, "readLayout", gl, gotRead, wl, wantRead); d != "" {
		return d, true
	}
	// The views read the line again with the program of the layout the
	// fold read it with (decoder.readProg), without its literals.
	p := progAt(got.prog)
	if p == nil {
		return "", true // the process has maxProgs programs
	}
	var pl lineFields
	progRead, ok := pl.readProg(p, raw)
	if !ok {
		return fmt.Sprintf("%s: the program of its layout did not read it", raw), true
	}
	ProgramReads++
	return fieldsDiffer(raw, "readProg", pl, progRead, wl, wantRead), true
}

// ProgramReads counts the lines LayoutDiffers read with a program.
var ProgramReads int

// fieldsDiffer says how the views' reading of raw (got) differs from the
// general walk's (want), or "".
func fieldsDiffer(raw []byte, how string, got lineFields, gotRead bool, want lineFields, wantRead bool) string {
	if gotRead != wantRead {
		return fmt.Sprintf("%s: %s %v, read %v", raw, how, gotRead, wantRead)
	}
	if wantRead && (string(got.seq) != string(want.seq) || got.timestamp != want.timestamp || got.reason != want.reason || got.end != want.end ||
		!reflect.DeepEqual(got.delta, want.delta)) {
		return fmt.Sprintf("%s: %s\n%+v\nread\n%+v", raw, how, got, want)
	}
	return ""
}

// ReadWithPrograms reads raw with every program the process has, as the
// views do a line whose bytes changed after the fold read it with one of
// them, and reports how many read it (not how); raw may be anything.
func ReadWithPrograms(raw []byte) int {
	n := 0
	for id := 1; progAt(uint8(id)) != nil; id++ {
		var lf lineFields
		if _, ok := lf.readProg(progAt(uint8(id)), raw); ok {
			n++
		}
	}
	return n
}

// scanDiffers says how the fold's reading of raw through the layouts (got)
// differs from the general walk's (want), or "".
func scanDiffers(raw []byte, how string, got scanned, gotOK bool, want scanned, wantOK bool) string {
	if gotOK != wantOK {
		return fmt.Sprintf("%s: %s %v, scan %v", raw, how, gotOK, wantOK)
	}
	if wantOK && (got.typ != want.typ || got.delta != want.delta || got.kind != want.kind || !sameRef(got.ref, want.ref) ||
		got.branch != want.branch || got.turns != want.turns || got.check != want.check) {
		return fmt.Sprintf("%s: %s %+v, scan %+v", raw, how, got, want)
	}
	return ""
}

// lineScalars returns what the index finds of the scalars of the JSON
// object raw holds, from its first byte (scalartest.LineScalars).
func lineScalars(raw []byte) (model.LineScalars, error) {
	return scalartest.LineScalars(raw[ws(raw, 0):])
}

// ReadThroughLayouts reads raw through t for the fold (with no ends, and
// with ends that are not raw's) and for the views, and reports whether t
// read it (not how); raw may be anything, as the bytes a window holds
// after the journal changed may be.
func ReadThroughLayouts(t *Layouts, raw []byte) bool {
	t.rest = 0
	var sc scanned
	junk := model.LineScalars{Layout: "junk", Ends: []uint32{0, 1, uint32(len(raw)), 1 << 31, uint32(len(raw)) + 1, 2}}
	sc.scanLayout(t, raw, &junk)
	t.rest = 0
	sc.scanLayout(t, raw, &junk)
	t.rest = 0
	_, scanRead := sc.scanLayout(t, raw, &model.LineScalars{})
	var lf lineFields
	_, read := lf.readLayout(t, raw)
	return scanRead || read
}

// skipStr finds the end of the same strings as rawjson.SkipString, and
// says whether their contents are their value, as plainStr does.
func TestSkipStr(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	alphabet := []string{"a", " ", `\"`, `\\`, `\n`, `\u00e9`, "é", "\xff", "日本", `\`, `"`}
	for i := range 50000 {
		var b strings.Builder
		b.WriteByte('"')
		for range r.Intn(40) {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		if i%7 != 0 {
			b.WriteByte('"')
		}
		b.WriteString(`,"x"`[:r.Intn(4)])
		s := []byte(b.String())
		end, plain := skipStr(s, 0)
		if want := rawjson.SkipString(s, 0); end != want {
			t.Fatalf("skipStr(%q) = %d, want %d", s, end, want)
		}
		if end < 0 {
			continue
		}
		v, ok := rawjson.Unquote(s[:end])
		wantPlain := ok && v == string(s[1:end-1]) && !strings.ContainsAny(string(s[1:end-1]), "\\") && isASCII(s[1:end-1])
		if plain != wantPlain {
			t.Fatalf("skipStr(%q) plain = %v", s, plain)
		}
		// plainStr says the same of a string whose end the index found.
		if p := plainStr(s[1 : end-1]); p != plain {
			t.Fatalf("plainStr(%q) = %v, skipStr says %v", s[1:end-1], p, plain)
		}
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// unescape decodes what it decodes as rawjson.Unquote does.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`"a\"b\\c\/d\n\t\r\b\f"`, `"\u00e9"`, "\"\xff\"", `"x\"`, `"é\n"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		got, ok := unescape(v)
		if !ok {
			return
		}
		if want, wok := rawjson.Unquote(v); !wok || string(got) != want {
			t.Fatalf("unescape(%q) = %q, Unquote gives %q, %v", v, got, want, wok)
		}
	})
}

// Readers of the lineage and the fold that only the tests use.

// item is one version of an item as the lineage holds it: its index in
// ivs. What the item holds is read back from its lines (decoder).
type item struct {
	k   int32 // the version's index in ivs
	loc uint64
}

func class(it *item) uint8 { return classOf(it.loc) }

// seqAt returns the seq as of version v (the number of item versions).
// The caller holds l.mu.
func (l *lineage) seqAt(v int64) int64 {
	k := v / countsEvery
	seq := l.counts[k].seq
	for u := k*countsEvery + 1; u <= v; u++ {
		if l.step(u) == stepItem {
			seq++
		}
	}
	return seq
}

// at returns item i as of version v (at or after its creation). The
// caller holds l.mu.
func (l *lineage) at(i int32, v int64) *item {
	k := l.version(i, l.seqAt(v))
	return &item{k: k, loc: l.ivs.at(int(k))}
}

// reconcile applies delta d to ns (a copy of the old state, its version
// incremented, whose lineage is locked) as reconciler.ts applyDelta does,
// without recording anything, and returns the rejection reason, or "".
// write must be false: Apply records what judge decides.
func (f format) reconcile(ns *state, d *delta, write bool) string {
	sc := d.scanned()
	vd := ns.lin.judge(ns, &sc)
	return reason(vd.why, vd.oldKind, d.kind, d.targetID)
}

// scanned returns what the fold reads of d.
func (d *delta) scanned() scanned {
	sc := scanned{typ: lineAccepted, delta: true, kind: kindIndex(bytesOf(d.kind)), branch: d.mode == "branch", turns: len(d.turns)}
	sc.setRef(bytesOf(d.id), bytesOf(d.targetID))
	return sc
}

// refOf returns the idRef of id, split, as the fold's workers set it.
func refOf(id []byte) idRef {
	var r idRef
	r.set(id)
	return r
}

// sameRef reports whether a and b are the same id, split alike.
func sameRef(a, b idRef) bool {
	return string(a.b) == string(b.b) && a.pre == b.pre && a.n == b.n
}
