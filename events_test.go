package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/query"
)

// streamedEvent is what eachStreamed passed on for one event.
type streamedEvent struct {
	pos  int
	raw  string
	typ  string
	read int64 // the journal's bytes indexed when the event was passed on
}

// bigJournal writes a JSONL journal of about size bytes, of three event
// types, with a malformed line every 997 lines and a torn last line, and
// returns its path.
func bigJournal(t *testing.T, size int) string {
	t.Helper()
	var b strings.Builder
	pad := strings.Repeat("x", 160)
	for i := 1; b.Len() < size; i++ {
		if i%997 == 0 {
			fmt.Fprintf(&b, "{\"type\": \"step\", \"seq\": %d, broken\n", i)
			continue
		}
		fmt.Fprintf(&b, "{\"type\":%q,\"seq\":%d,\"pad\":%q}\n", []string{"plan", "step", "tool"}[i%3], i, pad)
	}
	b.WriteString(`{"type":"step","seq":`) // torn: no end, no newline
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// allEvents reads every event of path the straightforward way: the whole
// journal indexed first, then read by position.
func allEvents(t *testing.T, path string) []streamedEvent {
	t.Helper()
	s, err := app.OpenPath(path, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recs := s.J.Index.Records()
	var out []streamedEvent
	if err := s.J.Each(1, recs.Events(), func(ev model.Event) error {
		out = append(out, streamedEvent{pos: ev.Pos, raw: string(ev.Raw), typ: recs.Type(recs.EventIndex(ev.Pos))})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// streamed runs eachStreamed on path opened as rewind events opens it,
// with steps of step bytes.
func streamed(t *testing.T, path string, step int64, from, to int) ([]streamedEvent, *app.Session) {
	t.Helper()
	s, err := app.OpenPath(path, app.Options{Prefix: foldPrefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []streamedEvent
	err = eachStreamed(s, st.Size(), step, from, to, nil, func(ev model.Event, typ func() string) error {
		out = append(out, streamedEvent{pos: ev.Pos, raw: string(ev.Raw), typ: typ(), read: s.J.Index.Consumed()})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, s
}

func sameEvents(t *testing.T, what string, got, want []streamedEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i].pos != want[i].pos || got[i].raw != want[i].raw || got[i].typ != want[i].typ {
			t.Fatalf("%s: event %d is #%d %s %q, want #%d %s %q", what, i,
				got[i].pos, got[i].typ, got[i].raw, want[i].pos, want[i].typ, want[i].raw)
		}
	}
}

// rewind events prints a large journal's first events before it has read
// the rest, and the same events, types and bytes as reading it whole.
func TestEventsStreamWhileIndexing(t *testing.T) {
	path := bigJournal(t, 3*foldPrefix+12345)
	want := allEvents(t, path)
	got, s := streamed(t, path, 256<<10, 1, 0)
	sameEvents(t, "all events", got, want)
	if got[0].read > foldPrefix {
		t.Errorf("the first event came after %d bytes were indexed, want at most the %d-byte prefix", got[0].read, foldPrefix)
	}
	if last := got[len(got)-1].read; last < 3*foldPrefix {
		t.Errorf("the last event came after only %d bytes were indexed", last)
	}
	if _, evs := s.J.Index.Counts(); evs != len(want) {
		t.Errorf("the index holds %d events after streaming, want %d", evs, len(want))
	}
}

// --from and --to across the prefix and the steps; reading stops soon
// after --to.
func TestEventsStreamRange(t *testing.T) {
	path := bigJournal(t, 3*foldPrefix)
	want := allEvents(t, path)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	const step = 128 << 10
	inPrefix := 0 // the events of the prefix
	{
		s, err := app.OpenPath(path, app.Options{Prefix: foldPrefix})
		if err != nil {
			t.Fatal(err)
		}
		_, inPrefix = s.J.Index.Counts()
		s.Close()
	}
	for _, c := range []struct{ from, to int }{
		{inPrefix - 3, inPrefix + 2},      // across the prefix's end
		{inPrefix + 500, inPrefix + 2100}, // within the steps, across several
		{len(want) - 2, 0},                // the last events
		{len(want) + 5, 0},                // past the end: nothing
		{10, 5},                           // from after to: nothing
	} {
		got, s := streamed(t, path, step, c.from, c.to)
		lo, hi := max(c.from, 1), c.to
		if hi <= 0 || hi > len(want) {
			hi = len(want)
		}
		var exp []streamedEvent
		if lo <= hi {
			exp = want[lo-1 : hi]
		}
		sameEvents(t, fmt.Sprintf("--from %d --to %d", c.from, c.to), got, exp)
		if c.to > 0 && c.to < len(want) && c.from <= c.to {
			last := s.J.Index.Records().Event(c.to)
			if read := s.J.Index.Consumed(); read > last.Off+last.Len+1+step || read >= st.Size()-200 {
				t.Errorf("--to %d: %d of %d bytes indexed, want at most a step past event %d's end (%d)",
					c.to, read, st.Size(), c.to, last.Off+last.Len+1)
			}
		}
	}
}

// The command, on a journal larger than the prefix: --from, --to and
// --type over events read in steps print what reading it whole would.
func TestEventsCommandOnLargeJournal(t *testing.T) {
	path := bigJournal(t, 2*foldPrefix)
	want := allEvents(t, path)
	from, to := len(want)/2-50, len(want)/2+400
	var exp strings.Builder
	for _, ev := range want[from-1 : to] {
		if ev.typ == "tool" {
			exp.WriteString(ev.raw + "\n")
		}
	}
	out, stderr, code := runRewind(t, ".", "events", path, "--from", fmt.Sprint(from), "--to", fmt.Sprint(to), "--type", "tool")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if out != exp.String() {
		t.Fatalf("events --from %d --to %d --type tool: %d bytes, want %d:\n%.300s", from, to, len(out), exp.Len(), out)
	}
}

// --raw is refused on a terminal only: /dev/null is a character device
// but no terminal, and `rewind events --raw big.jsonl >/dev/null` (timing
// a read, say) prints the bytes there.
func TestEventsRawToDevNull(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(rewindBin(t), "events", "--raw", filepath.Join(deltaCompleted, "journal.jsonl"))
	cmd.Stdout = null
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("events --raw >/dev/null: %v: %s", err, stderr.String())
	}
}

// On a real terminal, --raw is refused with what to do instead.
func TestTmuxEventsRawRefusedOnTerminal(t *testing.T) {
	s := startTmux(t, 150, 10, "events", "--raw", filepath.Join(deltaCompleted, "journal.jsonl"))
	scr := s.waitFor("REWIND-EXITED")
	if !strings.Contains(scr, "stdout is a terminal") || !strings.Contains(scr, "REWIND-EXITED 2") {
		t.Fatalf("--raw on a terminal was not refused with exit 2:\n%s", scr)
	}
	if strings.Contains(scr, `"type"`) {
		t.Fatalf("--raw printed the journal on a terminal:\n%s", scr)
	}
}

// stateJSON is what rewind state --at pos prints for s.
func stateJSON(t *testing.T, s *app.Session, pos int) string {
	t.Helper()
	obj, err := s.R.StreamJSON(pos)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := writeJSON(&b, obj); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// rewind state --at N of a large journal reads the journal only as far as
// event N, and prints the state that reading it whole gives; past the end,
// it reads it whole and says how many events it has.
func TestStateAtReadsThroughPositionOnly(t *testing.T) {
	path := bigJournal(t, 3*foldPrefix)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := app.OpenPath(path, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	n := whole.R.Events()
	g := &globalFlags{stderr: io.Discard}
	const step = 128 << 10
	for _, at := range []int{0, 10, n / 2, n} {
		s, err := g.openThrough(path, at, step)
		if err != nil {
			t.Fatal(err)
		}
		pos, err := resolveAt(s, at)
		if err != nil {
			t.Fatalf("--at %d: %v", at, err)
		}
		if got, want := stateJSON(t, s, pos), stateJSON(t, whole, at); got != want {
			t.Errorf("--at %d: the state differs from the whole journal's:\n%.400s\nwant\n%.400s", at, got, want)
		}
		ev := whole.J.Index.Records().Event(max(at, 1))
		if read := s.J.Index.Consumed(); at < n && read > max(foldPrefix, ev.Off+ev.Len+1+step) {
			t.Errorf("--at %d: %d of %d bytes indexed, want at most a step past event %d's end (%d)", at, read, st.Size(), at, ev.Off+ev.Len+1)
		}
		s.Close()
	}
	s, err := g.openThrough(path, n+1, step)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := resolveAt(s, n+1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the journal has %d events", n)) {
		t.Errorf("--at %d, one past the end: %v, want the number of events (%d)", n+1, err, n)
	}
}

// rewind diff A B reads the journal only as far as the later position,
// and the states it compares are those of the whole journal.
func TestDiffReadsThroughLaterPositionOnly(t *testing.T) {
	path := bigJournal(t, 3*foldPrefix)
	whole, err := app.OpenPath(path, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	n := whole.R.Events()
	a, b := n/3, n/2
	const step = 128 << 10
	s, err := (&globalFlags{stderr: io.Discard}).openIndexedThrough(path, b, step)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, pos := range []int{a, b} {
		if got, want := stateJSON(t, s, pos), stateJSON(t, whole, pos); got != want {
			t.Errorf("state at %d differs from the whole journal's:\n%.400s\nwant\n%.400s", pos, got, want)
		}
	}
	ev := whole.J.Index.Records().Event(b)
	if read := s.J.Index.Consumed(); read > ev.Off+ev.Len+1+step {
		t.Errorf("%d bytes indexed, want at most a step past event %d's end (%d)", read, b, ev.Off+ev.Len+1)
	}
}

// A journal cut while rewind events reads it: the events read are
// printed, and the command says the journal shrank instead of ending as
// if it had read it all.
func TestEventsJournalCutWhileRead(t *testing.T) {
	path := bigJournal(t, 3*foldPrefix)
	s, err := app.OpenPath(path, app.Options{Prefix: foldPrefix})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := false
	printed := 0
	err = eachStreamed(s, st.Size(), 128<<10, 1, 0, nil, func(ev model.Event, _ func() string) error {
		printed++
		if !cut && ev.Off > 2*foldPrefix {
			cut = true
			if err := os.Truncate(path, foldPrefix); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "shrank") {
		t.Fatalf("after %d events, the journal cut to %d bytes: %v, want an error that says it shrank", printed, foldPrefix, err)
	}
}

// --where alone is evaluated on the index's workers: the events kept are
// those, in order, that a match of each event one after the other keeps,
// from the prefix, across steps and from a --from past the prefix.
func TestEventsWhereOnWorkers(t *testing.T) {
	// Steps of 2 MiB: more than a block, so two workers classify them.
	path := bigJournal(t, 6*foldPrefix)
	want := allEvents(t, path)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	q, err := query.Compile(`.type == "tool" and (.seq % 7 == 3)`)
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []int{1, len(want) / 2} {
		var exp []streamedEvent
		for _, ev := range want[from-1:] {
			var seq int
			fmt.Sscanf(ev.raw[strings.Index(ev.raw, `"seq":`)+6:], "%d", &seq)
			if ev.typ == "tool" && seq%7 == 3 {
				exp = append(exp, ev)
			}
		}
		s, err := app.OpenPath(path, app.Options{Prefix: foldPrefix})
		if err != nil {
			t.Fatal(err)
		}
		keep, closeAll := parallelMatch(q)
		var got []streamedEvent
		err = eachStreamed(s, st.Size(), 2<<20, from, 0, keep, func(ev model.Event, typ func() string) error {
			got = append(got, streamedEvent{pos: ev.Pos, raw: string(ev.Raw), typ: typ()})
			return nil
		})
		closeAll()
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		sameEvents(t, fmt.Sprintf("--from %d --where on the workers", from), got, exp)
	}
}
