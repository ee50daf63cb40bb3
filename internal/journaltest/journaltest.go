// Package journaltest writes journals for tests and opens them the way
// rewind does, so that events carry their file and offsets: a journal the
// demo's simulators generate, or given bytes.
package journaltest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// Open writes data to a file called name in a temporary directory of t,
// opens it with journal.Open and indexes it whole. The journal is closed
// when the test ends; a failure ends the test.
func Open(t testing.TB, name string, data []byte) *journal.Journal {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// Generated opens, as Open does, a journal of n events in format (a
// demo.Generate format name) generated with seed, written as name.
func Generated(t testing.TB, format, name string, n int, seed int64) *journal.Journal {
	t.Helper()
	return Open(t, name, generate(t, format, n, seed))
}

// GeneratedPath writes the journal Generated opens to a file called name
// in a temporary directory of t and returns its path, for a test that
// opens it its own way (a session, a follower, the TUI).
func GeneratedPath(t testing.TB, format, name string, n int, seed int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, generate(t, format, n, seed), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func generate(t testing.TB, format string, n int, seed int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := demo.Generate(&b, format, n, seed); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// ReplayedPairs replays j with f and calls check with the state at every
// step-th position, from the last down, and the state at the position
// before it: the pair the TUI asks for to mark what an event changed,
// each state refolded from a keyframe. A failure ends the test.
func ReplayedPairs(t testing.TB, j *journal.Journal, f model.Format, step int, check func(pos int, prev, s model.State)) {
	t.Helper()
	r := replay.New(j, f)
	for pos := r.Events(); pos > 0; pos -= step {
		s, err := r.StateAt(pos)
		if err != nil {
			t.Fatal(err)
		}
		prev, err := r.StateAt(pos - 1)
		if err != nil {
			t.Fatal(err)
		}
		check(pos, prev, s)
	}
}
