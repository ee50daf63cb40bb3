package deltamind

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

func benchLines(b *testing.B) ([][]byte, int64) {
	var buf bytes.Buffer
	if err := demo.Generate(&buf, "deltamind", 20000, 1); err != nil {
		b.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")), int64(buf.Len())
}

// BenchmarkScan reads generated lines as the fold does (SetBytes: journal
// bytes per op).
func BenchmarkScan(b *testing.B) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	for range b.N {
		for _, l := range lines {
			var sc scanned
			if !sc.scan(l) {
				b.Fatalf("not read: %s", l)
			}
		}
	}
}

// BenchmarkRead reads generated lines as the views do.
func BenchmarkRead(b *testing.B) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	var lf lineFields
	for range b.N {
		for _, l := range lines {
			if !lf.read(l) {
				b.Fatalf("not read: %s", l)
			}
		}
	}
}

// BenchmarkScanLayout reads generated lines as the fold does, through
// layouts (Prepare).
func BenchmarkScanLayout(b *testing.B) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	t := &layouts{}
	for range b.N {
		for _, l := range lines {
			var sc scanned
			if ok, _ := sc.scanLayout(t, l, &model.LineScalars{}); !ok {
				b.Fatalf("not read: %s", l)
			}
		}
	}
}

// BenchmarkScanLayoutEnds is BenchmarkScanLayout with the layout of each
// line and the ends of its scalars known, as the index hands them to
// PrepareEnds.
func BenchmarkScanLayoutEnds(b *testing.B) {
	lines, n := benchLines(b)
	ends := make([]model.LineScalars, len(lines))
	for i, l := range lines {
		var err error
		if ends[i], err = lineScalars(l); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(n)
	t := &layouts{}
	for range b.N {
		for i, l := range lines {
			var sc scanned
			if ok, _ := sc.scanLayout(t, l, &ends[i]); !ok {
				b.Fatalf("not read: %s", l)
			}
		}
	}
}

// BenchmarkReadLayout reads generated lines as the views do, through
// layouts (decoder.readLine).
func BenchmarkReadLayout(b *testing.B) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	t := &layouts{}
	var lf lineFields
	for range b.N {
		for _, l := range lines {
			if ok, _ := lf.readLayout(t, l); !ok {
				b.Fatalf("not read: %s", l)
			}
		}
	}
}

// BenchmarkSkipStrings skips every string of generated lines with skipStr
// and with rawjson.SkipString.
func BenchmarkSkipStrings(b *testing.B) {
	lines, n := benchLines(b)
	for name, skip := range map[string]func([]byte, int) int{
		"skipStr":    func(l []byte, i int) int { j, _ := skipStr(l, i); return j },
		"SkipString": rawjson.SkipString,
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(n)
			for range b.N {
				for _, l := range lines {
					for i := 0; i < len(l); i++ {
						if l[i] == '"' {
							i = skip(l, i) - 1
						}
					}
				}
			}
		})
	}
}

// BenchmarkSemanticHash hashes the summaries of generated lines, each
// once (no cache).
func BenchmarkSemanticHash(b *testing.B) {
	lines, _ := benchLines(b)
	var sums []string
	for _, l := range lines {
		var lf lineFields
		if lf.read(l) && lf.delta.summary != "" {
			sums = append(sums, lf.delta.summary+" "+string(rune('a'+len(sums)%26)))
		}
	}
	for name, hash := range map[string]func(string) uint32{"semanticHash": semanticHash, "unicodeHash": unicodeHash} {
		b.Run(name, func(b *testing.B) {
			for i := range b.N {
				hash(sums[i%len(sums)])
			}
		})
	}
}

// BenchmarkFold folds generated lines from Init, as a replay does, as
// events of a journal file.
func BenchmarkFold(b *testing.B) {
	lines, n := benchLines(b)
	f, err := os.Create(filepath.Join(b.TempDir(), "provenance.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	evs := make([]model.Event, len(lines))
	off := int64(0)
	for i, l := range lines {
		evs[i] = model.Event{Pos: i + 1, Line: i + 1, Off: off, Raw: l, Src: f}
		if _, err := f.Write(append(l, '\n')); err != nil {
			b.Fatal(err)
		}
		off += int64(len(l)) + 1
	}
	b.SetBytes(n)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := Format.Init()
		for _, ev := range evs {
			s = Format.Apply(s, ev)
		}
	}
}

// BenchmarkItems writes every item of a folded journal file as rewind
// state does (one goroutine, one part: decoder.item, then the item's
// indented JSON, or its object when it has no text form; the items per op
// are those of 20,000 generated lines; SetBytes: the bytes written).
func BenchmarkItems(b *testing.B) {
	lines, _ := benchLines(b)
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	s := foldJournal(b, journaltest.Open(b, "provenance.jsonl", buf.Bytes())).(*state)
	w := model.Strings{String: render.AppendJSONString, Literal: render.AppendJSONLiteral}
	var out []byte
	write := func() {
		out = out[:0]
		d := s.lin.decoder(partWin).reusing()
		d.gather(0, s.nItems, s.seq)
		sc := &itemScratch{}
		for i := range s.nItems {
			it := d.item(i, s.seq)
			if it.appendable() {
				out = itemText{&it}.AppendIndented(out, 2, w)
			} else if len(it.objectIn(sc)) == 0 {
				b.Fatal("an item without members")
			}
		}
		d.done()
	}
	write()
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		write()
	}
}

// BenchmarkFoldFile folds the journal REWIND_FOLD_FILE names as a replay
// does (the state after every 256th line kept as a keyframe), reading it
// line by line, next to 8 bytes a line of pointer-free memory standing
// for the journal index, with GOGC 25 as rewind sets it. It reports the
// fold's live heap after a collection (fold-MiB) and the memory the
// runtime took from the system (sys-MiB); for the peak RSS, run the test
// binary under /usr/bin/time:
//
//	go test -c -o dm.test ./model/deltamind/
//	REWIND_FOLD_FILE=deltamind.1G.jsonl /usr/bin/time -f '%M KB' ./dm.test -test.run XXX -test.bench FoldFile -test.benchtime 1x
func BenchmarkFoldFile(b *testing.B) {
	p := os.Getenv("REWIND_FOLD_FILE")
	if p == "" {
		b.Skip("REWIND_FOLD_FILE not set")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	for range b.N {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		r := bufio.NewReaderSize(f, 1<<20)
		var index [][]byte // 8 bytes a line, in 1 MiB blocks
		s := Format.Init()
		var keys []model.State
		var off int64
		for pos := 1; ; pos++ {
			line, err := r.ReadSlice('\n')
			if len(line) == 0 {
				if err != nil && err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			if len(index) == 0 || len(index[len(index)-1])+8 > cap(index[len(index)-1]) {
				index = append(index, make([]byte, 0, 1<<20))
			}
			index[len(index)-1] = append(index[len(index)-1], "off+type"...) // 8 bytes, written
			s = Format.Apply(s, model.Event{Pos: pos, Line: pos, Off: off, Raw: bytes.TrimSuffix(line, []byte("\n")), Src: f})
			if pos%keyframeInterval == 0 {
				keys = append(keys, s)
			}
			off += int64(len(line))
		}
		index = nil
		runtime.GC()
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc-base)/(1<<20), "fold-MiB")
		b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MiB")
		runtime.KeepAlive(keys)
		f.Close()
	}
}
