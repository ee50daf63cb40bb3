// Package nodetest prepares the tests that race rewind against Node writers
// using proper-lockfile, the lock library of Durable Stream's writers.
package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Version is the proper-lockfile release the seed system resolves to.
const Version = "proper-lockfile@4.1.2"

// Node installs proper-lockfile into a temporary directory and returns a
// function that builds a `node script args...` command able to require it.
// The tests run only when REWIND_NODE_TESTS=1 (scripts/test sets it): else
// Node logs why and returns nil, and the caller returns. With the variable
// set, a missing node or npm, or a failed install, fails the test.
func Node(t *testing.T, script string) func(args ...string) *exec.Cmd {
	t.Helper()
	if os.Getenv("REWIND_NODE_TESTS") != "1" {
		t.Log("set REWIND_NODE_TESTS=1 to run the tests against Node " + Version + " writers")
		return nil
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("REWIND_NODE_TESTS=1 but %s is not on PATH: %v", tool, err)
		}
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	modDir := t.TempDir()
	start := time.Now()
	install := exec.Command("npm", "install", "--prefix", modDir, Version, "--no-audit", "--no-fund", "--loglevel=error")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s failed (no network or registry access?): %v\n%s", Version, err, out)
	}
	t.Logf("npm install: %v", time.Since(start).Round(time.Millisecond))
	return func(args ...string) *exec.Cmd {
		cmd := exec.Command("node", append([]string{abs}, args...)...)
		cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(modDir, "node_modules"))
		return cmd
	}
}
