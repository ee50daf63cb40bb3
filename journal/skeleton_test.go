package journal

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/scalartest"
)

// grammarOnly returns a classifier that never uses its skeletons: every
// line is read through the grammar.
func grammarOnly() *classifier {
	c := newClassifier()
	c.skel.rest = math.MaxInt
	return c
}

// sameAsGrammar classifies line with c (after the lines c read before) and
// with a classifier that reads only the grammar, and fails when the two
// differ in verdict, type or problem, or when c read the line through a
// skeleton and the ends of its scalars it recorded are not those a JSON
// tokenizer finds.
func sameAsGrammar(t *testing.T, c *classifier, line []byte) {
	t.Helper()
	var got, want Record
	c.skel.record = true
	from := len(c.skel.ends)
	ok := c.fastClassify(line, &got)
	wantOK := grammarOnly().fastClassify(line, &want)
	if ok != wantOK || got.Type() != want.Type() || got.Problem != want.Problem {
		t.Fatalf("through the skeletons: accepted %v, type %q, problem %v; through the grammar: %v, %q, %v: %q",
			ok, got.Type(), got.Problem, wantOK, want.Type(), want.Problem, line)
	}
	ends := c.skel.ends[from:]
	if !ok && len(ends) > 0 {
		t.Fatalf("a line refused left the ends of %d scalars: %q", len(ends), line)
	}
	if ok && len(ends) > 0 {
		start := skipWS(line, 0)
		if want := scalarEnds(t, line[start:]); !slices.Equal(ends, want) {
			t.Fatalf("the scalars' ends recorded are %v, the tokenizer's %v: %q", ends, want, line)
		}
	}
	c.skel.ends = c.skel.ends[:0]
}

// scalarEnds returns the end of every scalar of the valid JSON object obj
// (not of its names), as a JSON tokenizer finds them.
func scalarEnds(t *testing.T, obj []byte) []uint32 {
	t.Helper()
	_, ends, err := scalartest.Bounds(obj)
	if err != nil {
		t.Fatalf("%v: %q", err, obj)
	}
	return ends
}

// A line laid out as one read before, but with a scalar that is not valid
// JSON, is refused as the grammar refuses it, and one with other valid
// scalars gets its own type, however deep the scalar and whatever its
// kind.
func TestSkeletonsCheckEveryScalar(t *testing.T) {
	learned := `{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`
	for _, tc := range []struct {
		line   string
		layout bool // its object is laid out as learned, with valid scalars: read through the skeletons
	}{
		{learned, true},
		{`{"type":"a.b","seq":22,"ok":true,"none":null,"no":false,"p":{"type":"other","xs":[0,"",7e-1]}}`, true},
		{`{"type":"a.b","seq":-0.5,"ok":true,"none":null,"no":false,"p":{"type":"in\"n\\er","xs":[10,"\/",-2E+3]}}`, true},
		{`{"type":7,"seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":false,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":01,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1.,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":-,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1e,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1.5e+,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":tru,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":nul,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":fals,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x` + "\x01" + `",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"\ud800",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"\q",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"` + "\xc3\x28" + `",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}} x`, true},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",{"k":1}]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3,4]}}`, false},
		{`{"type":"a.b","seq":1,"ok":"true","none":null,"no":false,"p":{"type":"inner","xs":[1,"x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,x",-2.5e3]}}`, false},
		{`{"type":"a.b","seq":1,"ok":true,"none":null,"no":false,"p":{"type":"inner","xs":[1,"x","-2.5e3"]}}`, false},
	} {
		c := newClassifier()
		var r Record
		if !c.fastClassify([]byte(learned), &r) {
			t.Fatal("the learned line is refused")
		}
		sameAsGrammar(t, c, []byte(tc.line))
		if read := c.skel.hits == 1; read != tc.layout {
			t.Errorf("read through the skeletons: %v, want %v: %s", read, tc.layout, tc.line)
		}
	}
	// Of two layouts that start alike, a line takes the one whose next
	// scalar it has.
	c := newClassifier()
	for _, line := range []string{`{"type":"a","v":1}`, `{"type":"a","v":{"w":1}}`, `{"type":"a","v": 2}`} {
		sameAsGrammar(t, c, []byte(line))
	}
	for _, line := range []string{`{"type":"a","v":{"w":3}}`, `{"type":"a","v":4}`, `{"type":"a","v": 5}`} {
		before := c.skel.hits
		sameAsGrammar(t, c, []byte(line))
		if c.skel.hits != before+1 {
			t.Errorf("not read through its skeleton: %s", line)
		}
	}
	// Lines whose top-level names differ only in case keep the warning.
	c = newClassifier()
	for _, line := range []string{`{"Seq":1,"seq":2,"type":"x"}`, `{"Seq":3,"seq":4,"type":"y"}`} {
		sameAsGrammar(t, c, []byte(line))
	}
	var r Record
	c.fastClassify([]byte(`{"Seq":5,"seq":6,"type":"y"}`), &r)
	if r.Problem != WarnCaseKeys || r.Type() != "y" || c.skel.hits == 0 {
		t.Fatalf("a line read through its skeleton: problem %v, type %q, %d hits", r.Problem, r.Type(), c.skel.hits)
	}
}

// A line's top-level type is part of its skeleton when it is a short
// string without escapes: a line of a type seen before is read through the
// skeletons and gets its type from them; one of a new type is learned,
// then read. A type with escapes, or a long one, is a scalar of the
// skeleton, read and typed line by line.
func TestSkeletonsKnowTheirTypes(t *testing.T) {
	long := strings.Repeat("t", maxTypLit)
	for _, tc := range []struct {
		name        string
		first, next string // two types, as written in the line
		nextIsRead  bool   // a line of type next is read through first's skeleton
	}{
		{"plain", `"run.started"`, `"run.finished"`, false},
		{"escaped", `"caf\u00e9"`, `"th\u00e9"`, true},
		{"long", `"` + long + `"`, `"` + long + `x"`, true},
		{"number", `1`, `2`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClassifier()
			line := func(typ string, v int) []byte {
				return []byte(`{"type":` + typ + `,"v":` + strconv.Itoa(v) + `}`)
			}
			sameAsGrammar(t, c, line(tc.first, 1))
			hits := c.skel.hits
			sameAsGrammar(t, c, line(tc.first, 2))
			if c.skel.hits != hits+1 {
				t.Fatalf("a second line of type %s was not read through the skeletons", tc.first)
			}
			hits = c.skel.hits
			sameAsGrammar(t, c, line(tc.next, 3))
			if read := c.skel.hits == hits+1; read != tc.nextIsRead {
				t.Fatalf("a line of type %s after one of type %s read through the skeletons: %v, want %v",
					tc.next, tc.first, read, tc.nextIsRead)
			}
			hits = c.skel.hits
			sameAsGrammar(t, c, line(tc.next, 4))
			if c.skel.hits != hits+1 {
				t.Fatalf("a second line of type %s was not read through the skeletons", tc.next)
			}
			// Lines of either type, in turn, keep their own.
			for i := range 4 {
				typ := []string{tc.first, tc.next}[i%2]
				var r Record
				if !c.fastClassify(line(typ, i), &r) {
					t.Fatalf("refused: %s", line(typ, i))
				}
				var want Record
				grammarOnly().fastClassify(line(typ, i), &want)
				if r.Type() != want.Type() {
					t.Fatalf("type %q, want %q: %s", r.Type(), want.Type(), line(typ, i))
				}
			}
		})
	}
}

// A type that ends 64 KiB or more into its literal (whitespace before its
// name) keeps its type and the ends of its scalars, read as it is learned
// and through the skeletons, with other types after it: the skeleton's
// offset of the type's end would not hold it.
func TestSkeletonsTypeFarIntoItsLiteral(t *testing.T) {
	for _, pad := range []int{65524, 65525, 65528, 70000} {
		c := newClassifier()
		for i, typ := range []string{"a", "a", "b", "a"} {
			sameAsGrammar(t, c, []byte(`{"v":`+strconv.Itoa(i)+`,`+strings.Repeat(" ", pad)+`"type":"`+typ+`"}`))
		}
	}
}

// A type written with escapes is a scalar of its skeleton, and that
// skeleton's first literal is the start of the literals of the skeletons
// that hold their types: a line of a plain type, laid out otherwise, is
// learned under its own type once and then read through it.
func TestSkeletonsTypesWithAndWithoutEscapes(t *testing.T) {
	c := newClassifier()
	sameAsGrammar(t, c, []byte(`{"type":"caf\u00e9","v":1}`))
	sameAsGrammar(t, c, []byte(`{"type":"run","w":[1]}`))
	for i, line := range []string{`{"type":"run","w":[2]}`, `{"type":"th\u00e9","v":3}`, `{"type":"run","w":[4]}`} {
		hits := c.skel.hits
		sameAsGrammar(t, c, []byte(line))
		if c.skel.hits != hits+1 {
			t.Fatalf("line %d not read through the skeletons: %s", i, line)
		}
	}
}

// A journal of a new type on every line is read through the skeletons
// once maxTypeKids types are known: its types are then scalars like any
// other, and every line keeps its own type.
func TestSkeletonsManyTypes(t *testing.T) {
	c := newClassifier()
	n := 3 * maxTypeKids
	for i := range n {
		line := []byte(`{"type":"t` + strconv.Itoa(i) + `","v":1}`)
		sameAsGrammar(t, c, line)
		var r Record
		c.fastClassify(line, &r)
		if want := "t" + strconv.Itoa(i); r.Type() != want {
			t.Fatalf("type %q, want %q", r.Type(), want)
		}
	}
	// Each line is classified twice above: the second time through its
	// skeleton, and the first time too once the types are scalars.
	if want := n + n - maxTypeKids - 1; c.skel.hits < want {
		t.Fatalf("%d of %d lines read through the skeletons, want at least %d", c.skel.hits, 2*n, want)
	}
}

// Every line of every fixture and of generated journals of each format is
// read through the skeletons as the grammar reads it, and most lines of a
// generated journal are read through them.
func TestSkeletonsReadAsTheGrammar(t *testing.T) {
	var journals [][]byte
	fs, _ := filepath.Glob("../testdata/*/*.jsonl")
	more, _ := filepath.Glob("../model/*/testdata/*.jsonl")
	for _, p := range append(fs, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		journals = append(journals, b)
	}
	if len(journals) < 10 {
		t.Fatalf("only %d fixtures found", len(journals))
	}
	for _, f := range []string{"durable-stream", "delta-engine", "deltamind"} {
		var buf bytes.Buffer
		if err := demo.Generate(&buf, f, 5000, 3); err != nil {
			t.Fatal(err)
		}
		c := newClassifier()
		lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
		hits := 0
		for _, l := range lines {
			if end, _, _, _ := c.skel.match(l, 0); end == len(l) {
				hits++
			}
			sameAsGrammar(t, c, l)
		}
		if hits < len(lines)*3/4 {
			t.Errorf("%s: the skeletons read %d of %d lines", f, hits, len(lines))
		}
		journals = append(journals, buf.Bytes())
	}
	for _, j := range journals {
		c := newClassifier()
		for _, l := range bytes.Split(j, []byte("\n")) {
			sameAsGrammar(t, c, bytes.TrimSuffix(l, []byte("\r")))
		}
	}
}

// A journal whose lines share no layout (every line its own names) makes
// the skeletons sit out, and still reads every line right.
func TestSkeletonsSitOutWhenTheyMiss(t *testing.T) {
	c := newClassifier()
	for i := range 3 * skelWindow {
		line := []byte(`{"type":"t","k` + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)) + `":1}`)
		sameAsGrammar(t, c, line)
	}
	if c.skel.rest == 0 {
		t.Fatal("the skeletons never missed enough to sit out")
	}
}

// FuzzSkeleton checks the skeletons against the grammar: after the
// classifier has read prev (and learned its layout), line gets the
// verdict, type and problem that the grammar alone gives it.
func FuzzSkeleton(f *testing.F) {
	for _, p := range [][2]string{
		{`{"type":"a","n":1,"s":"x"}`, `{"type":"b","n":22,"s":"yz"}`},
		{`{"type":"a","n":1,"s":"x"}`, `{"type":"b","n":01,"s":"yz"}`},
		{`{"type":"a","n":1,"s":"x"}`, "{\"type\":\"b\",\"n\":1,\"s\":\"\x01\"}"},
		{`{"a":[1,"2",true],"type":"A"}`, `{"a":[1,"2",tru],"type":"A"}`},
		{`{"a":[1,"2",null],"type":"A"}`, `{"a":[1,"2",{}],"type":"A"}`},
		{`{"x":{"type":"in"},"type":"out"}`, `{"x":{"type":"in2"},"type":"out2"}`},
		{`{ "type" : "a" , "v" : [ 1 , 2 ] }`, `{ "type" : "b" , "v" : [ 3 , 4 ] }`},
		{`{"a":1,"A":2,"type":"c"}`, `{"a":3,"A":4,"type":"d"}`},
		{`{}`, `{ }`},
		{`{"type":"a","n":1e5}`, `{"type":"a","n":1e}`},
		{`{"type":"a","s":"\u00e9"}`, `{"type":"a","s":"\ud800"}`},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, prev, line []byte) {
		c := newClassifier()
		var r Record
		c.fastClassify(prev, &r)
		sameAsGrammar(t, c, line)
		// And read twice, the second time through its own skeleton.
		sameAsGrammar(t, c, line)
	})
}

// FuzzFoldCompare holds foldCompare to bytes.Equal and bytes.EqualFold on
// names of the same length.
func FuzzFoldCompare(f *testing.F) {
	for _, p := range [][2]string{{"seq", "seq"}, {"seq", "SEQ"}, {"seq", "sEx"}, {"k1", "k2"}, {"a@", "A`"}, {"[x", "{x"},
		{"\u212a", "k\x00\x00"}, {"é1", "É1"}, {"\xff", "\xfe"}} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) != len(b) {
			return
		}
		want := 2
		switch {
		case bytes.Equal(a, b):
			want = 0
		case bytes.EqualFold(a, b):
			want = 1
		}
		if got := foldCompare(a, b); got != want {
			t.Fatalf("foldCompare(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

// A line of more scalars than maxSkelSegs is read through the grammar and
// not learned: one such line would fill the trie alone.
func TestSkeletonsSkipHugeLayouts(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"big","xs":[`)
	for i := range maxSkelSegs + 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(`]}`)
	c := newClassifier()
	for range 2 {
		sameAsGrammar(t, c, []byte(b.String()))
	}
	if c.skel.nodes > 1 || c.skel.hits != 0 {
		t.Fatalf("a line of %d scalars was learned: %d nodes, %d hits", maxSkelSegs+11, c.skel.nodes, c.skel.hits)
	}
}

// BenchmarkSkeletonMatch reads generated lines of each format through the
// skeletons, as the index's fast path does, without and with the ends of
// their scalars recorded (for PrepareEnds).
func BenchmarkSkeletonMatch(b *testing.B) {
	for _, f := range []string{"durable-stream", "delta-engine", "deltamind"} {
		var buf bytes.Buffer
		if err := demo.Generate(&buf, f, 20000, 1); err != nil {
			b.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
		for _, record := range []bool{false, true} {
			b.Run(f+"/ends="+strconv.FormatBool(record), func(b *testing.B) {
				c := newClassifier()
				c.skel.record = record
				for _, l := range lines {
					c.skel.learn(l, 0, false, c.internBytes)
				}
				b.SetBytes(int64(buf.Len()))
				for range b.N {
					for _, l := range lines {
						if end, _, _, _ := c.skel.match(l, 0); end != len(l) {
							b.Fatalf("not matched: %s", l)
						}
					}
					c.skel.ends = c.skel.ends[:0]
				}
			})
		}
	}
}
