package tail

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/formats"
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

// REWIND_TAIL_BASE names a journal that `rewind demo --seed 1` generated
// (scripts/bench's 1 GB ones, say), of any format it writes: the benchmark
// copies it, folds it whole through its format's fold, and appends the
// events the generator writes after the base's, so that the latency is
// measured on a large journal, in the run the base began, rather than on
// an empty one. Without it, the benchmark appends Durable Stream lines to
// an empty journal folded by the generic fold.
func benchAppend(b *testing.B, stateAt bool) {
	p := filepath.Join(b.TempDir(), "journal.jsonl")
	base := os.Getenv("REWIND_TAIL_BASE")
	if base != "" {
		copyFile(b, base, p)
	} else if err := os.WriteFile(p, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	fl, err := Follow(context.Background(), p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer fl.Close()
	j := fl.Journal() // indexed whole by Follow
	var f model.Format = generic.Format
	var lines [][]byte
	if base != "" {
		f, lines = continuation(b, j, base, b.N)
	} else {
		for i := range b.N {
			lines = append(lines, []byte(durableEvent(i)))
		}
	}
	r := replay.New(j, f)
	events := r.Events()
	state, err := r.StateAt(events) // keyframes and the live tip, as the TUI has them
	if err != nil {
		b.Fatal(err)
	}
	at := events
	fold := func(ev model.Event) error { state = r.F.Apply(state, ev); return nil }
	fd, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer fd.Close()
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
			if _, n := j.Index.Counts(); n == events+i+1 {
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
	b.ReportMetric(float64(events), "base-events")
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

// continuation returns the format of j, a copy of the journal at path
// that `rewind demo --seed 1` generated, indexed whole, and the n lines
// (newline included) the generator writes after its last one. It holds
// only those in memory.
func continuation(b *testing.B, j *journal.Journal, path string, n int) (model.Format, [][]byte) {
	f := formats.Detect(j.Head(formats.DetectEvents), "")
	records, _ := j.Index.Counts()
	in, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	w := &afterBase{base: bufio.NewReaderSize(in, 1<<20)}
	if err := demo.Generate(w, f.Name(), records+n, 1); err != nil {
		b.Fatal(err)
	}
	if w.differ || w.base.Buffered() > 0 {
		b.Fatalf("%s is not what `rewind demo --format %s --seed 1` writes: make it with that", path, f.Name())
	}
	var lines [][]byte
	for rest := w.rest.Bytes(); len(rest) > 0; {
		k := bytes.IndexByte(rest, '\n') + 1
		lines = append(lines, rest[:k])
		rest = rest[k:]
	}
	if len(lines) != n {
		b.Fatalf("the generator wrote %d events after %s's, not %d", len(lines), path, n)
	}
	return f, lines
}

// afterBase is the writer continuation generates into: it compares what
// is written with base until base ends (differ: it did not match) and
// keeps the rest.
type afterBase struct {
	base    *bufio.Reader
	scratch []byte
	differ  bool
	rest    bytes.Buffer
}

func (w *afterBase) Write(p []byte) (int, error) {
	q := p
	for len(q) > 0 && w.rest.Len() == 0 {
		k := min(len(q), 1<<20)
		w.scratch = slices.Grow(w.scratch[:0], k)[:k]
		m, _ := io.ReadFull(w.base, w.scratch)
		if !bytes.Equal(q[:m], w.scratch[:m]) {
			w.differ = true
		}
		q = q[m:]
		if m < k {
			break // base ended
		}
	}
	w.rest.Write(q)
	return len(p), nil
}
