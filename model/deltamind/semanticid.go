package deltamind

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
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
	hex := strconv.FormatUint(uint64(h), 16)
	return prefix + "-" + strings.Repeat("0", 8-len(hex)) + hex
}

// semanticHash returns the hash part of a semanticId for summary.
func semanticHash(summary string) uint32 {
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
