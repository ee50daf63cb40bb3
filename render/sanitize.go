// Package render turns hostile journal strings into text that is safe to
// measure and draw in a terminal.
//
// Every string that comes from a journal (text, names, tool output, titles,
// paths, error messages, JSON keys) must pass through [Sanitize] (or one of
// its wrappers [Line], [Text], [Plain]) after JSON decoding and before it
// is measured, styled or printed. Sanitize is a stateless rune-by-rune
// mapping: it never parses escape sequences, so it cannot be desynchronised
// by malformed ones, and it makes controls visible instead of deleting them
// (ESC becomes "␛", CR becomes "␍", a bidi override becomes "⟨U+202E⟩").
//
// Styled output (lipgloss, glamour) must then pass through [Filter], an
// allow-list that lets only SGR sequences (colours and attributes) reach the
// terminal. [Markdown.Render] applies Filter itself.
//
// All functions in this package are safe for concurrent use.
package render

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// MaxBytes is the largest output, in bytes, that [Sanitize] produces. A
// longer result is cut at a character boundary and "… N more bytes" is
// appended, where N counts the input bytes that were not shown.
const MaxBytes = 64 << 10

// MaxMarks is the number of consecutive combining marks (Unicode categories
// Mn and Me) kept after a base character. Further marks are replaced by a
// single "⟨+N marks⟩".
const MaxMarks = 4

// TabWidth is the distance, in columns, between the tab stops used when
// [Sanitize] expands tabs into spaces.
const TabWidth = 4

// cutReserve is room kept below MaxBytes for the "… N more bytes" suffix.
const cutReserve = 40

// Sanitize returns s with every character that could control the terminal,
// hide text, or spoof its meaning replaced by a visible stand-in:
//
//   - an invalid UTF-8 byte becomes `\xNN` (lower-case hex);
//   - a C0 control other than '\n' becomes its Control Picture
//     (ESC → "␛", CR → "␍", BS → "␈", NUL → "␀"), except that '\t' is
//     expanded to spaces up to the next multiple of [TabWidth] display
//     columns, counted from the last '\n';
//   - DEL becomes "␡";
//   - C1 controls (U+0080–U+009F), bidi controls, zero-width and other
//     format characters, Hangul fillers, Unicode tag characters,
//     noncharacters, variation selectors and the line/paragraph separators
//     U+2028/U+2029 become "⟨U+XXXX⟩". ZWJ (U+200D) is kept only between
//     two emoji, and VS16 (U+FE0F) only directly after an emoji or inside
//     a keycap sequence, so emoji sequences still display as emoji;
//   - more than [MaxMarks] consecutive combining marks are replaced by
//     "⟨+N marks⟩";
//   - an output longer than [MaxBytes] is cut and "… N more bytes" is
//     appended.
//
// All other text, including '\n', is returned unchanged. The result contains
// no ESC, no C0 control except '\n', no C1 control, no bidi control and no
// tag character; it is valid UTF-8, non-empty when s is non-empty, and
// Sanitize(Sanitize(s)) == Sanitize(s).
func Sanitize(s string) string {
	if len(s) <= MaxBytes && isPlainASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), MaxBytes) + 16)
	m := mapper{b: &b}
	cutIn, cutOut := 0, 0
	i := 0
	for i < len(s) {
		if !m.ctxKept && b.Len() <= MaxBytes-cutReserve {
			cutIn, cutOut = i, b.Len()
		}
		if b.Len() > MaxBytes {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		m.put(s, i, r, size)
		i += size
	}
	m.flushMarks()
	if i == len(s) && b.Len() <= MaxBytes {
		return b.String()
	}
	return b.String()[:cutOut] + "… " + strconv.Itoa(len(s)-cutIn) + " more bytes"
}

// Line returns [Sanitize](s) as a single display line: each '\n' becomes
// "⏎". It is meant for timeline rows, list items and titles.
func Line(s string) string {
	return strings.ReplaceAll(Sanitize(s), "\n", "⏎")
}

// EscapeMarkdown returns s with every '&' replaced by "&amp;", so that
// Markdown renderers cannot decode HTML character references such as
// "&#27;" into control characters. It changes nothing else.
func EscapeMarkdown(s string) string {
	return strings.ReplaceAll(s, "&", "&amp;")
}

// Text returns EscapeMarkdown(Sanitize(s)) with '<' also escaped as
// "&lt;": the form in which a journal string is placed in Markdown prose,
// headings, list items, tables and inline code handed to
// [Markdown.Render]. Escaping '<' keeps glamour from treating text such as
// "<script>…</script>" or "<https://x>" as HTML and dropping it. Text
// does not escape other Markdown syntax. Do not use it inside fenced code
// blocks, where glamour shows entities literally; use [CodeBlock] there.
//
// A line that would be a link reference definition ("[x]: url"), which
// glamour does not display at all, gets its '[' backslash-escaped.
func Text(s string) string {
	s = strings.ReplaceAll(EscapeMarkdown(Sanitize(s)), "<", "&lt;")
	if strings.Contains(s, "]:") {
		s = linkRefDef.ReplaceAllString(s, `${1}\[${2}`)
	}
	return s
}

// linkRefDef matches the start of a possible link reference definition.
// The prefix allows block quote and list markers.
var linkRefDef = regexp.MustCompile(`(?m)^([ >*+\-0-9.)]*)\[([^\]\n]*\]:)`)

// CodeBlock returns a fenced Markdown code block showing Sanitize(code),
// with info string lang (sanitized to a single word; it may be empty). The
// fence is longer than any run of backticks in code, so code cannot close
// it early. The result ends in '\n'.
func CodeBlock(lang, code string) string {
	code = Sanitize(code)
	lang = strings.Map(func(r rune) rune {
		if r == '`' || r == '~' || unicode.IsSpace(r) {
			return -1
		}
		return r
	}, Line(lang))
	n, run := 3, 0
	for _, r := range code {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", n)
	var b strings.Builder
	b.WriteString(fence)
	b.WriteString(lang)
	b.WriteByte('\n')
	b.WriteString(code)
	if code != "" && !strings.HasSuffix(code, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence)
	b.WriteByte('\n')
	return b.String()
}

// Plain returns the Markdown source md made safe for printing as is, for
// the headless "rewind render" command. It applies the same mapping as
// [Sanitize] with two exceptions that keep ordinary documents
// byte-for-byte identical: tabs and "\r\n" line ends are kept, and there
// is no length limit.
func Plain(md string) string {
	if isPlainASCII(md) {
		return md
	}
	var b strings.Builder
	b.Grow(len(md))
	m := mapper{b: &b, plain: true}
	for i := 0; i < len(md); {
		r, size := utf8.DecodeRuneInString(md[i:])
		m.put(md, i, r, size)
		i += size
	}
	m.flushMarks()
	return b.String()
}

// sanitizeUnbounded applies the Sanitize mapping without the length limit.
func sanitizeUnbounded(s string) string {
	if isPlainASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	m := mapper{b: &b}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		m.put(s, i, r, size)
		i += size
	}
	m.flushMarks()
	return b.String()
}

// isPlainASCII reports whether s holds only printable ASCII and '\n', which
// every mapping in this package leaves unchanged.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

// mapper holds the little state the rune mapping needs: the current column
// (for tabs), the run of combining marks, and whether the previous
// character was an emoji (for ZWJ and VS16).
type mapper struct {
	b     *strings.Builder
	plain bool // keep '\t' and "\r\n" (Plain)

	col   int // display width of b[lineStart:colAt]
	colAt int // offset in b up to which col is measured

	marks  int // combining marks in the current run
	excess int // marks beyond MaxMarks not yet reported

	prev      rune // previous input rune
	lastEmoji bool // last kept character was an emoji (or emoji + VS16)
	ctxKept   bool // last output depends on the following input (kept ZWJ or keycap VS16)
}

// put maps the rune r of size bytes found at s[i:].
func (m *mapper) put(s string, i int, r rune, size int) {
	if r == utf8.RuneError && size == 1 {
		m.visible()
		m.hexByte(s[i])
		m.prev = -1
		return
	}
	next := rune(-1)
	if j := i + size; j < len(s) && s[j] != 0x1b {
		next, _ = utf8.DecodeRuneInString(s[j:])
	}
	m.mapRune(r, next)
	m.prev = r
}

// mapRune maps one valid rune r, followed in the input by next (or -1).
func (m *mapper) mapRune(r, next rune) {
	switch {
	case r == '\n':
		m.visible()
		m.b.WriteByte('\n')
		m.col, m.colAt = 0, m.b.Len()
		return
	case r == '\t':
		m.visible()
		if m.plain {
			m.b.WriteByte('\t')
			return
		}
		w := m.col + ansi.StringWidth(m.b.String()[m.colAt:])
		pad := TabWidth - w%TabWidth
		m.b.WriteString("    "[:pad])
		m.col, m.colAt = w+pad, m.b.Len()
		return
	case r == '\r' && m.plain && next == '\n':
		m.visible()
		m.b.WriteByte('\r')
		return
	case r < 0x20:
		m.visible()
		m.b.WriteRune(0x2400 + r)
		return
	case r == 0x7f:
		m.visible()
		m.b.WriteRune('␡')
		return
	case r == 0x200d: // ZWJ
		m.flushMarks()
		if m.lastEmoji && isEmoji(next) {
			m.marks = 0
			m.b.WriteRune(r)
			m.lastEmoji = false
			m.ctxKept = true
			return
		}
	case r == 0xfe0f: // VS16
		if m.lastEmoji {
			m.mark(r)
			return
		}
		if isKeycapBase(m.prev) && next == 0x20e3 {
			m.mark(r)
			m.ctxKept = true
			return
		}
	}
	if r >= 0x80 && hidden(r) {
		m.visible()
		m.codePoint(r)
		return
	}
	if r >= 0x300 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r)) {
		m.mark(r)
		return
	}
	m.visible()
	m.b.WriteRune(r)
	m.lastEmoji = isEmoji(r)
}

// visible prepares for writing a character that is not a combining mark.
func (m *mapper) visible() {
	m.flushMarks()
	m.marks = 0
	m.lastEmoji = false
	m.ctxKept = false
}

// mark writes the combining mark r, or counts it when the run is too long.
// The emoji state survives a mark only if it is VS16.
func (m *mapper) mark(r rune) {
	m.ctxKept = false
	if r != 0xfe0f {
		m.lastEmoji = false
	}
	m.marks++
	if m.marks > MaxMarks {
		m.excess++
		return
	}
	m.b.WriteRune(r)
}

// flushMarks reports the marks dropped from the current run.
func (m *mapper) flushMarks() {
	if m.excess == 0 {
		return
	}
	m.b.WriteString("⟨+")
	m.b.WriteString(strconv.Itoa(m.excess))
	m.b.WriteString(" marks⟩")
	m.excess = 0
	m.lastEmoji = false
}

const hexDigits = "0123456789abcdef"
const hexUpper = "0123456789ABCDEF"

// hexByte writes `\xNN`.
func (m *mapper) hexByte(c byte) {
	m.b.WriteString(`\x`)
	m.b.WriteByte(hexDigits[c>>4])
	m.b.WriteByte(hexDigits[c&0xf])
}

// codePoint writes "⟨U+XXXX⟩" (at least four upper-case hex digits).
func (m *mapper) codePoint(r rune) {
	var buf [8]byte
	n := len(buf)
	for v := uint32(r); v > 0 || n > len(buf)-4; v >>= 4 {
		n--
		buf[n] = hexUpper[v&0xf]
	}
	m.b.WriteString("⟨U+")
	m.b.Write(buf[n:])
	m.b.WriteString("⟩")
}

// hidden reports whether r (>= 0x80) is a C1 control, a bidi control, an
// invisible or format character, a filler, a variation selector, a tag, a
// noncharacter or a line/paragraph separator: something that must be shown
// as "⟨U+XXXX⟩". ZWJ and VS16 are hidden here; mapRune keeps them in emoji
// sequences before asking.
func hidden(r rune) bool {
	switch {
	case r <= 0x9f: // C1, including NEL U+0085
		return true
	case r == 0x00ad, r == 0x034f, r == 0x061c, r == 0x115f, r == 0x1160,
		r == 0x17b4, r == 0x17b5, r == 0x3164, r == 0xffa0:
		return true
	case r >= 0x180b && r <= 0x180f: // Mongolian FVS and vowel separator
		return true
	case r >= 0x200b && r <= 0x200f, // ZW space/joiners, LRM, RLM
		r >= 0x2028 && r <= 0x202e, // LS, PS, bidi embeddings/overrides
		r >= 0x2060 && r <= 0x206f: // WJ, invisible operators, isolates, deprecated formats
		return true
	case r >= 0xfe00 && r <= 0xfe0f, // variation selectors
		r >= 0xe0100 && r <= 0xe01ef, // variation selectors supplement
		r >= 0xe0000 && r <= 0xe007f, // tags
		r >= 0xfff9 && r <= 0xfffb,   // interlinear annotation
		r == 0xfeff:
		return true
	case r >= 0xfdd0 && r <= 0xfdef, r&0xfffe == 0xfffe: // noncharacters
		return true
	}
	return r >= 0x0600 && unicode.Is(unicode.Cf, r)
}

// isEmoji reports whether r is (approximately) an Extended_Pictographic
// character, a regional indicator or a skin-tone modifier.
func isEmoji(r rune) bool {
	switch {
	case r < 0xa9:
		return false
	case r == 0xa9, r == 0xae, r == 0x203c, r == 0x2049, r == 0x2122,
		r == 0x2139, r == 0x24c2, r == 0x2934, r == 0x2935, r == 0x3030,
		r == 0x303d, r == 0x3297, r == 0x3299:
		return true
	case r >= 0x2194 && r <= 0x21aa,
		r >= 0x2300 && r <= 0x23ff,
		r >= 0x25aa && r <= 0x25fe,
		r >= 0x2600 && r <= 0x27bf,
		r >= 0x2b00 && r <= 0x2bff,
		r >= 0x1f000 && r <= 0x1faff:
		return true
	}
	return false
}

// isKeycapBase reports whether r can start a keycap sequence (r VS16 U+20E3).
func isKeycapBase(r rune) bool {
	return r == '#' || r == '*' || (r >= '0' && r <= '9')
}
