package deltamind_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/hostile"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/deltamind"
	"github.com/rewind-tui/rewind/replay"
)

// hostileLines are hand-written lines that the old decoding read in
// particular ways: escaped and repeated names, wrong and null types,
// numbers that are not int64, deltas that are not objects.
var hostileLines = []string{
	`{}`, `{"type":"accepted"}`, `{"type":"accepted","seq":1}`, `{"type":"accepted","seq":"1","delta":{}}`,
	`{"type":"accepted","seq":1,"delta":{"kind":"goal_set","id":"g-1","summary":"s","sourceTurns":[{"turnId":"t-1"}]}}`,
	`{"type":"accepted","seq":1.5,"delta":{"kind":"goal_set","id":"g-2","summary":"s","confidence":"low","sourceTurns":[{"turnId":"t-1","offset":{"start":1,"end":2}}]}}`,
	`{"type":"accepted","seq":1e3,"delta":{"kind":"fact_learned","id":"f-1","summary":"f","sourceTurns":[null,{"turnId":null,"offset":null},{"offset":[1,"x"]}]}}`,
	`{"type":"accepted","seq":-0,"delta":{"kind":"decision_made","id":"d-1","summary":"use X","confidence":"high","sourceTurns":[{"turnId":"t-2"}]}}`,
	`{"type":"accepted","seq":9223372036854775808,"delta":{"kind":"decision_revised","targetId":"d-1","summary":"use Y","sourceTurns":[{"turnId":"t-3"},{"turnId":"t-2"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"decision_revised","targetId":"g-1","summary":"wrong kind","sourceTurns":[{"turnId":"t-3"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"task_closed","targetId":"nope","resolution":"r","sourceTurns":[{"turnId":"t-3"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"teleport","id":"x","sourceTurns":[{"turnId":"t-3"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"goal_set","id":"g-3","summary":"no turns","sourceTurns":[]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"goal_set","id":"g-3","summary":"null turns","sourceTurns":null}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"constraint_added","id":"c-1","summary":"hard","hard":true,"sourceTurns":[{"turnId":"t-4"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"constraint_added","id":"c-1","summary":"soft now","hard":null,"sourceTurns":[{"turnId":"t-5"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"constraint_added","id":"c-2","summary":"bad hard","hard":"yes","sourceTurns":[{"turnId":"t-5"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"constraint_revised","targetId":"c-1","summary":"relaxed","mode":"relaxed","sourceTurns":[{"turnId":"t-6"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"constraint_revised","targetId":"c-1","summary":"relaxed again","mode":"relaxed","sourceTurns":[{"turnId":"t-6"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"branch_created","id":"b-1","alternatives":["a",null,"c"],"sourceTurns":[{"turnId":"t-7"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"branch_created","id":"b-2","alternatives":"a","sourceTurns":[{"turnId":"t-7"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"branch_created","id":"b-1","alternatives":null,"sourceTurns":[{"turnId":"t-8"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"item_superseded","targetId":"b-1","reason":"gone","sourceTurns":[{"turnId":"t-9"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"item_superseded","targetId":"b-1","reason":null,"sourceTurns":[{"turnId":"t-9"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"task_opened","id":"task-1","summary":"do it","sourceTurns":[{"turnId":"t-1"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"task_closed","targetId":"task-1","resolution":"done","sourceTurns":[{"turnId":"t-10"}]}}`,
	`{"type":"accepted","seq":2,"delta":{"kind":"hypothesis_introduced","id":"h-1","summary":"maybe","confidence":"low","sourceTurns":[{"turnId":"t-1"}]}}`,
	`{"ty\u0070e":"accepted","s\u0065q":3,"d\u0065lta":{"\u006bind":"goal_set","id":"g-e","summary":"escaped","sourceTurns":[{"turn\u0049d":"t-e"}]}}`,
	`{"type":"accepted","TYPE":"x","Seq":"no","seq":3,"delta":{"kind":"goal_set","Kind":"x","id":"g-c","summary":"case","sourceTurns":[{"turnId":"t-c"}]}}`,
	`{"type":"accepted","type":"rejected","seq":3,"delta":{"kind":"goal_set","id":"g-r","summary":"s","sourceTurns":[{"turnId":"t"}]},"reason":"dup type"}`,
	`{"type":"rejected","type":7,"seq":3,"delta":{"kind":"goal_set","id":"g-r","sourceTurns":[]},"reason":"x"}`,
	`{"type":"rejected","seq":3,"delta":{"kind":"goal_set","id":"g-r","sourceTurns":[]},"reason":null,"timestamp":null}`,
	`{"type":"rejected","seq":3,"delta":{"kind":"decision_revised","targetId":"d-9","id":"x","sourceTurns":[]},"reason":5}`,
	`{"type":"rejected","seq":3,"delta":[],"reason":"x"}`,
	`{"type":"rejected","seq":3,"delta":{},"delta":null,"reason":"x"}`,
	`{"type":"rejected","seq":3,"delta":null,"delta":{"kind":"k"},"reason":"later delta"}`,
	`{"type":"checkpoint","seq":4,"timestamp":"2026-01-01T00:00:00.000Z","totalItems":1,"totalDeltas":2,"totalTurns":3,"contextChars":4,"rawChars":5}`,
	`{"type":"checkpoint","seq":5,"totalItems":null,"totalDeltas":1.5}`,
	`{"type":"checkpoint","seq":5,"totalItems":"1"}`,
	`{"type":"checkpoint","seq":6,"totalItems":7,"totalItems":null,"timestamp":5}`,
	`{"type":"checkpoint","seq":6.25,"totalItems":7,"rawChars":-9223372036854775808}`,
	`{"type":"checkpoint","seq":null}`,
	`{"type":"","seq":1,"delta":{}}`, `{"type":null,"seq":1}`, `{"type":"Accepted","seq":1,"delta":{}}`,
	`{ "type" : "accepted" , "seq" : 7 , "delta" : { "kind" : "goal_set" , "id" : "g-s" , "summary" : "spaced" , "sourceTurns" : [ { "turnId" : "t-s" } ] } }`,
}

// variants are the members mutate adds: other types, kinds and ids that
// collide with other lines'.
var variants = []hostile.Variant{
	{Name: "type", Root: true, Values: hostile.Quoted("accepted", "rejected", "checkpoint", "", "Accepted", "other")},
	{Name: "seq", Root: true, Values: []string{`1.5`, `"1"`, `null`, `-3`, `1e2`}},
	{Name: "delta", Root: true, Values: []string{`[]`, `"x"`, `null`, `5`, `{}`}},
	{Name: "kind", Root: false, Values: hostile.Quoted("decision_made", "decision_revised", "constraint_added", "constraint_revised", "task_opened",
		"task_closed", "fact_learned", "hypothesis_introduced", "branch_created", "item_superseded", "goal_set", "bogus")},
	{Name: "id", Root: false, Values: hostile.Quoted("d-1", "task-2", "c-3", "g-4", "")},
	{Name: "targetId", Root: false, Values: hostile.Quoted("d-1", "task-2", "c-3", "g-4", "h-5", "")},
	{Name: "sourceTurns", Root: false, Values: []string{`[]`, `null`, `[{"turnId":"t-1"}]`, `[{"turnId":"t-2","offset":{"start":0}}]`}},
	{Name: "totalItems", Root: true, Values: []string{`1`, `null`, `"2"`}},
}

type fixture struct {
	name string
	data []byte
	snap []byte // a snapshot.json for WithSnapshot, or nil
}

func generated(t *testing.T, n int, seed int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := demo.Generate(&b, "deltamind", n, seed); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hostileJournal returns a generated journal with one line in three
// mutated and the hand-written lines spread through it.
func hostileJournal(t *testing.T, n int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	var out []byte
	extra := append([]string{}, hostileLines...)
	for i, line := range bytes.Split(bytes.TrimSuffix(generated(t, n, seed), []byte("\n")), []byte("\n")) {
		if r.Intn(3) == 0 {
			line = hostile.Mutate(r, line, variants)
		}
		out = append(append(out, line...), '\n')
		if i%7 == 3 && len(extra) > 0 {
			k := r.Intn(len(extra))
			out = append(append(out, extra[k]...), '\n')
			extra = append(extra[:k], extra[k+1:]...)
		}
	}
	for _, l := range extra {
		out = append(append(out, l...), '\n')
	}
	return out
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fixtures(t *testing.T) []fixture {
	t.Helper()
	fs := []fixture{
		{"coverage.jsonl", read(t, "testdata/coverage.jsonl"), nil},
		{"dogfood", read(t, "testdata/dogfood/provenance.jsonl"), nil},
		{"dogfood+snapshot", read(t, "testdata/dogfood/provenance.jsonl"), read(t, "testdata/dogfood/snapshot.json")},
		{"broken", read(t, "../../testdata/broken/deltamind/provenance.jsonl"), nil},
		{"hostile-lines", []byte(strings.Join(hostileLines, "\n") + "\n"), nil},
	}
	// The state grows with every line and is compared whole after every
	// line, so the cost grows with the square of the length: one long
	// journal of each kind, shorter ones for the other seeds.
	size := func(seed int64) int {
		n := 1000
		if seed == 1 {
			n = 2500
		}
		if short() {
			n /= 4
		}
		return n
	}
	for seed := int64(1); seed <= 3; seed++ {
		fs = append(fs, fixture{fmt.Sprintf("generated-%d", seed), generated(t, size(seed), seed), nil})
	}
	for seed := int64(1); seed <= 4; seed++ {
		fs = append(fs, fixture{fmt.Sprintf("hostile-%d", seed), hostileJournal(t, size(seed), seed), nil})
	}
	return fs
}

// formats returns the fold and the reference for fx: the plain formats,
// or their snapshot variants.
func formats(t *testing.T, fx fixture) (model.Format, model.Format) {
	t.Helper()
	if fx.snap == nil {
		return deltamind.Format, refFormat
	}
	f, err := deltamind.WithSnapshot(fx.snap)
	if err != nil {
		t.Fatal(err)
	}
	r, err := refWithSnapshot(fx.snap)
	if err != nil {
		t.Fatal(err)
	}
	return f, r
}

// journals is how the reference tests open a journal and what of a state
// they compare: the state JSON, every document, the unknown document ""
// and "tasks" (see hostile.Harness).
var journals = hostile.Harness{File: "provenance.jsonl", Format: model.DeltaMind, Docs: []string{"tasks"}}

// output is everything a state shows (see hostile.Harness.Output).
func output(t *testing.T, f model.Format, s model.State, pos int) []byte {
	t.Helper()
	return journals.Output(t, f, s, pos)
}

// TestMatchesReference folds fixture, generated and hostile journals
// through the fold and through the reference (the fold before it read
// with rawjson, ref_test.go) and requires the same state JSON, documents
// and timeline rows after every line.
func TestMatchesReference(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			f, ref := formats(t, fx)
			journals.Match(t, fx.data, f, ref, nil)
		})
	}
}

// TestWithSnapshotMatchesReference compares WithSnapshot's errors with the
// reference's on broken snapshots.
func TestWithSnapshotMatchesReference(t *testing.T) {
	for _, snap := range []string{
		`{}`, `[]`, `{"version":2}`, `{"version":"1"}`, `{"version":1}`, `{"version":1,"deltaLog":[{}]}`,
		`{"version":1,"deltaLog":[[]]}`, `{"version":1,"deltaLog":[null]}`, `{"version":1,"deltaLog":[{"kind":5}]}`,
		`{"version":1,"deltaLog":[{"kind":"goal_set","sourceTurns":{}}]}`,
		`{"version":1,"deltaLog":[{"kind":"goal_set","id":"g","timestamp":"t","sourceTurns":[{"turnId":"x"}]}],"items":[{"id":"g","lastTouched":"l"}]}`,
		`{"version":1,"items":[{"id":5}]}`,
	} {
		_, gerr := deltamind.WithSnapshot([]byte(snap))
		_, werr := refWithSnapshot([]byte(snap))
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Errorf("WithSnapshot(%s) = %v, want %v", snap, gerr, werr)
		}
	}
}

// referenceOutputs returns the reference's output after every position.
func referenceOutputs(t *testing.T, sess *app.Session, ref model.Format) [][32]byte {
	t.Helper()
	rs := ref.Init()
	out := [][32]byte{sha256.Sum256(output(t, ref, rs, 0))}
	err := sess.J.Each(1, sess.R.Events(), func(ev model.Event) error {
		rs = ref.Apply(rs, ev)
		out = append(out, sha256.Sum256(output(t, ref, rs, ev.Pos)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReplayMatchesReference reaches every position through replay's
// keyframes and random jumps, from several goroutines at once, so states
// are folded again from keyframes (reusing the steps their lineage holds)
// while others extend it.
func TestReplayMatchesReference(t *testing.T) {
	for _, fx := range fixtures(t) {
		if fx.name == "generated-1" || fx.name == "hostile-1" || fx.name == "generated-3" || fx.name == "hostile-4" {
			continue // the long ones, and some of the others
		}
		t.Run(fx.name, func(t *testing.T) {
			sess := journals.Open(t, fx.data)
			f, ref := formats(t, fx)
			want := referenceOutputs(t, sess, ref)
			r := replay.New(sess.J, f)
			r.K = 7
			// Four goroutines share the positions between them, each in
			// its own random order.
			order := rand.New(rand.NewSource(1)).Perm(len(want))
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewSource(int64(g)))
					if g == 0 {
						if err := r.Extend(context.Background(), nil); err != nil {
							errs <- err
							return
						}
					}
					mine := order[g*len(order)/4 : (g+1)*len(order)/4]
					rng.Shuffle(len(mine), func(i, j int) { mine[i], mine[j] = mine[j], mine[i] })
					for _, p := range mine {
						s, err := r.StateAt(p)
						if err != nil {
							errs <- err
							return
						}
						if got := sha256.Sum256(output(t, f, s, p)); got != want[p] {
							errs <- fmt.Errorf("goroutine %d: state at %d differs from the reference", g, p)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
		})
	}
}

// TestForks folds lines into states taken at random from all the states
// folded so far, mostly the line that follows them in the journal (so
// their lineage's recorded step is reused) and otherwise any line (so it
// forks), through the plain format and the snapshot variant alike, and
// compares every state with the reference's: no branch may see another's
// lines.
func TestForks(t *testing.T) {
	data := hostileJournal(t, 600, 9)
	sess := journals.Open(t, data)
	snapF, err := deltamind.WithSnapshot(read(t, "testdata/dogfood/snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	snapR, err := refWithSnapshot(read(t, "testdata/dogfood/snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	evs := hostile.Events(t, sess)
	type node struct {
		n, r model.State
		next int
		pos  int
	}
	check := func(what string, x node) {
		t.Helper()
		got, want := output(t, deltamind.Format, x.n, x.pos), output(t, refFormat, x.r, x.pos)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %s", what, hostile.FirstDiff(got, want))
		}
	}
	pool := []node{{deltamind.Format.Init(), refFormat.Init(), 0, 0}}
	for i, ev := range evs {
		x := pool[len(pool)-1]
		pool = append(pool, node{deltamind.Format.Apply(x.n, ev), refFormat.Apply(x.r, ev), i + 1, ev.Pos})
	}
	rng := rand.New(rand.NewSource(3))
	steps := 4000
	if short() {
		steps = 1500
	}
	for k := 0; k < steps; k++ {
		x := pool[rng.Intn(len(pool))]
		if rng.Intn(3) == 0 {
			x = pool[len(pool)-1-rng.Intn(min(20, len(pool)))]
		}
		i := x.next
		if rng.Intn(3) == 0 || i >= len(evs) {
			i = rng.Intn(len(evs))
		}
		ev := evs[i]
		f, r := deltamind.Format, refFormat
		if rng.Intn(10) == 0 {
			f, r = snapF, snapR
		}
		y := node{f.Apply(x.n, ev), r.Apply(x.r, ev), i + 1, ev.Pos}
		check(fmt.Sprintf("step %d", k), y)
		pool = append(pool, y)
		if k%50 == 0 {
			for range 5 {
				check(fmt.Sprintf("state of the pool after step %d", k), pool[rng.Intn(len(pool))])
			}
		}
	}
}

// raceDetector is set when the tests run under the race detector.
var raceDetector bool

// short reports whether to fold the short journals: with -short, and
// under the race detector.
func short() bool { return testing.Short() || raceDetector }

// TestPreparedMatchesApply folds the fixture, generated and hostile
// journals with Prepare and ApplyPrepared (what rewind state does while
// it indexes: the index's workers read each block's lines) and with
// Apply, and requires the same state JSON and documents (see
// hostile.Harness.MatchPrepared).
func TestPreparedMatchesApply(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			f, _ := formats(t, fx)
			journals.MatchPrepared(t, fx.data, f)
		})
	}
}
