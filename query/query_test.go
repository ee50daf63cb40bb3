package query

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

func TestMatchEvents(t *testing.T) {
	ev := []byte(`{"seq":9,"type":"ACTION_RESULT","actor":"oracle-7","payload":{"status":"FAILED","n":3}}`)
	v, err := Event(ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		expr string
		want bool
	}{
		{`select(.type == "ACTION_RESULT")`, true},
		{`select(.type == "THOUGHT")`, false},
		{`.payload.status == "FAILED"`, true},
		{`.actor | test("oracle")`, true},
		{`.payload.n > 2`, true},
		{`.seq == 9`, true},
		{`.missing`, false},
		{`empty`, false},
		{`.payload`, true},
	} {
		q, err := Compile(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		got, err := q.Match(v)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got != c.want {
			t.Errorf("%s = %v, want %v", c.expr, got, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, bad := range []string{"", ".a ==", "select(", "nosuchfn(1)"} {
		if _, err := Compile(bad); err == nil {
			t.Errorf("Compile(%q) should fail", bad)
		}
	}
	q, _ := Compile(".a.b")
	if ok, err := q.Match(map[string]any{"a": "str"}); ok || err == nil || !strings.HasPrefix(err.Error(), "jq: ") {
		t.Errorf("run-time error: %v %v", ok, err)
	}
	q, _ = Compile("repeat(.)")
	if ok, _ := q.Match(1); ok != true {
		// repeat(.) outputs . first: true without running forever.
		t.Errorf("repeat(.) should match on its first output")
	}
}

func TestStateValue(t *testing.T) {
	st := model.Object{{Key: "at", Value: 3}, {Key: "pending", Value: []any{model.Object{{Key: "id", Value: "cp_1"}}}}, {Key: "n", Value: int64(7)}}
	q, _ := Compile(".pending | length > 0")
	if ok, err := q.Match(Value(st)); !ok || err != nil {
		t.Fatalf("pending length: %v %v", ok, err)
	}
	q, _ = Compile(".n == 7 and .at == 3")
	if ok, err := q.Match(Value(st)); !ok || err != nil {
		t.Fatalf("numbers: %v %v", ok, err)
	}
	// The strings of a Transient list (Delta Engine's messages) are
	// string literals of the journal, some boxed as pointers.
	lit := model.Literal(`"a\nb \u00e9"`)
	v := Value(model.Object{{Key: "s", Value: lit}, {Key: "p", Value: &lit}})
	if want := map[string]any{"s": "a\nb é", "p": "a\nb é"}; !reflect.DeepEqual(v, want) {
		t.Fatalf("literals: %#v, want %#v", v, want)
	}
}

func TestPath(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string
	}{
		{".items[3]", ".items[3]"},
		{".pending[0].prompt", ".pending[0].prompt"},
		{`."odd key".x`, `["odd key"].x`},
		{".", "."},
	} {
		p, err := Path(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if p.String() != c.want {
			t.Errorf("Path(%s) = %s, want %s", c.src, p, c.want)
		}
	}
	if p, _ := Path(".items[3].summary"); len(p) != 3 || p[1] != 3 {
		t.Errorf("elements: %#v", p)
	}
	_ = replay.Path{}
	for _, bad := range []string{".a,.b", ".[-1]", "1+", ".a | length"} {
		if _, err := Path(bad); err == nil {
			t.Errorf("Path(%q) should fail", bad)
		}
	}
}

// A Matcher gives Match's answers; an evaluation that runs past Timeout
// fails without hanging the caller, and the next one runs normally.
func TestMatcher(t *testing.T) {
	ev, err := Event([]byte(`{"seq":9,"type":"ACTION_RESULT","payload":{"status":"FAILED","n":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{`.type == "ACTION_RESULT"`, `.type == "THOUGHT"`, `.payload.n > 2`, `.a.b.c`, `empty`, `.payload`} {
		q, _ := Compile(src)
		m := q.Matcher()
		for range 3 {
			got, gerr := m.Match(ev)
			want, werr := q.Match(ev)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Errorf("%s: Matcher %v %v, Match %v %v", src, got, gerr, want, werr)
			}
		}
		m.Close()
	}
	q, _ := Compile(`if .loop then last(range(1e12)) else .ok end`)
	m := q.Matcher()
	defer m.Close()
	start := time.Now()
	if ok, err := m.Match(map[string]any{"loop": true}); ok || err == nil {
		t.Fatalf("a runaway evaluation gave %v, %v; want an error", ok, err)
	}
	if d := time.Since(start); d > 2*Timeout {
		t.Fatalf("the runaway evaluation was stopped after %v (Timeout %v)", d, Timeout)
	}
	if ok, err := m.Match(map[string]any{"ok": true}); !ok || err != nil {
		t.Fatalf("after a timeout: %v, %v; want a match", ok, err)
	}
}
