package render

import "testing"

func TestWidth(t *testing.T) {
	tests := []struct {
		s string
		w int
	}{
		{"abc", 3},
		{"日本", 4},
		{"\x1b[31mred\x1b[m", 3},
		{"👨\u200d👩\u200d👧", 2},
		{"e\u0301", 1},
		{"", 0},
	}
	for _, tt := range tests {
		if got := Width(tt.s); got != tt.w {
			t.Errorf("Width(%q) = %d, want %d", tt.s, got, tt.w)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		w    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello world", 8, "hello w…"},
		{"日本語テキスト", 5, "日本…"},
		{"héllo", 3, "hé…"},
		{"abc", 0, ""},
		{"\x1b[31mredder\x1b[m", 4, "\x1b[31mred…\x1b[m"},
	}
	for _, tt := range tests {
		got := Truncate(tt.s, tt.w)
		if got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.want)
		}
		if Width(got) > max(tt.w, 0) {
			t.Errorf("Truncate(%q, %d) is %d wide", tt.s, tt.w, Width(got))
		}
	}
}

func TestPadRight(t *testing.T) {
	if got := PadRight("日本", 6); got != "日本  " {
		t.Errorf("PadRight = %q", got)
	}
	if got := PadRight("toolong", 3); got != "toolong" {
		t.Errorf("PadRight shortened: %q", got)
	}
}

// TestFit holds Fit to PadRight(Truncate(s, w), w), which the panes used
// before it, and to exactly w columns, tabs included.
func TestFit(t *testing.T) {
	for _, s := range []string{"", "abc", "hello world", "日本語テキスト", "héllo", "\x1b[31mredder\x1b[m", "👨\u200d👩\u200d👧 x"} {
		for w := -1; w <= 14; w++ {
			got := Fit(s, w)
			if want := PadRight(Truncate(s, w), w); got != want {
				t.Errorf("Fit(%q, %d) = %q, want %q", s, w, got, want)
			}
			if Width(got) != max(w, 0) {
				t.Errorf("Fit(%q, %d) is %d wide", s, w, Width(got))
			}
		}
	}
	if got := Fit("a\tb", 8); got != "a    b  " {
		t.Errorf("Fit with a tab = %q", got)
	}
}
