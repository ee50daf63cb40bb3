package bookmarks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveLoad(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	j := filepath.Join(t.TempDir(), "journal.jsonl")
	os.WriteFile(j, []byte("{}\n"), 0o644)
	m, err := Load(j)
	if err != nil || len(m) != 0 {
		t.Fatalf("empty load: %v %v", m, err)
	}
	if err := Save(j, Marks{"a": 3, "z": 9}); err != nil {
		t.Fatal(err)
	}
	m, err = Load(j)
	if err != nil || m["a"] != 3 || m["z"] != 9 {
		t.Fatalf("load: %v %v", m, err)
	}
	// Stored under the state directory, never beside the journal.
	files, _ := filepath.Glob(filepath.Join(state, "rewind", "bookmarks", "*.json"))
	if len(files) != 1 {
		t.Fatalf("bookmark files: %v", files)
	}
	beside, _ := os.ReadDir(filepath.Dir(j))
	if len(beside) != 1 {
		t.Fatalf("something was written beside the journal: %v", beside)
	}
	b, _ := os.ReadFile(j)
	if strings.TrimSpace(string(b)) != "{}" {
		t.Fatal("journal changed")
	}
	// Another journal has its own marks.
	if m, _ := Load(j + "2"); len(m) != 0 {
		t.Fatalf("marks leaked across journals: %v", m)
	}
}
