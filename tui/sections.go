package tui

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/charmbracelet/x/ansi"

	"github.com/rewind-tui/rewind/render"
)

// sectionRenderer renders a projection one section at a time (split before
// each heading outside fenced code) and keeps the rendered sections, so a
// cursor move that changes one section (a header's event count, a new
// checkpoint) costs glamour that section only, not the whole document:
// glamour takes about 2.5 ms per KiB (9 on the 2-CPU machine of session 27's
// measures). Safe for concurrent use.
type sectionRenderer struct {
	md *render.Markdown

	mu    sync.Mutex
	width int
	cache map[string]string // section source -> rendered section
}

// maxRenderers is the most goroutines a Render renders sections on.
const maxRenderers = 4

// maxSections is the most rendered sections kept (a few pane-fulls of
// documents at a few positions); past it the cache starts over.
const maxSections = 1024

func newSectionRenderer(md *render.Markdown) *sectionRenderer {
	return &sectionRenderer{md: md, cache: map[string]string{}}
}

// Render renders doc to width columns like render.Markdown.Render. The
// error is the first section's that glamour could not render (that section
// is then plain text). The sections not rendered before are rendered on
// one goroutine per CPU, up to maxRenderers.
func (r *sectionRenderer) Render(doc string, width int) (string, error) {
	return r.RenderUnless(doc, width, nil)
}

// errStale is RenderUnless's error when stale said to stop.
var errStale = errors.New("tui: the render was no longer wanted")

// RenderUnless is Render that stops, with errStale, when stale (when not
// nil) returns true before a section it has to render: the sections
// rendered so far are kept in the cache.
func (r *sectionRenderer) RenderUnless(doc string, width int, stale func() bool) (string, error) {
	secs := splitSections(doc)
	out, err := r.renderSecs(secs, width, stale)
	if errors.Is(err, errStale) {
		return "", err
	}
	return join(out, false), err
}

// RenderTop is Render of doc's first sections only, as many as make lines
// rendered lines or more (all, for lines < 1), rendered as many at once as
// Render would: the top of what Render gives, for a pane of that height,
// sooner. The sections after those that are in the cache are given too. A
// section not in the cache that is a long list is given up to its lines-th
// item (listTop), and the sections after it are left out. rest says
// whether anything was left out.
func (r *sectionRenderer) RenderTop(doc string, width, lines int) (out string, rest bool, err error) {
	if lines < 1 {
		out, err := r.Render(doc, width)
		return out, false, err
	}
	secs := splitSections(doc)
	n, got := 0, 0
	var outs []string
	for n < len(secs) && (got < lines || r.cached(secs[n], width)) {
		// A batch ends with the section whose source lines, added to
		// what is rendered, fill the pane: a section rendered beside it
		// is not shown, and the batch waits for the longest (Durable
		// Stream's tasks after its epics: 20 of the first screen's 60
		// ms). A section of source lines renders to about as many lines
		// or more (a paragraph's lines can join: then the loop renders
		// another batch).
		k, est := n, got
		for k < len(secs) && k < n+renderers() {
			if !r.cached(secs[k], width) {
				est += strings.Count(secs[k], "\n")
			}
			if k++; est >= lines {
				break
			}
		}
		batch, cut := secs[n:k], false
		// A long list (DeltaMind's goals, 16 KiB of one section) is
		// rendered as far as it fills the pane: its rest comes with the
		// whole render.
		for i, s := range batch {
			if r.cached(s, width) {
				continue
			}
			if top, ok := listTop(s, lines); ok {
				batch, cut = append(batch[:i:i], top), true
				break
			}
		}
		o, e := r.renderSecs(batch, width, nil)
		if err == nil {
			err = e
		}
		for _, s := range o {
			got += shown(s)
		}
		outs = append(outs, o...)
		if cut {
			return join(outs, true), true, err
		}
		n = k
	}
	return join(outs, n < len(secs)), n < len(secs), err
}

// listTop returns the start of sec up to its items-th list item (a line
// starting "- ", "* ", "+ " or "1. " outside fenced code, at the margin)
// when that is less than half of sec: rendered, it is the top of sec's
// render, items lines or more (glamour renders a list item by item, the
// same whether the list is tight or loose). ok is false when sec has
// fewer items.
func listTop(sec string, items int) (top string, ok bool) {
	if len(sec) < 2*items*4 { // an item line is 4 bytes or more
		return "", false
	}
	seen := 0
	markdownLines(sec, func(i int, line string, code bool) bool {
		if code || !listItem(line) {
			return true
		}
		if seen++; seen <= items {
			return true
		}
		if i <= len(sec)/2 {
			top, ok = sec[:i], true
		}
		return false
	})
	return top, ok
}

// listItem reports whether line starts a list item at the margin: "- ",
// "* " or "+ " (not a thematic break such as "- - -"), or one to nine
// digits then ". " or ") ".
func listItem(line string) bool {
	if len(line) < 2 {
		return false
	}
	switch line[0] {
	case '-', '*', '+':
		return line[1] == ' ' && strings.Trim(line, string(line[0])+" \t") != ""
	}
	d := 0
	for d < len(line) && line[d] >= '0' && line[d] <= '9' {
		d++
	}
	return d >= 1 && d <= 9 && len(line) > d+1 && (line[d] == '.' || line[d] == ')') && line[d+1] == ' '
}

// cached reports whether sec is rendered to width in the cache.
func (r *sectionRenderer) cached(sec string, width int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.cache[sec]
	return ok && r.width == width
}

// renderers is how many sections a render renders at once.
func renderers() int { return min(runtime.GOMAXPROCS(0), maxRenderers) }

// renderSecs returns each of secs rendered to width columns, from the
// cache or by glamour on up to renderers() goroutines, and the first
// section's error, or errStale when stale (when not nil) returned true
// before a section to render.
func (r *sectionRenderer) renderSecs(secs []string, width int, stale func() bool) ([]string, error) {
	out := make([]string, len(secs))
	errs := make([]error, len(secs))
	var todo []int
	r.mu.Lock()
	if r.width != width {
		clear(r.cache)
		r.width = width
	}
	for i, s := range secs {
		if hit, ok := r.cache[s]; ok {
			out[i] = hit
		} else {
			todo = append(todo, i)
		}
	}
	r.mu.Unlock()
	var next atomic.Int32
	var stopped atomic.Bool
	work := func() {
		for k := int(next.Add(1)) - 1; k < len(todo); k = int(next.Add(1)) - 1 {
			if stale != nil && stale() {
				stopped.Store(true)
				return
			}
			i := todo[k]
			out[i], errs[i] = r.md.Render(secs[i], width)
		}
	}
	var wg sync.WaitGroup
	for range min(len(todo), renderers()) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	r.mu.Lock()
	for _, i := range todo {
		if out[i] != "" && errs[i] == nil && r.width == width {
			if len(r.cache) >= maxSections {
				clear(r.cache)
			}
			r.cache[secs[i]] = out[i]
		}
	}
	r.mu.Unlock()
	if stopped.Load() {
		return out, errStale
	}
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// join joins rendered sections as one render of them all shows them (more:
// sections follow the last). glamour frames each render with blank lines:
// one blank line is kept between sections, as one render has.
func join(out []string, more bool) string {
	for i := range out {
		lines := strings.Split(out[i], "\n")
		a, b := inFrame(lines, i > 0, i < len(out)-1 || more)
		out[i] = strings.Join(lines[a:b], "\n")
	}
	return strings.Join(out, "\n\n")
}

// shown is how many lines a rendered section adds to what join gives: its
// lines inside glamour's frame of blank lines, and the blank line after
// them. (Counting the frame too, RenderTop once stopped at 13 lines for a
// pane of 20.)
func shown(s string) int {
	a, b := inFrame(strings.Split(s, "\n"), true, true)
	return b - a + 1
}

// inFrame returns the lines of a rendered section inside glamour's frame,
// lines[a:b]: without its blank lines at the start (lead) and at the end
// (trail).
func inFrame(lines []string, lead, trail bool) (a, b int) {
	a, b = 0, len(lines)
	for lead && a < b && blank(lines[a]) {
		a++
	}
	for trail && b > a && blank(lines[b-1]) {
		b--
	}
	return a, b
}

// blank reports whether a rendered line shows nothing.
func blank(line string) bool { return strings.TrimSpace(ansi.Strip(line)) == "" }

// splitSections cuts Markdown before every ATX heading line that is not
// inside fenced code. Joined, the sections are doc.
func splitSections(doc string) []string {
	var secs []string
	start := 0
	markdownLines(doc, func(i int, line string, code bool) bool {
		if !code && i > start && heading(strings.TrimLeft(line, " ")) {
			secs = append(secs, doc[start:i])
			start = i
		}
		return true
	})
	return append(secs, doc[start:])
}

// markdownLines calls fn with the index in doc where each of its lines
// starts, the line (without its line feed), and whether it is code:
// fenced code or its fences, or indented four spaces or more; until fn
// returns false.
func markdownLines(doc string, fn func(i int, line string, code bool) bool) {
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
		code := true
		switch {
		case len(line)-len(trim) > 3:
		case fence != 0:
			if n := run(trim, fence); n >= fenceLen && strings.TrimSpace(trim[n:]) == "" {
				fence = 0
			}
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			fence, fenceLen = trim[0], run(trim, trim[0])
		default:
			code = false
		}
		if !fn(i, line, code) {
			return
		}
		i = end + 1
	}
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
