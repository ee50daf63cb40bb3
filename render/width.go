package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Width returns the display width of s in terminal columns, counting
// grapheme clusters (wide characters count 2) and ignoring escape
// sequences. s should already be sanitized.
func Width(s string) int {
	return ansi.StringWidth(s)
}

// Truncate returns s cut to at most w display columns. When s is wider
// than w, the last column of the result is "…". Escape sequences are kept
// and never split; cuts fall on grapheme-cluster boundaries. w <= 0 yields
// "".
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// PadRight returns s followed by enough spaces to make it w display
// columns wide. s is returned unchanged if it is already w or more
// columns wide; use [Truncate] first to bound it.
func PadRight(s string, w int) string {
	if n := w - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Fit returns s cut as [Truncate] cuts it and padded with spaces to
// exactly w display columns (w <= 0 yields ""): PadRight(Truncate(s, w),
// w), measuring s once when it fits, where those two measure it twice.
// A tab counts as [TabWidth] spaces, as lipgloss draws it ([Sanitize]
// expands a journal's tabs; this is for any other string).
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if strings.IndexByte(s, '\t') >= 0 {
		s = strings.ReplaceAll(s, "\t", strings.Repeat(" ", TabWidth))
	}
	n := Width(s)
	if n > w {
		s = Truncate(s, w)
		n = Width(s)
	}
	if n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}
