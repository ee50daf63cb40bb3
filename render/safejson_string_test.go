package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// AppendJSONString is what `rewind state` prints strings with; it must be
// byte for byte what json.Marshal without its HTML escaping (< > & as they
// are, as jq prints them) followed by SafeJSON printed before it.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{
		"", "plain text", "line\nbreak\ttab\r\b\f", "quote \" back \\ slash",
		"<script>&amp;</script>", "\x1b[31mred\x1b[0m", "\x00\x01\x1f\x7f",
		"\u2028\u2029", "\u202e bidi \u200b zw \ufeff", "\xc2\x9b C1", "bad \xff\xfe utf8",
		"é ü 日本 🎉", "\U000e0041 tag", "\xed\xa0\x80 surrogate",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := SafeJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		if got := AppendJSONString([]byte("x"), s); string(got[1:]) != string(want) {
			t.Fatalf("AppendJSONString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

// BenchmarkAppendJSONString escapes tool output like a Delta Engine
// observation: mostly ASCII, a newline every line, some quotes.
func BenchmarkAppendJSONString(b *testing.B) {
	line := `  src/auth/session.ts:42:  const token = req.headers["authorization"]; // TODO: refresh`
	s := strings.Repeat(line+"\n", 200)
	dst := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendJSONString(dst[:0], s)
	}
}
