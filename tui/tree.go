package tui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
	"github.com/rewind-tui/rewind/replay"
)

// treeLine is one visible line of the state tree.
type treeLine struct {
	depth    int
	path     string // jq path of the value
	jp       replay.Path
	key      string // sanitized key label ("" for the root)
	value    any
	children int // >0 for a non-empty container
	open     bool
	gap      int // >0: a line standing for this many list items not shown
}

// tree is the state pane: the state after the selected event as a foldable
// tree, with what the selected event changed marked.
type tree struct {
	st      render.Styles
	root    any
	changed map[string]replay.Op
	folded  map[string]bool // explicit fold state by path; absent = default
	lines   []treeLine
	cursor  int
	top     int
	w, h    int
}

func newTree(st render.Styles) tree {
	return tree{st: st, folded: map[string]bool{}}
}

func (t *tree) setSize(w, h int) { t.w, t.h = w, h; t.clamp() }

// setState installs a new state and what changed; the cursor stays on the
// same path when it still exists.
func (t *tree) setState(root any, changed map[string]replay.Op) {
	keep := ""
	if t.cursor < len(t.lines) {
		keep = t.lines[t.cursor].path
	}
	t.root, t.changed = root, changed
	t.rebuild()
	for i, l := range t.lines {
		if l.path == keep {
			t.cursor = i
			break
		}
	}
	t.clamp()
	t.reveal()
}

// isOpen says whether the container at path is unfolded: the user's choice,
// else open for the root and its children, and on the way to a change.
func (t *tree) isOpen(path string, depth int) bool {
	if f, ok := t.folded[path]; ok {
		return !f
	}
	if depth <= 1 {
		return true
	}
	_, onChange := t.changed[path]
	return onChange
}

func (t *tree) rebuild() {
	t.lines = t.lines[:0]
	t.walk(0, replay.Path{}, "", t.root)
}

const maxTreeLines = 20000

func (t *tree) walk(depth int, p replay.Path, key string, v any) {
	if len(t.lines) >= maxTreeLines {
		return
	}
	ps := p.String()
	l := treeLine{depth: depth, path: ps, jp: append(replay.Path(nil), p...), key: key, value: v}
	switch x := v.(type) {
	case model.Object:
		l.children = len(x)
	case []any:
		l.children = len(x)
	case model.Window:
		l.children = x.Total
	}
	l.open = l.children > 0 && t.isOpen(ps, depth)
	if depth > 0 || l.children == 0 {
		t.lines = append(t.lines, l)
	}
	if !l.open && depth > 0 {
		return
	}
	switch x := v.(type) {
	case model.Object:
		for _, f := range x {
			t.walk(depth+1, append(p[:len(p):len(p)], f.Key), render.Line(f.Key), f.Value)
		}
	case model.Window:
		// The end of a list the state did not build whole: its leading
		// items are one line, the rest are numbered as in the full list.
		if x.From > 0 {
			t.gapLine(depth+1, x.From)
		}
		for i, e := range x.Items {
			t.walk(depth+1, append(p[:len(p):len(p)], x.From+i), "["+strconv.Itoa(x.From+i)+"]", e)
		}
	case []any:
		// A long list (a conversation's messages, a log of decisions) shows
		// its first and last items, and any that changed, with a line
		// saying how many are left out: its end is where it grows.
		gap := -1
		for i, e := range x {
			if len(x) > listHead+listTail && i >= listHead && i < len(x)-listTail && !t.changedItem(ps, p, i) {
				if gap < 0 {
					gap = i
				}
				continue
			}
			if gap >= 0 {
				t.gapLine(depth+1, i-gap)
				gap = -1
			}
			t.walk(depth+1, append(p[:len(p):len(p)], i), "["+strconv.Itoa(i)+"]", e)
		}
	}
}

// listHead and listTail are the items a long list shows at its start and
// at its end.
const (
	listHead = 20
	listTail = 200
)

// changedItem reports whether item i of the list at path ps (p) changed.
func (t *tree) changedItem(ps string, p replay.Path, i int) bool {
	if len(t.changed) == 0 {
		return false
	}
	_, ok := t.changed[append(p[:len(p):len(p)], i).String()]
	return ok
}

// gapLine stands for n list items that are not shown.
func (t *tree) gapLine(depth, n int) {
	t.lines = append(t.lines, treeLine{depth: depth, gap: n})
}

func (t *tree) clamp() {
	if t.cursor >= len(t.lines) {
		t.cursor = len(t.lines) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	vis := t.h - 1
	if vis < 1 {
		vis = 1
	}
	if t.cursor < t.top {
		t.top = t.cursor
	}
	if t.cursor >= t.top+vis {
		t.top = t.cursor - vis + 1
	}
	if t.top < 0 {
		t.top = 0
	}
}

// reveal scrolls so the first change is visible when the cursor is at the top.
func (t *tree) reveal() {
	if t.cursor != 0 {
		return
	}
	for i, l := range t.lines {
		if op, ok := t.changed[l.path]; ok && (op == replay.Added || l.children == 0 || !l.open) {
			vis := t.h - 1
			if i >= t.top+vis {
				t.top = i - vis/2
			}
			return
		}
	}
}

func (t *tree) move(d int) { t.cursor += d; t.clamp() }

// cursorPath returns the path of the line under the cursor, or nil when
// the tree is empty.
func (t *tree) cursorPath() replay.Path {
	if t.cursor >= len(t.lines) || t.cursor < 0 {
		return nil
	}
	return t.lines[t.cursor].jp
}

func (t *tree) setFold(fold bool) {
	if t.cursor >= len(t.lines) {
		return
	}
	l := t.lines[t.cursor]
	if l.children == 0 {
		if fold && l.depth > 1 { // fold the parent
			for i := t.cursor - 1; i >= 0; i-- {
				if t.lines[i].depth == l.depth-1 {
					t.cursor = i
					t.folded[t.lines[i].path] = true
					break
				}
			}
			t.rebuild()
			t.clamp()
		}
		return
	}
	t.folded[l.path] = fold
	t.rebuild()
	t.clamp()
}

func (t *tree) toggle() {
	if t.cursor < len(t.lines) {
		t.setFold(t.lines[t.cursor].open)
	}
}

func (t *tree) foldAll(fold bool) {
	t.folded = map[string]bool{}
	var mark func(p replay.Path, v any, depth int)
	mark = func(p replay.Path, v any, depth int) {
		switch x := v.(type) {
		case model.Object:
			if depth > 0 {
				t.folded[p.String()] = fold
			}
			for _, f := range x {
				mark(append(p[:len(p):len(p)], f.Key), f.Value, depth+1)
			}
		case []any:
			if depth > 0 {
				t.folded[p.String()] = fold
			}
			for i, e := range x {
				mark(append(p[:len(p):len(p)], i), e, depth+1)
			}
		case model.Window:
			if depth > 0 {
				t.folded[p.String()] = fold
			}
			for i, e := range x.Items {
				mark(append(p[:len(p):len(p)], x.From+i), e, depth+1)
			}
		}
	}
	mark(replay.Path{}, t.root, 0)
	t.rebuild()
	t.clamp()
}

// view renders the visible lines; keys and strings are sanitized.
func (t *tree) view(focused bool) string {
	if t.root == nil {
		return t.st.Dim.Render("Computing the state…")
	}
	var out []string
	vis := t.h
	for i := t.top; i < len(t.lines) && len(out) < vis; i++ {
		l := t.lines[i]
		marker := "  "
		if l.children > 0 {
			marker = "▸ "
			if l.open {
				marker = "▾ "
			}
		}
		if l.gap > 0 {
			line := render.Truncate(strings.Repeat("  ", l.depth-1)+t.st.Dim.Render(fmt.Sprintf("  … %d items not shown (rewind state prints them all)", l.gap)), t.w)
			if focused && i == t.cursor {
				line = t.st.TreeCursor.Render(render.PadRight(line, t.w))
			}
			out = append(out, line)
			continue
		}
		var val string
		switch {
		case l.children > 0 && l.open:
			val = ""
		default:
			val = t.valueText(l.value)
		}
		text := strings.Repeat("  ", l.depth-1) + marker
		label := t.st.TreeKey.Render(l.key)
		if l.key != "" && val != "" {
			label += ": "
		}
		change := ""
		style := lipglossNone
		if op, ok := t.changed[l.path]; ok {
			switch op {
			case replay.Added:
				change, style = "+ ", t.st.TreeAdded
			default:
				change, style = "~ ", t.st.TreeChanged
			}
		}
		line := text + change + label + style.Render(val)
		line = render.Truncate(line, t.w)
		if focused && i == t.cursor {
			line = t.st.TreeCursor.Render(render.PadRight(line, t.w))
		}
		out = append(out, line)
	}
	if len(t.lines) >= maxTreeLines {
		out = append(out, t.st.Dim.Render("… state too large to list whole: fold some branches"))
	}
	return strings.Join(out, "\n")
}

// valueText is the one-line display of a value.
func (t *tree) valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return t.st.TreeLiteral.Render("null")
	case bool:
		return t.st.TreeLiteral.Render(strconv.FormatBool(x))
	case string:
		return t.st.TreeString.Render(`"` + render.Line(firstLine(x, 2000)) + `"`)
	case model.Object:
		if len(x) == 0 {
			return "{}"
		}
		return t.st.Dim.Render(fmt.Sprintf("{…} %d keys", len(x)))
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		return t.st.Dim.Render(fmt.Sprintf("[…] %d items", len(x)))
	case model.Window:
		return t.st.Dim.Render(fmt.Sprintf("[…] %d items", x.Total))
	case json.Number:
		return t.st.TreeNumber.Render(render.Line(x.String()))
	case int, int64, float64, int32:
		return t.st.TreeNumber.Render(fmt.Sprint(x))
	}
	b, _ := json.Marshal(v)
	return render.Line(string(b))
}
