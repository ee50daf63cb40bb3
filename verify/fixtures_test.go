package verify

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The broken journals of testdata/broken are generated here, so each bad
// byte is written down once, in Go, next to the test that expects it.
// Regenerate them with:
//
//	go test ./verify -run TestFixtures -update
var update = flag.Bool("update", false, "rewrite the fixtures in ../testdata/broken")

// brokenDir is the fixture directory, relative to this package.
const brokenDir = "../testdata/broken"

// de returns one Delta Engine journal line without its newline.
func de(seq any, ms int, typ, payload string) string {
	return fmt.Sprintf(`{"seq":%v,"timestamp":"2026-11-21T22:40:%02d.%03dZ","type":%q,"payload":%s}`, seq, ms/1000, ms%1000, typ, payload)
}

func sys(content string) string {
	return `{"level":"INFO","content":` + fmt.Sprintf("%q", content) + `}`
}

const runStart = `{"run_id":"broken","task":"verify fixtures","agent_ref":"/home/dev/agents/hello-world"}`

// ds returns one Durable Stream event line without its newline.
func ds(id string, ms int64, extra string) string {
	return `{"type":"agent.completed","stream_id":"ses_4f1c2a9b7e3d","correlation_id":"926ee8db3accf11b","actor":"orchestrator","payload":{"intent_id":"intent_1","result":"ok"}` +
		extra + `,"id":"` + id + `","timestamp":` + fmt.Sprint(ms) + `}`
}

// dm returns one DeltaMind provenance line without its newline.
func dm(seq int, ms int, id string) string {
	ts := fmt.Sprintf("2026-11-21T22:28:54.%03dZ", ms)
	return fmt.Sprintf(`{"type":"accepted","seq":%d,"timestamp":%q,"delta":{"kind":"fact_learned","timestamp":%q,"id":%q,"summary":"fact %s","confidence":"high","sourceTurns":[{"turnId":"t-1"}]},"itemId":%q,"resultingStatus":"active"}`,
		seq, ts, ts, id, id, id)
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// pretty indents a Delta Engine line as an editor would.
func pretty(line string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(line), "", "  "); err != nil {
		panic(err)
	}
	return b.String() + "\n"
}

// fixtures returns the path (relative to testdata/broken) and bytes of
// every fixture.
func fixtures() map[string]string {
	nul4k := strings.Repeat("\x00", 4096)
	arr := "[\n" + indentBy(pretty(de(1, 0, "RUN_START", runStart)), "  ") + ",\n" +
		indentBy(pretty(de(2, 1, "USER_MESSAGE", `{"content":"array"}`)), "  ") + ",\n" +
		indentBy(pretty(de(3, 2, "RUN_END", `{"status":"COMPLETED"}`)), "  ") + "\n]\n"
	return map[string]string{
		"malformed.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			de(2, 1, "USER_MESSAGE", `{"content":"hello"}`),
			"\x1b]0;pwned\x07{\"seq\": oops, \x1b[31m not json",
			de(3, 2, "SYSTEM_MESSAGE", sys("after the bad line")),
		),
		"not-object.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			`[1,2,3]`,
			`"just a string"`,
			`null`,
			de(2, 1, "RUN_END", `{"status":"COMPLETED"}`),
		),
		"torn-tail.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			de(2, 1, "USER_MESSAGE", `{"content":"hello"}`),
			de(3, 2, "SYSTEM_MESSAGE", sys("the writer was killed next")),
		) + `{"seq":4,"timestamp":"2026-11-21T22:40:00.003Z","type":"THOU`,
		"nul.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			nul4k+de(2, 1, "USER_MESSAGE", `{"content":"after a NUL run"}`),
			strings.Repeat("\x00", 16),
			de(3, 2, "RUN_END", `{"status":"COMPLETED"}`),
		),
		"invalid-utf8.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			de(2, 1, "USER_MESSAGE", `{"content":"caf`+"\xe9"+` au lait `+"\xff\xfe"+`"}`),
			de(3, 2, "RUN_END", `{"status":"COMPLETED"}`),
		),
		"bom-crlf.jsonl": "\xef\xbb\xbf" + strings.ReplaceAll(lines(
			de(1, 0, "RUN_START", runStart),
			de(2, 1, "USER_MESSAGE", `{"content":"windows"}`),
			de(3, 2, "RUN_END", `{"status":"COMPLETED"}`),
		), "\n", "\r\n"),
		"blank-lines.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			"",
			"   \t",
			de(2, 1, "RUN_END", `{"status":"COMPLETED"}`),
			"",
		),
		"dup-keys.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			`{"seq":2,"timestamp":"2026-11-21T22:40:00.001Z","type":"USER_MESSAGE","type":"SYSTEM_MESSAGE","payload":{"level":"INFO","content":"two types"}}`,
			de(3, 2, "RUN_END", `{"status":"COMPLETED"}`),
		),
		"case-keys.jsonl": lines(
			`{"seq":1,"SEQ":999,"timestamp":"2026-11-21T22:40:00.000Z","type":"RUN_START","payload":`+runStart+`}`,
			de(2, 1, "RUN_END", `{"status":"COMPLETED"}`),
		),
		"seq-problems.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			de(2, 1, "USER_MESSAGE", `{"content":"seq check"}`),
			de(2, 2, "SYSTEM_MESSAGE", sys("written twice")),
			de(3, 3, "SYSTEM_MESSAGE", sys("three")),
			de(7, 4, "SYSTEM_MESSAGE", sys("after a gap")),
			de(9, 5, "SYSTEM_MESSAGE", sys("nine before eight")),
			de(8, 6, "SYSTEM_MESSAGE", sys("late line")),
			de(10, 1, "SYSTEM_MESSAGE", sys("the clock went back")),
			de(11, 7, "RUN_END", `{"status":"COMPLETED"}`),
		),
		"array/journal.jsonl": arr,
		"pretty/journal.jsonl": pretty(de(1, 0, "RUN_START", runStart)) +
			pretty(de(2, 1, "RUN_END", `{"status":"COMPLETED"}`)),
		"renamed/journal.json": lines(
			de(1, 0, "RUN_START", runStart),
			de(2, 1, "RUN_END", `{"status":"COMPLETED"}`),
		),
		"renamed/metadata.json": `{
  "run_id": "broken",
  "start_time": "2026-11-21T22:40:00.000Z",
  "agent_ref": "/home/dev/agents/hello-world",
  "task": "verify fixtures",
  "status": "COMPLETED",
  "iterations_completed": 0
}`,
		"bad-version/.delta/VERSION": "2.0\n",
		"bad-version/.delta/run-1/journal.jsonl": lines(
			de(1, 0, "RUN_START", runStart),
			de(2, 1, "RUN_END", `{"status":"COMPLETED"}`),
		),
		"durable/durable_stream.jsonl": lines(
			ds("0mwqzcqy6_516ef74a4e53aef3", 1795300146798, ""),
			ds("0mwqzcqya_cfa45ab92b08d976", 1795300146802, ""),
			`{"type":"agent.failed","stream_id":"ses_4f1c2a9b7e3d","actor":"orchestrator","payload":{"intent_id":"intent_2","error":"boom"},"id":"0mwqzcqyb_0000000000000001","timestamp":"yesterday"}`,
			ds("0mwqzcqy6_516ef74a4e53aef3", 1795300146810, ""),
			`{"type":"agent.completed","stream_id":"ses_4f1c2a9b7e3d","correlation_id":"926ee8db3accf11b","actor":7,"payload":[1],"id":"0mwqzcqyc_0000000000000002","timestamp":1795300146820}`,
			ds("0mwqzcqyd_0000000000000003", 1795300146815, ""),
		),
		"deltamind/provenance.jsonl": lines(
			dm(4, 100, "f-1"),
			dm(4, 101, "f-2"),
			dm(6, 102, "f-3"),
			dm(5, 103, "f-4"),
		),
		"deltamind/snapshot.json": `{
  "version": 2,
  "timestamp": "2026-11-21T22:28:54.200Z",
  "seq": 6,
  "items": [],
  "deltaLog": []
}
`,
	}
}

// indentBy prefixes every line of s but the empty last one.
func indentBy(s, prefix string) string {
	s = strings.TrimSuffix(s, "\n")
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// TestFixtures checks that testdata/broken holds exactly what fixtures
// generates (or writes it with -update).
func TestFixtures(t *testing.T) {
	fx := fixtures()
	names := make([]string, 0, len(fx))
	for name := range fx {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(brokenDir, filepath.FromSlash(name))
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(fx[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run go test ./verify -run TestFixtures -update)", err)
			continue
		}
		if string(got) != fx[name] {
			t.Errorf("%s differs from its generator (run go test ./verify -run TestFixtures -update)", path)
		}
	}
}
