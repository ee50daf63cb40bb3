package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// keys returns the top-level keys of the JSON object line, in order, using
// the decoder's token stream. It fails the test if line is not exactly one
// JSON object.
func keys(t *testing.T, line []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		t.Fatalf("line does not start an object (%v): %.200s", err, line)
	}
	var ks []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("bad key: %v: %.200s", err, line)
		}
		ks = append(ks, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("bad value for %q: %v: %.200s", tok, err, line)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		t.Fatalf("object not closed (%v): %.200s", err, line)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("trailing data after object: %.200s", line)
	}
	return ks
}

// lines returns the complete lines of the file at path.
func lines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	} else {
		return nil
	}
	return bytes.Split(b, []byte("\n"))
}

// eventually polls cond until it returns true or the deadline passes.
func eventually(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// start runs the simulator and arranges for the test to wait for it to
// stop before the temporary directory is removed.
func start(t *testing.T, o Options) (dir, path string, stop func()) {
	t.Helper()
	dir = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	o.Stopped = func(err error) { stopped <- err }
	path, err := Run(ctx, dir, o)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := false
	stop = func() {
		if done {
			return
		}
		done = true
		cancel()
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("simulator stopped with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("simulator did not stop")
		}
	}
	t.Cleanup(stop)
	return dir, path, stop
}

var (
	envelopeKeys = []string{"type", "stream_id", "correlation_id", "actor", "payload", "id", "timestamp"}
	eventID      = regexp.MustCompile(`^[0-9a-z]{9}_[0-9a-f]{16}$`)
	checkpointID = regexp.MustCompile(`^cp_[0-9]{13}_[0-9a-z]{6}$`)
	intentID     = regexp.MustCompile(`^intent_[0-9]{13}_[0-9a-z]{6}$`)
)

type dsEvent struct {
	Type      string          `json:"type"`
	StreamID  string          `json:"stream_id"`
	Corr      string          `json:"correlation_id"`
	Actor     string          `json:"actor"`
	Payload   json.RawMessage `json:"payload"`
	ID        string          `json:"id"`
	Timestamp int64           `json:"timestamp"`
}

// checkDurable checks one Durable Stream line against the real envelope.
func checkDurable(t *testing.T, line []byte) dsEvent {
	t.Helper()
	if k := keys(t, line); !slices.Equal(k, envelopeKeys) {
		t.Fatalf("keys %v, want %v: %.200s", k, envelopeKeys, line)
	}
	var ev dsEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%09s", strconv.FormatInt(ev.Timestamp, 36))
	if !eventID.MatchString(ev.ID) || ev.ID[:9] != want {
		t.Fatalf("id %q does not match timestamp %d", ev.ID, ev.Timestamp)
	}
	if len(ev.Corr) != 16 {
		t.Fatalf("correlation_id %q", ev.Corr)
	}
	return ev
}

type checkpoint struct {
	ID            string `json:"id"`
	DecisionPoint string `json:"decision_point"`
	Options       []struct {
		ID          string `json:"id"`
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
	RequestedBy string `json:"requested_by"`
	RequestedAt int64  `json:"requested_at"`
	ExpiresAt   int64  `json:"expires_at"`
}

func TestRunDurableStreamCheckpoint(t *testing.T) {
	dir, path, stop := start(t, Options{Interval: 5 * time.Millisecond, Seed: 7})
	if want := filepath.Join(dir, ".opencode", "durable_stream.jsonl"); path != want {
		t.Fatalf("path = %q, want %q", path, want)
	}

	// A checkpoint is requested within the first few events.
	var cp checkpoint
	var cpLine int
	eventually(t, "checkpoint.requested", 10*time.Second, func() bool {
		for i, l := range lines(t, path) {
			if ev := checkDurable(t, l); ev.Type == "checkpoint.requested" {
				if err := json.Unmarshal(ev.Payload, &cp); err != nil {
					t.Fatal(err)
				}
				cpLine = i
				return true
			}
		}
		return false
	})
	if cpLine >= 10 {
		t.Errorf("checkpoint requested as event %d, want within the first ~8", cpLine+1)
	}
	if !checkpointID.MatchString(cp.ID) || cp.RequestedBy != "chief-of-staff" || cp.ExpiresAt != cp.RequestedAt+300000 || len(cp.Options) < 2 {
		t.Fatalf("bad checkpoint %+v", cp)
	}

	// While it is pending, the simulator keeps busy but does not start
	// the gated work.
	eventually(t, "low-key work while pending", 10*time.Second, func() bool { return len(lines(t, path)) > cpLine+12 })
	for _, l := range lines(t, path)[cpLine+1:] {
		switch ev := checkDurable(t, l); ev.Type {
		case "agent.spawned", "ledger.task.started", "checkpoint.requested":
			t.Fatalf("%s while the checkpoint is pending: %.300s", ev.Type, l)
		}
	}

	// Approve it with the second option, as the TUI would.
	opt := cp.Options[1].ID
	corr := checkDurable(t, lines(t, path)[0]).Corr
	now := time.Now().UnixMilli()
	approval := fmt.Sprintf(`{"type":"checkpoint.approved","stream_id":%q,"correlation_id":%q,"actor":"user","payload":{"checkpoint_id":%q,"approved_by":"user","selected_option":%q},"id":"%09s_%016x","timestamp":%d}`+"\n",
		corr, corr, cp.ID, opt, strconv.FormatInt(now, 36), now, now)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(approval)); err != nil {
		t.Fatal(err)
	}
	f.Close()

	// The gated work starts, for the chosen option.
	var spawned, started bool
	eventually(t, "gated work after approval", 10*time.Second, func() bool {
		after := false
		for _, l := range lines(t, path) {
			ev := checkDurable(t, l)
			if ev.Type == "checkpoint.approved" {
				after = true
				continue
			}
			if !after {
				continue
			}
			switch ev.Type {
			case "agent.spawned":
				var in struct{ ID, Prompt, Status string }
				json.Unmarshal(ev.Payload, &in)
				if !intentID.MatchString(in.ID) || in.Status != "pending" {
					t.Fatalf("bad intent %.300s", l)
				}
				spawned = spawned || strings.Contains(in.Prompt, strconv.Quote(opt))
			case "ledger.task.started":
				started = ev.StreamID == "ledger-events" && ev.Actor == "ledger"
			}
		}
		return spawned && started
	})

	stop()
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock directory left behind: %v", err)
	}
	var last int64
	for _, l := range lines(t, path) {
		ev := checkDurable(t, l)
		if ev.Actor == "user" {
			continue // our own line
		}
		if ev.Timestamp < last {
			t.Errorf("timestamp goes backwards: %.200s", l)
		}
		last = ev.Timestamp
	}
}

func readMeta(path string) (status string, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	var m struct{ Status string }
	if json.Unmarshal(b, &m) != nil {
		return "", false // caught mid-rewrite
	}
	return m.Status, true
}

func TestRunDeltaEngineAskHuman(t *testing.T) {
	dir, path, stop := start(t, Options{Interval: 5 * time.Millisecond, Seed: 3, Format: FormatDeltaEngine})
	runDir := filepath.Dir(path)
	if filepath.Base(path) != "journal.jsonl" || filepath.Dir(runDir) != filepath.Join(dir, ".delta") {
		t.Fatalf("journal path %q", path)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".delta", "VERSION")); err != nil || string(b) != "1.2\n" {
		t.Fatalf("VERSION = %q, %v", b, err)
	}
	meta := filepath.Join(runDir, "metadata.json")
	request := filepath.Join(runDir, "interaction", "request.json")
	eventually(t, "WAITING_FOR_INPUT", 10*time.Second, func() bool { s, _ := readMeta(meta); return s == "WAITING_FOR_INPUT" })
	if _, err := os.Stat(request); err != nil {
		t.Fatal(err)
	}
	type event struct {
		Seq       int64
		Timestamp string
		Type      string
		Payload   struct {
			ActionID           string `json:"action_id"`
			ToolName           string `json:"tool_name"`
			Content            string `json:"content"`
			ObservationContent string `json:"observation_content"`
			Status             string `json:"status"`
		}
	}
	read := func() []event {
		var evs []event
		for i, l := range lines(t, path) {
			if k := keys(t, l); !slices.Equal(k, []string{"seq", "timestamp", "type", "payload"}) {
				t.Fatalf("keys %v: %.200s", k, l)
			}
			var ev event
			if err := json.Unmarshal(l, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.Seq != int64(i+1) {
				t.Fatalf("seq %d at line %d", ev.Seq, i+1)
			}
			if _, err := time.Parse("2006-01-02T15:04:05.000Z", ev.Timestamp); err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		return evs
	}
	evs := read()
	n := len(evs)
	if n < 3 || evs[n-1].Type != "SYSTEM_MESSAGE" || evs[n-1].Payload.Content != "Agent pausing for human input" ||
		evs[n-2].Type != "ACTION_REQUEST" || evs[n-2].Payload.ToolName != "ask_human" {
		t.Fatalf("journal does not end in an ask_human pause: %+v", evs[max(0, n-3):])
	}
	action := evs[n-2].Payload.ActionID
	time.Sleep(50 * time.Millisecond)
	if len(read()) != n {
		t.Fatal("journal grew while waiting for input")
	}

	if err := os.WriteFile(filepath.Join(runDir, "interaction", "response.txt"), []byte("Alice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "resume", 10*time.Second, func() bool {
		s, _ := readMeta(meta)
		_, err := os.Stat(request)
		return s == "RUNNING" && os.IsNotExist(err) && len(read()) > n+2
	})
	evs = read()
	if u, r := evs[n], evs[n+1]; u.Type != "USER_MESSAGE" || u.Payload.Content != "Alice" ||
		r.Type != "ACTION_RESULT" || r.Payload.ActionID != action || r.Payload.ObservationContent != "Alice" || r.Payload.Status != "SUCCESS" {
		t.Fatalf("resume events %+v %+v", u, r)
	}
	stop()
	if s, _ := readMeta(meta); s != "INTERRUPTED" {
		t.Errorf("status after stop = %q, want INTERRUPTED", s)
	}
}

func TestRunDeltaMind(t *testing.T) {
	dir, path, stop := start(t, Options{Interval: 5 * time.Millisecond, Format: FormatDeltaMind})
	if want := filepath.Join(dir, ".deltamind", "provenance.jsonl"); path != want {
		t.Fatalf("path = %q, want %q", path, want)
	}
	eventually(t, "20 provenance lines", 10*time.Second, func() bool { return len(lines(t, path)) >= 20 })
	stop()
	for _, l := range lines(t, path) {
		checkMind(t, l)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".deltamind", "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Version  int
		Seq      int
		Items    []struct{ ID, Kind, Status string }
		DeltaLog []json.RawMessage
	}
	if err := json.Unmarshal(b, &snap); err != nil || snap.Version != 1 || len(snap.Items) == 0 || len(snap.DeltaLog) != snap.Seq {
		t.Fatalf("snapshot: %v %+v", err, snap)
	}
	if !bytes.HasPrefix(b, []byte("{\n  \"version\": 1,")) {
		t.Errorf("snapshot not pretty-printed: %.40q", b)
	}
}

type mindLine struct {
	Type      string
	Seq       int
	Timestamp string
	Delta     struct {
		Kind      string
		Timestamp string
		ID        string
		TargetID  string
	}
	ItemID string
	Reason string
}

func checkMind(t *testing.T, line []byte) mindLine {
	t.Helper()
	var m mindLine
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"type", "seq", "timestamp", "delta", "itemId", "resultingStatus"}
	if m.Type == "rejected" {
		want = []string{"type", "seq", "timestamp", "delta", "reason"}
	}
	if k := keys(t, line); !slices.Equal(k, want) {
		t.Fatalf("keys %v, want %v: %.200s", k, want, line)
	}
	if m.Timestamp != m.Delta.Timestamp {
		t.Fatalf("line timestamp differs from the delta's: %.200s", line)
	}
	return m
}

func TestGenerate(t *testing.T) {
	const n = 3000
	for _, format := range []string{FormatDurableStream, FormatDeltaEngine, FormatDeltaMind} {
		t.Run(format, func(t *testing.T) {
			var a, b, c bytes.Buffer
			if err := Generate(&a, format, n, 42); err != nil {
				t.Fatal(err)
			}
			if err := Generate(&b, format, n, 42); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("same seed, different output")
			}
			if err := Generate(&c, format, n, 43); err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(a.Bytes(), c.Bytes()) {
				t.Fatal("different seeds, same output")
			}
			if !bytes.HasSuffix(a.Bytes(), []byte("\n")) {
				t.Fatal("output does not end in a newline")
			}
			ls := bytes.Split(bytes.TrimSuffix(a.Bytes(), []byte("\n")), []byte("\n"))
			if len(ls) != n {
				t.Fatalf("%d lines, want %d", len(ls), n)
			}
			minSize, maxSize := len(ls[0]), 0
			for _, l := range ls {
				minSize, maxSize = min(minSize, len(l)), max(maxSize, len(l))
			}
			if maxSize > 24000 || (maxSize < 5000 && format != FormatDeltaMind) {
				t.Errorf("largest line %d bytes, want up to about 20 KB", maxSize)
			}
			t.Logf("%d bytes, lines %d..%d bytes", a.Len(), minSize, maxSize)
			switch format {
			case FormatDurableStream:
				checkGeneratedDurable(t, ls)
			case FormatDeltaEngine:
				checkGeneratedDelta(t, ls)
			case FormatDeltaMind:
				checkGeneratedMind(t, ls)
			}
		})
	}
	if err := Generate(io.Discard, "nope", 1, 1); err == nil {
		t.Error("unknown format accepted")
	}
}

func checkGeneratedDurable(t *testing.T, ls [][]byte) {
	count := map[string]int{}
	pending := map[string]bool{}
	var last int64
	for _, l := range ls {
		ev := checkDurable(t, l)
		count[ev.Type]++
		if ev.Timestamp < last {
			t.Fatalf("timestamp goes backwards: %.200s", l)
		}
		last = ev.Timestamp
		var p struct {
			ID           string `json:"id"`
			CheckpointID string `json:"checkpoint_id"`
		}
		json.Unmarshal(ev.Payload, &p)
		switch ev.Type {
		case "checkpoint.requested":
			pending[p.ID] = true
		case "checkpoint.approved", "checkpoint.rejected":
			if !pending[p.CheckpointID] {
				t.Fatalf("decision for unknown checkpoint: %.200s", l)
			}
			delete(pending, p.CheckpointID)
		}
	}
	deltas := count["execution.text_delta"] + count["execution.reasoning_delta"]
	if deltas*2 < len(ls) {
		t.Errorf("only %d of %d events are deltas", deltas, len(ls))
	}
	for _, typ := range []string{"lifecycle.session.created", "agent.spawned", "agent.completed", "checkpoint.requested",
		"checkpoint.approved", "checkpoint.rejected", "ledger.epic.created", "ledger.task.created", "ledger.task.started",
		"execution.tool_start", "execution.tool_finish", "files.changed"} {
		if count[typ] == 0 {
			t.Errorf("no %s events", typ)
		}
	}
	t.Logf("counts %v, %d checkpoints pending", count, len(pending))
}

func checkGeneratedDelta(t *testing.T, ls [][]byte) {
	count := map[string]int{}
	var last time.Time
	asks := 0
	for i, l := range ls {
		if k := keys(t, l); !slices.Equal(k, []string{"seq", "timestamp", "type", "payload"}) {
			t.Fatalf("keys %v", k)
		}
		var ev struct {
			Seq       int
			Timestamp string
			Type      string
			Payload   struct {
				ToolName string `json:"tool_name"`
			}
		}
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Seq != i+1 {
			t.Fatalf("seq %d at line %d", ev.Seq, i+1)
		}
		ts, err := time.Parse("2006-01-02T15:04:05.000Z", ev.Timestamp)
		if err != nil || ts.Before(last) {
			t.Fatalf("bad timestamp %q after %v", ev.Timestamp, last)
		}
		last = ts
		count[ev.Type]++
		if ev.Payload.ToolName == "ask_human" {
			asks++
		}
	}
	if count["RUN_START"] != 1 || count["THOUGHT"] == 0 || count["ACTION_REQUEST"] == 0 || count["ACTION_RESULT"] == 0 || asks == 0 || count["USER_MESSAGE"] < 2 {
		t.Errorf("counts %v, %d ask_human", count, asks)
	}
}

func checkGeneratedMind(t *testing.T, ls [][]byte) {
	kinds := map[string]int{}
	created := map[string]string{}
	rejected := 0
	reason := regexp.MustCompile(`^(Missing provenance: sourceTurns is empty|(decision|constraint)_revised target "[^"]+" (not found|is [a-z_]+, not (decision|constraint))|task_closed target "[^"]+" (not found|is [a-z_]+, not task))$`)
	for _, l := range ls {
		m := checkMind(t, l)
		if m.Type == "rejected" {
			rejected++
			if !reason.MatchString(m.Reason) {
				t.Errorf("unexpected reason %q", m.Reason)
			}
			continue
		}
		kinds[m.Delta.Kind]++
		if m.Delta.ID != "" {
			created[m.Delta.ID] = m.Delta.Kind
			continue
		}
		k, ok := created[m.Delta.TargetID]
		if !ok {
			t.Fatalf("%s targets unknown %q", m.Delta.Kind, m.Delta.TargetID)
		}
		if m.Delta.Kind == "decision_revised" && k != "decision_made" {
			t.Fatalf("decision_revised targets a %s", k)
		}
	}
	if len(kinds) != 11 || rejected == 0 {
		t.Errorf("kinds %v, %d rejected", kinds, rejected)
	}
}

// BenchmarkGenerate measures Generate's throughput for each format.
func BenchmarkGenerate(b *testing.B) {
	for _, format := range []string{FormatDurableStream, FormatDeltaEngine, FormatDeltaMind} {
		b.Run(format, func(b *testing.B) {
			var cw countWriter
			for i := 0; b.Loop(); i++ {
				if err := Generate(&cw, format, 20000, int64(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cw.n)/1e6/b.Elapsed().Seconds(), "MB/s")
		})
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
