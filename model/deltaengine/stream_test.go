package deltaengine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// argsObject reads the usual tool_args without model.FromRaw; whatever it
// accepts must be what FromRaw gives, written out byte for byte; and an
// action whose arguments they are writes itself (actionText) as rewind
// state writes its object.
func FuzzArgsObject(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {}`, `{"command":"git status --short"}`, `{"path":"a.go","line":42,"force":true,"x":null,"n":-1.5e+3}`,
		`{"a":"x\ny\"z\\\/\u0041\ud800\u001b<>&"}`, `{"a":"raw` + "\x01" + `"}`, `{"a":"bad \x"}`, `{"a":1,"a":2}`,
		`{"a\u0062":1}`, `{"a":{"b":1}}`, `{"a":[1]}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":truex}`,
		`{"a":tru}`, `{"a":1,}`, `{"a" : "b" , "c":"d"}`, `{"a":"b"} `, `[1]`, `"s"`, `{"é":"` + "\xff" + `"}`,
		"{\"\xff\":1}", `{"a":"b"`, `{"a":nul}`, `{"a":"\u00"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		got, ok := argsObject(v, nil)
		if !ok {
			return
		}
		want, err := model.FromRaw(v)
		if err != nil {
			t.Fatalf("argsObject(%q) read what FromRaw refuses: %v", v, err)
		}
		g, err1 := json.Marshal(got)
		w, err2 := json.Marshal(want)
		if err1 != nil || err2 != nil || string(g) != string(w) {
			t.Fatalf("argsObject(%q) = %s (%v), FromRaw gives %s (%v)", v, g, err1, w, err2)
		}
		a := &actionText{args: v, status: pendingLit}
		if !a.readArgs(nil) {
			t.Fatalf("argsObject reads %q, an action cannot write it (readArgs)", v)
		}
		text, _ := itemsText(t, func(y func(any) bool) { y(a) }, 1)
		obj, _ := itemsText(t, func(y func(any) bool) { y(a.object(&scratch{})) }, 1)
		if text != obj {
			t.Fatalf("an action of arguments %q writes itself as\n%s\nits object as\n%s", v, text, obj)
		}
	})
}

// checkParts checks that rewind state, which makes the parts of
// StreamView's lists at the same time, writes Each's items from them: the
// parts' items, each written as it comes (they are Transient) at two
// depths, an Appender as it writes itself, are Each's written as rewind
// state writes them, for parts of one entry and of a few events. It
// returns how many items of each list the parts gave as Appenders.
func checkParts(t *testing.T, s model.State, pos int) map[string]int {
	t.Helper()
	counts := map[string]int{}
	defer func(span int64) { partSpan = span }(partSpan)
	for _, span := range []int64{1, 2 << 10} {
		partSpan = span
		for _, f := range Format.(model.StreamViews).StreamView(s) {
			l, ok := f.Value.(model.Lazy)
			if !ok {
				continue
			}
			if l.Parts == nil || !l.Transient {
				t.Fatalf("position %d: %s is a Lazy without Parts or not Transient", pos, f.Key)
			}
			var parts []func(func(any) bool)
			l.Parts(func(part func(func(any) bool)) bool {
				parts = append(parts, part)
				return true
			})
			for _, depth := range []int{0, 3} {
				want, _ := itemsText(t, l.Each, depth)
				got := make([]string, len(parts))
				appenders := make([]int, len(parts))
				var wg sync.WaitGroup
				for i, part := range parts {
					wg.Go(func() { got[i], appenders[i] = itemsText(t, part, depth) })
				}
				wg.Wait()
				if g := strings.Join(got, ""); g != want {
					t.Fatalf("position %d: the %d parts of %s (span %d, depth %d) write\n%s\nEach's items are\n%s", pos, len(parts), f.Key, span, depth, clip(g), clip(want))
				}
				for _, n := range appenders {
					counts[f.Key] += n
				}
			}
		}
	}
	return counts
}

// itemsText writes the items each yields, each one as it comes, as rewind
// state writes an item at depth: an Appender as it writes itself (with
// rewind state's string writers), any other value marshalled, indented
// and made terminal-safe; a member with its name first. It returns how
// many were Appenders.
func itemsText(t *testing.T, each func(func(any) bool), depth int) (string, int) {
	var b []byte
	appenders := 0
	each(func(v any) bool {
		if f, ok := v.(model.Field); ok {
			b = append(append(b, f.Key...), '=')
			v = f.Value
		}
		if a, ok := v.(model.Appender); ok {
			b = a.AppendIndented(b, depth, safeStrings)
			appenders++
		} else {
			raw, err := model.Marshal(v)
			var ind bytes.Buffer
			if err == nil {
				err = json.Indent(&ind, raw, strings.Repeat("  ", depth), "  ")
			}
			if err != nil {
				t.Error(err)
				return false
			}
			b = append(b, render.SafeJSON(ind.Bytes())...)
		}
		b = append(b, '\n')
		return true
	})
	return string(b), appenders
}

// safeStrings are rewind state's string writers, as its Appenders get
// them.
var safeStrings = model.Strings{String: render.AppendJSONString, Literal: render.AppendJSONLiteral}

// itemsJSON marshals the items each yields, each one as it comes.
func itemsJSON(t *testing.T, each func(func(any) bool)) string {
	var b strings.Builder
	each(func(v any) bool {
		if f, ok := v.(model.Field); ok {
			b.WriteString(f.Key + "=")
			v = f.Value
		}
		j, err := json.Marshal(v)
		if err != nil {
			t.Error(err)
			return false
		}
		b.Write(j)
		b.WriteByte('\n')
		return true
	})
	return b.String()
}

// Each message of a conversation looked up on its own (blame's lookups; a
// state search remakes the messages an event added), found from the
// start of the log or, in the later half, from its end, is the message
// View lists at that index; an index outside the list gives nil. So is
// one found through the snapshot's list of messages, as one far from both
// ends is (scanMessages 0).
func TestMessageAtIsViewsMessage(t *testing.T) {
	for _, scan := range []int{scanMessages, 0} {
		t.Run(fmt.Sprint("scan ", scan), func(t *testing.T) {
			defer func(n int) { scanMessages = n }(scanMessages)
			scanMessages = scan
			testMessageAt(t)
		})
	}
}

func testMessageAt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gen.jsonl")
	var b bytes.Buffer
	if err := demo.Generate(&b, "delta-engine", 400, 7); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, b.Bytes())
	states := checkSameAt(t, p, func(int, model.State) bool { return false })
	for _, pos := range []int{10, 37, len(states) / 2, len(states) - 1} {
		s := states[pos]
		v, _ := format{}.StreamView(s).Get("messages")
		l, ok := v.(model.Lazy)
		if !ok {
			t.Fatalf("position %d: StreamView's messages are a %T", pos, v)
		}
		w, _ := s.View().Get("messages")
		want, _ := w.([]any)
		if l.Len != len(want) {
			t.Fatalf("position %d: %d messages in StreamView, %d in View", pos, l.Len, len(want))
		}
		for i := range want {
			if got, want := itemsJSON(t, func(y func(any) bool) { y(l.At(i)) }), itemsJSON(t, func(y func(any) bool) { y(want[i]) }); got != want {
				t.Errorf("position %d: message %d of %d is\n%s\nwant\n%s", pos, i, l.Len, got, want)
			}
		}
		if l.At(-1) != nil || l.At(l.Len) != nil {
			t.Errorf("position %d: At(-1), At(%d) = %v, %v; want nil", pos, l.Len, l.At(-1), l.At(l.Len))
		}
	}
	if n := len(states); n < 300 {
		t.Fatalf("%d states folded, want 400", n)
	}
}
