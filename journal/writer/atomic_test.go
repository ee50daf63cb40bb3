package writer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFileAtomic(dir, "response.txt", []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(dir, "response.txt", []byte("second answer"), 0o640); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "response.txt")
	if got, _ := os.ReadFile(p); string(got) != "second answer" {
		t.Errorf("content = %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("perm = %v", fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestWriteFileAtomicSymlinkDir(t *testing.T) {
	parent := t.TempDir()
	// A symlinked directory inside the parent is fine.
	real := filepath.Join(parent, "real")
	os.Mkdir(real, 0o755)
	inside := filepath.Join(parent, "interaction")
	os.Symlink("real", inside)
	if err := WriteFileAtomic(inside, "response.txt", []byte("ok"), 0o644); err != nil {
		t.Fatalf("symlink inside parent: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(real, "response.txt")); string(got) != "ok" {
		t.Errorf("content = %q", got)
	}

	// One leading outside the parent is refused.
	elsewhere := t.TempDir()
	outside := filepath.Join(parent, "escape")
	os.Symlink(elsewhere, outside)
	err := WriteFileAtomic(outside, "response.txt", []byte("no"), 0o644)
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "outside") {
		t.Errorf("err = %v, want refusal", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("wrote outside: %v", ents)
	}
}

func TestWriteFileAtomicRefusals(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	cases := []struct{ dir, name, reason string }{
		{dir, "a/b", "path separator"},
		{dir, "..", "path separator"},
		{dir, "", "path separator"},
		{filepath.Join(dir, "missing"), "x", "does not exist"},
		{file, "x", "not a directory"},
		{dir, "sub", "is a directory"},
	}
	for _, c := range cases {
		err := WriteFileAtomic(c.dir, c.name, []byte("x"), 0o644)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(re.Reason, c.reason) {
			t.Errorf("WriteFileAtomic(%q, %q) = %v, want refusal %q", c.dir, c.name, err, c.reason)
		}
	}
}
