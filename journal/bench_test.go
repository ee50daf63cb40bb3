package journal_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/journal"
)

// benchJournal writes a generated journal of n events of format f once per
// benchmark and returns its path and size.
func benchJournal(b *testing.B, f string, n int) (string, int64) {
	b.Helper()
	p := filepath.Join(b.TempDir(), f+".jsonl")
	w, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if err := demo.Generate(w, f, n, 1); err != nil {
		b.Fatal(err)
	}
	w.Close()
	st, _ := os.Stat(p)
	return p, st.Size()
}

// BenchmarkIndex measures building the full index (offset, length, type,
// seq or id, timestamp per record) of a generated journal, page cache warm.
func BenchmarkIndex(b *testing.B) {
	for _, f := range []string{"durable-stream", "delta-engine", "deltamind"} {
		b.Run(f, func(b *testing.B) {
			p, size := benchJournal(b, f, 100000)
			b.SetBytes(size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j, err := journal.Open(p, 0)
				if err != nil {
					b.Fatal(err)
				}
				j.Close()
			}
		})
	}
}
