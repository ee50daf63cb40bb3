package tail

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/durablestream"
	"github.com/rewind-tui/rewind/model/generic"
	"github.com/rewind-tui/rewind/replay"
)

// durableEvent returns a realistic Durable Stream line of about 300 bytes.
func durableEvent(i int) string {
	ms := 1795300146798 + int64(i)
	return fmt.Sprintf(`{"type":"agent.completed","stream_id":"ses_4f1c2a9b7e3d","correlation_id":"926ee8db3accf11b","actor":"orchestrator",`+
		`"payload":{"intent_id":"intent_%d_o1e4wc","result":"LGTM with 2 nits, see review comments on auth/refresh.go","duration":%d},`+
		`"id":"0mwqzcqy%04d_516ef74a4e53aef3","timestamp":%d}`+"\n", ms, 1200+i%500, i%10000, ms)
}

// BenchmarkAppendToApplied measures the time from the write(2) of one line
// to a journal a Follower watches until its Update has arrived and the new
// event is folded into a replay state. It reports the median and the 99th
// percentile in microseconds. "incremental" folds the new events into the
// last state, as a live view does; "StateAt" asks the Replay for the state
// after the last event (up to K-1 events replayed from a keyframe).
func BenchmarkAppendToApplied(b *testing.B) {
	for _, mode := range []string{"incremental", "StateAt"} {
		b.Run(mode, func(b *testing.B) { benchAppend(b, mode == "StateAt") })
	}
}

// REWIND_TAIL_BASE names a Durable Stream journal (a generated 1 GB one,
// say) that the benchmark copies and appends to, folding through the
// Durable Stream fold: the latency on a large journal rather than an empty
// one.
func benchAppend(b *testing.B, stateAt bool) {
	p := filepath.Join(b.TempDir(), "durable_stream.jsonl")
	var f model.Format = generic.Format
	if base := os.Getenv("REWIND_TAIL_BASE"); base != "" {
		copyFile(b, base, p)
		f = durablestream.Format
	} else if err := os.WriteFile(p, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	fl, err := Follow(context.Background(), p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer fl.Close()
	j := fl.Journal()
	r := replay.New(j, f)
	base := r.Events()
	state, err := r.StateAt(base) // keyframes and the live tip, as the TUI has them
	if err != nil {
		b.Fatal(err)
	}
	at := base
	fold := func(ev model.Event) error { state = r.F.Apply(state, ev); return nil }
	fd, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer fd.Close()
	lines := make([][]byte, b.N)
	for i := range lines {
		lines[i] = []byte(durableEvent(i))
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := fd.Write(lines[i]); err != nil {
			b.Fatal(err)
		}
		for {
			u := <-fl.Updates()
			if u.J != j {
				b.Fatalf("unexpected %s update: %s", u.Kind, u.Notice)
			}
			if _, n := j.Index.Counts(); n == base+i+1 {
				break
			}
		}
		n := r.Events()
		if stateAt {
			s, err := r.StateAt(n)
			if err != nil {
				b.Fatal(err)
			}
			state = s
		} else {
			if err := j.Each(at+1, n, fold); err != nil {
				b.Fatal(err)
			}
			at = n
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	if state == nil {
		b.Fatal("no state")
	}
	slices.Sort(lat)
	pct := func(q float64) float64 {
		return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds())/1e3, "max-µs")
	b.ReportMetric(float64(base), "base-events")
}

func copyFile(b *testing.B, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
