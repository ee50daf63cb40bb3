package generic

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func readEvents(t *testing.T, path string) []model.Event {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	for i, l := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			evs = append(evs, model.Event{Pos: len(evs) + 1, Line: i + 1, Raw: l})
		}
	}
	return evs
}

func fold(evs []model.Event) model.State {
	s := Format.Init()
	for _, ev := range evs {
		s = Format.Apply(s, ev)
	}
	return s
}

func compact(t *testing.T, v any) string {
	t.Helper()
	raw, err := model.Indent(v)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func view(t *testing.T, s model.State, key string) string {
	t.Helper()
	v, ok := s.View().Get(key)
	if !ok {
		t.Fatalf("no %q in view", key)
	}
	return compact(t, v)
}

func ids(p []model.Pending) []string {
	var out []string
	for _, it := range p {
		out = append(out, it.Kind+":"+it.ID)
	}
	return out
}

func TestFoldPositions(t *testing.T) {
	evs := readEvents(t, "testdata/approvals.jsonl")
	tests := []struct {
		at      int
		pending []string
		counts  string
		events  string
	}{
		{0, nil, `{}`, `0`},
		{2, nil, `{"build.started":1,"build.finished":1}`, `2`},
		{3, []string{"deploy:dep_812_prod"}, `{"build.started":1,"build.finished":1,"deploy.requested":1}`, `3`},
		{4, []string{"deploy:dep_812_prod", "deploy:dep_812_staging"}, `{"build.started":1,"build.finished":1,"deploy.requested":2}`, `4`},
		{5, []string{"deploy:dep_812_prod"}, `{"build.started":1,"build.finished":1,"deploy.requested":2,"deploy.approved":1}`, `5`},
		{6, []string{"deploy:dep_812_prod", "migration:mig_44"}, `{"build.started":1,"build.finished":1,"deploy.requested":2,"deploy.approved":1,"migration.requested":1}`, `6`},
		{8, []string{"deploy:dep_812_prod"}, `{"build.started":1,"build.finished":1,"deploy.requested":2,"deploy.approved":1,"migration.requested":1,"migration.rejected":1,"deploy.error":1}`, `8`},
	}
	for _, tt := range tests {
		s := fold(evs[:tt.at])
		if got := ids(s.Pending()); !slices.Equal(got, tt.pending) {
			t.Errorf("at %d: pending = %v, want %v", tt.at, got, tt.pending)
		}
		if got := view(t, s, "counts"); got != tt.counts {
			t.Errorf("at %d: counts = %s, want %s", tt.at, got, tt.counts)
		}
		if got := view(t, s, "events"); got != tt.events {
			t.Errorf("at %d: events = %s", tt.at, got)
		}
	}
	s := fold(evs)
	var keys []string
	for _, f := range model.StateJSON(Format, s, len(evs)) {
		keys = append(keys, f.Key)
	}
	if want := []string{"format", "at", "pending", "counts", "last", "events", "decisions"}; !slices.Equal(keys, want) {
		t.Errorf("keys = %v, want %v", keys, want)
	}
	if got, want := view(t, s, "last"), `"deploy.requested":{"seq":4,"id":"evt_7c1f0a2e","type":"deploy.requested","timestamp":"2026-11-21T10:01:15.000Z","actor":"release-bot","payload":{"id":"dep_812_staging","question":"Deploy build #812 to staging?"}}`; !strings.Contains(got, want) {
		t.Errorf("last = %s", got)
	}
	if got, want := view(t, s, "decisions"), `[{"id":"dep_812_staging","approved":true,"by":"dana","at":5},{"id":"mig_44","approved":false,"by":"sam","reason":"Wait for the export","at":7}]`; got != want {
		t.Errorf("decisions = %s, want %s", got, want)
	}
}

func TestPendingFields(t *testing.T) {
	evs := readEvents(t, "testdata/approvals.jsonl")
	tests := []struct {
		at   int
		want model.Pending
	}{
		{3, model.Pending{ID: "dep_812_prod", Kind: "deploy", Prompt: "Deploy build #812 to production?",
			Options:     []model.Option{{ID: "now", Label: "Deploy now"}, {ID: "tonight", Label: "Deploy at 22:00"}},
			RequestedAt: "2026-11-21T10:01:14.000Z", RequestedBy: "release-bot", At: 3}},
		{4, model.Pending{ID: "dep_812_staging", Kind: "deploy", Prompt: "Deploy build #812 to staging?", Options: []model.Option{},
			RequestedAt: "2026-11-21T10:01:15.000Z", RequestedBy: "release-bot", At: 4}},
		{6, model.Pending{ID: "mig_44", Kind: "migration", Prompt: "Drop the legacy column users.fax", Options: []model.Option{},
			RequestedAt: "2026-11-21T10:03:00.000Z", RequestedBy: "schema-agent", At: 6}},
	}
	for _, tt := range tests {
		p := fold(evs[:tt.at]).Pending()
		got := p[len(p)-1]
		if compact(t, got.Object()) != compact(t, tt.want.Object()) {
			t.Errorf("at %d: pending =\n%+v\nwant\n%+v", tt.at, got, tt.want)
		}
	}
	cp := fold(readEvents(t, "testdata/checkpoints.jsonl")).Pending()
	want := model.Pending{ID: "cp_1795300146810_k2m9xq", Kind: "checkpoint", Prompt: "Keep the v1 API during the migration?",
		Options:     []model.Option{{ID: "keep", Label: "Keep v1"}, {ID: "drop", Label: "Drop v1"}},
		RequestedAt: "2026-11-21T22:29:06.810Z", RequestedBy: "planner", At: 1}
	if len(cp) != 1 || compact(t, cp[0].Object()) != compact(t, want.Object()) {
		t.Errorf("checkpoint pending = %+v", cp)
	}
}

func TestVerdict(t *testing.T) {
	s := fold(readEvents(t, "testdata/approvals.jsonl"))
	d := Format.(model.Decider)
	tests := []struct {
		id   string
		want model.Verdict
		ok   bool
	}{
		{"dep_812_staging", model.Verdict{ID: "dep_812_staging", Approved: true, By: "dana", At: 5}, true},
		{"mig_44", model.Verdict{ID: "mig_44", By: "sam", Reason: "Wait for the export", At: 7}, true},
		{"dep_812_prod", model.Verdict{}, false},
	}
	for _, tt := range tests {
		got, ok := d.Verdict(s, tt.id)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Verdict(%s) = %+v, %v; want %+v, %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
}

var (
	hex16   = regexp.MustCompile(`"id":"[0-9a-f]{16}"`)
	durable = regexp.MustCompile(`"id":"[0-9a-z]{9}_[0-9a-f]{16}"`)
)

func TestDecisionRecord(t *testing.T) {
	d := Format.(model.Decider)
	now := time.Date(2026, 11, 21, 10, 30, 0, 123e6, time.UTC)
	approvals := readEvents(t, "testdata/approvals.jsonl")
	s := fold(approvals)
	prod := s.Pending()[0]

	rec, err := d.DecisionRecord(s, prod, model.Decision{ID: prod.ID, Approve: true, Option: "tonight", By: "lee", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	got := hex16.ReplaceAllString(string(rec), `"id":"X"`)
	want := `{"seq":9,"id":"X","type":"deploy.approved","timestamp":"2026-11-21T10:30:00.123Z","actor":"lee","payload":{"deploy_id":"dep_812_prod","approved_by":"lee","selected_option":"tonight"}}`
	if got != want {
		t.Errorf("approve record =\n%s\nwant\n%s", got, want)
	}
	// Appending it decides the item.
	s2 := Format.Apply(s, model.Event{Pos: 9, Raw: rec})
	if len(s2.Pending()) != 0 {
		t.Errorf("still pending after the record: %+v", s2.Pending())
	}
	if v, ok := d.Verdict(s2, prod.ID); !ok || !v.Approved || v.Option != "tonight" || v.By != "lee" || v.At != 9 {
		t.Errorf("verdict = %+v, %v", v, ok)
	}

	rec, err = d.DecisionRecord(s, prod, model.Decision{ID: prod.ID, Reason: "freeze week", By: "lee", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	got = hex16.ReplaceAllString(string(rec), `"id":"X"`)
	want = `{"seq":9,"id":"X","type":"deploy.rejected","timestamp":"2026-11-21T10:30:00.123Z","actor":"lee","payload":{"deploy_id":"dep_812_prod","rejected_by":"lee","reason":"freeze week"}}`
	if got != want {
		t.Errorf("reject record =\n%s\nwant\n%s", got, want)
	}

	// Durable-Stream-like envelope: ms timestamp, key order, id style.
	cs := fold(readEvents(t, "testdata/checkpoints.jsonl"))
	cp := cs.Pending()[0]
	rec, err = d.DecisionRecord(cs, cp, model.Decision{ID: cp.ID, Approve: true, Option: "keep", By: "user", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !durable.Match(rec) {
		t.Errorf("id not in the request's style: %s", rec)
	}
	got = durable.ReplaceAllString(string(rec), `"id":"X"`)
	want = `{"type":"checkpoint.approved","stream_id":"ses_7d2e4f6a8b1c","correlation_id":"3b5d7f9a1c2e4f60","actor":"user","payload":{"checkpoint_id":"cp_1795300146810_k2m9xq","approved_by":"user","selected_option":"keep"},"id":"X","timestamp":1795257000123}`
	if got != want {
		t.Errorf("checkpoint record =\n%s\nwant\n%s", got, want)
	}
	if s3 := Format.Apply(cs, model.Event{Pos: 3, Raw: rec}); len(s3.Pending()) != 0 {
		t.Errorf("checkpoint still pending: %+v", s3.Pending())
	}

	// Unknown request line: a minimal envelope.
	rec, err = d.DecisionRecord(Format.Init(), model.Pending{ID: "r1", Kind: "ledger.task"}, model.Decision{Approve: true, By: "me", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"ledger.task.approved","timestamp":"2026-11-21T10:30:00.123Z","payload":{"task_id":"r1","approved_by":"me"}}`; string(rec) != want {
		t.Errorf("minimal record = %s, want %s", rec, want)
	}
	if _, err := d.DecisionRecord(s, model.Pending{}, model.Decision{}); err == nil {
		t.Error("no error for an empty pending item")
	}
}

func TestDescribe(t *testing.T) {
	a := readEvents(t, "testdata/approvals.jsonl")
	u := readEvents(t, "testdata/unknown.jsonl")
	c := readEvents(t, "testdata/checkpoints.jsonl")
	iso := func(s string) time.Time { return model.ParseTime(s) }
	tests := []struct {
		ev   model.Event
		want model.Row
	}{
		{a[0], model.Row{Key: "1", Type: "build.started", Actor: "ci", Summary: "Build #812 started", Time: iso("2026-11-21T10:00:00Z")}},
		{a[2], model.Row{Key: "3", Type: "deploy.requested", Actor: "release-bot", Summary: "Deploy build #812 to production?", Time: iso("2026-11-21T10:01:14Z")}},
		{a[5], model.Row{Key: "6", Type: "migration.requested", Actor: "schema-agent", Summary: `{"id":"mig_44","title":"Drop the legacy column users.fax","requested_at":1795255380000}`, Time: iso("2026-11-21T10:03:00Z")}},
		{a[7], model.Row{Key: "8", Type: "deploy.error", Actor: "release-bot", Summary: "staging health check failed", Time: iso("2026-11-21T10:05:00Z"), Problem: true}},
		{c[0], model.Row{Key: "0mwqzcqyi_9c41d2e7a0b3f685", Type: "checkpoint.requested", Actor: "planner", Summary: "Keep the v1 API during the migration?", Time: model.MillisTime(1795300146810)}},
		{c[1], model.Row{Key: "0mwqzcqyk_1e2d3c4b5a697887", Type: "agent.failed", Actor: "orchestrator", Summary: `{"intent_id":"intent_1795300146798_p3n8vz","error":"timeout after 600000 ms"}`, Time: model.MillisTime(1795300146812), Problem: true}},
		{u[0], model.Row{Type: "message", Actor: "user", Summary: "Find the TODOs in src/", Time: time.Unix(1795300146, 0).UTC()}},
		{u[1], model.Row{Type: "message", Actor: "assistant", Summary: "Searching… this may take a moment", Time: time.UnixMilli(1795300147500).UTC()}},
		{u[2], model.Row{Type: "tool_call", Summary: `{"type":"tool_call","name":"grep","args":{"pattern":"TODO","path":"src/"},"time":"2026-11-21T22:29:07+00:00"}`, Time: iso("2026-11-21T22:29:07Z")}},
		{u[4], model.Row{Type: "log", Summary: "disk quota nearly full", Problem: true}},
	}
	for _, tt := range tests {
		got := Format.Describe(tt.ev)
		if !got.Time.Equal(tt.want.Time) {
			t.Errorf("line %d: time = %v, want %v", tt.ev.Line, got.Time, tt.want.Time)
		}
		got.Time, tt.want.Time = time.Time{}, time.Time{}
		if got != tt.want {
			t.Errorf("Describe(line %d) =\n%+v\nwant\n%+v", tt.ev.Line, got, tt.want)
		}
	}
	long := `{"type":"blob","payload":{"data":"` + strings.Repeat("x", 500) + `"}}`
	if got := Format.Describe(model.Event{Raw: []byte(long)}).Summary; len([]rune(got)) != maxSummary || !strings.HasSuffix(got, "…") {
		t.Errorf("long summary not cut: %d runes", len([]rune(got)))
	}
}

func TestUnknownJournal(t *testing.T) {
	s := fold(readEvents(t, "testdata/unknown.jsonl"))
	if got, want := view(t, s, "counts"), `{"message":3,"tool_call":1,"tool_result":1,"log":1,"usage":1}`; got != want {
		t.Errorf("counts = %s, want %s", got, want)
	}
	if got := view(t, s, "events"); got != "7" {
		t.Errorf("events = %s", got)
	}
	if got := view(t, s, "last"); !strings.Contains(got, `"message":{"type":"message","role":"assistant","content":"Found 2 TODOs."}`) {
		t.Errorf("last = %s", got)
	}
	if len(s.Pending()) != 0 {
		t.Errorf("pending = %+v", s.Pending())
	}
}

func TestSniff(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"type":"x"}`: true,
		`{"seq":1,"type":"THOUGHT","payload":{}}`: true,
		`{"type":""}`:    false,
		`{"type":1}`:     false,
		`{"kind":"x"}`:   false,
		`[{"type":"x"}]`: false,
		`null`:           false,
		`{"type":`:       false,
	} {
		if got := Sniff([]byte(raw)); got != want {
			t.Errorf("Sniff(%s) = %v, want %v", raw, got, want)
		}
	}
}

func TestHostile(t *testing.T) {
	s := Format.Init()
	for _, ev := range readEvents(t, "testdata/hostile.jsonl") {
		before := compact(t, model.StateJSON(Format, s, 0))
		next := Format.Apply(s, ev)
		_ = Format.Describe(ev)
		_ = Format.Render(next, Doc)
		for _, p := range next.Pending() {
			if _, err := Format.(model.Decider).DecisionRecord(next, p, model.Decision{Approve: true, By: "x"}); err != nil {
				t.Errorf("DecisionRecord: %v", err)
			}
		}
		if compact(t, model.StateJSON(Format, s, 0)) != before {
			t.Fatalf("line %d modified the state passed in", ev.Line)
		}
		s = next
	}
	// Only well-formed requests count: ok1 (prompt of the wrong type, some
	// options of the wrong shape) and y's top-level id 9.
	got := s.Pending()
	if !slices.Equal(ids(got), []string{"x:ok1", "y:9"}) {
		t.Fatalf("pending = %+v", got)
	}
	if want := `{"id":"ok1","kind":"x","prompt":"","options":[{"id":"2","label":"2"},{"id":"o","label":"o"}],"requested_at":"","requested_by":"","at":3}`; compact(t, got[0].Object()) != want {
		t.Errorf("ok1 = %s", compact(t, got[0].Object()))
	}
	if _, ok := Format.(model.Decider).Verdict(s, "7"); !ok {
		t.Error("numeric request_id not read as an id")
	}
	if Format.Apply(nil, model.Event{Raw: []byte(`null`)}) == nil {
		t.Error("Apply(nil) = nil")
	}
	if _, ok := Format.(model.Decider).Verdict(nil, "x"); ok {
		t.Error("Verdict(nil) found something")
	}
}

func TestImmutability(t *testing.T) {
	evs := readEvents(t, "testdata/approvals.jsonl")
	states := []model.State{Format.Init()}
	var views []string
	for i, ev := range evs {
		views = append(views, compact(t, model.StateJSON(Format, states[i], i)))
		states = append(states, Format.Apply(states[i], ev))
	}
	for i := range views {
		if got := compact(t, model.StateJSON(Format, states[i], i)); got != views[i] {
			t.Errorf("state %d changed:\n%s\nwas\n%s", i, got, views[i])
		}
	}
}

func TestRender(t *testing.T) {
	tests := []struct{ golden, journal string }{
		{"summary-approvals.md", "testdata/approvals.jsonl"},
		{"summary-unknown.md", "testdata/unknown.jsonl"},
	}
	for _, tt := range tests {
		got := Format.Render(fold(readEvents(t, tt.journal)), Doc)
		path := filepath.Join("testdata", tt.golden)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: Render =\n%s\nwant\n%s", tt.golden, got, want)
		}
	}
	got := Format.Render(fold(readEvents(t, "testdata/approvals.jsonl")), Doc)
	if !strings.HasPrefix(got, "> **Waiting for you:** Deploy build #812 to production?\n") {
		t.Errorf("render does not start with the question:\n%s", got)
	}
	if Format.Render(Format.Init(), "OTHER") != "" || Format.Render(nil, Doc) != "" {
		t.Error("rendered an unknown doc or state")
	}
	if !slices.Equal(Format.Docs(), []string{"SUMMARY"}) || Format.Name() != "generic" {
		t.Error("Docs or Name")
	}
}

// TestSharing checks that Apply does not copy the state's collections.
func TestSharing(t *testing.T) {
	s := Format.Init()
	for i := 1; i <= 5000; i++ {
		raw := `{"type":"t` + model.Itoa(int64(i%500)) + `.requested","payload":{"id":"r` + model.Itoa(int64(i)) + `"}}`
		s = Format.Apply(s, model.Event{Pos: i, Raw: []byte(raw)})
	}
	ev := model.Event{Pos: 5001, Raw: []byte(`{"type":"t1.requested","payload":{"id":"new"}}`)}
	if n := testing.AllocsPerRun(100, func() { _ = Format.Apply(s, ev) }); n > 100 {
		t.Errorf("Apply on a 5000-event state: %v allocations", n)
	}
}
