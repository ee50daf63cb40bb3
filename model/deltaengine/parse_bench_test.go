package deltaengine

import (
	"bytes"
	"testing"

	"github.com/rewind-tui/rewind/demo"
)

// BenchmarkParseLine reads every line of a generated journal of 5,000
// events (about 6 MB) as the fold and the views do, in bytes of journal
// per second.
func BenchmarkParseLine(b *testing.B) {
	var j bytes.Buffer
	if err := demo.Generate(&j, "delta-engine", 5000, 1); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(j.Bytes()), []byte("\n"))
	b.SetBytes(int64(j.Len()))
	for b.Loop() {
		for _, l := range lines {
			if _, ok := parseLine(l); !ok {
				b.Fatalf("line not read: %s", l)
			}
		}
	}
}
