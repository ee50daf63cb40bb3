package replay_test

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/replay"
)

func benchSession(b *testing.B, f string, n int) *app.Session {
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
	s, err := app.OpenPath(p, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkReplay folds every event of a generated journal (what
// `rewind state big.jsonl` does), building keyframes on the way.
func BenchmarkReplay(b *testing.B) {
	for _, f := range []string{"durable-stream", "delta-engine", "deltamind"} {
		b.Run(f, func(b *testing.B) {
			s := benchSession(b, f, 50000)
			b.SetBytes(s.J.Size())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := replay.New(s.J, s.F)
				if err := r.Extend(context.Background(), nil); err != nil {
					b.Fatal(err)
				}
				if _, err := r.StateAt(r.Events()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSeek measures the state at random positions once keyframes
// exist (scrubbing); it reports p50 and p99 in microseconds.
func BenchmarkSeek(b *testing.B) {
	for _, f := range []string{"durable-stream", "delta-engine", "deltamind"} {
		b.Run(f, func(b *testing.B) {
			s := benchSession(b, f, 50000)
			r := replay.New(s.J, s.F)
			if err := r.Extend(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewSource(1))
			n := r.Events()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := rng.Intn(n) + 1
				t0 := time.Now()
				if _, err := r.StateAt(p); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
