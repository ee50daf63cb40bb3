package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// --raw is refused on a terminal only: /dev/null is a character device
// but no terminal, and `rewind events --raw big.jsonl >/dev/null` (timing
// a read, say) prints the bytes there.
func TestEventsRawToDevNull(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(rewindBin(t), "events", "--raw", filepath.Join(deltaCompleted, "journal.jsonl"))
	cmd.Stdout = null
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("events --raw >/dev/null: %v: %s", err, stderr.String())
	}
}

// On a real terminal, --raw is refused with what to do instead.
func TestTmuxEventsRawRefusedOnTerminal(t *testing.T) {
	s := startTmux(t, 150, 10, "events", "--raw", filepath.Join(deltaCompleted, "journal.jsonl"))
	scr := s.waitFor("REWIND-EXITED")
	if !strings.Contains(scr, "stdout is a terminal") || !strings.Contains(scr, "REWIND-EXITED 2") {
		t.Fatalf("--raw on a terminal was not refused with exit 2:\n%s", scr)
	}
	if strings.Contains(scr, `"type"`) {
		t.Fatalf("--raw printed the journal on a terminal:\n%s", scr)
	}
}
