package deltaengine_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/hostile"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/deltaengine"
)

// TestPreparedMatchesApply folds the fixtures, the workspace's runs, a
// generated journal and hostile lines with Prepare and ApplyPrepared
// (what rewind state does while it indexes: the index's workers parse
// each block's lines) and with Apply, and requires the same state JSON
// and CONVERSATION (see hostile.Harness.MatchPrepared).
func TestPreparedMatchesApply(t *testing.T) {
	h := hostile.Harness{File: "journal.jsonl", Format: model.DeltaEngine}
	paths, _ := filepath.Glob("testdata/*.jsonl")
	runs, _ := filepath.Glob("testdata/workspace.delta/*/journal.jsonl")
	journals := map[string][]byte{}
	for _, p := range append(paths, runs...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		journals[filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p)] = b
	}
	var b bytes.Buffer
	if err := demo.Generate(&b, model.DeltaEngine, 1500, 3); err != nil {
		t.Fatal(err)
	}
	journals["generated"] = b.Bytes()
	for seed := int64(1); seed <= 3; seed++ {
		lines := deltaengine.HostileLines(rand.New(rand.NewSource(seed)), 400)
		journals[fmt.Sprint("hostile-", seed)] = []byte(strings.Join(lines, "\n") + "\n")
	}
	if len(journals) < 8 {
		t.Fatalf("%d journals: the fixtures are missing", len(journals))
	}
	for name, data := range journals {
		t.Run(name, func(t *testing.T) { h.MatchPrepared(t, data, deltaengine.Format) })
	}
}
