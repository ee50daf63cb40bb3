package durablestream

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/model"
)

var update = flag.Bool("update", false, "rewrite testdata/CHECKPOINTS.md")

func events(t *testing.T) []model.Event {
	t.Helper()
	raw, err := os.ReadFile("testdata/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	for i, l := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		evs = append(evs, model.Event{Pos: i + 1, Line: i + 1, Raw: append([]byte(nil), l...)})
	}
	return evs
}

func fold(evs []model.Event, n int) model.State {
	s := Format.Init()
	for _, ev := range evs[:n] {
		s = Format.Apply(s, ev)
	}
	return s
}

func view(t *testing.T, s model.State) map[string]any {
	t.Helper()
	raw, err := json.Marshal(s.View())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func ids(v map[string]any, key string) string {
	var out []string
	for _, x := range v[key].([]any) {
		out = append(out, x.(map[string]any)["id"].(string))
	}
	return strings.Join(out, ",")
}

const (
	cpDB     = "cp_1795400000400_q1w2e3"
	cpDrop   = "cp_1795400000500_r4t5y6"
	cpShip   = "cp_1795400000600_u7i8o9"
	inAudit  = "intent_1795400000200_k3j9x1"
	inLegacy = "ses_0f9e8d7c6b5a"
	inDocs   = "intent_1795400001700_p0o9i8"
)

func TestFold(t *testing.T) {
	evs := events(t)
	tests := []struct {
		at                       int
		pending, active, decided string
		finished                 int
		replayed                 int
		lastEventAt              int64
	}{
		{0, "", "", "", 0, 0, 0},
		{1, "", "", "", 0, 1, 1795400000100},
		{3, "", inAudit + "," + inLegacy, "", 0, 3, 1795400000300},
		{6, cpDB + "," + cpDrop + "," + cpShip, inAudit + "," + inLegacy, "", 0, 6, 1795400000600},
		{7, cpDrop + "," + cpShip, inAudit + "," + inLegacy, cpDB, 0, 7, 1795400000700},
		{8, cpShip, inAudit + "," + inLegacy, cpDB + "," + cpDrop, 0, 8, 1795400000800},
		{10, cpShip, "", cpDB + "," + cpDrop, 2, 10, 1795400001000},
		{18, cpShip, inDocs, cpDB + "," + cpDrop + ",cp_ghost", 2, 18, 1795400001800},
		{25, cpShip, inDocs, cpDB + "," + cpDrop + ",cp_ghost", 2, 21, 1795400002100},
		{26, cpShip, inDocs, cpDB + "," + cpDrop + ",cp_ghost", 2, 22, 1795400002600},
	}
	for _, tt := range tests {
		v := view(t, fold(evs, tt.at))
		if got := ids(v, "pending_checkpoints"); got != tt.pending {
			t.Errorf("at %d: pending %s, want %s", tt.at, got, tt.pending)
		}
		if got := ids(v, "active_intents"); got != tt.active {
			t.Errorf("at %d: active %s, want %s", tt.at, got, tt.active)
		}
		if got := ids(v, "decided_checkpoints"); got != tt.decided {
			t.Errorf("at %d: decided %s, want %s", tt.at, got, tt.decided)
		}
		if got := len(v["finished_intents"].([]any)); got != tt.finished {
			t.Errorf("at %d: %d finished, want %d", tt.at, got, tt.finished)
		}
		if got := int(v["events_replayed"].(float64)); got != tt.replayed {
			t.Errorf("at %d: events_replayed %d, want %d", tt.at, got, tt.replayed)
		}
		if got := int64(v["last_event_at"].(float64)); got != tt.lastEventAt {
			t.Errorf("at %d: last_event_at %d, want %d", tt.at, got, tt.lastEventAt)
		}
	}
}

func TestViewShape(t *testing.T) {
	evs := events(t)
	s := fold(evs, len(evs))
	o := s.View()
	var keys []string
	for _, f := range o {
		keys = append(keys, f.Key)
	}
	if got := strings.Join(keys, ","); got != "pending_checkpoints,active_intents,decided_checkpoints,finished_intents,ledger,sessions,events_replayed,last_event_at,counts" {
		t.Errorf("view keys %s", got)
	}
	js := func(v any) string {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	get := func(k string) any { v, _ := o.Get(k); return v }
	checks := []struct{ name, got, want string }{
		{"pending", js(get("pending_checkpoints")), `[{"id":"cp_1795400000600_u7i8o9","decision_point":"Ship the port on Friday?","options":[{"id":"ship","label":"Ship it"},{"id":"wait","label":"Wait for Monday","description":"Lower risk"}],"requested_by":"chief-of-staff","requested_at":1795400000600,"expires_at":1795400300600,"stream_id":"ses_a1b2c3d4e5f6","at":6}]`},
		{"active", js(get("active_intents")), `[{"id":"intent_1795400001700_p0o9i8","description":"Write the runbook","agent":"chief-of-staff/writer","prompt":"Write the runbook","parent_session_id":"","timeout_ms":null,"status":"running","created_at":1795400001700,"stream_id":"ses_a1b2c3d4e5f6","at":17}]`},
		{"decided", js(get("decided_checkpoints")), `[{"id":"cp_1795400000400_q1w2e3","decision_point":"Which database for the ledger?","approved":true,"by":"user","option":"postgres","reason":"","at":7,"decided_at":1795400000700,"matched":true},{"id":"cp_1795400000500_r4t5y6","decision_point":"Drop the legacy invoices table?","approved":false,"by":"user","option":"","reason":"Keep it one more release","at":8,"decided_at":1795400000800,"matched":true},{"id":"cp_ghost","decision_point":"","approved":true,"by":"user","option":"","reason":"","at":18,"decided_at":1795400001800,"matched":false}]`},
		{"finished", js(get("finished_intents")), `[{"id":"intent_1795400000200_k3j9x1","agent":"chief-of-staff/oracle","description":"Audit the billing API","status":"completed","result":"2 findings, both minor","error":"","duration":4200,"at":9,"finished_at":1795400000900},{"id":"ses_0f9e8d7c6b5a","agent":"chief-of-staff/executor","description":"Write the migration","status":"failed","result":"","error":"Tests failed: 3 failing","duration":null,"at":10,"finished_at":1795400001000}]`},
		{"ledger", js(get("ledger")), `{"epics":[{"id":"epic_1","title":"Billing port","status":"created","result":"","error":"","at":11}],"tasks":[{"id":"task_1","title":"Schema migration","epic_id":"epic_1","agent":"","status":"completed","result":"migrated 12 tables","error":"","at":13}],"directives":[{"content":"Never touch production data","at":14}],"assumptions":[],"learnings":[{"type":"pattern","content":"Run migrations in a transaction","at":20}],"handoffs":[{"status":"created","epic_id":"epic_1","reason":"context full","command":"/resume epic_1","files_modified":["db/schema.sql"],"whats_done":[],"whats_next":["verify invoices"],"key_context":[],"at":21}]}`},
		{"sessions", js(get("sessions")), `[{"id":"ses_a1b2c3d4e5f6","title":"Port the billing service","directory":"/home/dev/billing","status":"error","error":"{\"name\":\"APIError\",\"data\":{\"message\":\"rate limited\"}}","created_at":1795400000100,"updated_at":1795400002600,"at":1}]`},
		{"counts", js(get("counts")), `{"agent.completed":1,"agent.failed":1,"agent.spawned":3,"checkpoint.approved":2,"checkpoint.rejected":1,"checkpoint.requested":3,"execution.text_delta":2,"ledger.epic.created":1,"ledger.governance.directive_added":1,"ledger.handoff.created":1,"ledger.learning.extracted":1,"ledger.task.completed":1,"ledger.task.created":1,"lifecycle.session.created":1,"lifecycle.session.error":1,"lifecycle.session.idle":1}`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, c.got, c.want)
		}
	}
}

func TestImmutable(t *testing.T) {
	evs := events(t)
	s6 := fold(evs, 6)
	before, _ := json.Marshal(s6.View())
	s := s6
	for _, ev := range evs[6:] {
		s = Format.Apply(s, ev)
	}
	after, _ := json.Marshal(s6.View())
	if !bytes.Equal(before, after) {
		t.Fatal("Apply modified an earlier state")
	}
	if len(s6.Pending()) != 3 || len(s.Pending()) != 1 {
		t.Errorf("pending %d then %d", len(s6.Pending()), len(s.Pending()))
	}
	for _, i := range []int{22, 23, 24, 25} {
		if got := Format.Apply(s, evs[i-1]); got != s {
			t.Errorf("line %d changed the state", i)
		}
	}
}

func TestPending(t *testing.T) {
	evs := events(t)
	p := fold(evs, 6).Pending()
	if len(p) != 3 {
		t.Fatalf("%d pending", len(p))
	}
	raw, _ := json.Marshal(p[0])
	want := `{"id":"cp_1795400000400_q1w2e3","kind":"checkpoint","prompt":"Which database for the ledger?","options":[{"id":"postgres","label":"PostgreSQL"},{"id":"sqlite","label":"SQLite"}],"requested_at":"2026-11-23T02:13:20.400Z","requested_by":"chief-of-staff","at":4}`
	if string(raw) != want {
		t.Errorf("pending[0] = %s\nwant %s", raw, want)
	}
	if p[1].ID != cpDrop || p[2].ID != cpShip || p[2].At != 6 {
		t.Errorf("order %+v", p)
	}
	if got := fold(evs, len(evs)).Pending(); len(got) != 1 || got[0].ID != cpShip {
		t.Errorf("final pending %+v", got)
	}
	o := model.StateJSON(Format, fold(evs, 0), 0)
	raw, _ = json.Marshal(o)
	if !strings.HasPrefix(string(raw), `{"format":"durable-stream","at":0,"pending":[],"pending_checkpoints":[],`) {
		t.Errorf("StateJSON = %s", raw)
	}
}

func TestVerdict(t *testing.T) {
	evs := events(t)
	d := Format.(model.Decider)
	s := fold(evs, len(evs))
	tests := []struct {
		id   string
		ok   bool
		want model.Verdict
	}{
		{cpDB, true, model.Verdict{ID: cpDB, Approved: true, By: "user", Option: "postgres", At: 7}},
		{cpDrop, true, model.Verdict{ID: cpDrop, Approved: false, By: "user", Reason: "Keep it one more release", At: 8}},
		{cpShip, false, model.Verdict{}},
		{"cp_ghost", false, model.Verdict{}},
	}
	for _, tt := range tests {
		got, ok := d.Verdict(s, tt.id)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Verdict(%s) = %+v, %v", tt.id, got, ok)
		}
	}
	if _, ok := d.Verdict(fold(evs, 6), cpDB); ok {
		t.Error("verdict before the decision")
	}
}

var idRE = regexp.MustCompile(`^[0-9a-z]{9}_[0-9a-f]{16}$`)

func TestDecisionRecord(t *testing.T) {
	evs := events(t)
	dec := Format.(model.Decider)
	s := fold(evs, 6)
	p := s.Pending()
	now := time.UnixMilli(1795400009999)
	corr := CorrelationID()
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(corr) || CorrelationID() != corr {
		t.Fatalf("correlation id %q", corr)
	}
	tests := []struct {
		p       model.Pending
		d       model.Decision
		prefix  string
		payload string
	}{
		{p[0], model.Decision{ID: cpDB, Approve: true, Option: "sqlite", By: "alice", Now: now},
			`{"type":"checkpoint.approved","stream_id":"` + corr + `","correlation_id":"` + corr + `","actor":"alice","payload":`,
			`{"checkpoint_id":"cp_1795400000400_q1w2e3","approved_by":"alice","selected_option":"sqlite"}`},
		{p[0], model.Decision{ID: cpDB, Approve: true, By: "alice", Now: now},
			`{"type":"checkpoint.approved","stream_id":"` + corr + `","correlation_id":"` + corr + `","actor":"alice","payload":`,
			`{"checkpoint_id":"cp_1795400000400_q1w2e3","approved_by":"alice"}`},
		{p[1], model.Decision{ID: cpDrop, Reason: "not <yet> & later", By: "bob", Now: now},
			`{"type":"checkpoint.rejected","stream_id":"` + corr + `","correlation_id":"` + corr + `","actor":"bob","payload":`,
			`{"checkpoint_id":"cp_1795400000500_r4t5y6","rejected_by":"bob","reason":"not <yet> & later"}`},
		{p[2], model.Decision{ID: cpShip, By: "bob", Now: now},
			`{"type":"checkpoint.rejected","stream_id":"` + corr + `","correlation_id":"` + corr + `","actor":"bob","payload":`,
			`{"checkpoint_id":"cp_1795400000600_u7i8o9","rejected_by":"bob"}`},
	}
	for _, tt := range tests {
		raw, err := dec.DecisionRecord(s, tt.p, tt.d)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(raw, "\n") {
			t.Errorf("record has a newline: %s", raw)
		}
		if !bytes.HasPrefix(raw, []byte(tt.prefix+tt.payload+`,"id":"`)) {
			t.Errorf("record %s\nwant prefix %s", raw, tt.prefix+tt.payload)
		}
		// Parse it back as an event, fold it, and check the verdict.
		var e struct {
			Type, ID  string
			Timestamp int64
			Payload   map[string]any
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if !idRE.MatchString(e.ID) || !strings.HasPrefix(e.ID, "0mwsmt5vz_") {
			t.Errorf("id %q", e.ID)
		}
		if e.Timestamp != 1795400009999 {
			t.Errorf("timestamp %d", e.Timestamp)
		}
		if !Sniff(raw) {
			t.Errorf("record not sniffed: %s", raw)
		}
		ns := Format.Apply(s, model.Event{Pos: 99, Raw: raw})
		v, ok := dec.Verdict(ns, tt.p.ID)
		if !ok || v.Approved != tt.d.Approve || v.By != tt.d.By || v.Option != tt.d.Option || v.Reason != tt.d.Reason || v.At != 99 {
			t.Errorf("verdict after record: %+v %v", v, ok)
		}
		if len(ns.Pending()) != 2 {
			t.Errorf("pending after record: %d", len(ns.Pending()))
		}
	}
	if _, err := dec.DecisionRecord(s, p[0], model.Decision{ID: cpDB, Approve: true, Option: "mongo", By: "a", Now: now}); err == nil {
		t.Error("approving with an option not offered should fail")
	}
	if _, err := dec.DecisionRecord(fold(evs, 7), p[0], model.Decision{ID: cpDB, Approve: true, By: "a", Now: now}); !errors.Is(err, ErrNotPending) {
		t.Errorf("deciding a decided checkpoint: %v", err)
	}
	raw, err := dec.DecisionRecord(s, p[0], model.Decision{ID: cpDB, Approve: true, Now: now})
	if err != nil || !strings.Contains(string(raw), `"actor":"user","payload":{"checkpoint_id":"cp_1795400000400_q1w2e3","approved_by":"user"}`) {
		t.Errorf("default actor: %s %v", raw, err)
	}
	if got := EventID(time.UnixMilli(0)); !strings.HasPrefix(got, "000000000_") || !idRE.MatchString(got) {
		t.Errorf("EventID(0) = %s", got)
	}
}

func TestDescribe(t *testing.T) {
	evs := events(t)
	tests := []struct {
		line                int
		typ, actor, summary string
		problem             bool
	}{
		{1, "lifecycle.session.created", "system", "ses_a1b2c3d4e5f6: Port the billing service", false},
		{2, "agent.spawned", "orchestrator", "chief-of-staff/oracle: Audit the billing API", false},
		{3, "agent.spawned", "orchestrator", "chief-of-staff/executor: Write the migration", false},
		{4, "checkpoint.requested", "chief-of-staff", "Which database for the ledger?", false},
		{7, "checkpoint.approved", "user", "cp_1795400000400_q1w2e3 by user: postgres", false},
		{8, "checkpoint.rejected", "user", "cp_1795400000500_r4t5y6 by user: Keep it one more release", false},
		{9, "agent.completed", "orchestrator", "2 findings, both minor", false},
		{10, "agent.failed", "orchestrator", "Tests failed: 3 failing", true},
		{11, "ledger.epic.created", "ledger", "epic_1: Billing port", false},
		{12, "ledger.task.created", "ledger", "task_1: Schema migration", false},
		{14, "ledger.governance.directive_added", "ledger", "Never touch production data", false},
		{15, "execution.text_delta", "system", "Hel", false},
		{18, "checkpoint.approved", "user", "cp_ghost by user", false},
		{19, "lifecycle.session.idle", "system", "{}", false},
		{22, "", "a", "{}", false},
		{23, "checkpoint.requested", "a", "", false},
		{26, "lifecycle.session.error", "system", `{"name":"APIError","data":{"message":"rate limited"}}`, true},
	}
	for _, tt := range tests {
		ev := evs[tt.line-1]
		r := Format.Describe(ev)
		if r.Type != tt.typ || r.Actor != tt.actor || r.Summary != tt.summary || r.Problem != tt.problem {
			t.Errorf("line %d: %+v", tt.line, r)
		}
	}
	r := Format.Describe(evs[0])
	if r.Key != "0mwsmsy90_356a192b7913b04c" || model.FormatTime(r.Time) != "2026-11-23T02:13:20.100Z" {
		t.Errorf("key/time %q %s", r.Key, model.FormatTime(r.Time))
	}
	long := `{"id":"e1","type":"files.other","stream_id":"s","correlation_id":"c","actor":"a","timestamp":1,"payload":{"x":"` + strings.Repeat("é", 500) + `"}}`
	if got := Format.Describe(model.Event{Raw: []byte(long)}).Summary; len([]rune(got)) != 200 || !strings.HasSuffix(got, "…") {
		t.Errorf("long summary has %d runes", len([]rune(got)))
	}
}

func TestRender(t *testing.T) {
	evs := events(t)
	got := Format.Render(fold(evs, len(evs)), DocCheckpoints)
	if *update {
		if err := os.WriteFile("testdata/CHECKPOINTS.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/CHECKPOINTS.md")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("CHECKPOINTS:\n%s\nwant:\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if n := len([]rune(l)); n > 64 {
			t.Errorf("line of %d runes: %s", n, l)
		}
	}
	empty := Format.Render(Format.Init(), DocCheckpoints)
	if want := "# Durable Stream\n\n> Events: 0 | Pending: 0 | Active intents: 0\n\n## Pending checkpoints\n\nNone.\n\n## Active intents\n\nNone.\n\n## Ledger\n\nNone.\n\n## Recently decided\n\nNone.\n"; empty != want {
		t.Errorf("empty:\n%q\nwant\n%q", empty, want)
	}
	if Format.Render(Format.Init(), "NOPE") != "" || Format.Render(nil, DocCheckpoints) != "" {
		t.Error("unknown doc or state should render empty")
	}
}

func TestSniff(t *testing.T) {
	evs := events(t)
	for _, i := range []int{1, 3, 10, 12, 26} {
		if !Sniff(evs[i-1].Raw) {
			t.Errorf("line %d not sniffed", i)
		}
	}
	for _, l := range []string{
		string(evs[21].Raw), string(evs[23].Raw),
		`{"type":"accepted","seq":1,"timestamp":"x","delta":{}}`,
		`{"seq":1,"timestamp":"2026-01-01T00:00:00Z","type":"RUN_START","payload":{}}`,
		`{"id":"x","type":"Agent.Spawned","stream_id":"s","correlation_id":"c","actor":"a","timestamp":1,"payload":{}}`,
		`[]`, `nope`,
	} {
		if Sniff([]byte(l)) {
			t.Errorf("sniffed %s", l)
		}
	}
}

func TestHostile(t *testing.T) {
	lines := []string{
		`{}`, `[]`, `null`, `7`, `"x"`, ``, `{"type":"agent.spawned"}`,
		`{"type":"agent.spawned","timestamp":1,"payload":{"id":7}}`,
		`{"type":"agent.spawned","timestamp":1e400,"payload":{"id":"a"}}`,
		`{"type":"agent.spawned","timestamp":1.5,"payload":{"id":"a"}}`,
		`{"type":"agent.completed","timestamp":1,"payload":{"intent_id":"a","result":{"deep":[1,2,{"x":null}]}}}`,
		`{"type":"checkpoint.requested","timestamp":1,"payload":{"options":[{"id":1}]}}`,
		`{"type":"checkpoint.requested","timestamp":1,"payload":{"id":"c","options":null,"requested_at":-5}}`,
		`{"type":"checkpoint.approved","timestamp":1,"payload":{"checkpoint_id":["c"]}}`,
		`{"type":"checkpoint.approved","timestamp":1,"payload":{"checkpoint_id":"c","approved_by":"u","selected_option":"\u001b[2J"}}`,
		`{"type":"ledger.task.created","timestamp":1,"payload":{"taskId":"t","handoffWhatsNext":"x"}}`,
		`{"type":"ledger.","timestamp":1,"payload":{}}`,
		`{"type":"lifecycle.session.error","timestamp":1,"payload":{"error":"\ud800"}}`,
		`{"type":"x","type":"agent.failed","timestamp":1,"payload":{"intent_id":"a","error":5}}`,
		`{"type":"execution.text_delta","timestamp":1,"payload":{"delta":{"not":"text"}}}`,
	}
	s := Format.Init()
	for _, l := range lines {
		ev := model.Event{Pos: 1, Raw: []byte(l)}
		s = Format.Apply(s, ev)
		_ = Format.Describe(ev)
		_ = Sniff(ev.Raw)
		_ = Format.Render(s, DocCheckpoints)
		_ = s.Pending()
		if _, err := json.Marshal(s.View()); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
	v := view(t, s)
	if got := v["events_replayed"].(float64); got != 7 {
		t.Errorf("events_replayed = %v", got)
	}
}
