package render

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// maxCachedWidths bounds the number of widths a [Markdown] keeps glamour
// renderers for; they are all dropped when a new width would exceed it (a
// user resizing the terminal produces many widths).
const maxCachedWidths = 8

// DefaultWidth is the wrap width [Markdown.Render] uses when it is given a
// width below 1.
const DefaultWidth = 80

// Markdown renders Markdown for the terminal with glamour, using a fixed
// dark or light style (never the terminal's auto-detected one, and never
// querying the terminal), and makes the result safe to print.
//
// A Markdown is safe for concurrent use, and renders run in parallel: each
// render takes a glamour renderer of its width that no other render is
// using (one is made when none is idle) and keeps it for later renders.
// The zero value is not usable; call [NewMarkdown].
type Markdown struct {
	dark bool

	mu   sync.Mutex
	idle map[int][]*renderer // by width
}

// renderer is a glamour renderer and the parser that neutralizes entities
// for it (neither is safe for concurrent use).
type renderer struct {
	tr     *glamour.TermRenderer
	parser parser.Parser // same configuration as glamour's
}

// maxIdle is how many idle renderers a Markdown keeps for one width: one
// per render that runs at once (the TUI's section renderer runs up to
// four, one per CPU).
const maxIdle = 4

// NewMarkdown returns a Markdown renderer with glamour's dark style if dark
// is true and its light style otherwise.
func NewMarkdown(dark bool) *Markdown {
	return &Markdown{dark: dark, idle: make(map[int][]*renderer)}
}

// Render renders md word-wrapped to width display columns (width < 1 means
// [DefaultWidth]) and returns text that is safe to write to a terminal.
//
// Journal strings should be placed into md with [Text] (or [CodeBlock] for
// fenced code), but Render treats md as hostile anyway: it applies the
// [Sanitize] character mapping (without its length limit) to md, removes
// the OSC 8 hyperlinks glamour emits for links (the target URL stays
// visible as text after the link text), and passes the result through
// [Filter], so the only escape sequences left are SGR.
//
// HTML character references other than "&amp;", "&lt;" and "&gt;" are
// not decoded, and raw HTML is shown as text rather than stripped: before
// glamour sees md, every other '&' is escaped (outside code blocks and
// autolinks, which glamour shows raw), every '<' of an HTML block or
// inline HTML is escaped, and inside autolinks "&amp;" is turned back into
// '&'. So "&#27;" and glamour's split-entity bypass show up as literal
// text, "<script>" stays visible, and a URL that went through [Text]
// still shows a plain '&'.
//
// Render always returns displayable text. If glamour fails (or panics),
// it returns md sanitized as plain text together with a non-nil error.
func (m *Markdown) Render(md string, width int) (out string, err error) {
	if width < 1 {
		width = DefaultWidth
	}
	src := sanitizeUnbounded(md)
	raw, err := m.glamour(src, width)
	if err != nil {
		return Filter(src), err
	}
	return Filter(stripHyperlinks(raw)), nil
}

// glamour renders src with an idle renderer for width, or a new one.
func (m *Markdown) glamour(src string, width int) (out string, err error) {
	r, err := m.take(width)
	if err != nil {
		return "", err
	}
	defer func() {
		if p := recover(); p != nil {
			// A renderer that panicked may be in a bad state: it is
			// dropped, not put back.
			err = fmt.Errorf("render: glamour panicked: %v", p)
			return
		}
		m.put(width, r)
	}()
	out, err = r.tr.Render(neutralizeEntities(r.parser, src))
	if err != nil {
		return "", fmt.Errorf("render: glamour: %w", err)
	}
	return out, nil
}

// take returns an idle renderer for width, or a new one.
func (m *Markdown) take(width int) (*renderer, error) {
	m.mu.Lock()
	if rs := m.idle[width]; len(rs) > 0 {
		r := rs[len(rs)-1]
		m.idle[width] = rs[:len(rs)-1]
		m.mu.Unlock()
		return r, nil
	}
	m.mu.Unlock()
	style, code := styles.LightStyleConfig, "235"
	if m.dark {
		style, code = styles.DarkStyleConfig, "251"
	}
	// Code blocks without a theme: glamour writes them itself, in the
	// colour chroma's theme gave their text (#2A2A2A, #C4C4C4), and does
	// not call chroma, which rewind is built without (see
	// third_party/nochroma). The blocks rewind writes are tool calls and
	// outputs, plain text; the generic format's events, JSON, are no
	// longer coloured by token.
	style.CodeBlock.Chroma, style.CodeBlock.Theme, style.CodeBlock.Color = nil, "", &code
	tr, err := glamour.NewTermRenderer(
		glamour.WithStyles(style),
		glamour.WithWordWrap(width),
		glamour.WithInlineTableLinks(true),
	)
	if err != nil {
		return nil, fmt.Errorf("render: creating glamour renderer: %w", err)
	}
	gm := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
	return &renderer{tr: tr, parser: gm.Parser()}, nil
}

// put keeps r, a renderer for width that is done, for another render; at
// most maxIdle per width, and maxCachedWidths widths.
func (m *Markdown) put(width int, r *renderer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rs, ok := m.idle[width]
	if !ok && len(m.idle) >= maxCachedWidths {
		clear(m.idle)
	}
	if len(rs) < maxIdle {
		m.idle[width] = append(rs, r)
	}
}

// stripHyperlinks removes OSC 8 hyperlink sequences ("ESC ] 8 ; params ;
// URI" ended by BEL or ESC \) from glamour's output, keeping the text
// between them. A sequence is removed only when its URI is empty (the
// closing sequence) or already visible elsewhere in the output, so that a
// sequence forged through entity decoding cannot hide text; everything
// else is left for [Filter] to make visible.
func stripHyperlinks(s string) string {
	if !strings.Contains(s, "\x1b]8;") {
		return s
	}
	var visible string // computed lazily
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, "\x1b]8;")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		n, uri := oscLen(s[i:])
		if n > 0 && uri != "" {
			if visible == "" {
				visible = squeeze(ansi.Strip(stripAllOSC8(s)))
			}
			if !strings.Contains(visible, squeeze(uri)) &&
				!strings.Contains(visible, squeeze(strings.TrimPrefix(uri, "mailto:"))) {
				n = 0
			}
		}
		if n == 0 {
			// Not ours: leave the ESC for Filter to show.
			b.WriteByte(0x1b)
			s = s[i+1:]
			continue
		}
		s = s[i+n:]
	}
}

// oscLen returns the length of the OSC 8 sequence at the start of s and
// its URI, or 0 if s does not start with a well-formed one. Parameters may
// not contain ';' and neither part may contain a C0 control.
func oscLen(s string) (n int, uri string) {
	const prefix = "\x1b]8;"
	rest := s[len(prefix):]
	semi := -1
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		switch {
		case c == 0x07:
			if semi < 0 {
				return 0, ""
			}
			return len(prefix) + j + 1, rest[semi+1 : j]
		case c == 0x1b:
			if semi < 0 || j+1 >= len(rest) || rest[j+1] != '\\' {
				return 0, ""
			}
			return len(prefix) + j + 2, rest[semi+1 : j]
		case c < 0x20 || c == 0x7f:
			return 0, ""
		case c == ';' && semi < 0:
			semi = j
		}
	}
	return 0, ""
}

// stripAllOSC8 removes every well-formed OSC 8 sequence from s; it is used
// only to compute the visible text for stripHyperlinks.
func stripAllOSC8(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b]8;")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		n, _ := oscLen(s[i:])
		if n == 0 {
			n = 1
			b.WriteByte(0x1b)
		}
		s = s[i+n:]
	}
}

// squeeze removes all white space from s (wrapping may split a URL over
// lines and indent the continuation).
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// span is a byte range of Markdown source that needs special treatment.
type span struct {
	start, stop int
	kind        spanKind
}

type spanKind int

const (
	spanCode     spanKind = iota // code block line: copied unchanged
	spanAutolink                 // autolink label: "&amp;" → '&'
	spanHTML                     // raw HTML: '<' and '&' escaped
)

// neutralizeEntities returns src with HTML character references and raw
// HTML made inert: outside code blocks and autolinks every '&' not
// starting "&amp;", "&lt;" or "&gt;" becomes "&amp;"; in HTML blocks and
// inline HTML '<' also becomes "&lt;"; inside autolinks (shown raw by
// glamour) "&amp;" becomes '&'; code blocks are left alone. p must be configured like glamour's
// parser, so that the ranges match what glamour will render.
func neutralizeEntities(p parser.Parser, src string) string {
	if !strings.ContainsAny(src, "&<") {
		return src
	}
	buf := []byte(src)
	doc := p.Parse(text.NewReader(buf))
	var spans []span
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				spans = append(spans, span{start: seg.Start, stop: seg.Stop, kind: spanCode})
			}
			return ast.WalkSkipChildren, nil
		case ast.KindHTMLBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				spans = append(spans, span{start: seg.Start, stop: seg.Stop, kind: spanHTML})
			}
			if hb := n.(*ast.HTMLBlock); hb.HasClosure() {
				seg := hb.ClosureLine
				spans = append(spans, span{start: seg.Start, stop: seg.Stop, kind: spanHTML})
			}
			return ast.WalkSkipChildren, nil
		case ast.KindRawHTML:
			segs := n.(*ast.RawHTML).Segments
			for i := 0; i < segs.Len(); i++ {
				seg := segs.At(i)
				spans = append(spans, span{start: seg.Start, stop: seg.Stop, kind: spanHTML})
			}
		case ast.KindAutoLink:
			label := n.(*ast.AutoLink).Label(buf)
			// Label is a subslice of buf; recover its offset.
			if off := cap(buf) - cap(label); len(label) > 0 && off >= 0 &&
				off+len(label) <= len(buf) && &buf[off] == &label[0] {
				spans = append(spans, span{start: off, stop: off + len(label), kind: spanAutolink})
			}
		}
		return ast.WalkContinue, nil
	})
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })

	var b strings.Builder
	b.Grow(len(src) + len(src)/16)
	pos := 0
	escape := func(s string, lt bool) {
		for {
			i := strings.IndexAny(s, "&<")
			if i < 0 {
				b.WriteString(s)
				return
			}
			b.WriteString(s[:i])
			switch rest := s[i:]; {
			case rest[0] == '<' && !lt:
				b.WriteByte('<')
				s = rest[1:]
			case rest[0] == '<':
				b.WriteString("&lt;")
				s = rest[1:]
			case strings.HasPrefix(rest, "&amp;"), strings.HasPrefix(rest, "&lt;"), strings.HasPrefix(rest, "&gt;"):
				n := strings.IndexByte(rest, ';') + 1
				b.WriteString(rest[:n])
				s = rest[n:]
			default:
				b.WriteString("&amp;")
				s = rest[1:]
			}
		}
	}
	for _, sp := range spans {
		if sp.start < pos || sp.stop > len(src) || sp.start > sp.stop {
			continue
		}
		escape(src[pos:sp.start], false)
		switch seg := src[sp.start:sp.stop]; sp.kind {
		case spanCode:
			b.WriteString(seg)
		case spanAutolink:
			b.WriteString(strings.ReplaceAll(seg, "&amp;", "&"))
		case spanHTML:
			escape(seg, true)
		}
		pos = sp.stop
	}
	escape(src[pos:], false)
	return b.String()
}
