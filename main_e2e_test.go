package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// rewindBin builds the rewind binary once per test run and returns its path.
func rewindBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rewind-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "rewind")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = &buildError{out}
		}
	})
	if binErr != nil {
		t.Fatalf("building rewind: %v", binErr)
	}
	return binPath
}

type buildError struct{ out []byte }

func (e *buildError) Error() string { return string(e.out) }

// runRewind runs the built binary and returns stdout, stderr and the exit
// status.
func runRewind(t testing.TB, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(rewindBin(t), args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running rewind %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// fixture paths, relative to the repository root.
const (
	deltaWorkspace = "model/deltaengine/testdata/workspace.delta"
	deltaPaused    = deltaWorkspace + "/20261121_222947_b91d0a"
	deltaCompleted = deltaWorkspace + "/20261121_222941_a7f3c2"
	mindDir        = "model/deltamind/testdata/dogfood"
	streamFile     = "model/durablestream/testdata/stream.jsonl"
)

func stateOf(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := runRewind(t, ".", append([]string{"state"}, args...)...)
	if code != 0 {
		t.Fatalf("rewind state %v: exit %d: %s", args, code, errOut)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("rewind state %v printed no JSON object: %v\n%s", args, err, out)
	}
	return v
}

func TestStateEveryFormat(t *testing.T) {
	t.Run("delta-engine paused run waits for input", func(t *testing.T) {
		v := stateOf(t, deltaPaused)
		if v["format"] != "delta-engine" || v["status"] != "WAITING_FOR_INPUT" {
			t.Fatalf("format=%v status=%v", v["format"], v["status"])
		}
		pend := v["pending"].([]any)
		if len(pend) != 1 || pend[0].(map[string]any)["kind"] != "ask_human" {
			t.Fatalf("pending = %v", pend)
		}
	})
	t.Run("delta-engine --at scrubs back", func(t *testing.T) {
		v := stateOf(t, deltaCompleted, "--at", "2")
		if v["at"].(float64) != 2 || len(v["messages"].([]any)) != 1 || v["status"] != "RUNNING" {
			t.Fatalf("at=%v messages=%v status=%v", v["at"], v["messages"], v["status"])
		}
		end := stateOf(t, deltaCompleted)
		if end["status"] != "COMPLETED" || len(end["messages"].([]any)) <= 1 {
			t.Fatalf("end state: status=%v messages=%d", end["status"], len(end["messages"].([]any)))
		}
	})
	t.Run("a .delta directory opens its newest run", func(t *testing.T) {
		v := stateOf(t, deltaWorkspace)
		if v["format"] != "delta-engine" || v["run_id"] == "" {
			t.Fatalf("state = %v", v)
		}
	})
	t.Run("durable-stream", func(t *testing.T) {
		v := stateOf(t, streamFile)
		if v["format"] != "durable-stream" {
			t.Fatalf("format = %v", v["format"])
		}
		pend := v["pending"].([]any)
		if len(pend) == 0 || pend[0].(map[string]any)["kind"] != "checkpoint" {
			t.Fatalf("pending = %v", pend)
		}
	})
	t.Run("deltamind", func(t *testing.T) {
		v := stateOf(t, filepath.Join(mindDir, "provenance.jsonl"))
		if v["format"] != "deltamind" || len(v["items"].([]any)) == 0 {
			t.Fatalf("state = %v", v)
		}
	})
}

// The DeltaMind documents are what DeltaMind's own renderers produce, byte
// for byte.
func TestRenderDeltaMindDocuments(t *testing.T) {
	for _, doc := range []string{"ACTIVE_STATE", "DECISIONS", "TASKS", "CONSTRAINTS"} {
		out, errOut, code := runRewind(t, ".", "render", filepath.Join(mindDir, "provenance.jsonl"), "--doc", doc)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", doc, code, errOut)
		}
		want, err := os.ReadFile(filepath.Join(mindDir, doc+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%s differs:\n got %q\nwant %q", doc, out, want)
		}
	}
}

func TestRenderDeltaEngineAsksAtTheTop(t *testing.T) {
	out, _, code := runRewind(t, ".", "render", deltaPaused)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	first := strings.SplitN(strings.TrimSpace(out), "\n", 2)[0]
	if !strings.Contains(first, "Waiting for you") {
		t.Fatalf("the question is not at the top: %q", first)
	}
}

func TestEventsPrintsJournalLines(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(deltaCompleted, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	out, _, code := runRewind(t, ".", "events", deltaCompleted, "--from", "2", "--to", "4")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if want := strings.Join(lines[1:4], "\n") + "\n"; out != want {
		t.Fatalf("events --from 2 --to 4:\n got %q\nwant %q", out, want)
	}
	out, _, _ = runRewind(t, ".", "events", deltaCompleted, "--type", "THOUGHT", "--type", "RUN_END")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(l, `"type":"THOUGHT"`) && !strings.Contains(l, `"type":"RUN_END"`) {
			t.Errorf("--type let through %s", l)
		}
	}
	if strings.Count(out, "\n") < 2 {
		t.Errorf("--type printed too little: %q", out)
	}
}

func TestUsageAndPathErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing path", []string{"state", "no/such/journal.jsonl"}, 2, "no/such/journal.jsonl"},
		{"--at past the end", []string{"state", deltaCompleted, "--at", "999"}, 2, "999"},
		{"unknown document", []string{"render", filepath.Join(mindDir, "provenance.jsonl"), "--doc", "NOPE"}, 2, "ACTIVE_STATE"},
		{"unknown flag", []string{"state", deltaCompleted, "--bogus"}, 2, "bogus"},
		{"missing argument", []string{"events"}, 2, "events"},
		{"unknown format", []string{"state", deltaCompleted, "--format", "xml"}, 2, "xml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runRewind(t, ".", c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, c.code, errOut)
			}
			if out != "" {
				t.Errorf("stdout should be empty on error, got %q", out)
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, c.want) {
				t.Errorf("stderr should be one line naming %q, got %q", c.want, errOut)
			}
		})
	}
}

func TestSearchUpwardForWorkspace(t *testing.T) {
	dir := t.TempDir()
	oc := filepath.Join(dir, ".opencode")
	if err := os.MkdirAll(oc, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(streamFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oc, "durable_stream.jsonl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// Without PATH the TUI searches upward; `pending` with "." resolves the
	// same way from the workspace root.
	out, errOut, code := runRewind(t, dir, "pending", ".")
	if code != 0 || !strings.Contains(out, `"kind": "checkpoint"`) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
}
