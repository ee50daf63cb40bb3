package hostile

import (
	"strings"
	"testing"
)

func TestPayloads(t *testing.T) {
	if len(Payloads) != 66 {
		t.Fatalf("len(Payloads) = %d, want 66", len(Payloads))
	}
	names := map[string]bool{}
	for i, p := range Payloads {
		if p.N != i+1 {
			t.Errorf("Payloads[%d].N = %d, want %d", i, p.N, i+1)
		}
		if p.Value == "" || p.Name == "" {
			t.Errorf("payload %d: empty name or value", p.N)
		}
		if names[p.Name] {
			t.Errorf("payload %d: duplicate name %q", p.N, p.Name)
		}
		names[p.Name] = true
	}
	if got := len(Payloads[39].Value); got != 100003 {
		t.Errorf("csi-param-dos length = %d, want 100003", got)
	}
	if got := strings.Count(Payloads[52].Value, "\u0301"); got != 5000 {
		t.Errorf("combining-flood marks = %d, want 5000", got)
	}
	if Payloads[57].Value != "\\u001b[31mliteral-not-decoded" {
		t.Errorf("json-escaped-esc-literal = %q", Payloads[57].Value)
	}
	a := All()
	a[0].Value = "changed"
	if Payloads[0].Value == "changed" {
		t.Error("All does not return a copy")
	}
}
