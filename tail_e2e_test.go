package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rewind tail prints each whole event once, across a line written in pieces,
// a rewrite with the same history, and a rotation.
func TestTailCommand(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "durable_stream.jsonl")
	write := func(name, s string, flag int) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, name), flag|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	ev := func(n string) string {
		return `{"type":"t` + n + `","id":"` + n + `","timestamp":1795300146798}` + "\n"
	}
	write("durable_stream.jsonl", ev("1")+ev("2"), os.O_CREATE|os.O_TRUNC)

	r := startTail(t, p, "--from", "2")
	expect := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			r.expect(`"id":"` + id + `"`)
		}
	}
	expect("2")
	// A line in two pieces: printed once, when whole.
	write("durable_stream.jsonl", ev("3")[:10], os.O_APPEND)
	time.Sleep(300 * time.Millisecond)
	write("durable_stream.jsonl", ev("3")[10:], os.O_APPEND)
	expect("3")
	// DeltaMind-style save: the whole file rewritten with one more line.
	tmp := filepath.Join(dir, "tmp")
	if err := os.WriteFile(tmp, []byte(ev("1")+ev("2")+ev("3")+ev("4")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	expect("4")
	// Rotation: the old file is renamed, a new one starts.
	if err := os.Rename(p, filepath.Join(dir, "durable_stream_2026-11-20.jsonl")); err != nil {
		t.Fatal(err)
	}
	write("durable_stream.jsonl", ev("5"), os.O_CREATE|os.O_EXCL)
	expect("5")
	time.Sleep(500 * time.Millisecond)
	r.expectNoMore("each event once")
	r.cmd.Process.Signal(os.Interrupt)
	done := make(chan error)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("rewind tail did not exit cleanly on SIGINT: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("rewind tail did not stop on SIGINT")
	}
}

// A journal rewritten with another history (a first event changed) is
// printed again from its start, with a notice; one rewritten with the
// same history and more events prints only the new ones.
func TestTailRewriteWithAnotherHistory(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "durable_stream.jsonl")
	ev := func(n, v string) string {
		return `{"type":"t","id":"` + n + `","v":"` + v + `","timestamp":1795300146798}` + "\n"
	}
	replace := func(s string) {
		t.Helper()
		tmp := filepath.Join(dir, "tmp")
		if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p, []byte(ev("1", "a")+ev("2", "a")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startTail(t, p, "--from", "1")
	r.expect(`"id":"1","v":"a"`, `"id":"2","v":"a"`)
	replace(ev("1", "a") + ev("2", "a") + ev("3", "a"))
	r.expect(`"id":"3","v":"a"`)
	replace(ev("1", "b") + ev("2", "a") + ev("3", "a"))
	r.expect(`"id":"1","v":"b"`, `"id":"2","v":"a"`, `"id":"3","v":"a"`)
	// stderr is copied from its pipe apart from stdout: wait for it.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(r.stderr.String(), "history changed"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no notice that the history changed: %q", r.stderr.String())
		}
	}
	time.Sleep(300 * time.Millisecond)
	r.expectNoMore("the new file once")
}

// tailRun is rewind tail running, its stdout read line by line.
type tailRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string
	stderr syncBuffer
}

// startTail starts rewind tail args; the test's cleanup kills it.
func startTail(t *testing.T, args ...string) *tailRun {
	t.Helper()
	r := &tailRun{t: t, cmd: exec.Command(rewindBin(t), append([]string{"tail"}, args...)...), lines: make(chan string, 100)}
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	return r
}

// expect waits for the next lines, one holding each of want in turn.
func (r *tailRun) expect(want ...string) {
	r.t.Helper()
	for _, w := range want {
		select {
		case l := <-r.lines:
			if !strings.Contains(l, w) {
				r.t.Fatalf("got %s, want %s (stderr: %s)", l, w, r.stderr.String())
			}
		case <-time.After(5 * time.Second):
			r.t.Fatalf("%s never printed (stderr: %s)", w, r.stderr.String())
		}
	}
}

// expectNoMore fails when a line is waiting: what printed more than once.
func (r *tailRun) expectNoMore(what string) {
	r.t.Helper()
	select {
	case l := <-r.lines:
		r.t.Fatalf("printed more than %s: %s", what, l)
	default:
	}
}
