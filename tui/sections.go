package tui

import (
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	"github.com/rewind-tui/rewind/render"
)

// sectionRenderer renders a projection one section at a time (split before
// each heading outside fenced code) and keeps the rendered sections, so a
// cursor move that changes one section (a header's event count, a new
// checkpoint) costs glamour that section only, not the whole document:
// glamour takes about 2.5 ms per KiB. Safe for concurrent use.
type sectionRenderer struct {
	md *render.Markdown

	mu    sync.Mutex
	width int
	cache map[string]string // section source -> rendered section
}

// maxSections is the most rendered sections kept (a few pane-fulls of
// documents at a few positions); past it the cache starts over.
const maxSections = 1024

func newSectionRenderer(md *render.Markdown) *sectionRenderer {
	return &sectionRenderer{md: md, cache: map[string]string{}}
}

// Render renders doc to width columns like render.Markdown.Render. The
// error is the first section's that glamour could not render (that section
// is then plain text).
func (r *sectionRenderer) Render(doc string, width int) (string, error) {
	secs := splitSections(doc)
	out := make([]string, len(secs))
	var firstErr error
	for i, s := range secs {
		r.mu.Lock()
		if r.width != width {
			clear(r.cache)
			r.width = width
		}
		hit, ok := r.cache[s]
		r.mu.Unlock()
		if !ok {
			var err error
			hit, err = r.md.Render(s, width)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			r.mu.Lock()
			if len(r.cache) >= maxSections {
				clear(r.cache)
			}
			if err == nil {
				r.cache[s] = hit
			}
			r.mu.Unlock()
		}
		out[i] = hit
	}
	// glamour frames each render with blank lines: keep one blank line
	// between sections, as one render has.
	for i := range out {
		lines := strings.Split(out[i], "\n")
		a, b := 0, len(lines)
		if i > 0 {
			for a < b && blank(lines[a]) {
				a++
			}
		}
		if i < len(out)-1 {
			for b > a && blank(lines[b-1]) {
				b--
			}
		}
		out[i] = strings.Join(lines[a:b], "\n")
	}
	return strings.Join(out, "\n\n"), firstErr
}

// blank reports whether a rendered line shows nothing.
func blank(line string) bool { return strings.TrimSpace(ansi.Strip(line)) == "" }

// splitSections cuts Markdown before every ATX heading line that is not
// inside fenced code. Joined, the sections are doc.
func splitSections(doc string) []string {
	var secs []string
	start := 0
	var fence byte // '`' or '~' while inside fenced code
	fenceLen := 0
	for i := 0; i < len(doc); {
		end := strings.IndexByte(doc[i:], '\n')
		if end < 0 {
			end = len(doc)
		} else {
			end += i
		}
		line := doc[i:end]
		trim := strings.TrimLeft(line, " ")
		indent := len(line) - len(trim)
		switch {
		case indent > 3:
		case fence != 0:
			if n := run(trim, fence); n >= fenceLen && strings.TrimSpace(trim[n:]) == "" {
				fence = 0
			}
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			fence, fenceLen = trim[0], run(trim, trim[0])
		case heading(trim) && i > start:
			secs = append(secs, doc[start:i])
			start = i
		}
		i = end + 1
	}
	return append(secs, doc[start:])
}

// run is the number of c at the start of s.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// heading reports whether line is an ATX heading: 1 to 6 '#' then a space
// or the end of the line.
func heading(line string) bool {
	n := run(line, '#')
	return n >= 1 && n <= 6 && (n == len(line) || line[n] == ' ' || line[n] == '\t')
}
