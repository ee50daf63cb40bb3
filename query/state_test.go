package query

import (
	"testing"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/formats"
)

// Expressions whose members MatchState can tell from their syntax, and
// expressions that may read the whole state (or that rootKeys, to stay
// simple, does not follow: a binding's body reads the same input).
var (
	partialExprs = []string{
		`.pending | length > 0`, `.iterations > 3`, `.status == "RUNNING" and .iterations >= 2`,
		`select(.items[0].id == "d-1")`, `.messages | length > 5`, `.items | map(.id) | index("d-2") != null`,
		`{a: .status} | .a == "RUNNING"`, `"\(.status)" == "RUNNING"`, `[.at, .iterations] | max > 10`,
		`if .at > 50 then .pending | length > 0 else false end`, `try .pending[0].id catch false`,
		`.["at"] > 30`, `.actions[.messages[2].tool_call_id // "x"] != null`, `[1, 2, 3][.at % 3] == 2`,
		`.pending[0] | has("id")`, `.at > 20 // .pending`, `{at} | .at > 5`, `empty`, `true`,
		`.decided | length > 2`, `.items | length > 40`, `.format == "deltamind" or .at == 7`,
		`.finished_intents | length > 3`, `.ledger.tasks | length > 2`, `(.counts | length) > 3 and .events_replayed > 40`,
		`.sessions[0].id != null and .active_intents != []`, `.decided_checkpoints[-1].approved == true`,
	}
	wholeExprs = []string{
		`length > 3`, `keys | length > 5`, `[.[]] | length > 3`, `. as $s | $s.at > 2`,
		`to_entries | length > 1`, `[.. | numbers] | length > 9`, `has("pending")`,
		`reduce .pending[] as $p (0; . + 1) > 0`, `def f: .at; f > 3`, `.at = 3 | .at == 3`,
		`tojson | length > 100`, `.at as $x | $x > 3`, `.[.format] != null`, `with_entries(.) | .at > 3`, `@json | length > 9`,
	}
)

func TestRootKeysTellsWhatIsRead(t *testing.T) {
	for _, src := range partialExprs {
		if q, err := Compile(src); err != nil || !q.partial {
			t.Errorf("%s: partial %v, %v; want the members it names", src, q != nil && q.partial, err)
		}
	}
	for _, src := range wholeExprs {
		if q, err := Compile(src); err != nil || q.partial {
			t.Errorf("%s: keys %v; want the whole state", src, q.keys)
		}
	}
}

// MatchState gives Match over the whole state at every position of a
// journal of each format, for expressions that read part of it and
// expressions that read all of it.
func TestMatchStateEqualsMatchOverTheWholeState(t *testing.T) {
	for _, name := range []string{model.DurableStream, model.DeltaEngine, model.DeltaMind} {
		j := journaltest.Generated(t, name, name+".jsonl", 300, 3)
		f, _ := formats.ByName(name)
		var qs []*Query
		for _, src := range append(partialExprs, wholeExprs...) {
			q, err := Compile(src)
			if err != nil {
				t.Fatal(err)
			}
			qs = append(qs, q)
		}
		trueAt := make([]int, len(qs))
		st := f.Init()
		err := j.Each(1, 1<<30, func(ev model.Event) error {
			st = f.Apply(st, ev)
			whole := Value(model.StateJSON(f, st, ev.Pos))
			for i, q := range qs {
				got, gerr := q.MatchState(f, st, ev.Pos)
				want, werr := q.Match(whole)
				if got != want || (gerr == nil) != (werr == nil) {
					t.Fatalf("%s, position %d, %s: MatchState %v %v, Match over the whole state %v %v", name, ev.Pos, q.Src, got, gerr, want, werr)
				}
				if got && trueAt[i] == 0 {
					trueAt[i] = ev.Pos
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: first position each expression holds: %v", name, trueAt)
	}
}
