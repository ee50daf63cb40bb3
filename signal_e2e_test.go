//go:build unix

package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C (SIGINT) and SIGTERM stop every command, also one that does not
// watch for them: here rewind state and rewind blame on a named pipe that
// no one writes, where they wait in open(2) for good. rewind exits as a
// shell reports a process the signal killed (130, 143) once the grace for
// a clean stop is over.
func TestSignalStopsAnyCommand(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		sig  syscall.Signal
		want int
	}{
		{[]string{"state", fifo}, syscall.SIGINT, 130},
		{[]string{"blame", fifo, ".status"}, syscall.SIGTERM, 143},
	} {
		cmd := exec.Command(rewindBin(t), c.args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		time.Sleep(time.Second) // into open(2), its handler set up long before
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.want {
				t.Errorf("rewind %v after %v: %v, want exit status %d", c.args[0], c.sig, err, c.want)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("rewind %v still running 20 s after %v", c.args[0], c.sig)
		}
	}
}
