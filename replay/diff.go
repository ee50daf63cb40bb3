package replay

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// Op says what happened to a path between two states.
type Op string

// The three kinds of change.
const (
	Added   Op = "added"
	Removed Op = "removed"
	Changed Op = "changed"
)

// Path addresses a value inside a state: object keys (string) and array
// indexes (int), outermost first.
type Path []any

// String returns the path as a jq path: .messages[3].content, ."odd key".
func (p Path) String() string {
	if len(p) == 0 {
		return "."
	}
	var b strings.Builder
	for _, e := range p {
		switch k := e.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(k) + "]")
		case string:
			if identRE.MatchString(k) {
				b.WriteString("." + k)
			} else {
				q, _ := model.Marshal(k)
				b.WriteString("[" + string(q) + "]")
			}
		}
	}
	return b.String()
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Under returns the second element of p, the item of a list (T int) or
// the member of an object (T string) that p names under its top-level
// member (.messages[3].content: 3), and false when p has none of that
// type (a path to a member whole, or a Whole path).
func Under[T int | string](p Path) (T, bool) {
	var zero T
	if len(p) < 2 {
		return zero, false
	}
	v, ok := p[1].(T)
	return v, ok
}

// ByMember groups paths by the top-level member they start with: the
// members' names in the order of their first paths, and the paths of each,
// in order. A path that starts with no name (empty, or with an index) is
// left out, and ok is then false.
func ByMember(paths []Path) (names []string, byName map[string][]Path, ok bool) {
	byName, ok = map[string][]Path{}, true
	for _, p := range paths {
		var name string
		if len(p) > 0 {
			name, ok = p[0].(string)
		}
		if len(p) == 0 || !ok {
			ok = false
			continue
		}
		if _, seen := byName[name]; !seen {
			names = append(names, name)
		}
		byName[name] = append(byName[name], p)
	}
	return names, byName, ok
}

// UnderAll returns what Under gives for each of paths, sorted and without
// repeats, and false when one of them has none.
func UnderAll[T int | string](paths []Path) ([]T, bool) {
	out := make([]T, 0, len(paths))
	for _, p := range paths {
		v, ok := Under[T](p)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// Change is one difference between two states.
type Change struct {
	Path Path
	Op   Op
	Old  any // nil for Added
	New  any // nil for Removed
}

// Diff returns the differences from a to b (values of the kinds model.Object
// holds), in document order of b then a. Arrays are compared by index.
func Diff(a, b any) []Change {
	var out []Change
	diff(make(Path, 0, 8), a, b, &out)
	return out
}

// DiffAt appends to out the changes from a to b, values found at path p
// of two states, with their paths under p: the part of Diff of the whole
// states that lies under p, in the same order.
func DiffAt(out []Change, p Path, a, b any) []Change {
	diff(append(make(Path, 0, len(p)+8), p...), a, b, &out)
	return out
}

// diff appends the changes from a to b under p to out. p is a stack that
// diff extends in place for the members it visits; a change gets a copy.

func diff(p Path, a, b any, out *[]Change) {
	switch x := a.(type) {
	case model.Object:
		y, ok := b.(model.Object)
		if !ok {
			break
		}
		// Objects with many members (actions by id, counts by type) are
		// looked up through a map: Object.Get is a linear scan.
		getX, hasY := lookup(x), lookup(y)
		for _, f := range y {
			old, had := getX(f.Key)
			if !had {
				*out = append(*out, Change{Path: with(p, f.Key), Op: Added, New: f.Value})
				continue
			}
			diff(append(p, f.Key), old, f.Value, out)
		}
		for _, f := range x {
			if _, has := hasY(f.Key); !has {
				*out = append(*out, Change{Path: with(p, f.Key), Op: Removed, Old: f.Value})
			}
		}
		return
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range y {
			if i < len(x) {
				diff(append(p, i), x[i], y[i], out)
			} else {
				*out = append(*out, Change{Path: with(p, i), Op: Added, New: y[i]})
			}
		}
		for i := len(y); i < len(x); i++ {
			*out = append(*out, Change{Path: with(p, i), Op: Removed, Old: x[i]})
		}
		return
	}
	if !scalarEqual(a, b) {
		*out = append(*out, Change{Path: append(Path(nil), p...), Op: Changed, Old: a, New: b})
	}
}

// lookup returns o.Get, through a map when o is large.
func lookup(o model.Object) func(string) (any, bool) {
	if len(o) <= 16 {
		return o.Get
	}
	idx := make(map[string]int, len(o))
	for i, f := range o {
		if _, dup := idx[f.Key]; !dup {
			idx[f.Key] = i
		}
	}
	return func(k string) (any, bool) {
		i, ok := idx[k]
		if !ok {
			return nil, false
		}
		return o[i].Value, true
	}
}

func with(p Path, e any) Path {
	q := make(Path, len(p), len(p)+1)
	copy(q, p)
	return append(q, e)
}

func scalarEqual(a, b any) bool {
	// The common scalars compared directly: blame's recording pass diffs
	// a state after every event, and formatting both sides took a third
	// of it.
	switch x := a.(type) {
	case model.Object, []any:
		return false
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case int:
		if y, ok := b.(int); ok {
			return x == y
		}
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
	}
	switch b.(type) {
	case model.Object, []any:
		return false
	}
	return fmt.Sprint(normNum(a)) == fmt.Sprint(normNum(b)) && sameKind(a, b)
}

func normNum(v any) any {
	switch n := v.(type) {
	case int:
		return json.Number(strconv.Itoa(n))
	case int64:
		return json.Number(strconv.FormatInt(n, 10))
	case float64:
		return json.Number(strconv.FormatFloat(n, 'g', -1, 64))
	}
	return v
}

func sameKind(a, b any) bool {
	kind := func(v any) int {
		switch v.(type) {
		case nil:
			return 0
		case bool:
			return 1
		case string:
			return 2
		case int, int64, float64, json.Number:
			return 3
		}
		return 4
	}
	return kind(a) == kind(b)
}

// Changed returns the set of jq paths (Path.String) that differ between a
// and b, plus every ancestor of each, so a tree view can mark the way down
// to a change.
func ChangedPaths(a, b any) map[string]Op {
	out := map[string]Op{}
	for _, c := range Diff(a, b) {
		markChange(out, c.Path, c.Op)
	}
	return out
}

// DiffPaths appends to out the paths Diff reports between a and b, each
// under prefix: what a Toucher says of a part of the state it made before
// and after.
func DiffPaths(out []Path, a, b any, prefix ...any) []Path {
	for _, c := range Diff(a, b) {
		out = append(out, append(append(Path{}, prefix...), c.Path...))
	}
	return out
}

// TouchedPaths is ChangedPaths from the paths a Toucher reports (all marked
// Changed): what the event at a position changed, without building either
// state's view.
func TouchedPaths(paths []Path) map[string]Op {
	out := map[string]Op{}
	for _, p := range paths {
		p, _ = Member(p)
		markChange(out, p, Changed)
	}
	return out
}

// markChange records p as changed by op and its ancestors as changed.
func markChange(out map[string]Op, p Path, op Op) {
	out[p.String()] = op
	for i := len(p) - 1; i >= 1; i-- {
		k := p[:i].String()
		if _, ok := out[k]; !ok {
			out[k] = Changed
		}
	}
}
