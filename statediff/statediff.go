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
	"fmt"
	"math"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// Report is the difference between the states after positions From and To.
type Report struct {
	From, To int
	// Changes are the state differences, "at" left out.
	Changes []replay.Change
	// Docs are the Markdown projections that differ, in the format's order.
	Docs []DocDiff
}

// DocDiff is the unified diff of one Markdown projection.
type DocDiff struct {
	Name    string
	Unified string
}

// Compute returns the report between positions a and b of r (0 is the
// state before any event). It folds at most two keyframe intervals.
func Compute(r *replay.Replay, a, b int) (Report, error) {
	sa, err := r.StateAt(a)
	if err != nil {
		return Report{}, err
	}
	sb, err := r.StateAt(b)
	if err != nil {
		return Report{}, err
	}
	rep := Report{From: a, To: b, Changes: replay.Diff(withoutAt(model.StateJSON(r.F, sa, a)), withoutAt(model.StateJSON(r.F, sb, b)))}
	for _, doc := range r.F.Docs() {
		da, db := r.F.Render(sa, doc), r.F.Render(sb, doc)
		if da == db {
			continue
		}
		u := udiff.Unified(fmt.Sprintf("%s@%d", doc, a), fmt.Sprintf("%s@%d", doc, b), da, db)
		rep.Docs = append(rep.Docs, DocDiff{Name: doc, Unified: u})
	}
	return rep, nil
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
// unified diff.
func (rep Report) Lines() []string {
	out := []string{fmt.Sprintf("state #%d → #%d: %d change(s)", rep.From, rep.To, len(rep.Changes))}
	for _, c := range rep.Changes {
		out = append(out, ChangeLines(c)...)
	}
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
		u := udiff.Unified("old", "new", ensureNL(os), ensureNL(ns))
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
