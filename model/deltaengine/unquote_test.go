package deltaengine

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/rawjson"
)

// unquote must decode exactly as rawjson.Unquote (JSON.parse's rules).
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{
		`""`, `"plain"`, `"a\nb\tc\"d\\e\/f\bg\fh\ri"`, `"\u00e9\u00E9 é"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`,
		`"\ud800\u0041"`, `"\ud800\ud800\udc00"`, `"\ud800\\"`, `"\udbff\udfff"`, `"\u0000"`, `"\x"`, `"\u12"`, `"\u12g4"`,
		`"` + "\xff" + `\n"`, `"a\"`, `"\"`, `"x`, `"\ud800\u"`, `"\ud800\udc0"`, "\"\t\\n\"", "\"\t\"", "\"a\"b\"", "\"\xff\t\"", "\"\xff\\n\"", `"\/"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		got, gotOK := unquote(v)
		want, wantOK := rawjson.Unquote(v)
		if got != want || gotOK != wantOK {
			t.Errorf("unquote(%s) = %s, %v; rawjson.Unquote gives %s, %v", v, strconv.Quote(got), gotOK, strconv.Quote(want), wantOK)
		}
		// The stream view writes a THOUGHT's content as null when it
		// decodes to "", which it tells without decoding.
		if empty := str(v) == ""; len(v) > 0 && v[0] == '"' && decodesEmpty(v) != empty {
			t.Errorf("decodesEmpty(%s) = %v, want %v", v, !empty, empty)
		}
	})
}

// skipString must end a string where rawjson.SkipString does, whatever
// the bytes (it stands in for it in the fold's walk).
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{
		`""`, `"a"`, `"a\"b"`, `"a\\"b"`, `"a\\\"b"`, `"\`, `"abc\"`, `"` + strings.Repeat(`x\"y\\`, 30) + `"tail`,
		`"` + strings.Repeat("a", 70) + `\\\"` + strings.Repeat("b", 10) + `"`, `"\u0022"`, `x`, ``,
	} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		if got, want := skipString(b, i), rawjson.SkipString(b, i); got != want {
			t.Fatalf("skipString(%q, %d) = %d, want %d", b, i, got, want)
		}
	})
}

// strictLiteral, 64 bytes at a time, judges a literal's contents as
// strictEscapes does one escape at a time.
func FuzzStrictLiteral(f *testing.F) {
	for _, s := range []string{``, `a`, `a\"b`, `\ud800`, `\ud83d\ude00`, `\u12`, `\x`, `"`, "\x01", `\`,
		strings.Repeat(`ab\n\"`, 30) + `\uDFFF` + strings.Repeat("é", 40), strings.Repeat("x", 63) + `\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if got, want := strictLiteral(s), strictEscapes(s); got != want {
			t.Fatalf("strictLiteral(%q) = %v, strictEscapes %v", s, got, want)
		}
	})
}
