package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-tui/rewind/journal/lockfile"
)

// Journal formats accepted by [Run] and [Generate].
const (
	FormatDurableStream = "durable-stream" // OpenCode Durable Stream plugin: .opencode/durable_stream.jsonl
	FormatDeltaEngine   = "delta-engine"   // Delta Engine: .delta/<run_id>/journal.jsonl
	FormatDeltaMind     = "deltamind"      // DeltaMind: .deltamind/provenance.jsonl and snapshot.json
)

// Options configure [Run].
type Options struct {
	// Interval is the pause between two events. Zero means 400 ms.
	Interval time.Duration

	// Seed makes the simulated content repeatable. Timestamps come from
	// the wall clock, and the run's course depends on the human
	// decisions it reads, so two runs are alike but not identical.
	Seed int64

	// Format is the journal format to write: FormatDurableStream (the
	// default when empty), FormatDeltaEngine or FormatDeltaMind.
	Format string

	// Stopped, if not nil, is called once from the simulator's goroutine
	// when it has stopped writing: with nil after ctx is done, or with the
	// error that stopped it early. Callers that remove dir afterwards
	// should wait for it.
	Stopped func(err error)
}

// Run starts a simulated agent run writing a journal under dir, which
// must exist, and returns the journal's path at once. A goroutine appends
// events every o.Interval until ctx is done.
//
// In the durable-stream format (the default) the journal is
// dir/.opencode/durable_stream.jsonl. Run creates it empty first and then
// appends each event with one write(2) while holding the journal's
// proper-lockfile lock, as the OpenCode plugin does. Within its first
// eight events the simulated orchestrator writes a checkpoint.requested
// and then only does low-key work (status text, heartbeat steps) until a
// checkpoint.approved or checkpoint.rejected line for that checkpoint
// appears in the file, written by someone else. After an approval it
// spawns an agent for the selected option's work and starts the gated
// ledger task; after a rejection it logs the fact and moves on. It then
// asks further checkpoints in the same way.
//
// In the delta-engine format the journal is
// dir/.delta/<run_id>/journal.jsonl, with .delta/VERSION, metadata.json
// and engine.log beside it. Early on, and every dozen iterations after
// that, the agent calls ask_human: it writes interaction/request.json,
// sets metadata.json's status to WAITING_FOR_INPUT and waits until
// interaction/response.txt exists. It then appends USER_MESSAGE and
// ACTION_RESULT with the response, deletes both interaction files and
// sets the status back to RUNNING. When ctx is done while the run is
// RUNNING, Run appends "Run interrupted by user" and sets INTERRUPTED.
//
// In the deltamind format the journal is dir/.deltamind/provenance.jsonl.
// Like DeltaMind's saveSession, each batch of deltas rewrites
// snapshot.json and then provenance.jsonl whole (truncate and write), so
// a reader may briefly see either file empty or short.
func Run(ctx context.Context, dir string, o Options) (journalPath string, err error) {
	if o.Interval <= 0 {
		o.Interval = 400 * time.Millisecond
	}
	if o.Format == "" {
		o.Format = FormatDurableStream
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	var path string
	var loop func() error
	switch o.Format {
	case FormatDurableStream:
		path, loop, err = startDurable(ctx, abs, o)
	case FormatDeltaEngine:
		path, loop, err = startDeltaEngine(ctx, abs, o)
	case FormatDeltaMind:
		path, loop, err = startDeltaMind(ctx, abs, o)
	default:
		return "", fmt.Errorf("demo: unknown format %q", o.Format)
	}
	if err != nil {
		return "", err
	}
	go func() {
		err := loop()
		if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			err = nil
		}
		if o.Stopped != nil {
			o.Stopped(err)
		}
	}()
	return path, nil
}

// touch creates path if it does not exist, without truncating it.
func touch(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// appendLine appends line to path with a single write(2), like Node's
// fs.appendFile and writeFile(…, {flag: 'a'}).
func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// appendLocked appends line to path while holding the proper-lockfile
// lock on it, retrying while another writer holds the lock.
func appendLocked(ctx context.Context, path string, line []byte) error {
	for {
		lk, err := lockfile.Acquire(ctx, path, lockfile.Options{})
		if err != nil {
			var held *lockfile.HeldError
			if errors.As(err, &held) && ctx.Err() == nil {
				continue
			}
			return err
		}
		err = appendLine(path, line)
		if rerr := lk.Release(); err == nil && rerr != nil && !errors.Is(rerr, lockfile.ErrCompromised) {
			err = rerr
		}
		return err
	}
}

// writePretty writes compact JSON indented with two spaces and no final
// newline, like writeFileSync(path, JSON.stringify(v, null, 2)).
func writePretty(path string, compact []byte) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func startDurable(ctx context.Context, dir string, o Options) (string, func() error, error) {
	if err := os.MkdirAll(filepath.Join(dir, ".opencode"), 0o755); err != nil {
		return "", nil, err
	}
	path := filepath.Join(dir, ".opencode", "durable_stream.jsonl")
	if err := touch(path); err != nil {
		return "", nil, err
	}
	e := newLiveEngine(ctx, o.Seed, o.Interval, func(line []byte) error { return appendLocked(ctx, path, line) })
	d := newDurable(e, dir)
	t := &tail{path: path, seen: map[string]decision{}}
	d.decide = t.decide
	return path, d.run, nil
}

// tail follows a Durable Stream journal for checkpoint decisions.
type tail struct {
	path    string
	off     int64
	partial []byte
	seen    map[string]decision
}

// decide reads the lines appended since the last call and reports the
// decision on checkpoint id, if one has appeared.
func (t *tail) decide(id string) (decision, bool, error) {
	if d, ok := t.seen[id]; ok {
		return d, true, nil
	}
	f, err := os.Open(t.path)
	if err != nil {
		return decision{}, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return decision{}, false, err
	}
	if fi.Size() < t.off { // truncated or replaced: start over
		t.off, t.partial = 0, nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, t.off, fi.Size()-t.off))
	if err != nil {
		return decision{}, false, err
	}
	t.off += int64(len(data))
	data = append(t.partial, data...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line := data[:i]
		data = data[i+1:]
		if !bytes.Contains(line, []byte(`"checkpoint.`)) {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			Payload struct {
				CheckpointID   string `json:"checkpoint_id"`
				SelectedOption string `json:"selected_option"`
				Reason         string `json:"reason"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &ev) != nil || ev.Payload.CheckpointID == "" {
			continue // upstream skips bad lines silently
		}
		if _, dup := t.seen[ev.Payload.CheckpointID]; dup {
			continue // the first decision wins
		}
		switch ev.Type {
		case "checkpoint.approved":
			t.seen[ev.Payload.CheckpointID] = decision{approved: true, option: ev.Payload.SelectedOption}
		case "checkpoint.rejected":
			t.seen[ev.Payload.CheckpointID] = decision{reason: ev.Payload.Reason}
		}
	}
	t.partial = append([]byte(nil), data...)
	d, ok := t.seen[id]
	return d, ok, nil
}

// newDeltaRun returns a Delta Engine run simulator.
func newDeltaRun(e *engine, runID, agentRef string) *deltaRun {
	return &deltaRun{e: e, runID: runID, task: pick(e, deltaTasks), agentRef: agentRef}
}

// deltaMeta is a Delta Engine run's metadata.json.
type deltaMeta struct {
	runID, startTime, agentRef, task, status string
	iters, pid                               int
	hostname                                 string
	startUnix                                int64
}

func (m *deltaMeta) write(path string) error {
	w := &jw{}
	w.obj()
	w.ks("run_id", m.runID)
	w.ks("start_time", m.startTime)
	w.ks("agent_ref", m.agentRef)
	w.ks("task", m.task)
	w.ks("status", m.status)
	w.ki("iterations_completed", int64(m.iters))
	w.ki("pid", int64(m.pid))
	w.ks("hostname", m.hostname)
	w.ki("start_time_unix", m.startUnix)
	w.ks("process_name", "node")
	w.end()
	return writePretty(path, w.b)
}

func startDeltaEngine(ctx context.Context, dir string, o Options) (string, func() error, error) {
	root := filepath.Join(dir, ".delta")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "VERSION"), []byte("1.2\n"), 0o644); err != nil {
		return "", nil, err
	}
	start := time.Now()
	var journal string
	e := newLiveEngine(ctx, o.Seed, o.Interval, func(line []byte) error { return appendLine(journal, line) })
	r := newDeltaRun(e, start.Format("20060102_150405")+"_"+e.hex(6), filepath.Join(dir, "agents", "coder"))
	runDir := filepath.Join(root, r.runID)
	journal = filepath.Join(runDir, "journal.jsonl")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return "", nil, err
	}
	if err := touch(journal); err != nil {
		return "", nil, err
	}
	host, _ := os.Hostname()
	meta := &deltaMeta{runID: r.runID, startTime: string(appendISO(nil, start.UnixMilli())), agentRef: r.agentRef,
		task: r.task, status: "RUNNING", pid: os.Getpid(), hostname: host, startUnix: start.UnixMilli()}
	metaPath := filepath.Join(runDir, "metadata.json")
	if err := meta.write(metaPath); err != nil {
		return "", nil, err
	}
	logPath := filepath.Join(runDir, "engine.log")
	logf := func(msg string) error {
		return appendLine(logPath, append(append(append([]byte{'['}, appendISO(nil, time.Now().UnixMilli())...), "] "+msg...), '\n'))
	}
	if err := logf("Engine started: " + r.runID); err != nil {
		return "", nil, err
	}
	r.iterated = func() error {
		meta.iters = r.iters
		if err := meta.write(metaPath); err != nil {
			return err
		}
		return logf("Starting iteration " + strconv.Itoa(r.iters+1))
	}
	inter := filepath.Join(runDir, "interaction")
	request, response := filepath.Join(inter, "request.json"), filepath.Join(inter, "response.txt")
	r.ask = func(actionID, prompt string) (string, error) {
		if err := os.MkdirAll(inter, 0o755); err != nil {
			return "", err
		}
		w := &jw{}
		w.obj()
		w.ks("request_id", e.uuid())
		w.kiso("timestamp", time.Now().UnixMilli())
		w.ks("prompt", prompt)
		w.ks("input_type", "text")
		w.key("sensitive")
		w.boolean(false)
		w.end()
		if err := writePretty(request, w.b); err != nil {
			return "", err
		}
		meta.status = "WAITING_FOR_INPUT"
		if err := meta.write(metaPath); err != nil {
			return "", err
		}
		if err := logf("Agent pausing for human input"); err != nil {
			return "", err
		}
		for {
			b, err := os.ReadFile(response)
			if err == nil && len(bytes.TrimSpace(b)) > 0 {
				return strings.TrimSpace(string(b)), nil
			}
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", err
			}
			if err := e.sleep(min(o.Interval, 100*time.Millisecond)); err != nil {
				return "", err
			}
		}
	}
	r.resumed = func() error {
		for _, p := range []string{request, response} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		meta.status = "RUNNING"
		return meta.write(metaPath)
	}
	loop := func() error {
		err := r.run()
		if ctx.Err() != nil && meta.status == "RUNNING" {
			// Like the engine's SIGINT handler.
			if err := r.systemMessage("INFO", "Run interrupted by user", e.wall()); err != nil {
				return err
			}
			meta.status = "INTERRUPTED"
			if err := meta.write(metaPath); err != nil {
				return err
			}
		}
		return err
	}
	return journal, loop, nil
}

func startDeltaMind(ctx context.Context, dir string, o Options) (string, func() error, error) {
	root := filepath.Join(dir, ".deltamind")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", nil, err
	}
	path := filepath.Join(root, "provenance.jsonl")
	if err := touch(path); err != nil {
		return "", nil, err
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	e := newLiveEngine(ctx, o.Seed, o.Interval, func(line []byte) error {
		content = append(content, line...)
		return nil
	})
	m := newMind(e, true)
	m.saved = func() error {
		if err := writePretty(filepath.Join(root, "snapshot.json"), m.snapshot(e.wall())); err != nil {
			return err
		}
		return os.WriteFile(path, content, 0o644)
	}
	return path, m.run, nil
}
