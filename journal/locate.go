package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Target is what a PATH argument (or the search from the working directory)
// resolved to.
type Target struct {
	// Journal is the journal file to open; empty when DeltaDir is set and the
	// user still has to pick a run.
	Journal string
	// Hint is the format the location implies (delta-engine for
	// .delta/<run>/journal.jsonl, deltamind for .deltamind/, durable-stream
	// for .opencode/), or "". Content detection still decides.
	Hint string
	// DeltaDir is the .delta/ directory when the target is one or a run in one.
	DeltaDir string
	// RunDir is the Delta Engine run directory (.delta/<run_id>/), if any.
	RunDir string
	// Snapshot is DeltaMind's snapshot.json next to the provenance log, if any.
	Snapshot string
	// Rotated lists Durable Stream's rotated files (durable_stream_<date or
	// ms>.jsonl) next to the journal, oldest first.
	Rotated []string
}

// ErrNotFound is returned by Locate when no journal is found.
var ErrNotFound = errors.New("no journal found")

// Locate resolves path to a journal. An empty path searches the working
// directory and then its parents, as git does, for .delta/, .deltamind/ or
// .opencode/durable_stream.jsonl.
func Locate(path string) (Target, error) {
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Target{}, err
		}
		for dir := wd; ; dir = filepath.Dir(dir) {
			if t, ok := workspace(dir); ok {
				return t, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		return Target{}, fmt.Errorf("%w in %s or any parent directory: give a journal file or a .delta/, .deltamind/ or .opencode/ directory, or try `rewind demo`", ErrNotFound, wd)
	}
	st, err := os.Stat(path)
	if err != nil {
		return Target{}, err
	}
	if !st.IsDir() {
		return fileTarget(path), nil
	}
	base := filepath.Base(filepath.Clean(path))
	switch {
	case base == ".delta" || isFile(filepath.Join(path, "VERSION")) && !isFile(filepath.Join(path, "journal.jsonl")):
		return Target{DeltaDir: path, Hint: "delta-engine"}, nil
	case isFile(filepath.Join(path, "journal.jsonl")):
		return fileTarget(filepath.Join(path, "journal.jsonl")), nil
	case isFile(filepath.Join(path, "provenance.jsonl")):
		return fileTarget(filepath.Join(path, "provenance.jsonl")), nil
	case isFile(filepath.Join(path, "durable_stream.jsonl")):
		return fileTarget(filepath.Join(path, "durable_stream.jsonl")), nil
	case base == ".opencode" || base == ".deltamind":
		return Target{}, fmt.Errorf("%s holds no journal yet (%s)", path, map[string]string{".opencode": "durable_stream.jsonl", ".deltamind": "provenance.jsonl"}[base])
	}
	if t, ok := workspace(path); ok {
		return t, nil
	}
	return Target{}, fmt.Errorf("%w in directory %s: expected journal.jsonl, provenance.jsonl, durable_stream.jsonl, or a .delta/, .deltamind/ or .opencode/ directory", ErrNotFound, path)
}

// workspace looks for the seed systems' directories directly in dir.
func workspace(dir string) (Target, bool) {
	if isDir(filepath.Join(dir, ".delta")) {
		return Target{DeltaDir: filepath.Join(dir, ".delta"), Hint: "delta-engine"}, true
	}
	if p := filepath.Join(dir, ".deltamind", "provenance.jsonl"); isFile(p) {
		return fileTarget(p), true
	}
	if p := filepath.Join(dir, ".opencode", "durable_stream.jsonl"); isFile(p) {
		return fileTarget(p), true
	}
	return Target{}, false
}

// fileTarget fills in what a journal file's location implies.
func fileTarget(p string) Target {
	t := Target{Journal: p}
	dir := filepath.Dir(p)
	switch name := filepath.Base(p); {
	case name == "journal.jsonl" && filepath.Base(filepath.Dir(dir)) == ".delta":
		t.Hint, t.RunDir, t.DeltaDir = "delta-engine", dir, filepath.Dir(dir)
	case name == "journal.jsonl" && isFile(filepath.Join(dir, "metadata.json")):
		t.Hint, t.RunDir = "delta-engine", dir
	case name == "provenance.jsonl":
		t.Hint = "deltamind"
		if s := filepath.Join(dir, "snapshot.json"); isFile(s) {
			t.Snapshot = s
		}
	case strings.HasPrefix(name, "durable_stream"):
		t.Hint = "durable-stream"
		if name == "durable_stream.jsonl" {
			t.Rotated = RotatedStreams(dir)
		}
	}
	return t
}

// RotatedStreams lists Durable Stream's rotated files in dir, oldest first:
// durable_stream_<YYYY-MM-DD>.jsonl (daily) and durable_stream_<ms>.jsonl
// (size), ordered by modification time, then name.
func RotatedStreams(dir string) []string {
	ms, _ := filepath.Glob(filepath.Join(dir, "durable_stream_*.jsonl"))
	type f struct {
		p string
		t int64
	}
	var fs []f
	for _, p := range ms {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			fs = append(fs, f{p, st.ModTime().UnixNano()})
		}
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].t != fs[j].t {
			return fs[i].t < fs[j].t
		}
		return fs[i].p < fs[j].p
	})
	out := make([]string, len(fs))
	for i := range fs {
		out[i] = fs[i].p
	}
	return out
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
