package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/internal/scalartest"
	"github.com/rewind-tui/rewind/model"
)

// mixedJournal is a journal of 20,000 lines that starts with a BOM and a
// CRLF and holds bad lines, blank lines, lines longer than a read block and
// a torn last line.
func mixedJournal() []byte {
	var b bytes.Buffer
	b.WriteString("\ufeff{\"type\":\"a\",\"seq\":1}\r\n")
	for i := range 20000 {
		switch i % 97 {
		case 3:
			b.WriteString("not json\n")
		case 5:
			b.WriteString("\n")
		case 7:
			b.WriteString(`{"type":"long","text":"` + strings.Repeat("x", 70000) + "\"}\n")
		default:
			b.WriteString(`{"type":"t","seq":` + model.Itoa(int64(i)) + `,"text":"line ` + model.Itoa(int64(i)) + "\"}\n")
		}
	}
	b.WriteString(`{"type":"torn"`)
	return b.Bytes()
}

type seen struct {
	Pos, Line int
	Off       int64
	Raw       string
}

func collect(t *testing.T, j *Journal, from int) []seen {
	t.Helper()
	var out []seen
	if err := j.Each(from, 1<<30, func(ev model.Event) error {
		out = append(out, seen{ev.Pos, ev.Line, ev.Off, string(ev.Raw)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// openWritten writes data (nil: an empty file) to path and opens it as a
// journal, closed when the test ends.
func openWritten(t *testing.T, path string, data []byte) *Journal {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// UpdateEach (what rewind state folds from while it indexes) hands over
// exactly the events Each reads back afterwards: same positions, lines,
// offsets and bytes, bad lines skipped, across read blocks, in the steps
// of a growing file and for a JSON-array journal.
func TestUpdateEachGivesWhatEachReads(t *testing.T) {
	data := mixedJournal()
	dir := t.TempDir()
	path := filepath.Join(dir, "j.jsonl")
	for _, steps := range [][]int{{len(data)}, {1000, 5 << 20, len(data)}} {
		j := openWritten(t, path, nil)
		var got, prepared []seen
		for _, size := range steps {
			if err := os.WriteFile(path, data[:size], 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := j.UpdateEach(int64(size), func(ev model.Event) error {
				got = append(got, seen{ev.Pos, ev.Line, ev.Off, string(ev.Raw)})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		// The same steps again, through UpdateEachPrepared, on a journal
		// of its own: each event comes with its line as prepare read it.
		jp := openWritten(t, path, nil)
		blocks := 0
		for _, size := range steps {
			if err := os.WriteFile(path, data[:size], 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := jp.UpdateEachPrepared(int64(size), func(lines [][]byte, prev any) any {
				p, _ := prev.(*[]string)
				if p == nil {
					p = new([]string)
				}
				*p = (*p)[:0]
				for _, l := range lines {
					*p = append(*p, string(l))
				}
				return p
			}, func(ev model.Event, p any, i int) error {
				if i == 0 {
					blocks++
				}
				if lines := *p.(*[]string); i >= len(lines) || lines[i] != string(ev.Raw) {
					// fn runs on the index's committing goroutine: no t.Fatal.
					return fmt.Errorf("event %d is line %d of its block, which prepare did not read as %.80q", ev.Pos, i, ev.Raw)
				}
				prepared = append(prepared, seen{ev.Pos, ev.Line, ev.Off, string(ev.Raw)})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if blocks < 3 {
			t.Fatalf("steps %v: prepare read %d blocks, want several", steps, blocks)
		}
		want := collect(t, j, 1)
		if len(want) < 19000 || len(got) != len(want) {
			t.Fatalf("steps %v: UpdateEach gave %d events, Each %d", steps, len(got), len(want))
		}
		if len(prepared) != len(want) {
			t.Fatalf("steps %v: UpdateEachPrepared gave %d events, Each %d", steps, len(prepared), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("steps %v: event %d: UpdateEach %+v, Each %+v", steps, i+1, clipSeen(got[i]), clipSeen(want[i]))
			}
			if prepared[i] != want[i] {
				t.Fatalf("steps %v: event %d: UpdateEachPrepared %+v, Each %+v", steps, i+1, clipSeen(prepared[i]), clipSeen(want[i]))
			}
		}
	}

	arr := filepath.Join(dir, "a.json")
	if err := os.WriteFile(arr, []byte(`[{"type":"a","seq":1},{"type":"b","seq":2}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := OpenPrefix(arr, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	n := 0
	if _, err := j.UpdateEach(j.Size(), func(model.Event) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, events := j.Index.Counts(); events != 2 || n != 0 {
		t.Fatalf("array journal: %d events indexed, %d handed again after a whole read; want 2 and 0", events, n)
	}
	// An array journal that appears in a file opened empty is handed whole.
	empty := filepath.Join(dir, "later.json")
	j2 := openWritten(t, empty, nil)
	body := []byte(`[{"type":"a","seq":1},{"type":"b","seq":2}]`)
	if err := os.WriteFile(empty, body, 0o644); err != nil {
		t.Fatal(err)
	}
	var types []string
	if _, err := j2.UpdateEach(int64(len(body)), func(ev model.Event) error {
		types = append(types, string(ev.Raw))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(types) != 2 || !strings.Contains(types[1], `"b"`) {
		t.Fatalf("array journal handed %q", types)
	}
}

func clipSeen(s seen) seen {
	if len(s.Raw) > 80 {
		s.Raw = s.Raw[:80] + "…"
	}
	return s
}

// UpdateEachPreparedEnds gives prepare, with each event's line, the ends
// of its scalars as a JSON tokenizer finds them (or none), and a layout
// that every line with the same one shares, on both workers and across
// blocks, among bad lines, long lines and lines with whitespace; and most
// lines of a generated journal come with them.
func TestUpdateEachPreparedEndsAreTheScalars(t *testing.T) {
	var b bytes.Buffer
	if err := demo.Generate(&b, "deltamind", 30000, 9); err != nil {
		t.Fatal(err)
	}
	gen := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
	var data bytes.Buffer
	for i, l := range gen {
		switch i % 101 {
		case 3:
			data.WriteString("not json\n")
		case 5:
			data.WriteString(" " + string(l) + " \r\n")
		case 7:
			data.WriteString(`{"type":"long","text":"` + strings.Repeat("x", 70000) + "\"}\n")
		case 9:
			data.WriteString(string(l[:len(l)-1]) + ",}\n") // invalid
		case 11:
			data.WriteString(strings.Replace(string(l), `":"`, `": "`, 1) + "\n") // a layout of its own
		}
		data.Write(l)
		data.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "provenance.jsonl")
	j := openWritten(t, path, nil) // empty: UpdateEachPreparedEnds reads it all
	if err := os.WriteFile(path, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	type line struct {
		raw string
		sc  model.LineScalars
	}
	lines, withEnds := 0, 0
	layouts := map[any]string{} // each layout's line with its scalars cut out
	if _, err := j.UpdateEachPreparedEnds(int64(data.Len()), func(raw [][]byte, sc []model.LineScalars, prev any) any {
		if len(sc) != len(raw) {
			panic(fmt.Sprintf("%d lines, %d scalars", len(raw), len(sc)))
		}
		p := make([]line, len(raw))
		for i := range raw {
			p[i] = line{string(raw[i]), model.LineScalars{Layout: sc[i].Layout, Ends: slices.Clone(sc[i].Ends)}}
		}
		return p
	}, func(ev model.Event, p any, i int) error {
		l := p.([]line)[i]
		if l.raw != string(ev.Raw) {
			return fmt.Errorf("event %d: prepare got line %.60q", ev.Pos, l.raw)
		}
		lines++
		if l.sc.Layout == nil {
			if l.sc.Ends != nil {
				return fmt.Errorf("event %d: ends without a layout", ev.Pos)
			}
			return nil
		}
		withEnds++
		starts, ends, err := scalartest.Bounds(ev.Raw)
		if err != nil || !slices.Equal(l.sc.Ends, ends) {
			return fmt.Errorf("event %d: ends %v, the tokenizer's %v (%v): %.80q", ev.Pos, l.sc.Ends, ends, err, ev.Raw)
		}
		cut := scalartest.Cut(ev.Raw, starts, ends)
		if was, ok := layouts[l.sc.Layout]; ok && was != cut {
			return fmt.Errorf("event %d: the layout of\n%s\nis also that of\n%s", ev.Pos, cut, was)
		}
		layouts[l.sc.Layout] = cut
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if lines < len(gen) || withEnds < lines*9/10 || len(layouts) < 5 {
		t.Fatalf("%d events (%d generated lines), %d of them with their scalars' ends, %d layouts", lines, len(gen), withEnds, len(layouts))
	}
}

// After DropRecords, UpdateEach hands over the same events (positions,
// lines, offsets, bytes) as an index that keeps its records, and Counts
// and Consumed are the same; Records holds only the records kept before,
// whole, and Each refuses the events past them instead of reading
// nothing; Reset keeps records again.
func TestDropRecordsCountsWhatItFolds(t *testing.T) {
	data := mixedJournal()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	kept := openWritten(t, path, data)
	want := collect(t, kept, 1)
	const prefix = 64 << 10
	j, err := OpenPrefix(path, 0, prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	before := j.Index.Records()
	got := collect(t, j, 1)
	j.Index.DropRecords()
	if _, err := j.UpdateEach(int64(len(data)), func(ev model.Event) error {
		got = append(got, seen{ev.Pos, ev.Line, ev.Off, string(ev.Raw)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("with the records dropped, UpdateEach gave %d events, the kept index %d, or other ones", len(got), len(want))
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"Counts", fmt.Sprint(j.Index.Counts()), fmt.Sprint(kept.Index.Counts())},
		{"Consumed", j.Index.Consumed(), kept.Index.Consumed()},
		{"records kept", all(j.Index.Records()), all(before)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	if rs := j.Index.Records(); rs.Len() == 0 || rs.Len() >= kept.Index.Records().Len()/10 {
		t.Errorf("%d records kept of %d: the prefix's are wanted", rs.Len(), kept.Index.Records().Len())
	}
	n := 0
	if err := j.Each(1, j.Index.Records().Events(), func(model.Event) error { n++; return nil }); err != nil || n != j.Index.Records().Events() {
		t.Errorf("Each of the kept events: %v, %d events, want %d", err, n, j.Index.Records().Events())
	}
	called := 0
	if err := j.Each(1, len(want), func(model.Event) error { called++; return nil }); err == nil || called > 0 {
		t.Errorf("Each of events whose records were dropped: %v, %d events", err, called)
	}
	j.Index.Reset()
	if _, err := j.UpdateTo(int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, j, 1); !slices.Equal(got, want) {
		t.Errorf("after Reset, Each gives %d events, want %d", len(got), len(want))
	}
}
