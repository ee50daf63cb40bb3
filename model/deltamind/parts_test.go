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

// TestRenderPairParts holds RenderPairParts to Render of each of the two
// states: the parts each side has, one after another, are its projection,
// at increasing places; between neighbouring positions (most items the
// same, made once for the two) and far ones, both ways.
func TestRenderPairParts(t *testing.T) {
	j := journaltest.Generated(t, "deltamind", "gen.jsonl", 800, 5)
	r := replay.New(j, Format)
	n := r.Events()
	pairs := [][2]int{{0, n}, {n, 0}, {n / 2, n}, {n, n - 30}}
	for pos := 1; pos <= n; pos += 7 {
		pairs = append(pairs, [2]int{pos - 1, pos})
	}
	shared := 0
	for _, p := range pairs {
		sa, _ := r.StateAt(p[0])
		sb, _ := r.StateAt(p[1])
		for _, doc := range Format.Docs() {
			var a, b strings.Builder
			last := int64(-1)
			ok := format{}.RenderPairParts(sa, sb, doc, func(place int64, pa, pb string, inA, inB bool) bool {
				if place <= last || !inA && !inB {
					t.Fatalf("%d → %d, %s: place %d after %d, in a %v, in b %v", p[0], p[1], doc, place, last, inA, inB)
				}
				last = place
				if inA {
					a.WriteString(pa)
				}
				if inB {
					b.WriteString(pb)
				}
				if inA && inB && pa == pb {
					shared++
				}
				return true
			})
			if !ok {
				t.Fatalf("%d → %d: states of one fold not made together", p[0], p[1])
			}
			if want := Format.Render(sa, doc); a.String() != want {
				t.Fatalf("%d → %d, %s: a's parts\n%s\nwant\n%s", p[0], p[1], doc, a.String(), want)
			}
			if want := Format.Render(sb, doc); b.String() != want {
				t.Fatalf("%d → %d, %s: b's parts\n%s\nwant\n%s", p[0], p[1], doc, b.String(), want)
			}
		}
	}
	if shared < 1000 {
		t.Fatalf("%d parts shared: too few to check", shared)
	}
}
