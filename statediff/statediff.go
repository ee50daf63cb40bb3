// Package statediff compares the state of a journal at two positions: the
// paths added, removed and changed (long strings diffed by line) and the
// diff of each Markdown projection. `rewind diff` prints it and the TUI's
// diff overlay shows it.
//
// Every string in a Report comes from the journal and is still hostile:
// Lines returns plain text for the caller to pass through render.Line, and
// JSON is for model.Indent plus render.SafeJSON.
package statediff

import (
	"context"
	"fmt"
	"iter"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// Report is the difference between the states after positions From and To.
type Report struct {
	From, To int
	// Changes are the state differences, "at" left out.
	Changes []replay.Change
	// Docs are the Markdown projections that differ, in the format's order
	// (none before AddDocs, for a report from Changes).
	Docs []DocDiff

	// The two states and their format, for AddDocs.
	f      model.Format
	sa, sb model.State
}

// DocDiff is the unified diff of one Markdown projection.
type DocDiff struct {
	Name    string
	Unified string
}

// Compute returns the report between positions a and b of r (0 is the
// state before any event): Changes, then AddDocs.
func Compute(r *replay.Replay, a, b int) (Report, error) {
	rep, err := Changes(r, a, b)
	if err != nil {
		return Report{}, err
	}
	rep.AddDocs()
	return rep, nil
}

// Changes returns the report between positions a and b of r without its
// projection diffs: the state changes alone, which between nearby
// positions of a large journal take milliseconds where the projections
// take seconds. It folds at most two keyframe intervals. AddDocs adds
// the projection diffs.
func Changes(r *replay.Replay, a, b int) (Report, error) {
	sa, err := r.StateAt(a)
	if err != nil {
		return Report{}, err
	}
	sb, err := r.StateAt(b)
	if err != nil {
		return Report{}, err
	}
	changes, ok := touchedChanges(r.F, sa, sb, a, b)
	if !ok {
		changes = streamChanges(r.F, sa, sb, a, b)
	}
	return Report{From: a, To: b, Changes: changes, f: r.F, sa: sa, sb: sb}, nil
}

// AddDocs sets rep.Docs: it compares each projection of the two states a
// part at a time (docDiff), the projections on as many goroutines as there
// are CPUs. rep must come from Changes.
func (rep *Report) AddDocs() { rep.AddDocsContext(context.Background()) }

// AddDocsContext is AddDocs that stops when ctx is done (within 256 parts
// of each projection), leaving rep.Docs as it was, and returns ctx.Err().
func (rep *Report) AddDocsContext(ctx context.Context) error {
	docs := rep.f.Docs()
	diffs := make([]DocDiff, len(docs))
	var wg sync.WaitGroup
	cpus := make(chan struct{}, runtime.GOMAXPROCS(0))
	for k, doc := range docs {
		cpus <- struct{}{}
		wg.Go(func() {
			defer func() { <-cpus }()
			if u, differ := docDiff(ctx, rep.f, rep.sa, rep.sb, doc, fmt.Sprintf("%s@%d", doc, rep.From), fmt.Sprintf("%s@%d", doc, rep.To)); differ {
				diffs[k] = DocDiff{Name: doc, Unified: u}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	rep.Docs = nil
	for _, d := range diffs {
		if d.Name != "" {
			rep.Docs = append(rep.Docs, d)
		}
	}
	return nil
}

// touchedChanges returns replay.Diff of the two states' views, without
// "at", made from what the later state says changed since the earlier
// (replay.Toucher, whose paths are the ones Diff reports): only the
// members named are made, and of a long list (a model.Lazy with At: Delta
// Engine's messages, DeltaMind's items) or object with one member named
// (Get and Rank: Delta Engine's actions) only the members named. A diff of neighbouring events at
// the end of a large journal then costs what they changed, not two whole
// states: 250 MB of DeltaMind held 1.2 GB of items' objects for it. It
// returns false when a state is not a Toucher, the positions are more than
// maxEvents apart, or a member changed too much to be diffed item by item
// (memberChanges): the caller diffs the whole views.
func touchedChanges(f model.Format, sa, sb model.State, a, b int) ([]replay.Change, bool) {
	ta, okA := sa.(replay.Toucher)
	tb, okB := sb.(replay.Toucher)
	if !okA || !okB || max(a-b, b-a) > maxEvents {
		return nil, false
	}
	var paths []replay.Path
	if a <= b {
		paths = tb.Touched(sa)
	} else {
		paths = ta.Touched(sb) // the same paths, asked of the later state
	}
	names, byName, ok := replay.ByMember(paths)
	if !ok {
		return nil, false
	}
	if len(names) == 0 {
		return nil, true
	}
	ma, mb := model.StreamMembers(f, sa, a, names), model.StreamMembers(f, sb, b, names)
	return viewChanges(f, sa, sb, a, b, ma, mb, func(out []replay.Change, name string, va, vb any) ([]replay.Change, bool) {
		return memberChanges(out, name, va, vb, byName[name])
	})
}

// viewChanges returns the changes between ma and mb, top-level members of
// the stream views of sa (at a) and sb (at b), in Diff's order: mb's
// members in its order, then those only ma has. A member one side lacks
// is added or removed whole (viewMember); one both have gives member's
// changes, and false from member gives false.
func viewChanges(f model.Format, sa, sb model.State, a, b int, ma, mb model.Object,
	member func(out []replay.Change, name string, va, vb any) ([]replay.Change, bool)) ([]replay.Change, bool) {
	var out []replay.Change
	ok := true
	for _, fb := range mb {
		va, had := ma.Get(fb.Key)
		if !had {
			out = pairChange(out, replay.Path{fb.Key}, nil, false, viewMember(f, sb, b, fb.Key), true)
		} else if out, ok = member(out, fb.Key, va, fb.Value); !ok {
			return nil, false
		}
	}
	for _, fa := range ma {
		if _, has := mb.Get(fa.Key); !has {
			out = pairChange(out, replay.Path{fa.Key}, viewMember(f, sa, a, fa.Key), true, nil, false)
		}
	}
	return out, true
}

// pairChange appends the changes at p from old to new: Diff's when both
// states have something there (had, has), else the one added or removed
// whole.
func pairChange(out []replay.Change, p replay.Path, old any, had bool, new any, has bool) []replay.Change {
	switch {
	case had && has:
		return replay.DiffAt(out, p, old, new)
	case has:
		return append(out, replay.Change{Path: p, Op: replay.Added, New: new})
	case had:
		return append(out, replay.Change{Path: p, Op: replay.Removed, Old: old})
	}
	return out
}

// itemAt returns item i of list l (At), or nil past its end.
func itemAt(l model.Lazy, i int) any {
	if i < l.Len {
		return l.At(i)
	}
	return nil
}

// maxItems is the most items of a long list that touchedChanges makes one
// at a time; past it (a diff between far positions) both views are made
// whole, which costs less than finding each item on its own.
const maxItems = 4096

// maxEvents is the most events between the two positions for which
// touchedChanges asks what changed: past it, most of a long list has
// (Touched reads every event between them back), and both views are made
// whole at once.
const maxEvents = 4 * maxItems

// memberChanges appends the changes of top-level member name, whose values
// in the two states' stream views (model.StreamMembers) are va and vb and
// under which paths changed (nil: any may have): item by item for a Lazy
// list with At, or a Lazy object with Get (and Rank, to order more than
// one member); from the values for a member that is not Lazy. With paths,
// it makes only the items or members they name; without, it walks them
// all (streamItems, streamMembers). It returns false for a Lazy member it
// cannot diff that way (without At or Get; with paths, the member named
// whole, more than maxItems items, more than one member of an object
// without Rank).
func memberChanges(out []replay.Change, name string, va, vb any, paths []replay.Path) ([]replay.Change, bool) {
	_, lazyA := va.(model.Lazy)
	_, lazyB := vb.(model.Lazy)
	if !lazyA && !lazyB {
		return replay.DiffAt(out, replay.Path{name}, va, vb), true
	}
	// One side may be a plain list or object (a state before the log a
	// format streams from began).
	la, lb := asLazy(va), asLazy(vb)
	switch {
	case !la.Object && !lb.Object && la.At != nil && lb.At != nil:
		if paths == nil {
			return streamItems(out, name, la, lb), true
		}
		idx, ok := replay.UnderAll[int](paths)
		if !ok || len(idx) > maxItems {
			return nil, false
		}
		for _, i := range idx {
			out = pairChange(out, replay.Path{name, i}, itemAt(la, i), i < la.Len, itemAt(lb, i), i < lb.Len)
		}
		return out, true
	case la.Object && lb.Object && la.Get != nil && lb.Get != nil:
		if paths == nil {
			return streamMembers(out, name, la, lb), true
		}
		keys, ok := replay.UnderAll[string](paths)
		if !ok || len(keys) > maxItems || len(keys) > 1 && (la.Rank == nil || lb.Rank == nil) {
			return nil, false
		}
		for _, key := range inOrder(keys, la, lb) {
			oa, had := la.Get(key)
			ob, has := lb.Get(key)
			out = pairChange(out, replay.Path{name, key}, oa, had, ob, has)
		}
		return out, true
	}
	return nil, false
}

// streamChanges returns replay.Diff of the two states' views, without
// "at", for any two positions: it walks the stream views
// (model.StreamStateJSON) member by member, and a long list or object (a
// model.Lazy) item by item as the two Eaches give them, so that equal
// items are compared and dropped, and only the items that differ are made
// again (At, Get) for the report. A diff between far positions then holds
// its changes, not two whole views: 250 MB of DeltaMind, the middle
// against the end, 1.75 GB → 850 MB. Where the changes are most of the
// later state (every message added), the report holds them either way.
func streamChanges(f model.Format, sa, sb model.State, a, b int) []replay.Change {
	va := withoutAt(model.StreamStateJSON(f, sa, a))
	vb := withoutAt(model.StreamStateJSON(f, sb, b))
	out, _ := viewChanges(f, sa, sb, a, b, va, vb, func(out []replay.Change, name string, x, y any) ([]replay.Change, bool) {
		if out, ok := memberChanges(out, name, x, y, nil); ok {
			return out, true
		}
		// A Lazy member without At or Get: both made whole.
		return replay.DiffAt(out, replay.Path{name}, viewMember(f, sa, a, name), viewMember(f, sb, b, name)), true
	})
	return out
}

// streamItems appends the changes between lists la and lb (Diff's: item by
// item, then the items la has past lb's end), comparing the items their
// Eaches give in step and making those that differ again with At, since
// Each's may be Transient.
func streamItems(out []replay.Change, name string, la, lb model.Lazy) []replay.Change {
	nextA, stopA := iter.Pull(items(la))
	defer stopA()
	nextB, stopB := iter.Pull(items(lb))
	defer stopB()
	var scratch []replay.Change
	for i := range max(la.Len, lb.Len) {
		var ia, ib any
		okA, okB := i < la.Len, i < lb.Len
		if okA {
			ia, okA = nextA()
		}
		if okB {
			ib, okB = nextB()
		}
		p := replay.Path{name, i}
		if okA && okB {
			if scratch = replay.DiffAt(scratch[:0], p, ia, ib); len(scratch) == 0 {
				continue
			}
			if !la.Transient && !lb.Transient {
				out = append(out, scratch...)
				continue
			}
		}
		// Kept in the report: made again, since Each's may be Transient.
		out = pairChange(out, p, itemAt(la, i), okA, itemAt(lb, i), okB)
	}
	return out
}

// items returns l's items in order: its Each's, or At's for a list that
// has no Each.
func items(l model.Lazy) iter.Seq[any] {
	if l.Each != nil {
		return l.Each
	}
	return func(yield func(any) bool) {
		for i := range l.Len {
			if !yield(l.At(i)) {
				return
			}
		}
	}
}

// streamMembers appends the changes between objects la and lb (Diff's: lb's
// members in its order, then those only la has, in la's), each member made
// with Get.
func streamMembers(out []replay.Change, name string, la, lb model.Lazy) []replay.Change {
	for key := range keys(lb) {
		oa, had := la.Get(key)
		ob, _ := lb.Get(key)
		out = pairChange(out, replay.Path{name, key}, oa, had, ob, true)
	}
	for key := range keys(la) {
		if _, has := lb.Get(key); !has {
			oa, _ := la.Get(key)
			out = pairChange(out, replay.Path{name, key}, oa, true, nil, false)
		}
	}
	return out
}

// keys returns the names of object l's members in order, copied out of
// Each's Fields (which may be Transient).
func keys(l model.Lazy) iter.Seq[string] {
	return func(yield func(string) bool) {
		if l.Each == nil {
			return
		}
		l.Each(func(v any) bool {
			f, ok := v.(model.Field)
			return !ok || yield(strings.Clone(f.Key))
		})
	}
}

// asLazy returns v as a model.Lazy with At (a list) or Get (an object):
// v itself when it is one, a view of a []any or model.Object, and a Lazy
// with neither for anything else.
func asLazy(v any) model.Lazy {
	switch x := v.(type) {
	case model.Lazy:
		return x
	case []any:
		return model.Lazy{Len: len(x), Each: slices.Values(x), At: func(i int) any { return x[i] }}
	case model.Object:
		each := func(yield func(any) bool) {
			for _, f := range x {
				if !yield(f) {
					return
				}
			}
		}
		return model.Lazy{Len: len(x), Object: true, Each: each, Get: x.Get, Rank: func(k string) (int, bool) {
			i := slices.IndexFunc(x, func(f model.Field) bool { return f.Key == k })
			return i, i >= 0
		}}
	}
	return model.Lazy{}
}

// viewMember returns member name of s's view, as model.StateJSON gives it.
func viewMember(f model.Format, s model.State, at int, name string) any {
	v, _ := model.StateMembers(f, s, at, []string{name}, model.StateJSON).Get(name)
	return v
}

// inOrder returns keys in the order Diff visits them: the members of b
// in b's order (Rank), then those only a has in a's; a key neither has is
// left out. One key is returned as it is.
func inOrder(keys []string, a, b model.Lazy) []string {
	if len(keys) < 2 {
		return keys
	}
	type ranked struct {
		key  string
		rank int
	}
	var inB, onlyA []ranked
	for _, k := range keys {
		if r, ok := b.Rank(k); ok {
			inB = append(inB, ranked{k, r})
		} else if r, ok := a.Rank(k); ok {
			onlyA = append(onlyA, ranked{k, r})
		}
	}
	out := make([]string, 0, len(inB)+len(onlyA))
	for _, rs := range [][]ranked{inB, onlyA} {
		slices.SortFunc(rs, func(x, y ranked) int { return x.rank - y.rank })
		for _, r := range rs {
			out = append(out, r.key)
		}
	}
	return out
}

func withoutAt(o model.Object) model.Object {
	out := make(model.Object, 0, len(o))
	for _, f := range o {
		if f.Key != "at" {
			out = append(out, f)
		}
	}
	return out
}

// Kind is the first character of a change line: + added, - removed, ~
// changed; Lines uses it, and the TUI colours by it.
func Kind(op replay.Op) string {
	switch op {
	case replay.Added:
		return "+"
	case replay.Removed:
		return "-"
	}
	return "~"
}

// Lines returns the report as plain text lines (not sanitized): a header,
// one line per change ("~ .path: old → new"; a long or multi-line string
// changed is followed by its line diff, indented), then each projection's
// unified diff: ChangesLines, then DocsLines.
func (rep Report) Lines() []string {
	return append(rep.ChangesLines(), rep.DocsLines()...)
}

// ChangesLines returns the header and change lines of Lines.
func (rep Report) ChangesLines() []string {
	out := []string{fmt.Sprintf("state #%d → #%d: %d change(s)", rep.From, rep.To, len(rep.Changes))}
	for _, c := range rep.Changes {
		out = append(out, ChangeLines(c)...)
	}
	return out
}

// DocsLines returns the projection lines of Lines: a blank line, then
// each projection's unified diff after a line naming it, or a line saying
// that none changed.
func (rep Report) DocsLines() []string {
	var out []string
	if len(rep.Docs) == 0 {
		out = append(out, "", "projection: no change")
	}
	for _, d := range rep.Docs {
		out = append(out, "", "projection "+d.Name+":")
		out = append(out, strings.Split(strings.TrimRight(d.Unified, "\n"), "\n")...)
	}
	return out
}

// ChangeLines returns the lines of one change.
func ChangeLines(c replay.Change) []string {
	head := Kind(c.Op) + " " + c.Path.String() + ": "
	switch c.Op {
	case replay.Added:
		return []string{head + Compact(c.New)}
	case replay.Removed:
		return []string{head + Compact(c.Old)}
	}
	os, ok1 := c.Old.(string)
	ns, ok2 := c.New.(string)
	if ok1 && ok2 && (strings.Contains(os, "\n") || strings.Contains(ns, "\n")) {
		lines := []string{head + "(text, by line)"}
		u := unified("old", "new", ensureNL(os), ensureNL(ns))
		for _, l := range strings.Split(strings.TrimRight(u, "\n"), "\n") {
			if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
				continue
			}
			lines = append(lines, "    "+l)
		}
		return lines
	}
	return []string{head + Compact(c.Old) + " → " + Compact(c.New)}
}

func ensureNL(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// Compact returns v as compact JSON (not sanitized).
func Compact(v any) string {
	b, err := model.AppendCompact(nil, v, math.MaxInt)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// CompactPrefix returns Compact(v) when it is at most n bytes long, and
// else a prefix of it at least n+1 bytes long: it stops making the JSON
// there (model.AppendCompact), so that the start of a large value (blame's
// lines, a list of thousands of items) does not cost the whole value.
func CompactPrefix(v any, n int) string {
	b, err := model.AppendCompact(nil, v, n+1)
	if err != nil {
		return Compact(v)
	}
	return string(b)
}

// JSON returns the report as the object `rewind diff --json` prints:
// {"from", "to", "changes": [{"path", "op", "old"?, "new"?}],
// "projection": [{"doc", "diff"}]}.
func (rep Report) JSON() model.Object {
	changes := make([]any, 0, len(rep.Changes))
	for _, c := range rep.Changes {
		o := obj("path", c.Path.String(), "op", string(c.Op))
		if c.Op != replay.Added {
			o = append(o, model.Field{Key: "old", Value: c.Old})
		}
		if c.Op != replay.Removed {
			o = append(o, model.Field{Key: "new", Value: c.New})
		}
		changes = append(changes, o)
	}
	docs := make([]any, 0, len(rep.Docs))
	for _, d := range rep.Docs {
		docs = append(docs, obj("doc", d.Name, "diff", d.Unified))
	}
	return obj("from", rep.From, "to", rep.To, "changes", changes, "projection", docs)
}

// obj builds a model.Object from key, value pairs.
func obj(kv ...any) model.Object {
	o := make(model.Object, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, model.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return o
}
