package main

// End-to-end tests of approve, reject and answer: the built binary, real
// processes and real files. The Node tests (TestDecideNodeE2E) race rewind
// against Durable Stream writers that lock with proper-lockfile@4.1.2
// (testdata/node/ds_writer.js); like journal/writer's TestNodeInterop they
// run only with REWIND_NODE_TESTS=1 (scripts/test sets it) and then fail,
// never skip, if node, npm or the package install is unavailable.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rewind-tui/rewind/internal/nodetest"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// dcEnvelope is a Durable Stream event with its keys in the order
// createEvent writes them.
type dcEnvelope struct {
	Type          string `json:"type"`
	StreamID      string `json:"stream_id"`
	CorrelationID string `json:"correlation_id"`
	Actor         string `json:"actor"`
	Payload       any    `json:"payload"`
	ID            string `json:"id"`
	Timestamp     int64  `json:"timestamp"`
}

type dcOption struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

type dcCheckpoint struct {
	ID            string     `json:"id"`
	DecisionPoint string     `json:"decision_point"`
	Options       []dcOption `json:"options"`
	RequestedBy   string     `json:"requested_by"`
	RequestedAt   int64      `json:"requested_at"`
	ExpiresAt     int64      `json:"expires_at"`
}

const (
	dcSession     = "ses_7c1e9a0b4d2f"
	dcCorrelation = "3b9f0c6e1a7d2485"
)

func dcHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// dcLine returns one Durable Stream event line (with its newline) as
// JSON.stringify writes it (no HTML escaping).
func dcLine(typ, actor string, payload any, ms int64) string {
	ev := dcEnvelope{typ, dcSession, dcCorrelation, actor, payload,
		fmt.Sprintf("%09s_%s", strconv.FormatInt(ms, 36), dcHex(8)), ms}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		panic(err)
	}
	return b.String()
}

// dcStream builds a realistic Durable Stream journal: a session, an
// intent, some text deltas and one checkpoint.requested per entry of
// questions. It returns the journal and the checkpoint ids.
func dcStream(questions ...string) (string, []string) {
	ms := time.Now().Add(-time.Minute).UnixMilli()
	var b strings.Builder
	b.WriteString(dcLine("lifecycle.session.created", "system",
		map[string]any{"id": dcSession, "title": "Port the billing service", "directory": "/home/dev/billing"}, ms))
	ms++
	b.WriteString(dcLine("agent.spawned", "orchestrator", map[string]any{
		"description": "Audit the billing API", "agent": "chief-of-staff/oracle", "prompt": "Audit the billing API for auth gaps",
		"parent_session_id": dcSession, "timeout_ms": 600000, "id": fmt.Sprintf("intent_%d_k3j9x1", ms), "status": "pending", "created_at": ms}, ms))
	var ids []string
	for i, q := range questions {
		ms += 7
		b.WriteString(dcLine("execution.text_delta", "system", map[string]any{
			"sessionID": dcSession, "messageID": "msg_01", "partID": fmt.Sprintf("prt_%02d", i),
			"delta": strings.Repeat("Thinking about it… ", 20+i*30)}, ms))
		ms += 5
		id := fmt.Sprintf("cp_%d_%s", ms, strconv.FormatInt(int64(1e8+i*7919), 36)[:6])
		ids = append(ids, id)
		b.WriteString(dcLine("checkpoint.requested", "chief-of-staff", dcCheckpoint{
			ID: id, DecisionPoint: q,
			Options: []dcOption{{ID: "proceed", Label: "Proceed"},
				{ID: "hold", Label: "Hold off", Description: "Wait for the next release window"}},
			RequestedBy: "chief-of-staff", RequestedAt: ms, ExpiresAt: ms + 300000,
		}, ms))
	}
	return b.String(), ids
}

// dcWrite writes a journal file in a new temporary directory.
func dcWrite(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dcSnapshot is what a refused decision must not change.
type dcSnapshot struct {
	data  []byte
	mtime time.Time
	ino   uint64
}

func dcSnap(t *testing.T, p string) dcSnapshot {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return dcSnapshot{b, fi.ModTime(), fi.Sys().(*syscall.Stat_t).Ino}
}

func dcUnchanged(t *testing.T, p string, s dcSnapshot) {
	t.Helper()
	now := dcSnap(t, p)
	if !bytes.Equal(now.data, s.data) {
		t.Errorf("%s changed: %d bytes, was %d; new tail %q", p, len(now.data), len(s.data), dcTail(now.data))
	}
	if !now.mtime.Equal(s.mtime) {
		t.Errorf("%s has a new mtime %v, was %v", p, now.mtime, s.mtime)
	}
	if now.ino != s.ino {
		t.Errorf("%s was replaced (inode %d, was %d)", p, now.ino, s.ino)
	}
}

func dcTail(b []byte) []byte {
	if len(b) > 300 {
		return b[len(b)-300:]
	}
	return b
}

// dcNoLock checks that no lock directory (nor a moved-away stale one) is
// left next to the journal.
func dcNoLock(t *testing.T, p string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(real + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock %s.lock is left behind (%v)", real, err)
	}
	left, _ := filepath.Glob(real + ".lock.*")
	if len(left) > 0 {
		t.Errorf("lock leftovers: %v", left)
	}
}

// dcPending runs rewind pending and returns the ids.
func dcPending(t *testing.T, p string) []string {
	t.Helper()
	out, errOut, code := runRewind(t, ".", "pending", p)
	if code != 0 {
		t.Fatalf("rewind pending %s: exit %d: %s", p, code, errOut)
	}
	var items []struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("rewind pending printed no JSON list: %v\n%s", err, out)
	}
	ids := []string{}
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

// dcResult is one finished rewind process: an operation of the history.
type dcResult struct {
	args           []string
	as, cp         string
	approve        bool
	option, reason string
	code           int
	stdout, stderr string
	start, end     time.Time
}

func dcRun(t *testing.T, extraEnv []string, args ...string) dcResult {
	cmd := exec.Command(rewindBin(t), args...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	r := dcResult{args: args, start: time.Now()}
	err := cmd.Run()
	r.end = time.Now()
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		r.code = -1
		r.stderr = err.Error()
	}
	r.stdout, r.stderr = out.String(), errb.String()+r.stderr
	return r
}

// dcDecider describes one `rewind approve|reject` process.
func dcDecider(path, cp string, k int, approve bool) dcResult {
	d := dcResult{cp: cp, as: fmt.Sprintf("rewind-%s-%d", cp[len(cp)-6:], k), approve: approve}
	if approve {
		d.option = []string{"proceed", "hold"}[k%2]
		d.args = []string{"approve", path, cp, "--option", d.option, "--as", d.as}
	} else {
		d.reason = fmt.Sprintf("not now (decider %d)", k)
		d.args = []string{"reject", path, cp, "--reason", d.reason, "--as", d.as}
	}
	return d
}

// dcRunAll starts every decider at once and waits for all of them.
func dcRunAll(t *testing.T, ds []dcResult) []dcResult {
	out := make([]dcResult, len(ds))
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			r := dcRun(t, nil, d.args...)
			d.code, d.stdout, d.stderr, d.start, d.end = r.code, r.stdout, r.stderr, r.start, r.end
			out[i] = d
		}()
	}
	close(gate)
	wg.Wait()
	return out
}

// dcLineAt returns the journal line (without newline) that starts at off.
func dcLineAt(data []byte, off int64) string {
	if off < 0 || off > int64(len(data)) {
		return ""
	}
	rest := data[off:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return string(rest)
}

// dcDecision is a checkpoint.approved or checkpoint.rejected line.
type dcDecision struct {
	Type    string `json:"type"`
	Actor   string `json:"actor"`
	Payload struct {
		CheckpointID   string  `json:"checkpoint_id"`
		ApprovedBy     *string `json:"approved_by"`
		RejectedBy     *string `json:"rejected_by"`
		SelectedOption *string `json:"selected_option"`
		Reason         *string `json:"reason"`
	} `json:"payload"`
	ID        string `json:"id"`
	Timestamp int64  `json:"timestamp"`
}

// dcCheckHistory checks the deciders' history against the journal: for
// every checkpoint exactly one decider exited 0 and said where it wrote;
// that record is in the journal at that offset, is the checkpoint's only
// decision and says who decided what; every other decider exited 1 naming
// the winner.
func dcCheckHistory(t *testing.T, path string, data []byte, hist []dcResult, decisions map[string][]dcDecision) {
	t.Helper()
	winners := map[string]dcResult{}
	for _, r := range hist {
		if r.code == 0 {
			if w, dup := winners[r.cp]; dup {
				t.Errorf("%s: two deciders exited 0: %s and %s", r.cp, w.as, r.as)
			}
			winners[r.cp] = r
		}
	}
	for _, r := range hist {
		if _, ok := winners[r.cp]; !ok {
			t.Errorf("%s: no decider exited 0; e.g. %s: exit %d: %s", r.cp, r.as, r.code, r.stderr)
			winners[r.cp] = dcResult{as: "(none)"}
		}
	}
	for _, r := range hist {
		w := winners[r.cp]
		if r.code == 0 {
			prefix := "written to " + path + " at offset "
			rest, ok := strings.CutPrefix(r.stdout, prefix)
			offStr, rec, ok2 := strings.Cut(rest, ": ")
			off, err := strconv.ParseInt(offStr, 10, 64)
			if !ok || !ok2 || err != nil {
				t.Errorf("%s: exit 0 but stdout %q does not say where it wrote", r.as, r.stdout)
				continue
			}
			rec = strings.TrimSuffix(rec, "\n")
			if got := dcLineAt(data, off); got != rec {
				t.Errorf("%s: reported %q at offset %d, the journal has %q there", r.as, rec, off, got)
			}
			if r.stderr != "" {
				t.Errorf("%s: exit 0 with stderr %q", r.as, r.stderr)
			}
			continue
		}
		how := "rejected"
		if w.approve {
			how = "approved"
		}
		want := fmt.Sprintf("%s was already %s by %s", r.cp, how, w.as)
		if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "nothing written") || r.stdout != "" {
			t.Errorf("%s (%v): exit %d, stdout %q, stderr %q; want exit 1 and %q", r.as, r.args[0], r.code, r.stdout, r.stderr, want)
		}
		// A decider that started after the winner had finished must have
		// been refused; one that was refused must have read the winner's
		// record, so it cannot have finished before the winner started.
		if r.end.Before(w.start) {
			t.Errorf("%s was refused at %v, before the winner %s started at %v", r.as, r.end, w.as, w.start)
		}
	}
	for cp, w := range winners {
		ds := decisions[cp]
		if len(ds) != 1 {
			t.Errorf("%s: %d decision lines in the journal, want exactly 1: %+v", cp, len(ds), ds)
			continue
		}
		d := ds[0]
		str := func(p *string) string {
			if p == nil {
				return "<absent>"
			}
			return *p
		}
		if w.approve {
			if d.Type != "checkpoint.approved" || d.Actor != w.as || str(d.Payload.ApprovedBy) != w.as ||
				str(d.Payload.SelectedOption) != w.option || d.Payload.RejectedBy != nil {
				t.Errorf("%s: decision %+v does not record %s approving with %s", cp, d, w.as, w.option)
			}
		} else if d.Type != "checkpoint.rejected" || d.Actor != w.as || str(d.Payload.RejectedBy) != w.as ||
			str(d.Payload.Reason) != w.reason || d.Payload.ApprovedBy != nil {
			t.Errorf("%s: decision %+v does not record %s rejecting with %q", cp, d, w.as, w.reason)
		}
	}
}

// dcNodeLine is the part of a ds_writer.js event the checker reads.
type dcNodeLine struct {
	Type    string `json:"type"`
	Payload struct {
		Delta string `json:"delta"`
		State struct {
			Output string `json:"output"`
		} `json:"state"`
	} `json:"payload"`
	Metadata *struct {
		Writer string `json:"writer"`
		N      int    `json:"n"`
		Seq    int    `json:"seq"`
		SHA256 string `json:"sha256"`
	} `json:"metadata"`
}

// dcParse checks that data is whole JSON lines that start with prefix and
// returns the decisions per checkpoint and the Node writers' lines (n in
// file order, per writer). It checks the Node lines' content hashes and
// that their seq numbers run 1, 2, 3… in file order (assigned under the
// lock, so a gap or a repeat means two writers held it at once).
func dcParse(t *testing.T, data []byte, prefix string) (map[string][]dcDecision, map[string][]int) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(prefix)) {
		t.Fatalf("the journal no longer starts with its original %d bytes", len(prefix))
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("the journal ends in a partial line: %q", dcTail(data))
	}
	decisions := map[string][]dcDecision{}
	perWriter := map[string][]int{}
	seq := 0
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i, l := range lines {
		var ev dcNodeLine
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Errorf("line %d is not JSON (%v): %.200q", i+1, err, l)
			continue
		}
		switch {
		case ev.Metadata != nil:
			m := ev.Metadata
			text := ev.Payload.Delta
			if ev.Type == "execution.tool_finish" {
				text = ev.Payload.State.Output
			}
			if sum := sha256.Sum256([]byte(text)); hex.EncodeToString(sum[:]) != m.SHA256 {
				t.Errorf("line %d (%s #%d): the text does not match its hash", i+1, m.Writer, m.N)
			}
			seq++
			if m.Seq != seq {
				t.Errorf("line %d (%s #%d): seq %d, want %d (two writers held the lock at once?)", i+1, m.Writer, m.N, m.Seq, seq)
				seq = m.Seq
			}
			perWriter[m.Writer] = append(perWriter[m.Writer], m.N)
		case ev.Type == "checkpoint.approved" || ev.Type == "checkpoint.rejected":
			var d dcDecision
			if err := json.Unmarshal(l, &d); err != nil {
				t.Errorf("line %d: %v", i+1, err)
			}
			decisions[d.Payload.CheckpointID] = append(decisions[d.Payload.CheckpointID], d)
		}
	}
	return decisions, perWriter
}

// dcNodeSummary is the last line ds_writer.js append prints.
type dcNodeSummary struct {
	Writer       string `json:"writer"`
	Appended     int    `json:"appended"`
	Bytes        int64  `json:"bytes"`
	Intrusions   int    `json:"intrusions"`
	LockFailures int    `json:"lock_failures"`
}

// TestDecideNodeE2E races rewind approve/reject against Durable Stream
// writers that lock with proper-lockfile@4.1.2. It runs only with
// REWIND_NODE_TESTS=1, and then fails (never skips) if node, npm or the
// package install is unavailable.
func TestDecideNodeE2E(t *testing.T) {
	node := nodetest.Node(t, "testdata/node/ds_writer.js")
	if node == nil {
		return
	}
	rewindBin(t)

	t.Run("Node writers and concurrent deciders", func(t *testing.T) {
		questions := []string{"Ship the port on Friday?", "Drop the legacy invoices table?", "Which database for the ledger?",
			"Rotate the API keys now?", "Merge PR #42 without a second review?", "Run the migration on production?"}
		content, cps := dcStream(questions...)
		p := dcWrite(t, "durable_stream.jsonl", content)
		stop := filepath.Join(filepath.Dir(p), "stop")

		// Three Node writers append until told to stop.
		type nodeProc struct {
			cmd    *exec.Cmd
			out    *bufio.Reader
			stderr *strings.Builder
		}
		var writers []nodeProc
		for k := range 3 {
			cmd := node("append", p, fmt.Sprintf("node-%d", k), stop)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var se strings.Builder
			cmd.Stderr = &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			writers = append(writers, nodeProc{cmd, bufio.NewReader(stdout), &se})
		}
		for _, w := range writers {
			if line, err := w.out.ReadString('\n'); line != "started\n" {
				os.WriteFile(stop, nil, 0o644)
				t.Fatalf("node writer: %q, %v\n%s", line, err, w.stderr)
			}
		}

		// Four deciders per checkpoint, approvals and rejections mixed,
		// all started at once while the writers append.
		var ds []dcResult
		for i, cp := range cps {
			for k := range 4 {
				ds = append(ds, dcDecider(p, cp, k, (i+k)%2 == 0))
			}
		}
		began := time.Now()
		hist := dcRunAll(t, ds)
		decided := time.Since(began)
		time.Sleep(200 * time.Millisecond) // the writers carry on a little after the decisions
		if err := os.WriteFile(stop, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		want := map[string]int{}
		for _, w := range writers {
			rest, _ := io.ReadAll(w.out)
			if err := w.cmd.Wait(); err != nil {
				t.Fatalf("node writer: %v\n%s", err, w.stderr)
			}
			var s dcNodeSummary
			if err := json.Unmarshal(rest, &s); err != nil {
				t.Fatalf("node writer summary %q: %v\n%s", rest, err, w.stderr)
			}
			if s.Intrusions != 0 {
				t.Errorf("%s: %d times the journal grew by more than its own line while it held the lock:\n%s", s.Writer, s.Intrusions, w.stderr)
			}
			want[s.Writer] = s.Appended
			t.Logf("%s: %d appends (%d bytes), %d lock attempts that ran out of retries", s.Writer, s.Appended, s.Bytes, s.LockFailures)
		}

		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d deciders for %d checkpoints finished in %v; journal %d bytes", len(hist), len(cps), decided.Round(time.Millisecond), len(data))
		decisions, perWriter := dcParse(t, data, content)
		for w, n := range want {
			got := perWriter[w]
			if len(got) != n {
				t.Errorf("%s appended %d events, the journal has %d", w, n, len(got))
			}
			for i, v := range got {
				if v != i {
					t.Errorf("%s: event #%d is in the journal at position %d of its writer's events (lost, repeated or reordered)", w, v, i)
					break
				}
			}
		}
		for w := range perWriter {
			if _, ok := want[w]; !ok {
				t.Errorf("events of an unknown writer %q", w)
			}
		}
		dcCheckHistory(t, p, data, hist, decisions)
		if len(decisions) != len(cps) {
			t.Errorf("decisions for %d checkpoints, want %d", len(decisions), len(cps))
		}
		// Every writer stamps its events under the lock, rewind included,
		// so verify finds nothing: no bad line, no timestamp going
		// backwards, no repeated id.
		if out, errOut, code := runRewind(t, ".", "verify", p); code != 0 {
			t.Errorf("rewind verify: exit %d: %s%s", code, out, errOut)
		}
		if got := dcPending(t, p); len(got) != 0 {
			t.Errorf("rewind pending after the decisions: %v, want []", got)
		}
		dcNoLock(t, p)
	})

	t.Run("SIGKILLed Node lock holder", func(t *testing.T) {
		content, cps := dcStream("Ship the port on Friday?", "Rotate the API keys now?")
		p := dcWrite(t, "durable_stream.jsonl", content)
		holder := node("hold", p)
		stdout, err := holder.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var se strings.Builder
		holder.Stderr = &se
		if err := holder.Start(); err != nil {
			t.Fatal(err)
		}
		defer holder.Process.Kill()
		if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
			t.Fatalf("node hold: %q, %v\n%s", line, err, se.String())
		}
		before := dcSnap(t, p)

		// Three deciders for one checkpoint, one for the other, with the
		// production settings (stale 10 s, wait 31 s).
		ds := []dcResult{dcDecider(p, cps[0], 0, true), dcDecider(p, cps[0], 1, false), dcDecider(p, cps[0], 2, true), dcDecider(p, cps[1], 0, false)}
		var hist []dcResult
		done := make(chan struct{})
		go func() {
			hist = dcRunAll(t, ds)
			close(done)
		}()
		select {
		case <-done:
			t.Fatalf("the deciders finished while Node held the lock: %+v", hist)
		case <-time.After(time.Second):
		}
		dcUnchanged(t, p, before)
		if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		holder.Wait()
		killed := time.Now()
		if fi, err := os.Stat(p + ".lock"); err != nil || !fi.IsDir() {
			t.Fatalf("the lock directory is gone after SIGKILL: %v", err)
		}
		select {
		case <-done:
		case <-time.After(40 * time.Second):
			t.Fatal("the deciders did not finish within 40 s of the SIGKILL")
		}
		var last time.Time
		for _, r := range hist {
			if r.end.After(last) {
				last = r.end
			}
		}
		waited := last.Sub(killed)
		t.Logf("the deciders took over the dead Node lock and finished %v after the SIGKILL (stale 10 s)", waited.Round(time.Millisecond))
		if waited > 13*time.Second {
			t.Errorf("takeover took %v after the SIGKILL, want at most stale (10 s) after Node's last refresh", waited)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		decisions, _ := dcParse(t, data, content)
		dcCheckHistory(t, p, data, hist, decisions)
		if out, errOut, code := runRewind(t, ".", "verify", p); code != 0 {
			t.Errorf("rewind verify: exit %d: %s%s", code, out, errOut)
		}
		if got := dcPending(t, p); len(got) != 0 {
			t.Errorf("rewind pending after the decisions: %v, want []", got)
		}
		dcNoLock(t, p)
	})
}

// A writer killed in the middle of a large write leaves a torn last line:
// the decision goes on a line of its own after it.
func TestDecideAfterTornLastLine(t *testing.T) {
	content, cps := dcStream("Ship the port on Friday?", "Rotate the API keys now?")
	big := dcLine("execution.text_delta", "system", map[string]any{"sessionID": dcSession, "messageID": "msg_02", "partID": "prt_99",
		"delta": strings.Repeat("A long answer, cut short by SIGKILL… ", 2000)}, time.Now().UnixMilli())
	torn := big[:len(big)*2/3]
	p := dcWrite(t, "durable_stream.jsonl", content+torn)

	out, errOut, code := runRewind(t, ".", "approve", p, cps[1], "--option", "hold", "--as", "rewind-torn")
	if code != 0 {
		t.Fatalf("rewind approve after a torn line: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := bytes.CutPrefix(data, []byte(content+torn+"\n"))
	if !ok {
		t.Fatalf("the journal is not the old bytes, \"\\n\" and the decision: tail %q", dcTail(data))
	}
	var d dcDecision
	if !bytes.HasSuffix(rest, []byte("\n")) || bytes.Count(rest, []byte("\n")) != 1 || json.Unmarshal(rest, &d) != nil {
		t.Fatalf("the decision is not one JSON line: %q", rest)
	}
	if d.Type != "checkpoint.approved" || d.Payload.CheckpointID != cps[1] || d.Actor != "rewind-torn" {
		t.Errorf("decision = %+v", d)
	}
	wantOut := fmt.Sprintf("written to %s at offset %d: %s", p, len(content)+len(torn)+1, rest)
	if out != wantOut {
		t.Errorf("stdout = %q, want %q", out, wantOut)
	}
	if got := dcPending(t, p); len(got) != 1 || got[0] != cps[0] {
		t.Errorf("pending = %v, want only %s", got, cps[0])
	}
	dcNoLock(t, p)

	// verify: the torn line is one bad line (not-json); the decision after
	// it is an event.
	vout, verr, vcode := runRewind(t, ".", "verify", "--json", p)
	if vcode != 1 {
		t.Errorf("rewind verify: exit %d, want 1 (problems found): %s", vcode, verr)
	}
	var rep struct {
		R        int `json:"records"`
		E        int `json:"events"`
		B        int `json:"bad_lines"`
		Problems []struct {
			Line   int    `json:"line"`
			Offset int64  `json:"offset"`
			Kind   string `json:"kind"`
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(vout), &rep); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, vout)
	}
	lines := strings.Count(content, "\n")
	if rep.B != 1 || rep.R != lines+2 || rep.E != lines+1 {
		t.Errorf("verify: %d records, %d events, %d bad lines; want %d, %d, 1\n%s", rep.R, rep.E, rep.B, lines+2, lines+1, vout)
	}
	tornOK := false
	for _, pr := range rep.Problems {
		switch {
		case pr.Line == lines+1 && pr.Offset == int64(len(content)) && pr.Kind == "not-json":
			tornOK = true
		case pr.Line == lines+2:
			t.Errorf("verify reports a problem with the decision line: %+v", pr)
		}
	}
	if !tornOK {
		t.Errorf("verify does not report the torn line %d as not-json:\n%s", lines+1, vout)
	}
	// A second decision on the same journal needs no fence.
	size := len(data)
	if _, errOut, code := runRewind(t, ".", "reject", p, cps[0], "--as", "rewind-torn"); code != 0 {
		t.Fatalf("second decision: exit %d: %s", code, errOut)
	}
	data, _ = os.ReadFile(p)
	if data[size] != '{' {
		t.Errorf("the second decision does not start right after the first: %q", data[size:])
	}
}

// dcNobody prepares to run rewind as the unprivileged user 65534 (when the
// tests run as root; otherwise permissions already apply): it returns the
// command prefix and a rewind binary that user can execute.
func dcNobody(t *testing.T) (prefix []string, bin string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil, rewindBin(t)
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatalf("running as root and setpriv is not available to drop privileges: %v", err)
	}
	dir, err := os.MkdirTemp("", "rewind-nobody-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	src, err := os.ReadFile(rewindBin(t))
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "rewind")
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}, bin
}

// dcPublicDir returns a new directory with the given mode, outside
// t.TempDir (whose parents are private to root), so that the unprivileged
// user can reach it.
func dcPublicDir(t *testing.T, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rewind-decide-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Chmod(dir, 0o755)
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dcRefused runs rewind with args and checks the exit status, that stderr
// contains every string of want, and that the journal p (bytes, mtime,
// inode) and its lock are as before.
func dcRefused(t *testing.T, wantCode int, p string, cmdPrefix []string, args []string, want ...string) string {
	t.Helper()
	before := dcSnap(t, p)
	var cmd *exec.Cmd
	if len(cmdPrefix) > 0 {
		cmd = exec.Command(cmdPrefix[0], append(cmdPrefix[1:], args...)...)
	} else {
		cmd = exec.Command(rewindBin(t), args...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	stderr := errb.String()
	if code != wantCode {
		t.Errorf("%v: exit %d, want %d; stdout %q, stderr %q", args, code, wantCode, out.String(), stderr)
	}
	if out.Len() != 0 {
		t.Errorf("%v: stdout %q, want nothing", args, out.String())
	}
	if strings.Count(strings.TrimSuffix(stderr, "\n"), "\n") != 0 || !strings.HasPrefix(stderr, "rewind: ") {
		t.Errorf("%v: stderr is not one line starting with \"rewind: \": %q", args, stderr)
	}
	for _, w := range want {
		if !strings.Contains(strings.ToLower(stderr), strings.ToLower(w)) {
			t.Errorf("%v: stderr %q does not mention %q", args, stderr, w)
		}
	}
	time.Sleep(5 * time.Millisecond) // so that a late write would show in the mtime
	dcUnchanged(t, p, before)
	return stderr
}

func TestDecideFailures(t *testing.T) {
	content, cps := dcStream("Ship the port on Friday?", "Rotate the API keys now?")
	approve := func(p string) []string {
		return []string{"approve", p, cps[0], "--option", "proceed", "--as", "rewind-fail", "--wait", "2s"}
	}

	t.Run("file size limit", func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Fatalf("bash is needed to set ulimit -f: %v", err)
		}
		// bash counts ulimit -f in 1024-byte blocks (512 only in POSIX
		// mode). Pad the journal so that its size is 12 bytes short of a
		// block: a limit of the next whole block leaves no room for the
		// decision (about 290 bytes).
		const block = 1024
		filler := dcLine("execution.text_delta", "system", map[string]any{"sessionID": dcSession, "messageID": "msg_03", "partID": "prt_pad", "delta": ""}, time.Now().UnixMilli())
		pad := ((block-12-(len(content)+len(filler)))%block + block) % block
		filler = strings.Replace(filler, `"delta":""`, `"delta":"`+strings.Repeat("x", pad)+`"`, 1)
		p := dcWrite(t, "durable_stream.jsonl", content+filler)
		size := int64(len(content) + len(filler))
		if size%block != block-12 {
			t.Fatalf("padding: size %d", size)
		}
		blocks := size/block + 1
		run := func(blocks int64) []string {
			return []string{bash, "-c", `ulimit -f "$1" && shift && exec "$@"`, "bash", strconv.FormatInt(blocks, 10), rewindBin(t)}
		}
		stderr := dcRefused(t, 2, p, run(blocks), approve(p), "file size limit", fmt.Sprintf("limit of %d bytes", blocks*block), p, "unchanged")
		t.Logf("ulimit -f %d (%d bytes, journal %d bytes): %s", blocks, blocks*block, size, strings.TrimSpace(stderr))
		dcNoLock(t, p)
		// With room for the record, the same command works.
		cmd := exec.Command(run(blocks + 1)[0], append(run(blocks + 1)[1:], approve(p)...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("with ulimit -f %d: %v: %s", blocks+1, err, out)
		}
		if got := dcPending(t, p); len(got) != 1 || got[0] != cps[1] {
			t.Errorf("pending = %v", got)
		}
	})

	t.Run("read-only journal", func(t *testing.T) {
		// Root ignores file modes, so try, in turn, a read-only bind
		// mount, an immutable file and an unprivileged user on a 0444
		// file; at least one must be possible.
		ran := 0
		t.Run("read-only bind mount", func(t *testing.T) {
			src, mnt := t.TempDir(), t.TempDir()
			p := filepath.Join(src, "durable_stream.jsonl")
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("mount", "--bind", src, mnt).CombinedOutput(); err != nil {
				t.Logf("no bind mount here (%v: %s); trying the other ways", err, bytes.TrimSpace(out))
				return
			}
			t.Cleanup(func() {
				if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
					t.Errorf("umount %s: %v: %s", mnt, err, out)
				}
			})
			if out, err := exec.Command("mount", "-o", "remount,ro,bind", mnt).CombinedOutput(); err != nil {
				t.Logf("cannot remount read-only (%v: %s); trying the other ways", err, bytes.TrimSpace(out))
				return
			}
			ran++
			mp := filepath.Join(mnt, "durable_stream.jsonl")
			dcRefused(t, 2, mp, nil, approve(mp), "read-only", mp+".lock")
			dcNoLock(t, mp)
		})
		t.Run("immutable file", func(t *testing.T) {
			p := dcWrite(t, "durable_stream.jsonl", content)
			if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
				t.Logf("no chattr +i here (%v: %s); trying the other ways", err, bytes.TrimSpace(out))
				return
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
			if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); err == nil {
				f.Close()
				t.Logf("chattr +i does not stop this process from writing; trying the other ways")
				return
			}
			ran++
			dcRefused(t, 2, p, nil, approve(p), "permission denied", p)
			dcNoLock(t, p)
		})
		t.Run("0444 file, unprivileged user", func(t *testing.T) {
			prefix, bin := dcNobody(t)
			dir := dcPublicDir(t, 0o777)
			p := filepath.Join(dir, "durable_stream.jsonl")
			if err := os.WriteFile(p, []byte(content), 0o444); err != nil {
				t.Fatal(err)
			}
			ran++
			dcRefused(t, 2, p, append(prefix, bin), approve(p), "permission denied", p)
			dcNoLock(t, p)
		})
		if ran == 0 {
			t.Fatal("no way to make the journal read-only for rewind here")
		}
	})

	t.Run("lock directory cannot be created", func(t *testing.T) {
		t.Run("a file is in the way", func(t *testing.T) {
			p := dcWrite(t, "durable_stream.jsonl", content)
			if err := os.WriteFile(p+".lock", []byte("not a lock"), 0o644); err != nil {
				t.Fatal(err)
			}
			lock := dcSnap(t, p+".lock")
			dcRefused(t, 2, p, nil, approve(p), p+".lock", "not a directory")
			dcUnchanged(t, p+".lock", lock)
		})
		t.Run("directory not writable for the user", func(t *testing.T) {
			prefix, bin := dcNobody(t)
			dir := dcPublicDir(t, 0o755)
			p := filepath.Join(dir, "durable_stream.jsonl")
			if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
				t.Fatal(err)
			}
			os.Chmod(p, 0o666)
			if err := os.Chmod(dir, 0o555); err != nil {
				t.Fatal(err)
			}
			dcRefused(t, 2, p, append(prefix, bin), approve(p), "cannot create lock directory "+p+".lock", "permission denied")
			dcNoLock(t, p)
		})
	})

	t.Run("already decided or unknown", func(t *testing.T) {
		decided := dcLine("checkpoint.approved", "alice", map[string]any{"checkpoint_id": cps[0], "approved_by": "alice", "selected_option": "hold"}, time.Now().UnixMilli())
		rejected := dcLine("checkpoint.rejected", "bob", map[string]any{"checkpoint_id": cps[1], "rejected_by": "bob", "reason": "too risky"}, time.Now().UnixMilli())
		p := dcWrite(t, "durable_stream.jsonl", content+decided+rejected)
		dcRefused(t, 1, p, nil, approve(p), cps[0]+" was already approved by alice", "option hold", "nothing written")
		dcRefused(t, 1, p, nil, []string{"reject", p, cps[0], "--reason", "late"}, "already approved by alice")
		dcRefused(t, 1, p, nil, []string{"approve", p, cps[1]}, cps[1]+" was already rejected by bob", "too risky")
		dcRefused(t, 1, p, nil, []string{"approve", p, "cp_1795400000000_nosuch"}, "cp_1795400000000_nosuch", "unknown", "nothing written")
		dcRefused(t, 1, p, nil, []string{"reject", p, "intent_1"}, "unknown")
		dcNoLock(t, p)
	})

	t.Run("JSON array journal", func(t *testing.T) {
		var arr bytes.Buffer
		arr.WriteString("[\n")
		for i, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
			if i > 0 {
				arr.WriteString(",\n")
			}
			var v any
			json.Unmarshal([]byte(l), &v)
			b, _ := json.MarshalIndent(v, "  ", "  ")
			arr.WriteString("  ")
			arr.Write(b)
		}
		arr.WriteString("\n]\n")
		p := dcWrite(t, "durable_stream.jsonl", arr.String())
		if got := dcPending(t, p); len(got) != 2 {
			t.Errorf("the array is still read: pending = %v", got)
		}
		dcRefused(t, 2, p, nil, approve(p), "JSON array", "jq -c '.[]'", "not written")
		dcNoLock(t, p)
	})

	t.Run("symlink outside its directory", func(t *testing.T) {
		root := t.TempDir()
		for _, d := range []string{"project/.opencode", "elsewhere"} {
			os.MkdirAll(filepath.Join(root, d), 0o755)
		}
		target := filepath.Join(root, "elsewhere", "durable_stream.jsonl")
		if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(root, "project/.opencode/durable_stream.jsonl")
		if err := os.Symlink("../../elsewhere/durable_stream.jsonl", link); err != nil {
			t.Fatal(err)
		}
		dcRefused(t, 2, target, nil, approve(link), "symbolic link", "outside the directory")
		dcNoLock(t, target)
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the symlink was replaced: %v", err)
		}

		// A symlink within the directory is followed, and the lock is
		// taken next to the target, as proper-lockfile does.
		inside := filepath.Join(root, "elsewhere", "current.jsonl")
		os.Symlink("durable_stream.jsonl", inside)
		if _, errOut, code := runRewind(t, ".", approve(inside)...); code != 0 {
			t.Fatalf("approve through a symlink in the same directory: exit %d: %s", code, errOut)
		}
		if got := dcPending(t, target); len(got) != 1 || got[0] != cps[1] {
			t.Errorf("pending = %v", got)
		}
		dcNoLock(t, target)
		if _, err := os.Lstat(inside + ".lock"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a lock was left next to the symlink: %v", err)
		}
	})
}

// rewind answer writes interaction/response.txt for a paused Delta Engine
// run, exactly once, and never touches the journal.
func TestAnswerDeltaEngineE2E(t *testing.T) {
	ws := filepath.Join(t.TempDir(), ".delta")
	if err := os.CopyFS(ws, os.DirFS(deltaWorkspace)); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(ws, filepath.Base(deltaPaused))
	journal := filepath.Join(run, "journal.jsonl")
	resp := filepath.Join(run, "interaction", "response.txt")
	const askID = "call_AskW3lc0me01"
	snaps := map[string]dcSnapshot{}
	for _, f := range []string{journal, filepath.Join(run, "metadata.json"), filepath.Join(run, "interaction", "request.json")} {
		snaps[f] = dcSnap(t, f)
	}
	if got := dcPending(t, run); len(got) != 1 || got[0] != askID {
		t.Fatalf("pending = %v, want [%s]", got, askID)
	}

	out, errOut, code := runRewind(t, ".", "answer", run, "Alice")
	if code != 0 || out != "answered: wrote "+resp+"\n" {
		t.Fatalf("rewind answer: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The engine uses the file's content as the answer (observation_content
	// and USER_MESSAGE): exactly the text, no newline added.
	if b, err := os.ReadFile(resp); err != nil || string(b) != "Alice" {
		t.Fatalf("response.txt = %q, %v; want exactly \"Alice\"", b, err)
	}
	if fi, err := os.Stat(resp); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
		t.Errorf("response.txt: %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(resp))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "request.json,response.txt" {
		t.Errorf("interaction/ holds %v: a temporary file was left behind", names)
	}

	// A second answer is refused and changes nothing.
	respSnap := dcSnap(t, resp)
	dcRefused(t, 1, resp, nil, []string{"answer", run, "Bob"}, "already answered", askID)
	dcUnchanged(t, resp, respSnap)
	for f, s := range snaps {
		dcUnchanged(t, f, s)
	}
	// It stays pending (for the run and for the whole .delta/) until the
	// engine resumes.
	if got := dcPending(t, run); len(got) != 1 || got[0] != askID {
		t.Errorf("pending after the answer = %v, want [%s] until the engine resumes", got, askID)
	}
	if got := dcPending(t, ws); len(got) != 1 || got[0] != askID {
		t.Errorf("pending of .delta/ after the answer = %v", got)
	}

	// delta continue: USER_MESSAGE and ACTION_RESULT, then the files go.
	f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	ts := "2026-11-21T22:31:02.410Z"
	fmt.Fprintf(f, `{"seq":6,"timestamp":%q,"type":"USER_MESSAGE","payload":{"content":"Alice"}}`+"\n", ts)
	fmt.Fprintf(f, `{"seq":7,"timestamp":%q,"type":"ACTION_RESULT","payload":{"action_id":%q,"status":"SUCCESS","observation_content":"Alice","execution_ref":%q}}`+"\n", ts, askID, askID)
	f.Close()
	if got := dcPending(t, run); len(got) != 0 {
		t.Errorf("pending after the engine resumed = %v, want []", got)
	}
	if got := dcPending(t, ws); len(got) != 0 {
		t.Errorf("pending of .delta/ after the engine resumed = %v, want []", got)
	}
	os.Remove(resp)
	os.Remove(filepath.Join(run, "interaction", "request.json"))
	dcRefused(t, 1, journal, nil, []string{"answer", run, "Carol"}, "not waiting")
	if _, err := os.Stat(resp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an answer to a run that no longer waits was written: %v", err)
	}
}
