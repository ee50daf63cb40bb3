package main

import (
	"bufio"
	"io"
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

	cmd := exec.Command(rewindBin(t), "tail", p, "--from", "2")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	expect := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			select {
			case l := <-lines:
				if !strings.Contains(l, `"id":"`+id+`"`) {
					t.Fatalf("got %s, want event %s (stderr: %s)", l, id, stderr.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("event %s never printed (stderr: %s)", id, stderr.String())
			}
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
	select {
	case l := <-lines:
		t.Fatalf("printed more than each event once: %s", l)
	default:
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error)
	go func() { io.Copy(io.Discard, out); done <- cmd.Wait() }()
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
	cmd := exec.Command(rewindBin(t), "tail", p, "--from", "1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	expect := func(want ...string) {
		t.Helper()
		for _, w := range want {
			select {
			case l := <-lines:
				if !strings.Contains(l, w) {
					t.Fatalf("got %s, want %s (stderr: %s)", l, w, stderr.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s never printed (stderr: %s)", w, stderr.String())
			}
		}
	}
	expect(`"id":"1","v":"a"`, `"id":"2","v":"a"`)
	replace(ev("1", "a") + ev("2", "a") + ev("3", "a"))
	expect(`"id":"3","v":"a"`)
	replace(ev("1", "b") + ev("2", "a") + ev("3", "a"))
	expect(`"id":"1","v":"b"`, `"id":"2","v":"a"`, `"id":"3","v":"a"`)
	// stderr is copied from its pipe apart from stdout: wait for it.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), "history changed"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no notice that the history changed: %q", stderr.String())
		}
	}
	time.Sleep(300 * time.Millisecond)
	select {
	case l := <-lines:
		t.Fatalf("printed more than the new file once: %s", l)
	default:
	}
}
