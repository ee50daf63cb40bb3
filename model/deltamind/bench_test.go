package deltamind

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
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

// BenchmarkItems makes the objects of every item of a folded journal file
// as rewind state does (one goroutine; the items per op are those of
// 20,000 generated lines).
func BenchmarkItems(b *testing.B) {
	lines, _ := benchLines(b)
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	p := filepath.Join(b.TempDir(), "provenance.jsonl")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	j, err := journal.Open(p, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	st := Format.Init()
	if err := j.Each(1, 1<<30, func(ev model.Event) error { st = Format.Apply(st, ev); return nil }); err != nil {
		b.Fatal(err)
	}
	s := st.(*state)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		d := s.lin.decoder(walkWin)
		for i := range s.nItems {
			it := d.item(i, s.seq)
			_ = it.object()
		}
	}
}
