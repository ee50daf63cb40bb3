package deltaengine

import (
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/replay"
)

// TestRenderParts checks the parts a diff compares the conversation by:
// the header, then one part per message, each whole lines, at increasing
// places, at every 50th position of a generated journal; and that RenderParts, which forgets
// the actions it decoded keepInfos entries back, renders what it renders
// when it keeps them all (a tool call's command and a result's status are
// looked up entries after the message that shows them).
func TestRenderParts(t *testing.T) {
	j := journaltest.Generated(t, "delta-engine", "gen.jsonl", 1500, 7)
	r := replay.New(j, Format)
	n := r.Events()
	defer func(k int) { keepInfos = k }(keepInfos)
	messages := 0
	for pos := 0; pos <= n; pos += 50 {
		s, err := r.StateAt(pos)
		if err != nil {
			t.Fatal(err)
		}
		keepInfos = 1 << 30
		want := Format.Render(s, Doc)
		keepInfos = 1
		var parts []string
		var places []int64
		format{}.RenderParts(s, Doc, func(place int64, p string) bool {
			parts, places = append(parts, p), append(places, place)
			return true
		})
		for i := 1; i < len(places); i++ {
			if places[i] <= places[i-1] {
				t.Fatalf("at %d: places %v do not increase", pos, places)
			}
		}
		if got := strings.Join(parts, ""); got != want {
			t.Fatalf("at %d, forgetting the actions:\n%.2000s\nwant\n%.2000s", pos, got, want)
		}
		st := s.(*state)
		if len(parts) != 1+st.msgs || !strings.Contains(parts[0], "# Run ") {
			t.Fatalf("at %d: %d parts for %d messages, the first %q", pos, len(parts), st.msgs, parts[0])
		}
		for i, p := range parts {
			if !strings.HasSuffix(p, "\n") {
				t.Fatalf("at %d: part %d does not end a line: %q", pos, i, p)
			}
		}
		messages = st.msgs
	}
	if messages < 300 {
		t.Fatalf("%d messages at the end: too few to forget actions", messages)
	}
}
