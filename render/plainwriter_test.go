package render

import (
	"bytes"
	"testing"
)

// rewind render prints a long projection through PlainWriter as it is
// built: the bytes must be those of Plain over the whole document, however
// the document was cut into writes.
func FuzzPlainWriter(f *testing.F) {
	for _, s := range []string{
		"# Run\n\nplain\n", "a\r\nb\r\n", "tab\there\n\x1b[31mred\n",
		"e\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\nx\u0301",
		"\U0001F468\u200d\n\U0001F469 1\ufe0f\u20e3\n", "bad \xff\n\xc2\x9b\n\u202e\n", "no newline at all",
	} {
		f.Add(s, uint8(1), uint8(7))
	}
	f.Fuzz(func(t *testing.T, doc string, a, b uint8) {
		var out bytes.Buffer
		pw := NewPlainWriter(&out)
		// Three writes, cut at two points.
		i, j := int(a)%(len(doc)+1), int(b)%(len(doc)+1)
		if i > j {
			i, j = j, i
		}
		for _, piece := range []string{doc[:i], doc[i:j], doc[j:]} {
			if _, err := pw.Write([]byte(piece)); err != nil {
				t.Fatal(err)
			}
		}
		if err := pw.Close(); err != nil {
			t.Fatal(err)
		}
		if want := Plain(doc); out.String() != want {
			t.Fatalf("cut at %d and %d: %q, want Plain(doc) %q", i, j, out.String(), want)
		}
	})
}
