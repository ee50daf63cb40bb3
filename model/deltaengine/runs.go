package deltaengine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rewind-tui/rewind/model"
)

// JournalName is the only file name Delta Engine accepts for a journal.
const JournalName = "journal.jsonl"

// Metadata is a run's metadata.json (DeltaRunMetadata in Delta Engine's
// src/types.ts), which the engine rewrites in place on every status change.
// Times are ISO-8601 strings as written; PID, Hostname, StartTimeUnix and
// ProcessName exist since v1.10.
type Metadata struct {
	RunID               string `json:"run_id"`
	StartTime           string `json:"start_time"`
	EndTime             string `json:"end_time,omitempty"`
	AgentRef            string `json:"agent_ref"`
	Task                string `json:"task"`
	Status              string `json:"status"`
	IterationsCompleted int    `json:"iterations_completed"`
	Error               string `json:"error,omitempty"`
	PID                 int    `json:"pid,omitempty"`
	Hostname            string `json:"hostname,omitempty"`
	StartTimeUnix       int64  `json:"start_time_unix,omitempty"` // Unix milliseconds
	ProcessName         string `json:"process_name,omitempty"`
}

// Run is one run directory of a .delta directory, as ListRuns finds it.
type Run struct {
	// ID is the directory name (the run id).
	ID string
	// Dir is the run directory's path.
	Dir string
	// Status is metadata.json's status (RUNNING, WAITING_FOR_INPUT,
	// COMPLETED, FAILED, INTERRUPTED), or StatusUnknown when metadata.json
	// is missing or does not parse.
	Status string
	// Task is metadata.json's task, or the RUN_START task of the journal
	// when the metadata is unusable.
	Task string
	// Start is when the run started: metadata start_time (or
	// start_time_unix), else the journal's first timestamp; zero if neither.
	Start time.Time
	// Iterations is metadata.json's iterations_completed: the iterations
	// that ran tools, which can be fewer than the THOUGHTs.
	Iterations int
	// Meta is the parsed metadata.json (zero when MetaErr is set).
	Meta Metadata
	// MetaErr says why metadata.json could not be used; nil otherwise.
	MetaErr error
}

// Journal returns the path of the run's journal.jsonl.
func (r Run) Journal() string { return filepath.Join(r.Dir, JournalName) }

// ListRuns lists the run directories of deltaDir (a .delta directory),
// newest first: by start time, then by run id in descending lexical order
// (the engine's own "latest run" rule); runs without any start time come
// last. VERSION, LATEST, dot entries and plain files are skipped. Unlike
// `delta list-runs`, a run whose metadata.json does not parse is kept, with
// Status StatusUnknown and MetaErr set. ListRuns only reads.
func ListRuns(deltaDir string) ([]Run, error) {
	entries, err := os.ReadDir(deltaDir)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, e := range entries {
		name := e.Name()
		if name == "VERSION" || name == "LATEST" || strings.HasPrefix(name, ".") {
			continue
		}
		dir := filepath.Join(deltaDir, name)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		runs = append(runs, readRun(name, dir))
	}
	slices.SortStableFunc(runs, func(a, b Run) int {
		az, bz := a.Start.IsZero(), b.Start.IsZero()
		switch {
		case az != bz:
			if az {
				return 1
			}
			return -1
		case !az && !a.Start.Equal(b.Start):
			return b.Start.Compare(a.Start)
		}
		return strings.Compare(b.ID, a.ID)
	})
	return runs, nil
}

func readRun(id, dir string) Run {
	r := Run{ID: id, Dir: dir, Status: StatusUnknown}
	raw, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err == nil {
		var m Metadata
		if err = model.Unmarshal(raw, &m); err == nil {
			r.Meta, r.Status, r.Task, r.Iterations = m, m.Status, m.Task, m.IterationsCompleted
			if r.Status == "" {
				r.Status = StatusUnknown
			}
			r.Start = model.ParseTime(m.StartTime)
			if r.Start.IsZero() {
				r.Start = model.MillisTime(m.StartTimeUnix)
			}
		} else {
			err = fmt.Errorf("metadata.json: %w", err)
		}
	}
	r.MetaErr = err
	if r.Start.IsZero() || r.Task == "" {
		// Fall back to the journal's first line (RUN_START).
		if line := firstLine(filepath.Join(dir, JournalName)); line != nil {
			if env, ok := decodeEnvelope(line); ok {
				if r.Start.IsZero() {
					r.Start = timeOf(env.Timestamp)
				}
				if r.Task == "" && env.Type == RunStart {
					var p runStartPayload
					if model.Unmarshal(env.Payload, &p) == nil {
						r.Task = p.Task
					}
				}
			}
		}
	}
	return r
}

// firstLine returns the first line of the file at path, up to 1 MiB, or nil.
func firstLine(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10).ReadBytes('\n')
	if len(line) == 0 || (err != nil && err != io.EOF) {
		return nil
	}
	return bytes.TrimRight(line, "\r\n")
}

// Request is a run's interaction/request.json, which Delta Engine writes
// when an ask_human call pauses the run (status WAITING_FOR_INPUT) and
// deletes when the answer is consumed on resume. The answer goes to
// interaction/response.txt.
type Request struct {
	// RequestID is a UUID.
	RequestID string `json:"request_id"`
	// Timestamp is when the engine paused, ISO-8601.
	Timestamp string `json:"timestamp"`
	// Prompt is the ask_human prompt.
	Prompt string `json:"prompt"`
	// InputType is "text", "password", "confirmation" and so on.
	InputType string `json:"input_type"`
	// Sensitive is true when the answer must not be echoed.
	Sensitive bool `json:"sensitive"`
}

// ReadRequest reads runDir/interaction/request.json. The error wraps
// fs.ErrNotExist when the run is not waiting for an answer.
func ReadRequest(runDir string) (*Request, error) {
	path := filepath.Join(runDir, "interaction", "request.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Request
	if err := model.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// ErrVersion is returned by CheckVersion when deltaDir/VERSION does not
// start with "1." (the only schema major version Delta Engine loads).
var ErrVersion = errors.New("unsupported .delta schema version")

// CheckVersion reads deltaDir/VERSION ("1.2\n" as the engine writes it) and
// returns the version with surrounding space removed. The error wraps
// fs.ErrNotExist when there is no VERSION file and ErrVersion when the
// version does not start with "1.".
func CheckVersion(deltaDir string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(deltaDir, "VERSION"))
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(raw))
	if !strings.HasPrefix(v, "1.") {
		return v, fmt.Errorf("%w %q (want 1.x)", ErrVersion, v)
	}
	return v, nil
}

// CheckJournalFile applies Delta Engine's Journal.validateJournalFormat
// checks to a journal file, given its path and its first bytes (at least 10
// of them when the file has that many), and returns each failed check as a
// human-readable problem: a file name other than journal.jsonl, a JSON array
// (first byte "["), or pretty-printed JSON ("\n  " or "\n{" within the first
// 10 bytes). The engine refuses to resume such a run; rewind only warns.
func CheckJournalFile(path string, head []byte) []string {
	var problems []string
	if base := filepath.Base(path); base != JournalName {
		problems = append(problems, fmt.Sprintf("journal file is named %q; Delta Engine only reads %q", base, JournalName))
	}
	if len(head) > 0 && head[0] == '[' {
		problems = append(problems, "journal is a JSON array, not JSON Lines (Delta Engine refuses it)")
	}
	first := head[:min(len(head), 10)]
	if bytes.Contains(first, []byte("\n  ")) || bytes.Contains(first, []byte("\n{")) {
		problems = append(problems, "journal looks pretty-printed, not one object per line (Delta Engine refuses it)")
	}
	return problems
}
