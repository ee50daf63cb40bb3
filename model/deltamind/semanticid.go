package deltamind

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// stopWords and verbNormalizations are those of DeltaMind's
// extractor/semantic-id.ts.
var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "being": true,
	"to": true, "for": true, "of": true, "in": true, "on": true, "at": true, "by": true, "with": true, "from": true,
	"and": true, "or": true, "but": true, "not": true, "no": true, "so": true, "if": true, "then": true, "than": true,
	"that": true, "this": true, "it": true, "its": true, "we": true, "our": true, "they": true, "their": true,
	"will": true, "would": true, "should": true, "could": true, "can": true, "may": true, "might": true,
	"do": true, "does": true, "did": true, "has": true, "have": true, "had": true,
}

type verbRule struct {
	word string
	re   *regexp.Regexp
	repl string
}

var verbNormalizations = func() []verbRule {
	pairs := [][2]string{
		{"using", "use"}, {"building", "build"}, {"writing", "write"}, {"creating", "create"},
		{"implementing", "implement"}, {"adding", "add"}, {"running", "run"}, {"making", "make"},
		{"sending", "send"}, {"storing", "store"}, {"switching", "switch"}, {"changing", "change"},
		{"replacing", "replace"}, {"removing", "remove"}, {"updating", "update"},
	}
	out := make([]verbRule, len(pairs))
	for i, p := range pairs {
		// Go's \b, like JavaScript's without the u flag, is an ASCII word
		// boundary.
		out[i] = verbRule{p[0], regexp.MustCompile(`\b` + p[0] + `\b`), p[1]}
	}
	return out
}()

var kindPrefix = map[string]string{
	"fact": "f", "preference": "p", "goal": "g", "decision": "d", "hypothesis": "h",
	"rejected_option": "r", "open_question": "q", "task": "t", "dependency": "dep",
	"risk": "rsk", "constraint": "c", "artifact": "a",
}

// isJSSpace reports whether r is matched by JavaScript's \s.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// jsLower is String.prototype.toLowerCase: strings.ToLower plus the two
// unconditional and contextual mappings Go does not apply (U+0130 becomes
// "i\u0307"; a capital sigma at the end of a word becomes final sigma).
func jsLower(s string) string {
	if !strings.ContainsAny(s, "\u0130\u03a3") {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 0x130:
			b.WriteString("i\u0307")
		case r == 0x3a3 && i > 0 && unicode.IsLetter(rs[i-1]) && (i+1 == len(rs) || !unicode.IsLetter(rs[i+1])):
			b.WriteRune(0x3c2)
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// semanticID returns DeltaMind's semanticId for an item of kind with
// summary: the kind prefix, "-", and the FNV-1a 32-bit hash (8 hex digits) of
// the summary's canonical tokens sorted by UTF-16 code units.
func semanticID(kind, summary string) string {
	return formatSemanticID(kind, semanticHash(summary))
}

// formatSemanticID returns the semanticId of an item of kind whose
// summary hashes to h.
func formatSemanticID(kind string, h uint32) string {
	prefix, ok := kindPrefix[kind]
	if !ok {
		// kind.charAt(0): the first UTF-16 code unit.
		u := utf16.Encode([]rune(kind))
		if len(u) > 0 {
			prefix = string(utf16.Decode(u[:1]))
		}
	}
	var b [32]byte
	return string(appendSemanticID(b[:0], prefix, h))
}

// appendSemanticID appends the semanticId whose kind prefix is prefix and
// whose summary hashes to h: prefix, '-' and h as eight hex digits.
func appendSemanticID(b []byte, prefix string, h uint32) []byte {
	b = append(append(b, prefix...), '-')
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, "0123456789abcdef"[h>>shift&0xf])
	}
	return b
}

// sidPrefixes are the semanticId prefixes of itemKinds, by index.
var sidPrefixes = func() (p [len(itemKinds)]string) {
	for i, k := range itemKinds {
		p[i] = kindPrefix[k]
	}
	return p
}()

// semanticHash returns the hash part of a semanticId for summary.
func semanticHash(summary string) uint32 {
	if h, ok := quickHash(summary); ok {
		return h
	}
	return unicodeHash(summary)
}

// unicodeHash is semanticHash for any summary, as semantic-id.ts computes
// it.
func unicodeHash(summary string) uint32 {
	s := jsLower(summary)
	for _, v := range verbNormalizations {
		if strings.Contains(s, v.word) { // the regexp only where it can match
			s = v.re.ReplaceAllString(s, v.repl)
		}
	}
	var tokens [][]uint16
	for _, w := range strings.FieldsFunc(s, isJSSpace) {
		if !stopWords[w] {
			tokens = append(tokens, utf16.Encode([]rune(w)))
		}
	}
	slices.SortStableFunc(tokens, slices.Compare[[]uint16])
	h := uint32(0x811c9dc5)
	for i, t := range tokens {
		if i > 0 {
			h ^= ' '
			h *= 0x01000193
		}
		for _, c := range t {
			h ^= uint32(c)
			h *= 0x01000193
		}
	}
	return h
}

// quickHash is semanticHash, without regular expressions or allocations,
// for most summaries: those whose characters are printable ASCII, the
// ASCII whitespace JavaScript's \s matches, or other characters of the
// Basic Multilingual Plane that lowering leaves as they are and that are
// not whitespace (é, —, →, “). Then lowering changes only ASCII letters,
// the order of UTF-8 bytes is that of UTF-16 code units, and \b is the edge
// of a run of [0-9A-Za-z_] (Go's and JavaScript's without the u flag), so
// that each verbNormalizations rule replaces the runs that are its whole
// word (no replacement makes a word another rule replaces, so their order
// does not matter). It reports false for other summaries, and for those
// longer than maxQuickHash bytes or with more than maxQuickTokens words.
func quickHash(summary string) (uint32, bool) {
	if len(summary) > maxQuickHash {
		return 0, false
	}
	var buf [maxQuickHash]byte
	s := buf[:0]
	for i := 0; i < len(summary); {
		c := summary[i]
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(summary[i:])
			if r == utf8.RuneError || r > 0xffff || unicode.ToLower(r) != r || r == 0x3c3 || isJSSpace(r) {
				return 0, false // not kept as it is, or whitespace
			}
			s = append(s, summary[i:i+n]...)
			i += n
			continue
		}
		if c < ' ' && !isASCIISpace(c) || c == 0x7f {
			return 0, false
		}
		if !isWordByte(c) {
			s = append(s, c)
			i++
			continue
		}
		j := i
		for j < len(summary) && isWordByte(summary[j]) {
			j++
		}
		start := len(s)
		for _, c := range []byte(summary[i:j]) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			s = append(s, c)
		}
		if w := s[start:]; len(w) > 4 && string(w[len(w)-3:]) == "ing" {
			if repl, ok := verbBase[string(w)]; ok {
				s = append(s[:start], repl...)
			}
		}
		i = j
	}
	var tokens [maxQuickTokens][]byte
	n := 0
	for i := 0; i < len(s); {
		for i < len(s) && isASCIISpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isASCIISpace(s[j]) {
			j++
		}
		if j > i && !stopWords[string(s[i:j])] {
			if n == maxQuickTokens {
				return 0, false
			}
			// Insertion sort: a summary has a few words.
			k := n
			for k > 0 && bytes.Compare(tokens[k-1], s[i:j]) > 0 {
				tokens[k] = tokens[k-1]
				k--
			}
			tokens[k] = s[i:j]
			n++
		}
		i = j
	}
	h := uint32(0x811c9dc5)
	for i, t := range tokens[:n] {
		if i > 0 {
			h ^= ' '
			h *= 0x01000193
		}
		for j := 0; j < len(t); {
			c := rune(t[j])
			if c < 0x80 {
				j++
			} else {
				var n int
				c, n = utf8.DecodeRune(t[j:])
				j += n
			}
			h ^= uint32(c) // one UTF-16 code unit
			h *= 0x01000193
		}
	}
	return h, true
}

// verbBase maps the words of verbNormalizations to their replacements.
var verbBase = func() map[string]string {
	m := map[string]string{}
	for _, v := range verbNormalizations {
		m[v.word] = v.repl
	}
	return m
}()

const (
	maxQuickHash   = 512 // longest summary quickHash hashes, in bytes
	maxQuickTokens = 64
)

// isASCIISpace reports whether c is an ASCII byte JavaScript's \s matches.
func isASCIISpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// isWordByte reports whether c is a \w character.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
