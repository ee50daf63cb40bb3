package query

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// stdDecode is what Event decoded with before decode: encoding/json with
// numbers as json.Number.
func stdDecode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errSyntax
	}
	// Decode stops after the first value: what follows must be space.
	if rest := bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, errSyntax
	}
	return v, nil
}

var decodeSeeds = []string{
	`{"seq":9,"type":"ACTION_RESULT","payload":{"status":"FAILED","n":3,"xs":[1,-2.5e3,true,false,null,{}],"e":[]}}`,
	` {"a":"b\"c\\d\/e\u00e9\ud83d\ude00\n\t","a":"last"} `,
	`{"bad":"\ud800 lone","inv":"` + "\xff\xfe" + `","ctl":"` + "\x01" + `"}`,
	`{"é":"ü","k":"plain ascii"}`,
	`[1,2,3]`, `"s"`, `0`, `-0.5E+2`, `01`, `1.`, `{"a":1,}`, `{"a" 1}`, `[1 2]`, `tru`, `nul`, `{`, `"\x"`, `"\u12"`,
	`{"a":1}{"b":2}`, `{"a":1} x`, ``, `   `,
}

// decode gives encoding/json's value for every JSON text, and an error
// where encoding/json has one.
func TestDecodeAsEncodingJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecode(t, []byte(s))
	}
	deep := bytes.Repeat([]byte("["), maxDepth+2)
	if _, err := decode(deep); err == nil {
		t.Error("nesting deeper than encoding/json's limit decoded")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecode)
}

func checkDecode(t *testing.T, raw []byte) {
	want, werr := stdDecode(raw)
	got, gerr := decode(raw)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: decode error %v, encoding/json error %v", raw, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", raw, got, want)
	}
}

func BenchmarkEventDecode(b *testing.B) {
	line := []byte(`{"type":"agent.spawned","stream_id":"ses_a4be7ef41797qNJrn2Jj4lR0Gm","correlation_id":"34e67de972ccdaab","actor":"orchestrator","payload":{"description":"Plan Session storage migration","agent":"chief-of-staff/planner","prompt":"Break \"Session storage migration\" into tasks and flag anything that needs human approval.","parent_session_id":"ses_a4be7ef41797qNJrn2Jj4lR0Gm","timeout_ms":600000,"id":"intent_1770015979993_2pwldy","status":"pending","created_at":1770015979993},"id":"0ml4ttazd_1a6ff4e21ac1d36a","timestamp":1770015979993}`)
	for _, c := range []struct {
		name string
		fn   func([]byte) (any, error)
	}{{"decode", decode}, {"encoding-json", stdDecode}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for i := 0; i < b.N; i++ {
				if _, err := c.fn(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMatchEvent(b *testing.B) {
	line := []byte(`{"type":"agent.spawned","stream_id":"ses_a4be7ef41797qNJrn2Jj4lR0Gm","correlation_id":"34e67de972ccdaab","actor":"orchestrator","payload":{"description":"Plan Session storage migration","agent":"chief-of-staff/planner","prompt":"Break \"Session storage migration\" into tasks and flag anything that needs human approval.","parent_session_id":"ses_a4be7ef41797qNJrn2Jj4lR0Gm","timeout_ms":600000,"id":"intent_1770015979993_2pwldy","status":"pending","created_at":1770015979993},"id":"0ml4ttazd_1a6ff4e21ac1d36a","timestamp":1770015979993}`)
	q, _ := Compile(`.type == "agent.spawned"`)
	m := q.Matcher()
	defer m.Close()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if ok, err := m.MatchEvent(line); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
