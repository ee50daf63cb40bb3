package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// literalSeeds are JSON string literals as journals hold them, and some
// they should not: every kind of escape, the characters rewind escapes,
// surrogates alone and in pairs, invalid UTF-8 and broken literals.
var literalSeeds = []string{
	`""`, `"plain text"`, `"line\nbreak\ttab\r\b\f"`, `"quote \" back \\ slash \/ solidus"`,
	`"<script>&amp;</script>"`, `"\u003cb\u003e \u0026 \u003C \u0041\u00e9\u00E9"`,
	`"\u001b[31mred\u001b[0m \u001B \u0000\u0001\u001f\u007f \u007F"`, `"\u000a\u0009\u0022\u005c\u002f"`,
	"\"\u2028\u2029 \\u2028\\u2029\"", "\"\u202e bidi \u200b zw \ufeff \\u202e \\u202E\"", "\"\xc2\x9b C1 \\u009b\"",
	`"é ü 日本 🎉 \ud83c\udf89 \uD83C\uDF89"`, "\"\U000e0041 tag \\udb40\\udc41 \\uDB40\\uDC41\"",
	`"\ud800 lone \udc00 low \ud800\u0041 \ud800\ud800\udc00 \udbff\udfff \ud800\\"`, `"\ufffd \uFFFD �"`,
	"\"\x7f del\"", "\"bad \xff\xfe utf8\"", "\"\xed\xa0\x80 surrogate\"",
	"\"raw\ncontrol\"", `"raw " quote"`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\"`, `"`, `x`, ``, `"a`, `"\ud800\u"`,
	`"\ud800\udc0"`, `null`, `"` + strings.Repeat(`0123456789abcdef\n`, 5) + `"`,
	// Long enough for the 32-byte scan, with escapes across its edges.
	`"` + strings.Repeat(`abcdefghijklmnopqrstuvwxyz01234\n\"\\n\\\"<&>\/\u0041é`, 4) + `"`,
	`"` + strings.Repeat("x", 31) + `\n` + strings.Repeat("y", 30) + `\"` + strings.Repeat("z", 31) + `\\` + `"`,
	`"` + strings.Repeat("x", 40) + `\\"` + strings.Repeat("y", 40) + `"`,
	`"` + strings.Repeat("x", 40) + "\t\x7f\x1b\xc2\x9b\xff" + strings.Repeat("y", 40) + `\` + `"`,
}

// eachScan runs f with the scans this machine has: the AVX2 one when it
// has AVX2, and the portable one.
func eachScan(f func()) {
	defer func(had bool) { hasAVX2 = had }(hasAVX2)
	if hasAVX2 {
		f()
		hasAVX2 = false
	}
	f()
}

// AppendJSONLiteral must write what AppendJSONString writes for the
// decoded literal, for any input: a valid literal, or one the journal
// should not hold (decoded as rawjson.Unquote decodes it).
func FuzzAppendJSONLiteral(f *testing.F) {
	for _, s := range literalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		s, _ := rawjson.Unquote(lit)
		want := AppendJSONString([]byte("x"), s)
		eachScan(func() {
			if got := AppendJSONLiteral([]byte("x"), lit); string(got) != string(want) {
				t.Fatalf("AppendJSONLiteral(%q) = %q, want %q (AVX2 scan: %v)", lit, got[1:], want[1:], hasAVX2)
			}
		})
	})
}

// Literals decode to the same value through AppendJSONLiteral, and what it
// writes is terminal-safe: the escapes a terminal could act on stay
// escapes, the ones it cannot become the plain characters.
func TestAppendJSONLiteral(t *testing.T) {
	for _, c := range []struct{ lit, want string }{
		{`"plain"`, `"plain"`},
		{`"a\nb\"c\\d\/e"`, `"a\nb\"c\\d/e"`},
		{`"\u0041\u00e9 \u20ac"`, `"Aé €"`},
		{`"<&> \u003c\u0026\u003E"`, `"<&> <&>"`},
		{`"\u001B[2J\u001b"`, `"\u001b[2J\u001b"`},
		{"\"\x7f\u202e\"", `"\u007f\u202e"`},
		{`"\u202E \u2028"`, `"\u202e \u2028"`},
		{`"\ud83d\ude00 \ud800"`, `"😀 �"`},
		{`"\uDB40\uDC41"`, `"\udb40\udc41"`},
		{"\"\xff\"", `"�"`},
		{`"\q"`, `""`},
		{`nope`, `""`},
	} {
		got := string(AppendJSONLiteral(nil, []byte(c.lit)))
		if got != c.want {
			t.Errorf("AppendJSONLiteral(%s) = %s, want %s", c.lit, got, c.want)
		}
		var before, after string
		if json.Unmarshal([]byte(c.lit), &before) == nil {
			if err := json.Unmarshal([]byte(got), &after); err != nil || after != before {
				t.Errorf("AppendJSONLiteral(%s) = %s decodes to %q (%v), want %q", c.lit, got, after, err, before)
			}
		}
	}
}

// Every token, alone and after another one, at every offset around the
// 32-byte blocks of the scan: the scan must stop where a token starts and
// never split an escape (a \\ pair, an escaped quote at a block's edge).
func TestAppendJSONLiteralAtEveryOffset(t *testing.T) {
	tokens := []string{
		`\n`, `\t`, `\r`, `\b`, `\f`, `\"`, `\\`, `\/`, `\u0041`, `\u003c`, `\u001B`, `\u2028`, `\ud83d\ude00`,
		`\ud800`, `<`, `>`, `&`, "\x7f", "é", "ß\u061c", "─✓→", "\u2028", "\u200b", "\xe2\x82", "\xc3", "\U000e0041", `\\n`, `\\"`, `\\\"`, `\x`, "\x1b", "\xff", `"`, `\`,
	}
	check := func(lit string) {
		t.Helper()
		s, _ := rawjson.Unquote([]byte(lit))
		want := AppendJSONString(nil, s)
		eachScan(func() {
			if got := AppendJSONLiteral(nil, []byte(lit)); string(got) != string(want) {
				t.Fatalf("AppendJSONLiteral(%q) = %q, want %q (AVX2 scan: %v)", lit, got, want, hasAVX2)
			}
		})
	}
	fill := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 4)
	for _, a := range tokens {
		for at := range 70 {
			check(`"` + fill[:at] + a + fill[at:at+40] + `"`)
			check(`"` + fill[:at] + a + `"`)
			for _, b := range tokens {
				check(`"` + fill[:at] + a + b + fill[:35] + `"`)
			}
		}
	}
}

// toolOutput is text like a Delta Engine observation: mostly ASCII, a
// newline every line, some quotes, a few < > and non-ASCII characters.
func toolOutput() string {
	line := `  src/auth/session.ts:42:  const token = req.headers["authorization"]; // TODO: refresh`
	var b strings.Builder
	for i := range 200 {
		b.WriteString(line)
		switch i % 10 {
		case 3:
			b.WriteString(" if (a < b && c > d) {")
		case 7:
			b.WriteString(" — ✓ passed")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkAppendJSONLiteral writes tool output from its literal; compare
// with BenchmarkAppendJSONStringToolOutput, which writes it from the
// decoded string (the decoding not counted).
func BenchmarkAppendJSONLiteral(b *testing.B) {
	s := toolOutput()
	lit := nodeQuote(s)
	dst := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendJSONLiteral(dst[:0], lit)
	}
}

// nodeQuote returns s as a JSON string literal the way JSON.stringify
// writes it: < > & as they are.
func nodeQuote(s string) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}

func BenchmarkAppendJSONStringToolOutput(b *testing.B) {
	s := toolOutput()
	dst := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendJSONString(dst[:0], s)
	}
}
