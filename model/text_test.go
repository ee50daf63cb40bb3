package model

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTextLeavesLongStringsInTheFile(t *testing.T) {
	long := strings.Repeat("tool output line\\n", 100)
	line := []byte(`{"seq":3,"payload":{"content":"` + long + `","short":"hi"}}`)
	path := filepath.Join(t.TempDir(), "j.jsonl")
	file := append([]byte("{\"seq\":1}\n"), line...)
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ev := Event{Pos: 2, Off: 10, Raw: line, Src: f}
	i := bytes.Index(line, []byte(`"tool`))
	lit := line[i : i+len(long)+2]
	txt := TextOf(ev, lit)
	if txt.n == 0 {
		t.Fatal("a long string was decoded into memory instead of left in the file")
	}
	want := strings.Repeat("tool output line\n", 100)
	if got := txt.String(); got != want {
		t.Fatalf("read back %q", got[:40])
	}
	j := bytes.Index(line, []byte(`"hi"`))
	if s := TextOf(ev, line[j:j+4]); s.n != 0 || s.String() != "hi" {
		t.Fatalf("short string: %+v", s)
	}
	if !txt.Equal(TextOf(ev, lit)) || txt.Equal(PlainText("x")) || !TextOf(ev, lit).Equal(PlainText(want)) {
		t.Fatal("Equal disagrees with the texts")
	}
	// The file is replaced by a shorter one: the state says so, no panic.
	if err := os.Truncate(path, 20); err != nil {
		t.Fatal(err)
	}
	if got := txt.String(); !strings.Contains(got, "could not be read back") {
		t.Fatalf("after truncation: %q", got)
	}
}
