package deltamind

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/model"
)

// events reads a JSONL fixture; every line of the fixtures is a JSON value,
// so Pos equals the line number.
func events(t *testing.T, name string) []model.Event {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	var off int64
	for i, l := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		evs = append(evs, model.Event{Pos: i + 1, Line: i + 1, Off: off, Raw: append([]byte(nil), l...)})
		off += int64(len(l)) + 1
	}
	return evs
}

// fold applies the first n events.
func fold(f model.Format, evs []model.Event, n int) model.State {
	s := f.Init()
	for _, ev := range evs[:n] {
		s = f.Apply(s, ev)
	}
	return s
}

func viewJSON(t *testing.T, s model.State) map[string]any {
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

func itemByID(t *testing.T, v map[string]any, id string) map[string]any {
	t.Helper()
	for _, it := range v["items"].([]any) {
		if m := it.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("item %s not found", id)
	return nil
}

func itemIDs(v map[string]any) string {
	var ids []string
	for _, it := range v["items"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return strings.Join(ids, ",")
}

func TestFoldPositions(t *testing.T) {
	evs := events(t, "coverage.jsonl")
	tests := []struct {
		at                 int
		seq, rejected, dis int
		ids                string
		checkpoint         bool
		item, field, want  string
	}{
		{0, 0, 0, 0, "", false, "", "", ""},
		{1, 1, 0, 0, "g-1", false, "g-1", "status", "active"},
		{6, 6, 0, 0, "g-1,d-2,c-3,c-4,task-5,task-6", false, "d-2", "confidence", "medium"},
		{15, 6, 9, 0, "g-1,d-2,c-3,c-4,task-5,task-6", false, "c-3", "confidence", "certain"},
		{16, 7, 9, 0, "g-1,d-2,c-3,c-4,task-5,task-6", false, "d-2", "summary", "use Go and Bubble Tea for the TUI"},
		{18, 9, 9, 0, "g-1,d-2,c-3,c-4,task-5,task-6", false, "task-5", "summary", "write the fold → fold replays the dogfood journal"},
		{19, 9, 9, 0, "g-1,d-2,c-3,c-4,task-5,task-6", true, "task-5", "status", "resolved"},
		{22, 12, 9, 0, "g-1,d-2,c-3,c-4,task-5,task-6,f-10,h-11,b-12", true, "b-12", "summary", "bubbletea | tview"},
		{24, 14, 9, 0, "g-1,d-2,c-3,c-4,task-5,task-6,f-10,h-11,b-12,d-13", true, "d-13", "status", "superseded"},
		{25, 15, 9, 0, "g-1,d-2,c-3,c-4,task-5,task-6,f-10,h-11,b-12,d-13", true, "d-2", "semanticId", "d-8411793d"},
		{28, 17, 9, 1, "g-1,d-2,c-3,c-4,task-5,task-6,f-10,h-11,b-12,d-13", true, "task-6", "summary", "write the renderer"},
		{34, 17, 9, 1, "g-1,d-2,c-3,c-4,task-5,task-6,f-10,h-11,b-12,d-13", true, "c-4", "status", "superseded"},
	}
	for _, tt := range tests {
		s := fold(Format, evs, tt.at)
		v := viewJSON(t, s)
		if got := int(v["seq"].(float64)); got != tt.seq {
			t.Errorf("at %d: seq = %d, want %d", tt.at, got, tt.seq)
		}
		if got := int(v["deltas"].(float64)); got != tt.seq {
			t.Errorf("at %d: deltas = %d, want %d", tt.at, got, tt.seq)
		}
		if got := len(v["rejected"].([]any)); got != tt.rejected {
			t.Errorf("at %d: %d rejected, want %d", tt.at, got, tt.rejected)
		}
		if got := len(v["disagreements"].([]any)); got != tt.dis {
			t.Errorf("at %d: %d disagreements, want %d", tt.at, got, tt.dis)
		}
		if got := itemIDs(v); got != tt.ids {
			t.Errorf("at %d: items %s, want %s", tt.at, got, tt.ids)
		}
		if got := v["checkpoint"] != nil; got != tt.checkpoint {
			t.Errorf("at %d: checkpoint present = %v, want %v", tt.at, got, tt.checkpoint)
		}
		if tt.item != "" {
			if got := itemByID(t, v, tt.item)[tt.field]; got != tt.want {
				t.Errorf("at %d: %s.%s = %v, want %q", tt.at, tt.item, tt.field, got, tt.want)
			}
		}
		if len(s.Pending()) != 0 {
			t.Errorf("at %d: pending = %v, want none", tt.at, s.Pending())
		}
	}
}

func TestImmutable(t *testing.T) {
	evs := events(t, "coverage.jsonl")
	s15 := fold(Format, evs, 15)
	before, _ := json.Marshal(s15.View())
	s := s15
	for _, ev := range evs[15:] {
		s = Format.Apply(s, ev)
	}
	after, _ := json.Marshal(s15.View())
	if !bytes.Equal(before, after) {
		t.Fatalf("Apply modified an earlier state:\n%s\n%s", before, after)
	}
	// Lines that do not fit return the state itself.
	for _, i := range []int{29, 30, 31, 32, 33, 34} {
		if got := Format.Apply(s, evs[i-1]); got != s {
			t.Errorf("line %d changed the state", i)
		}
	}
}

func TestViewDetails(t *testing.T) {
	v := viewJSON(t, fold(Format, events(t, "coverage.jsonl"), 34))
	raw, _ := json.Marshal(fold(Format, events(t, "coverage.jsonl"), 34).View())
	if !bytes.HasPrefix(raw, []byte(`{"seq":17,"items":[{"id":"g-1","semanticId":"g-`)) {
		t.Errorf("view starts %s", raw[:80])
	}
	checks := []struct{ id, want string }{
		{"d-2", `{"id":"d-2","semanticId":"d-8411793d","kind":"decision","summary":"use Go 1.26 for the TUI","status":"active","confidence":"certain","scope":"session","sourceTurns":[{"turnId":"t-2"},{"turnId":"t-6"},{"turnId":"t-13"}],"lastTouched":"2026-03-11T10:00:25.000Z"}`},
		{"c-3", `{"id":"c-3","semanticId":"c-683b58de","kind":"constraint","summary":"no network access at all","status":"active","confidence":"high","scope":"session","sourceTurns":[{"turnId":"t-2"},{"turnId":"t-3"},{"turnId":"t-15"}],"lastTouched":"2026-03-11T10:00:26.000Z","tags":["hard","soft"]}`},
		{"f-10", `{"id":"f-10","semanticId":"f-3742823a","kind":"fact","summary":"Node 20 is required","status":"active","confidence":"medium","scope":"session","sourceTurns":[{"turnId":"t-9","offset":{"start":0,"end":42}}],"lastTouched":"2026-03-11T10:00:20.000Z"}`},
		{"c-4", `{"id":"c-4","semanticId":"c-f61c3621","kind":"constraint","summary":"keep lines under 120 columns [superseded: dropped]","status":"superseded","confidence":"high","scope":"session","sourceTurns":[{"turnId":"t-4"},{"turnId":"t-7"},{"turnId":"t-14"}],"lastTouched":"2026-03-11T10:00:27.000Z","tags":["soft","relaxed"]}`},
	}
	ordered := map[string]string{}
	for _, it := range fold(Format, events(t, "coverage.jsonl"), 34).View()[1].Value.([]any) {
		raw, _ := json.Marshal(it)
		ordered[it.(model.Object)[0].Value.(string)] = string(raw)
	}
	for _, c := range checks {
		if got := ordered[c.id]; got != c.want {
			t.Errorf("item %s =\n%s\nwant\n%s", c.id, got, c.want)
		}
	}
	rej := v["rejected"].([]any)
	wantReasons := []string{
		`decision_revised item-99 decision_revised target "item-99" not found`,
		`task_closed g-1 task_closed target "g-1" is goal, not task`,
		`fact_learned f-9 Missing provenance: sourceTurns is empty`,
		`constraint_revised d-2 constraint_revised target "d-2" is decision, not constraint`,
		`constraint_revised c-77 constraint_revised target "c-77" not found`,
		`item_superseded x-1 item_superseded target "x-1" not found`,
		`decision_revised task-5 decision_revised target "task-5" is task, not decision`,
		`task_closed task-404 task_closed target "task-404" not found`,
		`memory_wiped m-1 Unknown delta kind: memory_wiped`,
	}
	for i, r := range rej {
		m := r.(map[string]any)
		if got := m["kind"].(string) + " " + m["target"].(string) + " " + m["reason"].(string); got != wantReasons[i] {
			t.Errorf("rejected[%d] = %q, want %q", i, got, wantReasons[i])
		}
		if m["seq"].(float64) != 6 || int(m["at"].(float64)) != 7+i {
			t.Errorf("rejected[%d] seq/at = %v/%v", i, m["seq"], m["at"])
		}
	}
	dis, _ := json.Marshal(v["disagreements"])
	if want := `[{"at":28,"kind":"decision_revised","reason":"decision_revised target \"task-6\" is task, not decision","seq":17,"target":"task-6"}]`; string(dis) != want {
		t.Errorf("disagreements = %s, want %s", dis, want)
	}
	cp, _ := json.Marshal(fold(Format, events(t, "coverage.jsonl"), 34).View()[4].Value)
	if want := `{"seq":9,"timestamp":"2026-03-11T10:00:19.000Z","totalItems":6,"totalDeltas":9,"totalTurns":8,"contextChars":512,"rawChars":2048}`; string(cp) != want {
		t.Errorf("checkpoint = %s, want %s", cp, want)
	}
}

// TestReconcileRejections runs this package's reconciler over the deltas
// of the rejected lines and checks it gives the reason DeltaMind wrote.
func TestReconcileRejections(t *testing.T) {
	evs := events(t, "coverage.jsonl")
	s := fold(Format, evs, 6).(*state)
	for _, ev := range evs[6:15] {
		var l line
		if !l.parse(ev.Raw) {
			t.Fatalf("line %d does not parse", ev.Pos)
		}
		d, ok := parseDelta(l.delta)
		if !ok {
			t.Fatalf("line %d: delta does not decode", ev.Pos)
		}
		ns := *s
		ns.v++
		s.lin.mu.Lock()
		reason := Format.(format).reconcile(&ns, d, false)
		s.lin.mu.Unlock()
		if ns.seq != s.seq || ns.nItems != s.nItems || reason != l.reason {
			t.Errorf("line %d: reason %q, want %q", ev.Pos, reason, l.reason)
		}
	}
}

func TestSemanticID(t *testing.T) {
	// Values from DeltaMind's own snapshot.json (dogfood-coding sample).
	tests := []struct{ kind, summary, want string }{
		{"constraint", "must coexist", "c-8e48ec17"},
		{"constraint", "can't use HttpOnly cookies", "c-3bf78c66"},
		{"decision", "Use jsonwebtoken for signing", "d-51f898f4"},
		{"decision", "Use Redis for the blacklist, not a database table", "d-85d71759"},
		{"task", "create a hybrid middleware that checks JWT first, falls back to session", "t-c9aa01d6"},
		{"task", "add a token blacklist table — check on every request", "t-86c6962c"},
		{"task", "add a deprecation warning header to session-auth responses", "t-8d8d3120"},
		{"", "", "-811c9dc5"},
		{"x_kind", "  ", "x-811c9dc5"},
		// Checked against the same algorithm run in Node.
		{"decision", "use Go 1.26 for the TUI", "d-8411793d"},
		{"constraint", "no network access at all", "c-683b58de"},
		{"fact", "Node 20 is required", "f-3742823a"},
		{"constraint", "keep lines under 100 columns", "c-f61c3621"},
		{"goal", "ship the rewind viewer", "g-a5e4041a"},
		{"hypothesis", "bubbletea | tview", "h-171308fa"},
		{"task", "Ünïcode \u00a0 using 𝒳 ﬀ and \uFEFFZ Using", "t-12859e35"},
		{"decision", "İstanbul ǅ ΣΑΣ writing\u2028adding", "d-0d8305c8"},
	}
	for _, tt := range tests {
		if got := semanticID(tt.kind, tt.summary); got != tt.want {
			t.Errorf("semanticID(%q, %q) = %s, want %s", tt.kind, tt.summary, got, tt.want)
		}
	}
}

func readDoc(t *testing.T, dir, doc string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, doc+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dogfoodSnapshot returns the variant of Format for the dogfood journal's
// snapshot.json, and the file's bytes.
func dogfoodSnapshot(t *testing.T) (model.Format, []byte) {
	t.Helper()
	snap, err := os.ReadFile("testdata/dogfood/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := WithSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	return f, snap
}

// One lineage folded with the plain Format and then again, from the same
// first state, with a snapshot's variant: the variant does not take the
// plain fold's item versions for its own, so its documents are the
// snapshot's, and the plain fold's stay as they were.
func TestVariantsOfOneLineage(t *testing.T) {
	f, _ := dogfoodSnapshot(t)
	evs := events(t, "dogfood/provenance.jsonl")
	first := Format.Init()
	plain, withSnap := first, first
	for _, ev := range evs {
		plain = Format.Apply(plain, ev)
	}
	for _, ev := range evs {
		withSnap = f.Apply(withSnap, ev)
	}
	fresh := fold(Format, evs, len(evs))
	for _, doc := range f.Docs() {
		if got, want := f.Render(withSnap, doc), readDoc(t, "dogfood", doc); got != want {
			t.Errorf("%s with the snapshot, after the plain fold:\n%s\nwant:\n%s", doc, got, want)
		}
		if got, want := Format.Render(plain, doc), Format.Render(fresh, doc); got != want {
			t.Errorf("%s of the plain fold, after the snapshot's:\n%s\nwant:\n%s", doc, got, want)
		}
	}
}

func TestRenderDogfoodWithSnapshot(t *testing.T) {
	f, snap := dogfoodSnapshot(t)
	evs := events(t, "dogfood/provenance.jsonl")
	s := fold(f, evs, len(evs))
	for _, doc := range f.Docs() {
		if got, want := f.Render(s, doc), readDoc(t, "dogfood", doc); got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", doc, got, want)
		}
	}
	// The items equal the snapshot's items (which are sorted by id).
	v := viewJSON(t, s)
	var sn struct{ Items []map[string]any }
	if err := json.Unmarshal(snap, &sn); err != nil {
		t.Fatal(err)
	}
	for _, want := range sn.Items {
		got := itemByID(t, v, want["id"].(string))
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Errorf("item %s:\n%s\nwant\n%s", want["id"], g, w)
		}
	}
	if got := itemIDs(v); got != "d-1,c-2,task-3,c-4,task-5,d-6,task-7" {
		t.Errorf("creation order %s", got)
	}
}

func TestRenderDogfoodWithoutSnapshot(t *testing.T) {
	// Without the snapshot, c-2 and c-4 keep their deltas' timestamps (.165Z,
	// .170Z) where DeltaMind stamped its wall clock (.166Z, .171Z);
	// everything else matches.
	evs := events(t, "dogfood/provenance.jsonl")
	s := fold(Format, evs, len(evs))
	for _, doc := range Format.Docs() {
		want := readDoc(t, "dogfood", doc)
		if doc == DocConstraints {
			want = strings.Replace(want, "2026-11-21T22:28:54.166Z", "2026-11-21T22:28:54.165Z", 1)
			want = strings.Replace(want, "2026-11-21T22:28:54.171Z", "2026-11-21T22:28:54.170Z", 1)
		}
		if got := Format.Render(s, doc); got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", doc, got, want)
		}
	}
	// Before the snapshot's position the snapshot changes nothing that the
	// snapshot did not record as a last touch: task-3 at position 3 keeps
	// its own timestamp, since the snapshot's last touch of it is delta 8.
	snap, _ := os.ReadFile("testdata/dogfood/snapshot.json")
	f, _ := WithSnapshot(snap)
	v := viewJSON(t, fold(f, evs, 3))
	if got := itemByID(t, v, "task-3")["lastTouched"]; got != "2026-11-21T22:28:54.166Z" {
		t.Errorf("task-3 lastTouched at 3 = %v", got)
	}
	if got := itemByID(t, v, "c-2")["lastTouched"]; got != "2026-11-21T22:28:54.166Z" {
		t.Errorf("c-2 lastTouched at 3 = %v", got)
	}
}

func TestRenderCoverage(t *testing.T) {
	evs := events(t, "coverage.jsonl")
	s := fold(Format, evs, len(evs))
	for _, doc := range Format.Docs() {
		if got, want := Format.Render(s, doc), readDoc(t, "coverage", doc); got != want {
			t.Errorf("%s:\n%q\nwant:\n%q", doc, got, want)
		}
	}
}

func TestRenderEmptySections(t *testing.T) {
	evs := events(t, "coverage.jsonl")
	tests := []struct {
		at        int
		doc, want string
	}{
		{0, DocActiveState, "# Active State\n\n> Sequence: 0 | Items: 0 | Deltas: 0\n"},
		{0, DocDecisions, "# Decisions\n"},
		{0, DocTasks, "# Tasks\n"},
		{0, DocConstraints, "# Constraints\n"},
		{1, DocActiveState, "# Active State\n\n> Sequence: 1 | Items: 1 | Deltas: 1\n\n## Goals\n\n- **g-1**: ship the rewind viewer\n"},
		{1, DocTasks, "# Tasks\n"},
		// Only resolved tasks: "## Resolved" follows the title directly.
		{18, DocTasks, "# Tasks\n\n## Open\n\n### task-6: write the renderer\n\n- Status: active\n- Confidence: high\n- Source turns: t-5\n- Last touched: 2026-03-11T10:00:06.000Z\n\n\n## Resolved\n\n### task-5: write the fold → fold replays the dogfood journal\n\n- Status: resolved\n- Confidence: high\n- Source turns: t-5, t-8\n- Last touched: 2026-03-11T10:00:18.000Z\n\n"},
		// h-11 is tentative but not a branch: not an unresolved branch.
		{21, DocActiveState, "# Active State\n\n> Sequence: 11 | Items: 8 | Deltas: 11\n\n## Goals\n\n- **g-1**: ship the rewind viewer\n\n## Decisions\n\n- **d-2**: use Go and Bubble Tea for the TUI\n\n## Constraints\n\n- **c-3**: no network access [certain] (hard)\n- **c-4**: keep lines under 120 columns (soft, relaxed)\n\n## Open Tasks\n\n- **task-6**: write the renderer\n"},
		{0, "NOPE", ""},
	}
	for _, tt := range tests {
		if got := Format.Render(fold(Format, evs, tt.at), tt.doc); got != tt.want {
			t.Errorf("at %d %s:\n%q\nwant\n%q", tt.at, tt.doc, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	evs := events(t, "coverage.jsonl")
	tests := []struct {
		line                     int
		key, typ, actor, summary string
		problem                  bool
	}{
		{1, "1", "accepted", "goal_set", "goal_set g-1: ship the rewind viewer", false},
		{7, "6", "rejected", "decision_revised", `rejected decision_revised item-99: decision_revised target "item-99" not found`, true},
		{15, "6", "rejected", "memory_wiped", "rejected memory_wiped m-1: Unknown delta kind: memory_wiped", true},
		{16, "7", "accepted", "decision_revised", "decision_revised d-2: use Go and Bubble Tea for the TUI", false},
		{18, "9", "accepted", "task_closed", "task_closed task-5: fold replays the dogfood journal", false},
		{19, "9", "checkpoint", "", "checkpoint: 6 items, 9 deltas, 8 turns", false},
		{22, "12", "accepted", "branch_created", "branch_created b-12: bubbletea | tview", false},
		{24, "14", "accepted", "item_superseded", "item_superseded d-13: keyframes every 128 events", false},
		{29, "5", "accepted", "goal_set", "goal_set g-99: hijack", false},
		{30, "18", "", "goal_set", "unknown line type", false},
		{31, "18", "accepted", "", ": ", false},
		{32, "18", "accepted", "goal_set", "goal_set g-97: ", false},
		{33, "18", "checkpoint", "", "checkpoint: ? items, ? deltas, ? turns", false},
		{34, "99999999999999999999999", "rejected", "x", "rejected x: ", true},
	}
	for _, tt := range tests {
		r := Format.Describe(evs[tt.line-1])
		if r.Key != tt.key || r.Type != tt.typ || r.Actor != tt.actor || r.Summary != tt.summary || r.Problem != tt.problem {
			t.Errorf("line %d: %+v", tt.line, r)
		}
		if tt.line <= 30 && model.FormatTime(r.Time) == "" {
			t.Errorf("line %d: no time", tt.line)
		}
	}
	if got := model.FormatTime(Format.Describe(evs[0]).Time); got != "2026-03-11T10:00:01.000Z" {
		t.Errorf("time = %s", got)
	}
}

func TestHostile(t *testing.T) {
	lines := []string{
		`{}`, `[]`, `7`, `null`, `"accepted"`, `{"type":"accepted"}`,
		`{"type":"accepted","seq":1}`,
		`{"type":"accepted","seq":1,"delta":null}`,
		`{"type":"accepted","seq":1,"delta":{"kind":7}}`,
		`{"type":"accepted","seq":1,"delta":{"kind":"goal_set","sourceTurns":[7]}}`,
		`{"type":"accepted","seq":1,"delta":{"kind":"goal_set","sourceTurns":{"turnId":"t"}}}`,
		`{"type":"accepted","seq":1,"delta":{"kind":"branch_created","alternatives":"ab","sourceTurns":[{"turnId":"t"}]}}`,
		`{"type":"accepted","seq":1,"delta":{"kind":"constraint_added","hard":"yes","sourceTurns":[{"turnId":"t"}]}}`,
		`{"type":"accepted","seq":1e999,"delta":{"kind":"goal_set","sourceTurns":[{"turnId":"t","offset":[1,2]}]}}`,
		`{"type":"rejected","seq":[],"delta":{}}`,
		`{"type":"checkpoint","seq":1,"totalItems":1e400}`,
		`{"type":"checkpoint","seq":{},"totalItems":1}`,
		`{"type":"accepted","type":"rejected","seq":1,"delta":{"kind":"goal_set","sourceTurns":[{"turnId":"t"}]},"reason":{}}`,
		`{"type":"accepted","seq":1,"delta":{"kind":"task_closed","targetId":"nope","sourceTurns":[{"turnId":"t"}]}}`,
		`not json`, ``,
	}
	s := Format.Init()
	for _, l := range lines {
		ev := model.Event{Pos: 1, Line: 1, Raw: []byte(l)}
		s = Format.Apply(s, ev)
		_ = Format.Describe(ev)
		_ = Sniff(ev.Raw)
		for _, d := range Format.Docs() {
			_ = Format.Render(s, d)
		}
		if _, err := json.Marshal(s.View()); err != nil {
			t.Errorf("%s: view does not marshal: %v", l, err)
		}
	}
	// The goal with an array offset is kept (offsets are kept as written).
	v := viewJSON(t, s)
	if itemIDs(v) != "" {
		t.Logf("items after hostile lines: %s", itemIDs(v))
	}
	if Format.Render(nil, DocActiveState) != "" {
		t.Error("Render(nil) should be empty")
	}
}

func TestSniff(t *testing.T) {
	evs := events(t, "coverage.jsonl")
	for _, i := range []int{1, 7, 19, 28} {
		if !Sniff(evs[i-1].Raw) {
			t.Errorf("line %d not sniffed", i)
		}
	}
	for _, l := range []string{
		`{"type":"accepted","seq":"5","delta":{}}`,
		`{"type":"checkpoint","seq":1}`,
		`{"seq":1,"timestamp":"2026-01-01T00:00:00Z","type":"RUN_START","payload":{}}`,
		`{"id":"x","type":"agent.spawned","stream_id":"s","correlation_id":"c","actor":"a","timestamp":1,"payload":{}}`,
		`[1]`,
	} {
		if Sniff([]byte(l)) {
			t.Errorf("%s sniffed as deltamind", l)
		}
	}
}

func TestWithSnapshotErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"version":2,"items":[],"deltaLog":[]}`, "snapshot version mismatch: 2 (rewind reads version 1)"},
		{`{"items":[]}`, "snapshot version mismatch: undefined (rewind reads version 1)"},
		{`{"version":1,"deltaLog":[7]}`, "deltamind snapshot: deltaLog[0] is not a delta"},
		{`[`, "deltamind snapshot"},
	}
	for _, tt := range tests {
		_, err := WithSnapshot([]byte(tt.in))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("WithSnapshot(%s) error = %v, want %q", tt.in, err, tt.want)
		}
	}
	f, err := WithSnapshot([]byte(`{"version":1,"items":[],"deltaLog":[]}`))
	if err != nil || f.Name() != model.DeltaMind {
		t.Errorf("WithSnapshot(empty) = %v, %v", f, err)
	}
}

func TestStateJSON(t *testing.T) {
	evs := events(t, "dogfood/provenance.jsonl")
	o := model.StateJSON(Format, fold(Format, evs, 2), 2)
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"deltamind","at":2,"pending":[],"seq":2,"items":[{"id":"d-1","semanticId":"d-51f898f4","kind":"decision","summary":"Use jsonwebtoken for signing","status":"active","confidence":"high","scope":"session","sourceTurns":[{"turnId":"t-3"}],"lastTouched":"2026-11-21T22:28:54.163Z"},{"id":"c-2","semanticId":"c-8e48ec17","kind":"constraint","summary":"must coexist","status":"active","confidence":"certain","scope":"session","sourceTurns":[{"turnId":"t-7"}],"lastTouched":"2026-11-21T22:28:54.165Z","tags":["hard"]}],"rejected":[],"deltas":2,"checkpoint":null,"disagreements":[]}`
	if string(raw) != want {
		t.Errorf("state JSON\n%s\nwant\n%s", raw, want)
	}
}
