package statediff

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/model"
)

// TestCompactPrefix holds CompactPrefix to Compact: the whole value when
// it fits, else the start of it, at least n+1 bytes, so that a caller who
// shows the first n bytes (blame's lines) shows what it showed when it
// made the whole value. The values have multi-byte runes, escapes and
// nested lists and objects, and every n up to the whole length is tried.
func TestCompactPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "é", "日本", "🙂", "\"", "\\", "\n", "\u2028", "<&>", "\x01", "\xff"}
	str := func() string {
		var b strings.Builder
		for n := rng.IntN(12); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(7); {
		case depth > 3 || k < 2:
			return str()
		case k == 2:
			return json.Number("-12.5e3")
		case k == 3:
			return rng.IntN(3) == 0
		case k == 4:
			return nil
		case k == 5:
			var a []any
			for n := rng.IntN(4); n > 0; n-- {
				a = append(a, value(depth+1))
			}
			return a
		}
		var o model.Object
		for n := rng.IntN(4); n > 0; n-- {
			o = append(o, model.Field{Key: str(), Value: value(depth + 1)})
		}
		return o
	}
	for range 300 {
		v := value(0)
		full := Compact(v)
		for n := 0; n <= len(full)+2; n++ {
			got := CompactPrefix(v, n)
			switch {
			case len(full) <= n && got != full:
				t.Fatalf("n=%d: %q, want the whole %q", n, got, full)
			case len(full) > n && (len(got) <= n || !strings.HasPrefix(full, got)):
				t.Fatalf("n=%d: %q is not a start of %q of more than %d bytes", n, got, full, n)
			}
		}
	}
}
