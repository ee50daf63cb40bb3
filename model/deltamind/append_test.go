package deltamind

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-tui/rewind/internal/journaltest"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// The items StreamView's Parts give write, at any depth, the bytes an
// indenting writer writes for View's items (json.Indent by two spaces of
// the marshalled item, made terminal-safe): on the fixtures (hostile
// strings in every member, sourceTurn offsets, tags) and a generated
// journal; and a part gives Appenders, not objects, for items without
// offsets.
func TestItemTextIsTheIndentedItem(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.jsonl")
	appenders, entries := 0, map[string]int{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := foldJournal(t, journaltest.Open(t, "provenance.jsonl", data))
		appenders += checkItemText(t, p, s)
		for _, list := range []string{"rejected", "disagreements"} {
			entries[list] += checkListText(t, p+" "+list, s, list)
		}
	}
	if appenders < 8 {
		t.Fatalf("the fixtures gave %d appenders: the hostile items were not written by itemText", appenders)
	}
	for list, n := range entries {
		if n < 3 {
			t.Errorf("the fixtures gave %d %s appenders: their hostile entries were not written by entryText", n, list)
		}
	}
	gen := foldGenerated(t, 3000, 5)
	checkItemText(t, "generated", gen)
	if n := checkListText(t, "generated rejected", gen, "rejected"); n < 20 {
		t.Errorf("the generated journal gave %d rejected appenders", n)
	}
	defer func(w int) { partWin = w }(partWin)
	partWin = firstWin // windows of 64 KiB, reused
	checkItemText(t, "generated, small windows", foldGenerated(t, 3000, 5))
}

// foldJournal is the state after every event of j.
func foldJournal(t testing.TB, j interface {
	Each(from, to int, fn func(model.Event) error) error
}) model.State {
	t.Helper()
	s := Format.Init()
	if err := j.Each(1, 1<<30, func(ev model.Event) error { s = Format.Apply(s, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkItemText compares the items of s's StreamView parts with View's,
// and returns how many were Appenders.
func checkItemText(t *testing.T, name string, s model.State) int {
	t.Helper()
	return checkListText(t, name, s, "items")
}

// checkListText compares the entries of list (items, rejected or
// disagreements) of s's StreamView parts with View's, and returns how many
// were Appenders: all but the items with sourceTurn offsets and the
// entries whose seq is not an integer.
func checkListText(t *testing.T, name string, s model.State, list string) int {
	t.Helper()
	v, _ := s.View().Get(list)
	want := v.([]any)
	lazy, _ := Format.(model.StreamViews).StreamView(s).Get(list)
	i, appenders := 0, 0
	lazy.(model.Lazy).Parts(func(part func(func(any) bool)) bool {
		part(func(o any) bool {
			if i >= len(want) {
				t.Fatalf("%s: the parts give more items than View's %d", name, len(want))
			}
			for _, depth := range []int{0, 2, 9} { // 9: past itemLitsByDepth
				var got []byte
				if a, ok := o.(model.Appender); ok {
					got = a.AppendIndented([]byte("prefix"), depth, safeStrings)[len("prefix"):]
				} else {
					got = indented(t, o, depth)
				}
				if w := indented(t, want[i], depth); !bytes.Equal(got, w) {
					t.Fatalf("%s: item %d at depth %d written as\n%s\nView's item as\n%s", name, i, depth, got, w)
				}
			}
			if _, ok := o.(model.Appender); ok {
				appenders++
			} else if list == "items" {
				if it, _ := o.(model.Object).Get("sourceTurns"); !strings.Contains(string(indented(t, it, 0)), `"offset"`) {
					t.Errorf("%s: item %d, without sourceTurn offsets, is not an Appender", name, i)
				}
			} else if seq, _ := o.(model.Object).Get("seq"); reflect.TypeOf(seq) == reflect.TypeFor[int64]() {
				t.Errorf("%s: %s %d, of seq %d, is not an Appender", name, list, i, seq)
			}
			i++
			return true
		})
		return true
	})
	if i != len(want) {
		t.Fatalf("%s: the parts give %d items, View %d", name, i, len(want))
	}
	return appenders
}

// safeStrings are rewind state's string writers, as its Appenders get
// them.
var safeStrings = model.Strings{String: render.AppendJSONString, Literal: render.AppendJSONLiteral}

// indented is v marshalled, indented by two spaces from depth, and made
// terminal-safe, as rewind state writes a value at that depth.
func indented(t *testing.T, v any, depth int) []byte {
	t.Helper()
	raw, err := model.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, strings.Repeat("  ", depth), "  "); err != nil {
		t.Fatal(err)
	}
	return render.SafeJSON(b.Bytes())
}

// intSeq reads a seq as strconv.ParseInt does, and so seqValue: the int64
// of an integer, none for any other number (a fraction, an exponent, past
// int64).
func TestIntSeq(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-12", "123456789012345678", "-123456789012345678",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
		"12345678901234567890", "1.5", "1e3", "-1E+2", "0.0", "", "-"} {
		n, ok := intSeq([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		if ok != (err == nil) || ok && n != want {
			t.Errorf("intSeq(%q) = %d, %v; strconv.ParseInt gives %d, %v", s, n, ok, want, err)
		}
		if v, isInt := seqValue([]byte(s)).(int64); isInt != ok || ok && v != n {
			t.Errorf("seqValue(%q) = %#v, intSeq %d, %v", s, v, n, ok)
		}
	}
}
