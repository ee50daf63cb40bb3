package deltamind_test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/hostile"
	"github.com/rewind-tui/rewind/model/deltamind"
)

// scanLines are lines that decode in particular ways: escaped, repeated
// and misspelt names, wrong and null types, escaped and non-ASCII strings.
var scanLines = []string{
	`{}`, `{"type":"accepted"}`, `{"type":"accepted","seq":1}`, `{"type":"accepted","seq":"1","delta":{}}`,
	`{"type":"accepted","seq":1,"delta":{"kind":"goal_set","id":"g-1","summary":"s","sourceTurns":[{"turnId":"t-1"}]}}`,
	`{"type":"accepted","seq":1.5,"delta":{"kind":"goal_set","id":"g-2","summary":"s","confidence":"low","sourceTurns":[{"turnId":"t-1","offset":{"start":1,"end":2}}]}}`,
	`{"type":"accepted","seq":1e3,"delta":{"kind":"fact_learned","id":"f-1","summary":"f","sourceTurns":[null,{"turnId":null,"offset":null},{"offset":[1,"x"]}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"goal\u005fset","id":"g-\u0033","summary":"\u00e9t\u00e9 \"q\" \\ é","sourceTurns":[{"turnId":"t-\u0031"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"constraint_revised","targetId":"c-1","mode":"br\u0061nch","sourceTurns":[{"turnId":"t"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"constraint_revised","targetId":"c-1","mode":"branch","mode":"relaxed","sourceTurns":[{"turnId":"t"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"constraint_added","id":"c-2","summary":"bad hard","hard":"yes","sourceTurns":[{"turnId":"t-5"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"branch_created","id":"b-1","alternatives":["a",null,"c"],"sourceTurns":[{"turnId":"t-7"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"branch_created","id":"b-2","alternatives":"a","sourceTurns":[{"turnId":"t-7"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"branch_created","id":"b-2","alternatives":[1],"sourceTurns":[{"turnId":"t-7"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"goal_set","id":"g","sourceTurns":[7]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"goal_set","id":"g","sourceTurns":{"turnId":"t"}}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"goal_set","id":"g","sourceTurns":[{"turnId":5}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":7,"id":"g","sourceTurns":[{"turnId":"t"}]}}`,
	`{"ty\u0070e":"accepted","s\u0065q":3,"d\u0065lta":{"\u006bind":"goal_set","id":"g-e","summary":"escaped","sourceTurns":[{"turn\u0049d":"t-e"}]}}`,
	`{"type":"accepted","type":"rejected","seq":3,"delta":{"kind":"goal_set","id":"g-r","summary":"s","sourceTurns":[{"turnId":"t"}]},"reason":"dup type"}`,
	`{"type":"rejected","type":7,"seq":3,"delta":{"kind":"goal_set","id":"g-r","sourceTurns":[]},"reason":"x"}`,
	`{"type":"rejected","seq":3,"delta":{"kind":"goal_set","id":"g-r","sourceTurns":[]},"reason":null,"timestamp":null}`,
	`{"type":"rejected","seq":3,"delta":{},"delta":null,"reason":"x"}`,
	`{"type":"rejected","seq":3,"delta":null,"delta":{"kind":"k"},"reason":"later delta"}`,
	`{"type":"accepted","seq":3,"delta":{"kind":"goal_set","id":"a","sourceTurns":[{"turnId":"t"}]},"delta":{"kind":"task_opened","sourceTurns":[]}}`,
	"{\"type\":\"accepted\",\"seq\":3,\"delta\":{\"kind\":\"goal_set\",\"id\":\"\xff\xfe\",\"summary\":\"\xe9\",\"sourceTurns\":[{\"turnId\":\"t\"}]}}",
	`{"type":"checkpoint","seq":4,"timestamp":"2026-01-01T00:00:00.000Z","totalItems":1,"totalDeltas":2,"totalTurns":3,"contextChars":4,"rawChars":5}`,
	`{"type":"accepted","seq":1,"delta":{"kind":"goal_set","id" :"x","res":"r","resolutionX":1,"i\u0064":"y","idx":5,"sourceTurns":[{"turnId":"t","turnIdx":[]}]},"resultingStatus":"a","resultX":2,"typ":7,"types":[]}`,
	`{"typ\u0065":"rejected","seq":1,"delta":{"kin\u0064":"goal_set","summ\u0061ry":5,"sourceTurns":[]}}`,
	`{"type":"","seq":1,"delta":{}}`, `{"type":null,"seq":1}`, `{"type":"accepted","seq":1,"timestamp":5}`,
	`{ "type" : "accepted" , "seq" : 7 , "delta" : { "kind" : "goal_set" , "id" : "g-s" , "summary" : "spaced" , "sourceTurns" : [ { "turnId" : "t-s" } , null ] } }`,
}

var scanVariants = []hostile.Variant{
	{Name: "type", Root: true, Values: hostile.Quoted("accepted", "rejected", "checkpoint", "", "other")},
	{Name: "seq", Root: true, Values: []string{`1.5`, `"1"`, `null`, `-3`}},
	{Name: "delta", Root: true, Values: []string{`[]`, `"x"`, `null`, `{}`}},
	{Name: "kind", Root: false, Values: hostile.Quoted("decision_made", "constraint_revised", "task_closed", "branch_created", "bogus")},
	{Name: "id", Root: false, Values: []string{`"d-1"`, `"t\u0061sk-2"`, `null`, `5`}},
	{Name: "targetId", Root: false, Values: []string{`"d-1"`, `""`, `[]`}},
	{Name: "mode", Root: false, Values: []string{`"branch"`, `null`, `true`}},
	{Name: "hard", Root: false, Values: []string{`true`, `null`, `"x"`}},
	{Name: "sourceTurns", Root: false, Values: []string{`[]`, `null`, `[{"turnId":"t-1"}]`, `[{"turnId":"t-2","offset":{"start":0}}]`, `[null,null]`, `[1]`}},
	{Name: "alternatives", Root: false, Values: []string{`["a","b"]`, `null`, `[null]`, `[{}]`}},
	{Name: "summary", Root: false, Values: []string{`"\u00e9\"\\"`, `null`, `{}`}},
}

func TestScanMatchesParse(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, "deltamind", 3000, 4); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	for _, l := range scanLines {
		lines = append(lines, []byte(l))
	}
	r := rand.New(rand.NewSource(1))
	n := len(lines)
	for i := range 20000 {
		l := lines[i%n]
		for range 1 + r.Intn(3) {
			l = hostile.Mutate(r, l, scanVariants)
		}
		lines = append(lines, l)
	}
	shared := deltamind.NewLayouts()
	matched := 0
	progs := deltamind.ProgramReads
	for _, l := range lines {
		if !json.Valid(l) {
			continue // the index lets no such line through
		}
		if d := deltamind.ScanDiffers(l); d != "" {
			t.Fatal(d)
		}
		if d := layoutDiffers(shared, l); d != "" {
			t.Fatal(d)
		}
		if _, read := deltamind.LayoutDiffers(shared, l); read {
			matched++
		}
	}
	// Most generated lines are read through a layout, and so are some
	// mutated ones: the comparison above was not only of general walks.
	if matched < n {
		t.Errorf("%d of %d lines read through a layout", matched, len(lines))
	}
	// And as many were read again with their layout's program.
	if got := deltamind.ProgramReads - progs; got < n {
		t.Errorf("%d of %d lines read with a program", got, len(lines))
	}
}

// layoutDiffers compares the readers' layout path with their general walk
// on raw twice, through t (which may know raw's layout from lines before)
// and through a new trie, so that raw is both learned and matched.
func layoutDiffers(t *deltamind.Layouts, raw []byte) string {
	fresh := deltamind.NewLayouts()
	for _, t := range []*deltamind.Layouts{t, fresh, fresh} {
		if d, _ := deltamind.LayoutDiffers(t, raw); d != "" {
			return d
		}
	}
	return ""
}

// FuzzScan: for any JSON line, the fold's and the views' readers agree
// with line.parse and parseDelta, and read it through a layout as they
// read it by walking it.
func FuzzScan(f *testing.F) {
	for _, l := range scanLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		if d := deltamind.ScanDiffers(raw); d != "" {
			t.Fatal(d)
		}
		if d := layoutDiffers(deltamind.NewLayouts(), raw); d != "" {
			t.Fatal(d)
		}
	})
}

// The layouts read the bytes of a line that changed after it was folded
// (cut short, or with a byte changed anywhere) without failing: they read
// a window's bytes before the line's check says it is not the line folded.
func TestLayoutsReadChangedLinesWithoutPanic(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, "deltamind", 400, 9); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	lay := deltamind.NewLayouts()
	for _, l := range lines {
		deltamind.ReadThroughLayouts(lay, l)
	}
	if !deltamind.ReadThroughLayouts(lay, lines[0]) {
		t.Fatal("a generated line is not read through the layouts learned from its journal")
	}
	r := rand.New(rand.NewSource(3))
	if deltamind.ReadWithPrograms(lines[0]) == 0 {
		t.Fatal("a generated line is read with none of the programs of its journal's layouts")
	}
	for _, l := range lines[:40] {
		for n := range len(l) {
			deltamind.ReadThroughLayouts(lay, l[:n])
			deltamind.ReadWithPrograms(l[:n])
			c := bytes.Clone(l)
			c[n] = "\"\\{}[],:0tfn \xff"[r.Intn(14)]
			deltamind.ReadThroughLayouts(lay, c)
			deltamind.ReadWithPrograms(c)
		}
	}
}
