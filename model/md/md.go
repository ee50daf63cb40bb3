// Package md holds the Markdown building blocks the formats' projections
// share: code fences and spans that survive backticks in journal text, and
// block quotes over several lines. It only builds Markdown source; the
// caller sanitizes the whole document before it reaches a terminal.
package md

import "strings"

// Fence returns s in a fenced code block (with the info string lang, which
// may be empty) whose fence is longer than any backtick run inside s.
func Fence(lang, s string) string {
	f := strings.Repeat("`", max(3, LongestRun(s, '`')+1))
	return f + lang + "\n" + s + "\n" + f + "\n"
}

// CodeSpan returns s, on one line, as an inline code span that survives
// backticks in s.
func CodeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	f := strings.Repeat("`", LongestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || f != "`" {
		return f + " " + s + " " + f
	}
	return f + s + f
}

// LongestRun returns the length of the longest run of c in s.
func LongestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// QuoteLines continues a Markdown block quote ("> ") over the lines of s.
func QuoteLines(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}

// Or returns s, or def when s is empty.
func Or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
