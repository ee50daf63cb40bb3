package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mindCoverage = "model/deltamind/testdata/coverage.jsonl"

func TestDiffCommand(t *testing.T) {
	out, errOut, code := runRewind(t, ".", "diff", mindCoverage, "15", "16")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"state #15 → #16: 6 change(s)",
		`~ .items[1].summary: "use Go for the TUI" → "use Go and Bubble Tea for the TUI"`,
		`+ .items[1].sourceTurns[1]: {"turnId":"t-6"}`,
		"projection DECISIONS:",
		"+### d-2: use Go and Bubble Tea for the TUI",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runRewind(t, ".", "diff", mindCoverage, "15", "16", "--json")
	var v struct {
		From, To int
		Changes  []struct{ Path, Op string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.From != 15 || v.To != 16 || len(v.Changes) != 6 {
		t.Fatalf("diff --json: exit %d, %+v\n%s", code, v, out)
	}
	// Multi-line strings are diffed by line.
	dir := t.TempDir()
	p := filepath.Join(dir, "j.jsonl")
	os.WriteFile(p, []byte(`{"type":"note","text":"a\nb\nc"}`+"\n"+`{"type":"note","text":"a\nB\nc"}`+"\n"), 0o644)
	out, _, _ = runRewind(t, ".", "diff", p, "1", "2")
	if !strings.Contains(out, "(text, by line)") || !strings.Contains(out, "    -b") || !strings.Contains(out, "    +B") {
		t.Errorf("multi-line string not diffed by line:\n%s", out)
	}
	if _, errOut, code := runRewind(t, ".", "diff", mindCoverage, "1", "999"); code != 2 || !strings.Contains(errOut, "past the end") {
		t.Errorf("diff past the end: exit %d: %s", code, errOut)
	}
}

func TestBlameCommand(t *testing.T) {
	out, errOut, code := runRewind(t, ".", "blame", mindCoverage, ".items[1].summary")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "25\t15\taccepted\tchanged \"use Go and Bubble Tea for the TUI\" → \"use Go 1.26 for the TUI\"\n" +
		"16\t7\taccepted\tchanged \"use Go for the TUI\" → \"use Go and Bubble Tea for the TUI\"\n" +
		"2\t2\taccepted\tadded \"use Go for the TUI\"\n"
	if out != want {
		t.Errorf("blame printed:\n%s\nwant:\n%s", out, want)
	}
	// A whole list: which item each event changed.
	out, _, code = runRewind(t, ".", "blame", mindCoverage, ".items")
	if code != 0 || !strings.Contains(out, "23\t13\taccepted\tadded [9] {\"id\":\"d-13\"") ||
		!strings.Contains(out, "24\t14\taccepted\tchanged [9] {") {
		t.Errorf("blame .items: exit %d\n%s", code, out)
	}
	// Delta Engine: the status changes.
	out, _, code = runRewind(t, ".", "blame", deltaCompleted, ".status")
	if code != 0 || !strings.Contains(out, "RUN_END") {
		t.Errorf("blame .status: exit %d\n%s", code, out)
	}
	if _, errOut, code := runRewind(t, ".", "blame", mindCoverage, ".nothing"); code != 1 || !strings.Contains(errOut, "no event changed .nothing") {
		t.Errorf("blame of an unchanged path: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runRewind(t, ".", "blame", mindCoverage, ".items["); code != 2 || !strings.Contains(errOut, "jq:") {
		t.Errorf("blame of a bad path: exit %d: %s", code, errOut)
	}
	// The state as a whole: every event changed it, so the answer would
	// be the journal, each state made twice.
	if out, errOut, code := runRewind(t, ".", "blame", mindCoverage, "."); code != 2 || out != "" || !strings.Contains(errOut, "such as .status") {
		t.Errorf("blame of the whole state: exit %d: %s", code, errOut)
	}
}

func TestWhere(t *testing.T) {
	out, errOut, code := runRewind(t, ".", "events", mindCoverage, "--where", `.delta.kind == "decision_revised"`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "\n"); n != 4 {
		t.Errorf("events --where printed %d lines:\n%s", n, out)
	}
	out, _, _ = runRewind(t, ".", "events", deltaCompleted, "--where", `select(.type == "THOUGHT")`)
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("select(.type == THOUGHT) printed %d lines:\n%s", n, out)
	}
	out, _, _ = runRewind(t, ".", "events", deltaCompleted, "--where", `.payload.status == "FAILED"`)
	if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, "Permission denied") {
		t.Errorf(".payload.status == FAILED printed:\n%s", out)
	}
	st := stateOf(t, streamFile, "--where", ".pending | length > 0")
	if at := st["at"].(float64); at < 1 {
		t.Errorf("state --where at %v", at)
	}
	if _, errOut, code := runRewind(t, ".", "state", mindCoverage, "--where", ".items | length > 1000"); code != 1 || !strings.Contains(errOut, "true at no position") {
		t.Errorf("never true: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runRewind(t, ".", "events", mindCoverage, "--where", ".a =="); code != 2 || !strings.Contains(errOut, "jq:") {
		t.Errorf("bad expression: exit %d: %s", code, errOut)
	}
}

func TestFork(t *testing.T) {
	dir := t.TempDir()
	t.Run("deltamind", func(t *testing.T) {
		src, _ := os.ReadFile(filepath.Join(mindDir, "provenance.jsonl"))
		out := filepath.Join(dir, "mind", ".deltamind")
		os.MkdirAll(filepath.Dir(out), 0o755)
		stdout, errOut, code := runRewind(t, ".", "fork", mindDir, "--at", "5", "--out", out)
		if code != 0 || strings.TrimSpace(stdout) != out {
			t.Fatalf("exit %d: %s %s", code, stdout, errOut)
		}
		got, _ := os.ReadFile(filepath.Join(out, "provenance.jsonl"))
		lines := bytes.SplitAfter(src, []byte("\n"))
		if !bytes.Equal(got, bytes.Join(lines[:5], nil)) {
			t.Errorf("provenance.jsonl is not the first 5 lines:\n%s", got)
		}
		// The fork opens (with its snapshot) and shows the state at 5.
		st := stateOf(t, out)
		if st["seq"].(float64) != 5 {
			t.Errorf("forked state seq = %v", st["seq"])
		}
		orig := stateOf(t, mindDir, "--at", "5")
		a, _ := json.Marshal(orig["items"])
		b, _ := json.Marshal(st["items"])
		if !bytes.Equal(a, b) {
			t.Errorf("forked items differ from the original at 5:\n%s\n%s", a, b)
		}
		md, _ := os.ReadFile(filepath.Join(out, "ACTIVE_STATE.md"))
		if !strings.Contains(string(md), "Sequence: 5") {
			t.Errorf("ACTIVE_STATE.md:\n%s", md)
		}
		after, _ := os.ReadFile(filepath.Join(mindDir, "provenance.jsonl"))
		if !bytes.Equal(after, src) {
			t.Fatal("the original changed")
		}
		// Never overwrites.
		if _, errOut, code := runRewind(t, ".", "fork", mindDir, "--at", "3", "--out", out); code != 2 || !strings.Contains(errOut, "exists") {
			t.Errorf("fork over an existing directory: exit %d: %s", code, errOut)
		}
	})
	t.Run("delta-engine", func(t *testing.T) {
		delta := filepath.Join(dir, "ws", ".delta")
		os.MkdirAll(delta, 0o755)
		stdout, errOut, code := runRewind(t, ".", "fork", deltaCompleted, "--at", "9", "--out", delta)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		runDir := strings.TrimSpace(stdout)
		var meta map[string]any
		b, _ := os.ReadFile(filepath.Join(runDir, "metadata.json"))
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		if meta["status"] != "INTERRUPTED" || meta["run_id"] != filepath.Base(runDir) || meta["run_id"] == "20261121_222941_a7f3c2" {
			t.Errorf("metadata: %v", meta)
		}
		st := stateOf(t, runDir)
		if st["at"].(float64) != 9 {
			t.Errorf("forked run has %v events", st["at"])
		}
		// A named run directory.
		named := filepath.Join(delta, "20991231_000000_abcdef")
		if _, errOut, code := runRewind(t, ".", "fork", deltaCompleted, "--at", "3", "--out", named); code != 0 {
			t.Fatalf("named: exit %d: %s", code, errOut)
		}
		b, _ = os.ReadFile(filepath.Join(named, "metadata.json"))
		if !strings.Contains(string(b), `"run_id": "20991231_000000_abcdef"`) {
			t.Errorf("named metadata: %s", b)
		}
	})
	t.Run("durable-stream", func(t *testing.T) {
		out := filepath.Join(dir, "stream.jsonl")
		if _, errOut, code := runRewind(t, ".", "fork", streamFile, "--at", "4", "--out", out); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		st := stateOf(t, out)
		if st["at"].(float64) != 4 {
			t.Errorf("fork has %v events", st["at"])
		}
		if _, _, code := runRewind(t, ".", "fork", streamFile, "--at", "0", "--out", out+"2"); code != 2 {
			t.Errorf("--at 0: exit %d", code)
		}
	})
}
