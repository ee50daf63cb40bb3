package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rewind-tui/rewind/internal/hostile"
)

// checkSafe reports everything in out that must never reach a terminal.
// If allowSGR is set, SGR sequences are skipped; every other ESC is a
// violation.
func checkSafe(t *testing.T, out string, allowSGR bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("output is not valid UTF-8: %q", clip(out))
	}
	for i := 0; i < len(out); {
		if out[i] == 0x1b {
			if n := sgrLen(out[i:]); allowSGR && n > 0 {
				i += n
				continue
			}
			t.Errorf("ESC at %d: %q", i, clip(out[i:]))
			return
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		if bad, what := forbidden(r); bad {
			t.Errorf("%s U+%04X at %d: %q", what, r, i, clip(out[max(0, i-20):]))
			return
		}
		i += size
	}
}

// forbidden reports whether r may not appear in safe output.
func forbidden(r rune) (bool, string) {
	switch {
	case r < 0x20 && r != '\n', r == 0x7f:
		return true, "C0/DEL"
	case r >= 0x80 && r <= 0x9f:
		return true, "C1"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c:
		return true, "bidi"
	case r >= 0xe0000 && r <= 0xe007f:
		return true, "tag"
	case r == 0x200b, r == 0x200c, r == 0xfeff, r == 0x2028, r == 0x2029,
		r >= 0x2060 && r <= 0x2064, r == 0x00ad, r == 0x3164, r == 0x115f, r == 0x1160:
		return true, "invisible"
	}
	return false, ""
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func TestSanitizeHostilePayloads(t *testing.T) {
	for _, p := range hostile.All() {
		t.Run(p.Name, func(t *testing.T) {
			out := Sanitize(p.Value)
			checkSafe(t, out, false)
			if strings.TrimSpace(out) == "" {
				t.Errorf("Sanitize(%q) shows nothing: %q", clip(p.Value), out)
			}
			if again := Sanitize(out); again != out {
				t.Errorf("not idempotent:\n once  %q\n twice %q", clip(out), clip(again))
			}
			if len(out) > MaxBytes {
				t.Errorf("len = %d > MaxBytes", len(out))
			}
			line := Line(p.Value)
			checkSafe(t, line, false)
			if strings.Contains(line, "\n") {
				t.Errorf("Line contains a newline: %q", clip(line))
			}
		})
	}
}

func TestSanitizeExamples(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain text\nnext line", "plain text\nnext line"},
		{"rejected\x1b[1A\x1b[2K\rAPPROVED", "rejected␛[1A␛[2K␍APPROVED"},
		{"\x1b[32m✓ approved\x1b[0m", "␛[32m✓ approved␛[0m"},
		{"a\tb", "a   b"},
		{"a\tb\t\tc", "a   b       c"},
		{"x\n\ty", "x\n    y"},
		{"漢\tb", "漢  b"}, // wide character counts two columns
		{"\xff\xfe", `\xff\xfe`},
		{"\xed\xa0\x80", `\xed\xa0\x80`},
		{"a\x00b\ac\x7fd", "a␀b␇c␡d"},
		{"rm -rf ~\b\bls", "rm -rf ~␈␈ls"},
		{"\u009b31mC1", "⟨U+009B⟩31mC1"},
		{"a\u0085b\u2028c\u2029d", "a⟨U+0085⟩b⟨U+2028⟩c⟨U+2029⟩d"},
		{"approve\u202eevorppa", "approve⟨U+202E⟩evorppa"},
		{"ap\u200bpr\u200co\u200dv", "ap⟨U+200B⟩pr⟨U+200C⟩o⟨U+200D⟩v"},
		{"hi\U000e0069", "hi⟨U+E0069⟩"},
		{"a\ufe0f\U000e0100", "a⟨U+FE0F⟩⟨U+E0100⟩"},
		{"\u3164\u115f\u1160", "⟨U+3164⟩⟨U+115F⟩⟨U+1160⟩"},
		{"\ufeff\u00ad\uffff", "⟨U+FEFF⟩⟨U+00AD⟩⟨U+FFFF⟩"},
		{"\u0430pprove", "\u0430pprove"}, // homoglyphs cannot be sanitized
		{"👨\u200d👩\u200d👧|", "👨\u200d👩\u200d👧|"},
		{"🏳\ufe0f\u200d🌈", "🏳\ufe0f\u200d🌈"},
		{"❤\ufe0f", "❤\ufe0f"},
		{"1\ufe0f\u20e3", "1\ufe0f\u20e3"},
		{"👨\u200d", "👨⟨U+200D⟩"},
		{"e\u0301", "e\u0301"},
		{"a" + strings.Repeat("\u0301", 6) + "b", "a" + strings.Repeat("\u0301", 4) + "⟨+2 marks⟩b"},
		{"&#27;", "&#27;"},
		{"\U0001F600 ok", "\U0001F600 ok"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSanitizeLengthCap(t *testing.T) {
	in := strings.Repeat("x", MaxBytes+1000)
	out := Sanitize(in)
	if len(out) > MaxBytes {
		t.Fatalf("len = %d > %d", len(out), MaxBytes)
	}
	if !strings.HasSuffix(out, " more bytes") || !strings.Contains(out, "… ") {
		t.Fatalf("no truncation notice: %q", out[len(out)-40:])
	}
	if Sanitize(out) != out {
		t.Error("truncated output is not a fixed point")
	}
	// The count is of input bytes not shown.
	shown := strings.Count(out, "x")
	if want := "… " + itoa(len(in)-shown) + " more bytes"; !strings.HasSuffix(out, want) {
		t.Errorf("suffix = %q, want %q", out[len(out)-30:], want)
	}

	// Expanding escapes may push a short input over the cap.
	esc := strings.Repeat("\x1b", MaxBytes/2)
	out = Sanitize(esc)
	if len(out) > MaxBytes || !strings.HasSuffix(out, " more bytes") {
		t.Errorf("ESC flood: len %d, tail %q", len(out), out[len(out)-30:])
	}
	checkSafe(t, out, false)

	// Exactly MaxBytes of text is not cut.
	exact := strings.Repeat("y", MaxBytes)
	if Sanitize("\u00e9"+exact[2:]) != "\u00e9"+exact[2:] {
		t.Error("MaxBytes of text was changed")
	}

	// Never cut inside an emoji ZWJ sequence.
	fam := strings.Repeat("👨\u200d👩\u200d👧 ", MaxBytes/10)
	out = Sanitize(fam)
	if Sanitize(out) != out {
		t.Error("cut emoji sequence is not a fixed point")
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

func TestLine(t *testing.T) {
	if got, want := Line("one\ntwo\r\nthree"), "one⏎two␍⏎three"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

func TestEscapeMarkdownAndText(t *testing.T) {
	if got, want := EscapeMarkdown("a & b &#27; *c*"), "a &amp; b &amp;#27; *c*"; got != want {
		t.Errorf("EscapeMarkdown = %q, want %q", got, want)
	}
	if got, want := Text("&#27;\x1b[31m"), "&amp;#27;␛[31m"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestCodeBlock(t *testing.T) {
	got := CodeBlock("go lang`", "x := \"```\"\n\x1b[2J")
	want := "````golang\nx := \"```\"\n␛[2J\n````\n"
	if got != want {
		t.Errorf("CodeBlock = %q, want %q", got, want)
	}
	if got := CodeBlock("", ""); got != "```\n```\n" {
		t.Errorf("empty CodeBlock = %q", got)
	}
}

func TestPlain(t *testing.T) {
	doc := "# Title\n\n\tcode with tab\r\n- item 👍 & more\n\n| a | b |\n"
	if got := Plain(doc); got != doc {
		t.Errorf("Plain changed a normal document:\n got %q\nwant %q", got, doc)
	}
	big := strings.Repeat("é", MaxBytes)
	if Plain(big) != big {
		t.Error("Plain cut a long document")
	}
	got := Plain("ok\x1b]0;title\a\rX\u202e")
	if want := "ok␛]0;title␇␍X⟨U+202E⟩"; got != want {
		t.Errorf("Plain = %q, want %q", got, want)
	}
	for _, p := range hostile.Payloads {
		out := Plain(p.Value)
		// Plain keeps '\t' and the CR of "\r\n" and nothing else.
		checkSafe(t, strings.NewReplacer("\t", "", "\r\n", "\n").Replace(out), false)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		checkSafe(t, out, false)
		if s != "" && out == "" {
			t.Fatalf("Sanitize(%q) is empty", s)
		}
		if len(out) > MaxBytes {
			t.Fatalf("len = %d", len(out))
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent for %q:\n once  %q\n twice %q", s, out, again)
		}
		if strings.Contains(Line(s), "\n") {
			t.Fatal("Line contains a newline")
		}
	})
}

func BenchmarkSanitize(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 4096 {
		sb.WriteString("plain ASCII text, ")
		sb.WriteString("\x1b[31mred\x1b[0m\r\n\t")
		sb.WriteString("日本語テキスト 👨\u200d👩\u200d👧 e\u0301 ")
		sb.WriteString("\u202e\u200b\xff")
	}
	s := sb.String()[:4096]
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Sanitize(s)
	}
}

// fuzzSeeds returns the 66 hostile payloads as fuzz seeds, with the two
// very long ones (#40, #53) shortened so the fuzzer mutates small inputs;
// the full ones are covered by the table tests.
func fuzzSeeds() []string {
	var seeds []string
	for _, p := range hostile.Payloads {
		v := p.Value
		switch p.N {
		case 40:
			v = "\x1b[" + strings.Repeat("9", 100) + "m"
		case 53:
			v = "a" + strings.Repeat("\u0301", 10)
		}
		seeds = append(seeds, v)
	}
	return seeds
}
