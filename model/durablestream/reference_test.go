package durablestream_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/hostile"
	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/durablestream"
	"github.com/rewind-tui/rewind/replay"
)

// hostileLines are hand-written lines that the old decoding read in
// particular ways: escaped and repeated names, wrong and null types,
// numbers that are not int64, payloads that are not objects.
var hostileLines = []string{
	`{}`, `{"type":"agent.spawned"}`, `{"type":"agent.spawned","timestamp":1,"payload":{"id":7}}`,
	`{"type":"agent.spawned","timestamp":1e400,"payload":{"id":"a"}}`,
	`{"type":"agent.spawned","timestamp":1.5,"payload":{"id":"a"}}`,
	`{"type":"agent.spawned","timestamp":-0,"payload":{"id":"z","prompt":null,"description":null,"created_at":null,"timeout_ms":5,"timeout_ms":null}}`,
	`{"type":"agent.completed","timestamp":1,"payload":{"intent_id":"a","result":{"deep":[1,2,{"x":null}]}}}`,
	`{"type":"agent.completed","timestamp":1,"payload":{"intent_id":"z","result":  [ 1 , "two" ,{ "x" : null } ] ,"duration":3}}`,
	`{"type":"checkpoint.requested","timestamp":1,"payload":{"options":[{"id":1}]}}`,
	`{"type":"checkpoint.requested","timestamp":1,"payload":{"id":"c","options":null,"requested_at":-5}}`,
	`{"type":"checkpoint.requested","timestamp":2,"payload":{"id":"c","options":[null,{"id":"o","label":"O","description":"d","ID":"x"}],"options":[{"id":"p","label":"P"}],"expires_at":9}}`,
	`{"type":"checkpoint.approved","timestamp":1,"payload":{"checkpoint_id":["c"]}}`,
	`{"type":"checkpoint.approved","timestamp":1,"payload":{"checkpoint_id":"c","approved_by":"u","selected_option":"\u001b[2J"}}`,
	`{"type":"checkpoint.rejected","timestamp":3,"payload":{"checkpoint_id":"c","rejected_by":"u","reason":null}}`,
	`{"type":"checkpoint.rejected","timestamp":3,"payload":{"checkpoint_id":"c","rejected_by":"v","reason":"again"}}`,
	`{"type":"ledger.task.created","timestamp":1,"payload":{"taskId":"t","handoffWhatsNext":"x"}}`,
	`{"type":"ledger.task.created","timestamp":1,"payload":{"taskId":"t","taskTitle":"T","result":{"a":1},"error":null}}`,
	`{"type":"ledger.handoff.created","timestamp":1,"payload":{"epicId":"e","handoffWhatsNext":["a",null],"handoffKeyContext":null,"handoffFilesModified":[]}}`,
	`{"type":"ledger.","timestamp":1,"payload":{}}`,
	`{"type":"ledger.governance.directive_added","timestamp":1,"payload":{"directiveContent":null}}`,
	`{"type":"ledger.governance.assumption_added","timestamp":1,"payload":{"assumptionContent":"c","assumptionSource":"s","assumptionRationale":"r"}}`,
	`{"type":"ledger.learning.extracted","timestamp":1,"payload":{"learningType":"t","learningContent":"c"}}`,
	`{"type":"lifecycle.session.error","timestamp":1,"payload":{"error":"\ud800"}}`,
	`{"type":"lifecycle.session.error","stream_id":"s1","timestamp":1,"payload":{"error":{"name":"E","data":{"message":"m"}}}}`,
	`{"type":"lifecycle.session.created","stream_id":null,"timestamp":1,"payload":{"id":"s1","title":"T","directory":null}}`,
	`{"type":"x","type":"agent.failed","timestamp":1,"payload":{"intent_id":"a","error":5}}`,
	`{"type":"agent.failed","type":"x","timestamp":1,"payload":{"intent_id":"a","error":5}}`,
	`{"type":"agent.failed","type":7,"timestamp":1,"payload":{}}`,
	`{"type":7,"type":"agent.failed","timestamp":1,"payload":{}}`,
	`{"type":"execution.text_delta","timestamp":1,"payload":{"delta":{"not":"text"}}}`,
	`{"ty\u0070e":"checkpoint.requested","timestamp":4,"p\u0061yload":{"\u0069d":"esc","decision_point":"escaped names"}}`,
	`{"type":"checkpoint.requested","TYPE":"x","Timestamp":"no","timestamp":4,"payload":{"id":"case","Id":"other"}}`,
	`{"type":"execution.text_delta","timestamp":1,"payload":null}`,
	`{"type":"execution.text_delta","timestamp":1,"payload":{},"payload":[]}`,
	`{"type":"execution.text_delta","timestamp":1,"payload":[],"payload":{}}`,
	`{"type":"execution.text_delta","timestamp":"1","payload":{}}`,
	`{"type":"execution.text_delta","timestamp":null,"payload":{}}`,
	`{"type":"execution.text_delta","timestamp":9223372036854775808,"payload":{}}`,
	`{"type":"execution.text_delta","timestamp":-9223372036854775808,"payload":{}}`,
	`{"type":"execution.text_delta","id":5,"timestamp":1,"payload":{}}`,
	`{"type":"execution.text_delta","actor":{},"timestamp":1,"payload":{}}`,
	`{"type":"execution.text_delta","stream_id":[],"timestamp":1,"payload":{}}`,
	`{"type":"","timestamp":1,"payload":{}}`,
	`{"type":null,"timestamp":1,"payload":{}}`,
	`{"type":"custom.\u00e9v\u00e9nement","timestamp":1,"payload":{}}`,
	`{ "type" : "agent.spawned" , "timestamp" : 5 , "payload" : { "id" : "sp" , "prompt" : "spaced" } }`,
}

// variants are the members mutate adds: other types, payloads that are not
// objects, and ids that collide with other events'.
var variants = []hostile.Variant{
	{Name: "type", Root: true, Values: hostile.Quoted("ledger.", "ledger.x", "ledger.epic.created", "ledger.task.completed", "ledger.task.failed",
		"ledger.governance.directive_added", "ledger.governance.assumption_added", "ledger.governance.other",
		"ledger.learning.extracted", "ledger.handoff.created", "ledger.handoff.resumed", "lifecycle.session.",
		"lifecycle.session.created", "lifecycle.session.error", "lifecycle.session.idle", "agent.aborted",
		"agent.completed", "agent.failed", "agent.spawned", "checkpoint.requested", "checkpoint.approved",
		"checkpoint.rejected", "foo.bar", "", "learning.extracted", "execution.text_delta", "Checkpoint.requested")},
	{Name: "payload", Root: true, Values: []string{`[]`, `"x"`, `null`, `5`, `{}`}},
	{Name: "timestamp", Root: true, Values: []string{`1.5`, `"1"`, `null`, `-3`}},
	{Name: "stream_id", Root: true, Values: []string{`null`, `7`, `"ses_x"`}},
	{Name: "id", Root: false, Values: hostile.Quoted("cp_1", "intent_1", "task_1", "epic_1", "")},
	{Name: "checkpoint_id", Root: false, Values: hostile.Quoted("cp_1", "")},
	{Name: "intent_id", Root: false, Values: hostile.Quoted("intent_1", "")},
	{Name: "taskId", Root: false, Values: hostile.Quoted("task_1")},
	{Name: "epicId", Root: false, Values: hostile.Quoted("epic_1")},
}

// longLines are events whose kept text is longer than model.InlineText,
// so the state keeps it as an offset into the journal.
func longLines(r *rand.Rand) []string {
	l := func() string { return hostile.LongString(r) }
	return []string{
		`{"type":"checkpoint.requested","stream_id":"s","timestamp":10,"payload":{"id":"long","decision_point":` + l() + `,"options":[{"id":"a","label":"A"}]}}`,
		`{"type":"agent.spawned","stream_id":"s","timestamp":11,"payload":{"id":"il","description":` + l() + `,"prompt":` + l() + `}}`,
		`{"type":"agent.spawned","stream_id":"s","timestamp":11,"payload":{"id":"ip","description":"","prompt":` + l() + `}}`,
		`{"type":"agent.completed","timestamp":12,"payload":{"intent_id":"ip","result":` + l() + `}}`,
		`{"type":"agent.aborted","timestamp":12,"payload":{"intent_id":"il","reason":` + l() + `}}`,
		`{"type":"checkpoint.rejected","timestamp":13,"payload":{"checkpoint_id":"long","rejected_by":"u","reason":` + l() + `}}`,
		`{"type":"ledger.task.failed","timestamp":14,"payload":{"taskId":"tl","error":` + l() + `,"result":` + l() + `}}`,
		`{"type":"ledger.epic.completed","timestamp":14,"payload":{"epicId":"el","summary":` + l() + `}}`,
		`{"type":"ledger.governance.directive_added","timestamp":15,"payload":{"directiveContent":` + l() + `}}`,
		`{"type":"ledger.handoff.created","timestamp":15,"payload":{"handoffReason":` + l() + `,"handoffCommand":` + l() + `}}`,
		`{"type":"lifecycle.session.error","stream_id":"s","timestamp":16,"payload":{"error":` + l() + `}}`,
	}
}

// fixture is one journal to compare on.
type fixture struct {
	name string
	data []byte
}

func generated(t *testing.T, n int, seed int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := demo.Generate(&b, "durable-stream", n, seed); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hostileJournal returns a generated journal with one line in three
// mutated, the hand-written lines and long lines spread through it.
func hostileJournal(t *testing.T, n int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	var out []byte
	extra := append(append([]string{}, hostileLines...), longLines(r)...)
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

func fixtures(t *testing.T) []fixture {
	t.Helper()
	stream, err := os.ReadFile("testdata/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fs := []fixture{{"stream.jsonl", stream}}
	for _, p := range []string{"../../testdata/broken/durable/durable_stream.jsonl", "../../testdata/broken/dup-keys.jsonl"} {
		if b, err := os.ReadFile(p); err == nil {
			fs = append(fs, fixture{filepath.Base(p), b})
		}
	}
	r := rand.New(rand.NewSource(1))
	fs = append(fs, fixture{"hostile-lines", []byte(strings.Join(append(hostileLines, longLines(r)...), "\n") + "\n")})
	// More types than the counts have codes for.
	var many []byte
	for i := range 700 {
		many = fmt.Appendf(many, `{"type":"custom.t%03d","timestamp":%d,"payload":{}}`+"\n", (i*7)%300, i)
		if i%50 == 0 {
			many = append(many, `{"type":"execution.text_delta","timestamp":1,"payload":{}}`+"\n"...)
		}
	}
	fs = append(fs, fixture{"many-types", many})
	n := 3000
	if short() {
		n = 600
	}
	for seed := int64(1); seed <= 3; seed++ {
		fs = append(fs, fixture{fmt.Sprintf("generated-%d", seed), generated(t, n, seed)})
	}
	for seed := int64(1); seed <= 4; seed++ {
		fs = append(fs, fixture{fmt.Sprintf("hostile-%d", seed), hostileJournal(t, n, seed)})
	}
	return fs
}

// journals is how the reference tests open a journal and what of a state
// they compare: the state JSON, every document, the unknown document ""
// and "checkpoints" (see hostile.Harness).
var journals = hostile.Harness{File: "durable_stream.jsonl", Format: model.DurableStream, Docs: []string{"checkpoints"}}

// output is everything a state shows (see hostile.Harness.Output).
func output(t *testing.T, f model.Format, s model.State, pos int) []byte {
	t.Helper()
	return journals.Output(t, f, s, pos)
}

// TestMatchesReference folds fixture, generated and hostile journals
// through the fold and through the reference (the fold before it read
// with rawjson, ref_test.go) and requires the same state JSON, documents,
// pending items, verdicts and timeline rows after every event.
func TestMatchesReference(t *testing.T) {
	dec := durablestream.Format.(model.Decider)
	ref := refFormat.(interface {
		Verdict(model.State, string) (model.Verdict, bool)
	})
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			var ids []string
			journals.Match(t, fx.data, durablestream.Format, refFormat, func(ev model.Event, ns, rs model.State) {
				if p, ok := rawjson.Get(ev.Raw, "payload"); ok {
					for _, k := range []string{"id", "checkpoint_id"} {
						if v, ok := rawjson.Get(p, k); ok {
							if s, ok := rawjson.Unquote(v); ok {
								ids = append(ids, s)
							}
						}
					}
				}
				if len(ids) > 12 {
					ids = ids[len(ids)-12:]
				}
				for _, id := range append(ids, "", "nope") {
					g, gok := dec.Verdict(ns, id)
					w, wok := ref.Verdict(rs, id)
					if g != w || gok != wok {
						t.Fatalf("event %d: Verdict(%q) = %+v %v, want %+v %v", ev.Pos, id, g, gok, w, wok)
					}
				}
				if ev.Pos%5 == 0 {
					checkDecisionRecords(t, dec, ns, rs)
				}
			})
		})
	}
}

// checkDecisionRecords requires a decision record for every checkpoint the
// reference has pending, and ErrNotPending for one it has not.
func checkDecisionRecords(t *testing.T, dec model.Decider, ns, rs model.State) {
	t.Helper()
	now := time.UnixMilli(1795400000000)
	for _, p := range rs.Pending() {
		opt := ""
		if len(p.Options) > 0 {
			opt = p.Options[0].ID
		}
		if _, err := dec.DecisionRecord(ns, p, model.Decision{Approve: true, Option: opt, Now: now}); err != nil {
			t.Fatalf("DecisionRecord(%q): %v", p.ID, err)
		}
		if _, err := dec.DecisionRecord(ns, p, model.Decision{Reason: "no", Now: now}); err != nil {
			t.Fatalf("DecisionRecord(%q) rejecting: %v", p.ID, err)
		}
	}
	if _, err := dec.DecisionRecord(ns, model.Pending{ID: "cp_not_pending"}, model.Decision{Now: now}); !errors.Is(err, durablestream.ErrNotPending) {
		t.Fatalf("DecisionRecord of a checkpoint not pending: %v", err)
	}
}

// referenceOutputs returns the reference's output after every position.
func referenceOutputs(t *testing.T, sess *app.Session) [][32]byte {
	t.Helper()
	rs := refFormat.Init()
	out := [][32]byte{sha256.Sum256(output(t, refFormat, rs, 0))}
	err := sess.J.Each(1, sess.R.Events(), func(ev model.Event) error {
		rs = refFormat.Apply(rs, ev)
		out = append(out, sha256.Sum256(output(t, refFormat, rs, ev.Pos)))
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
		if fx.name == "generated-2" || fx.name == "generated-3" || fx.name == "hostile-2" || fx.name == "hostile-4" {
			continue // the others are enough
		}
		t.Run(fx.name, func(t *testing.T) {
			sess := journals.Open(t, fx.data)
			want := referenceOutputs(t, sess)
			r := replay.New(sess.J, durablestream.Format)
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
						if got := sha256.Sum256(output(t, durablestream.Format, s, p)); got != want[p] {
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

// TestForks folds events into states taken at random from all the states
// folded so far, mostly the event that follows them in the journal (so
// their lineage's recorded step is reused) and otherwise any event (so it
// forks), and compares every state with the reference's: no branch may see
// another's events.
func TestForks(t *testing.T) {
	data := hostileJournal(t, 600, 9)
	sess := journals.Open(t, data)
	evs := hostile.Events(t, sess)
	type node struct {
		n, r model.State
		next int // index in evs of the event that follows in the journal
		pos  int
	}
	check := func(what string, x node) {
		t.Helper()
		got, want := output(t, durablestream.Format, x.n, x.pos), output(t, refFormat, x.r, x.pos)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %s", what, hostile.FirstDiff(got, want))
		}
	}
	pool := []node{{durablestream.Format.Init(), refFormat.Init(), 0, 0}}
	// The journal folded straight first, as a replay would.
	for i, ev := range evs {
		x := pool[len(pool)-1]
		pool = append(pool, node{durablestream.Format.Apply(x.n, ev), refFormat.Apply(x.r, ev), i + 1, ev.Pos})
	}
	rng := rand.New(rand.NewSource(3))
	steps := 4000
	if short() {
		steps = 1500
	}
	for k := 0; k < steps; k++ {
		x := pool[rng.Intn(len(pool))]
		if rng.Intn(3) == 0 {
			x = pool[len(pool)-1-rng.Intn(min(20, len(pool)))] // often a recent branch
		}
		i := x.next
		if rng.Intn(3) == 0 || i >= len(evs) {
			i = rng.Intn(len(evs))
		}
		ev := evs[i]
		y := node{durablestream.Format.Apply(x.n, ev), refFormat.Apply(x.r, ev), i + 1, ev.Pos}
		check(fmt.Sprintf("step %d", k), y)
		pool = append(pool, y)
		if k%50 == 0 {
			for range 5 {
				z := pool[rng.Intn(len(pool))]
				check(fmt.Sprintf("state of the pool after step %d", k), z)
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
// it indexes: the index's workers read each line's envelope) and with
// Apply, and requires the same state JSON and documents (see
// hostile.Harness.MatchPrepared).
func TestPreparedMatchesApply(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) { journals.MatchPrepared(t, fx.data, durablestream.Format) })
	}
}
