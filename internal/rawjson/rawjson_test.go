package rawjson

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestGetPicksTopLevelMembersOnly(t *testing.T) {
	line := []byte(`{"payload":{"type":"inner","s":"a \"}\" b"},"type":"outer","seq":7, "ty\u0070e2":1,"type":"last"}`)
	v, ok := Get(line, "type")
	if !ok || string(v) != `"last"` {
		t.Fatalf("type = %s %v, want the last top-level \"last\"", v, ok)
	}
	if v, ok := Get(line, "seq"); !ok || string(v) != "7" {
		t.Fatalf("seq = %s %v", v, ok)
	}
	if v, ok := Get(line, "type2"); !ok || string(v) != "1" {
		t.Fatalf("escaped name not matched: %s %v", v, ok)
	}
	if _, ok := Get(line, "s"); ok {
		t.Fatal("a nested member was returned as top-level")
	}
}

func TestUnquoteFollowsJSONParse(t *testing.T) {
	for lit, want := range map[string]string{
		`"plain"`:           "plain",
		`"a\nb\u00e9"`:      "a\nbé",
		`"lone \ud800 x"`:   "lone \uFFFD x",
		"\"bad \xff utf8\"": "bad \uFFFD utf8",
	} {
		if got, ok := Unquote([]byte(lit)); !ok || got != want {
			t.Errorf("Unquote(%q) = %q %v, want %q", lit, got, ok, want)
		}
	}
	if _, ok := Unquote([]byte(`12`)); ok {
		t.Error("a number unquoted as a string")
	}
}

// FuzzMembers checks that walking any valid object finds exactly the
// members jsontext finds, with the same value bytes, and never panics on
// anything else.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[1,{"c":"}"}],"d":"\\\""}`, `{"a":{"b":{"c":[]}}, "e" : true }`, `[1]`, `{"a":`, `{"a":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got [][2]string
		walked := Members(b, func(n, v []byte) bool {
			got = append(got, [2]string{string(n), string(v)})
			return true
		})
		if !jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
			return
		}
		dec := jsontext.NewDecoder(bytesReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '{' {
			return
		}
		if !walked {
			t.Fatalf("valid object not walked: %q", b)
		}
		for i := 0; ; i++ {
			if dec.PeekKind() == '}' {
				if i != len(got) {
					t.Fatalf("walked %d members, jsontext %d: %q", len(got), i, b)
				}
				return
			}
			nameV, err := dec.ReadValue()
			if err != nil {
				t.Fatal(err)
			}
			name := string(nameV)
			val, err := dec.ReadValue()
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(got) || `"`+got[i][0]+`"` != name || got[i][1] != string(val) {
				t.Fatalf("member %d: walked %q, jsontext %s:%s in %q", i, got, name, val, b)
			}
		}
	})
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
