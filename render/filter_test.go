package render

import (
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/hostile"
)

func TestFilter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[1;38;5;35mgreen\x1b[m \x1b[38:2::1:2:3mx\x1b[0m", "\x1b[1;38;5;35mgreen\x1b[m \x1b[38:2::1:2:3mx\x1b[0m"},
		{"\x1b[2Jx", "␛[2Jx"},
		{"\x1b]8;;https://evil/\x07x", "␛]8;;https://evil/␇x"},
		{"\x1b[?25l", "␛[?25l"},
		{"\x1b[" + strings.Repeat("1", 61) + "m", "␛[" + strings.Repeat("1", 61) + "m"},
		{"\x1b[" + strings.Repeat("1", 60) + "m", "\x1b[" + strings.Repeat("1", 60) + "m"},
		{"a\r\nb", "a␍\nb"},
		{"\x9b31m", `\x9b31m`},
		{"\u009b31m", "⟨U+009B⟩31m"},
		{"x\x1b", "x␛"},
		{"\x1b\x1b[31m", "␛\x1b[31m"},
		{"\u202e", "⟨U+202E⟩"},
		{"\x1b[31ma\tb", "\x1b[31ma   b"},
	}
	for _, tt := range tests {
		if got := Filter(tt.in); got != tt.want {
			t.Errorf("Filter(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFilterHostilePayloads(t *testing.T) {
	for _, p := range hostile.Payloads {
		out := Filter(p.Value)
		checkSafe(t, out, true)
		if Filter(out) != out {
			t.Errorf("%s: Filter not idempotent", p.Name)
		}
	}
}

func FuzzFilter(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Add("\x1b[1;31mred\x1b[m")
	f.Fuzz(func(t *testing.T, s string) {
		out := Filter(s)
		checkSafe(t, out, true)
		if s != "" && out == "" {
			t.Fatal("empty output")
		}
		if again := Filter(out); again != out {
			t.Fatalf("not idempotent for %q:\n once  %q\n twice %q", s, out, again)
		}
	})
}
