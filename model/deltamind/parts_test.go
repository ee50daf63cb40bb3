package deltamind

import (
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/replay"
)

// TestRenderParts holds RenderParts, which `rewind render` writes and a
// diff compares, to Render: the parts of each projection, one after
// another, are Render's text, each whole lines at a place after the one
// before, at every 40th position of a generated journal (sections appear,
// grow and lose items to others as decisions are superseded and tasks
// resolved).
func TestRenderParts(t *testing.T) {
	j := journaltest.Generated(t, "deltamind", "gen.jsonl", 1200, 3)
	r := replay.New(j, Format)
	n := r.Events()
	sections := 0
	for pos := 0; pos <= n; pos += 40 {
		s, err := r.StateAt(pos)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range Format.Docs() {
			var b strings.Builder
			last := int64(-1)
			format{}.RenderParts(s, doc, func(place int64, part string) bool {
				if place <= last || !strings.HasSuffix(part, "\n") {
					t.Fatalf("at %d, %s: part %q at place %d after %d", pos, doc, part, place, last)
				}
				if strings.HasPrefix(part, "## ") {
					sections++
				}
				last = place
				b.WriteString(part)
				return true
			})
			if want := Format.Render(s, doc); b.String() != want {
				t.Fatalf("at %d, %s: the parts\n%s\nwant Render's\n%s", pos, doc, b.String(), want)
			}
		}
	}
	if sections < 100 {
		t.Fatalf("%d section titles over the positions: too few to check", sections)
	}
}
