package rawjson_test

import (
	"bytes"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/rawjson"
)

// BenchmarkMembers walks the top-level members of generated journal lines,
// as the folds do for every event (SetBytes: journal bytes per op).
func BenchmarkMembers(b *testing.B) {
	for _, format := range []string{"durable-stream", "delta-engine", "deltamind"} {
		b.Run(format, func(b *testing.B) {
			var buf bytes.Buffer
			if err := demo.Generate(&buf, format, 20000, 1); err != nil {
				b.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
			b.SetBytes(int64(buf.Len()))
			b.ResetTimer()
			for range b.N {
				for _, l := range lines {
					if !rawjson.Members(l, func(n, v []byte) bool { return true }) {
						b.Fatalf("not walked: %s", l)
					}
				}
			}
		})
	}
}
