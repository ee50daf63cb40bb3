package main

import (
	"bufio"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/query"
	"github.com/rewind-tui/rewind/render"
)

// resolveAt resolves a position (--at, diff's A and B): -1 (unset) means
// the last event; past the last event, it is a usage error that says how
// many events the journal has.
func resolveAt(s *app.Session, at int) (int, error) {
	n := s.R.Events()
	if at < 0 {
		return n, nil
	}
	if at > n {
		return 0, usageErr("%s: position %d is past the end: the journal has %d events", s.J.Path, at, n)
	}
	return at, nil
}

func newStateCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var at int
	var where string
	cmd := &cobra.Command{
		Use:   "state PATH",
		Short: "Print the state after the N-th event as indented JSON",
		Long: `Print the state after the N-th event (1-based, file order, counting events only;
default: the last) as indented JSON; with --at, the journal is read only as far as
event N. Characters that could drive a terminal are written as \u escapes, so the
JSON decodes to the same value.
--where EXPR prints the state at the first position (from 1) where the jq expression
EXPR over the state is true (exit status 1 if it never is).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			var q *query.Query
			if where != "" {
				if at >= 0 {
					return usageErr("--at and --where do not go together")
				}
				var err error
				if q, err = query.Compile(where); err != nil {
					return usageErr("--where: %v", err)
				}
			}
			open := g.open
			if q == nil && at < 0 {
				open = g.openLast
			} else if q == nil {
				open = func(path string) (*app.Session, error) { return g.openThrough(path, at, eventsStep) }
			}
			s, err := open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			pos, err := resolveAt(s, at)
			if err != nil {
				return err
			}
			if q != nil {
				found, err := s.FirstStateWhere(q, nil)
				if err != nil {
					return usageErr("%s: %v", s.J.Path, err)
				}
				if found == 0 {
					return refused("%s: %s is true at no position", s.J.Path, q.Src)
				}
				pos = found
			}
			if q == nil {
				s.R.OneShot()
			}
			obj, err := s.R.StreamJSON(pos)
			if err != nil {
				return usageErr("%s: %v", s.J.Path, err)
			}
			size := s.J.Index.Consumed()
			releaseIndex(s)
			return g.writeWithProgress(s, size, start, stdout, obj)
		},
	}
	cmd.Flags().IntVar(&at, "at", -1, "position N (1-based, events only; 0 = before the first event)")
	cmd.Flags().StringVar(&where, "where", "", "print the state at the first position where this jq expression over the state is true")
	return cmd
}

// writeWithProgress is writeJSON(stdout, v), v being the state of s's
// journal, with the bytes written so far on stderr when it is a terminal
// and the journal is large (a gigabyte's state takes seconds to write).
// start is when the command started.
func (g *globalFlags) writeWithProgress(s *app.Session, size int64, start time.Time, stdout io.Writer, v any) error {
	cw := &countingWriter{w: stdout}
	p := startProgress(g.stderr, size, start, writingLine(s.J.Path, cw.n.Load))
	defer p.End()
	return writeJSON(cw, v)
}

// releaseIndex drops the index of s, which rewind state and rewind render
// no longer need once they have the state they write (its views read
// their lines by offset: the models do not see the index; after a
// one-shot fold it holds only the first MiB's records, see
// app.Session.FoldWhileIndexing), and collects the memory it held, and
// the fold's garbage, before the writing makes its buffers, so that the
// peak is the larger of the fold's and the write's, not their sum (1 GB
// DeltaMind journal: 146-152 MB -> 118-120 MB). The memory stays with the
// process for the writing to reuse: returned to the system
// (debug.FreeOSMemory, until session 37), it was faulted in again page by
// page, 26.5-28 K minor faults against 24.5-25 K for rewind state of 1 GB
// of DeltaMind, 3% of its time, at the same peak. s is not to be read by
// position afterwards.
func releaseIndex(s *app.Session) {
	s.J.Index.Reset()
	runtime.GC()
}

// countingWriter counts the bytes written through it; n may be read while
// another goroutine writes.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

func newRenderCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var at int
	var doc string
	cmd := &cobra.Command{
		Use:   "render PATH",
		Short: "Print the Markdown projection of the state after the N-th event",
		Long: `Print the Markdown projection of the state after the N-th event (default: the last).
For DeltaMind, --doc picks ACTIVE_STATE, DECISIONS, TASKS or CONSTRAINTS; the default is
the format's first document. Control characters from the journal are shown as visible
placeholders.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			open := g.openLast
			if at >= 0 {
				open = func(path string) (*app.Session, error) { return g.openThrough(path, at, eventsStep) }
			}
			s, err := open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			pos, err := resolveAt(s, at)
			if err != nil {
				return err
			}
			docs := s.F.Docs()
			if doc == "" {
				doc = docs[0]
			}
			doc = strings.TrimSuffix(strings.ToUpper(doc), ".MD")
			if !slices.Contains(docs, doc) {
				return usageErr("%s: no document %q for format %s (documents: %s)", s.J.Path, doc, s.F.Name(), strings.Join(docs, ", "))
			}
			s.R.OneShot()
			st, err := s.R.StateAt(pos)
			if err != nil {
				return usageErr("%s: %v", s.J.Path, err)
			}
			releaseIndex(s)
			out := bufio.NewWriterSize(stdout, 64<<10)
			pw := render.NewPlainWriter(out)
			if err := model.WriteRender(s.F, st, doc, pw); err != nil {
				return err
			}
			if err := pw.Close(); err != nil {
				return err
			}
			return out.Flush()
		},
	}
	cmd.Flags().IntVar(&at, "at", -1, "position N (1-based, events only)")
	cmd.Flags().StringVar(&doc, "doc", "", "document name (DeltaMind: ACTIVE_STATE, DECISIONS, TASKS, CONSTRAINTS)")
	return cmd
}

func newEventsCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var from, to int
	var types []string
	var raw bool
	var where string
	cmd := &cobra.Command{
		Use:   "events PATH",
		Short: "Print the selected events as JSONL, one per line",
		Long: `Print the selected events as JSONL, one per line, as they are in the journal.
Events are printed as the journal is read: the first within milliseconds, whatever its
size, and reading stops after --to. Characters that could drive a terminal are written
as \u escapes (the JSON decodes to the same value); --raw prints the bytes unchanged,
for pipes. Bad lines are not events and are not printed (see rewind verify).
--where EXPR prints only the events for which the jq expression EXPR is true
(select(.type == "THOUGHT"), .payload.status == "FAILED", .actor | test("oracle")).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := refuseRawToTerminal(raw, stdout); err != nil {
				return err
			}
			// --where alone is evaluated on the index's workers, each with
			// a Matcher of its own; with --type, here, on the events of
			// those types only.
			var q *query.Matcher
			var keep func(lines [][]byte, out []bool)
			if where != "" {
				cq, err := query.Compile(where)
				if err != nil {
					return usageErr("--where: %v", err)
				}
				if len(types) > 0 {
					q = cq.Matcher()
					defer q.Close()
				} else {
					var closeAll func()
					keep, closeAll = parallelMatch(cq)
					defer closeAll()
				}
			}
			// Only the journal's first MiB is read before the first event
			// is printed: `rewind events big.jsonl | head` answers at once.
			s, err := g.openPrefix(args[0], foldPrefix)
			if err != nil {
				return err
			}
			defer s.Close()
			st, err := s.J.File().Stat()
			if err != nil {
				return usageErr("%s: %v", s.J.Path, err)
			}
			// Progress, on a terminal, until the first event is printed
			// (--from far in, a --where that matches late).
			p := startProgress(g.stderr, st.Size(), time.Now(), readingLine(s.J.Path, st.Size(), func() (int64, int) {
				_, evs := s.J.Index.Counts()
				return s.J.Index.Consumed(), evs
			}))
			defer func() { p.End() }()
			w := bufio.NewWriterSize(stdout, 1<<16)
			err = eachStreamed(s, st.Size(), eventsStep, from, to, keep, func(ev model.Event, typ func() string) error {
				if len(types) > 0 && !slices.Contains(types, typ()) {
					return nil
				}
				if q != nil {
					if ok, _ := q.MatchEvent(ev.Raw); !ok {
						return nil
					}
				}
				if p != nil {
					p.End()
					p = nil
				}
				if raw {
					w.Write(ev.Raw)
				} else {
					w.Write(render.SafeJSON(ev.Raw))
				}
				return w.WriteByte('\n')
			})
			if err != nil {
				return usageErr("%s: %v", s.J.Path, err)
			}
			return w.Flush()
		},
	}
	f := cmd.Flags()
	f.IntVar(&from, "from", 1, "first position to print (1-based)")
	f.IntVar(&to, "to", 0, "last position to print (default: the last)")
	f.StringArrayVar(&types, "type", nil, "print only events of this type (repeatable)")
	f.BoolVar(&raw, "raw", false, "print the journal's bytes unchanged, without escaping")
	f.StringVar(&where, "where", "", "print only the events for which this jq expression is true")
	return cmd
}

// eventsStep is how much more of the journal eachStreamed indexes before
// it passes on the events read.
const eventsStep = 64 << 20

// errEventsDone stops eachStreamed after the last event asked for.
var errEventsDone = errors.New("rewind: the events asked for are printed")

// eachStreamed calls fn, in order, for the events at positions from..to
// (1-based; to 0 or less: up to the end of the file's first size bytes)
// of s's journal, opened with only a prefix indexed (openPrefix): first
// the events indexed already, then those of each further step bytes
// (eventsStep) as the index reads them (journal.UpdateEach: each byte is
// read once), so that the first events come before a large journal is
// read whole, and the reading stops within a step of the last event asked
// for; the lines before from are only indexed. typ returns the event's
// type, as the index read it. keep, when not nil, says which events fn
// gets: it sets out[i] for each of lines (out has their length) and is
// called on the index's workers, one block's lines each, several at once
// (a --where evaluated on every CPU). It stops at the first error fn
// returns, and returns it; it returns journal.Shrunk's error when the file
// was cut while it read it.
func eachStreamed(s *app.Session, size, step int64, from, to int, keep func(lines [][]byte, out []bool),
	fn func(ev model.Event, typ func() string) error) error {
	from = max(from, 1)
	if to <= 0 {
		to = math.MaxInt
	}
	var recs journal.Records
	var cur model.Event
	typ := func() string {
		if recs.Events() < cur.Pos {
			recs = s.J.Index.Records()
		}
		return recs.Type(recs.EventIndex(cur.Pos))
	}
	var prepare func(lines [][]byte, _ []model.LineScalars, prev any) any
	var line [1][]byte
	var one [1]bool
	if keep != nil {
		prepare = func(lines [][]byte, _ []model.LineScalars, prev any) any {
			out, _ := prev.([]bool)
			out = slices.Grow(out[:0], len(lines))[:len(lines)]
			keep(lines, out)
			return out
		}
	}
	each := func(ev model.Event, p any, i int) error {
		if ev.Pos > to {
			return errEventsDone
		}
		if ev.Pos < from {
			return nil
		}
		if keep != nil {
			kept, ok := p.([]bool) // the workers' verdicts for this block
			if !ok {
				// An event read before the steps: judged here.
				line[0], kept, i = ev.Raw, one[:], 0
				keep(line[:], kept)
			}
			if !kept[i] {
				return nil
			}
		}
		cur = ev
		return fn(ev, typ)
	}
	err := s.J.UpdateThrough(size, step, from-1)
	if err == nil {
		err = s.J.Each(from, to, func(ev model.Event) error { return each(ev, nil, 0) })
	}
	if err == nil {
		err = s.J.UpdateEachSteps(size, step, prepare, false, each)
	}
	if errors.Is(err, errEventsDone) {
		return nil
	}
	if err == nil {
		err = s.J.Shrunk(size)
	}
	return err
}

// parallelMatch returns, for eachStreamed, a keep that evaluates q on
// several goroutines at once, each call with a Matcher of its own (from a
// pool, made as needed), and closeAll, which closes them. An event whose
// evaluation fails is not kept, as with Matcher.MatchEvent alone.
func parallelMatch(q *query.Query) (keep func(lines [][]byte, out []bool), closeAll func()) {
	var (
		mu        sync.Mutex
		all, free []*query.Matcher
	)
	keep = func(lines [][]byte, out []bool) {
		mu.Lock()
		var m *query.Matcher
		if n := len(free); n > 0 {
			m, free = free[n-1], free[:n-1]
		} else {
			m = q.Matcher()
			all = append(all, m)
		}
		mu.Unlock()
		for i, l := range lines {
			out[i], _ = m.MatchEvent(l)
		}
		mu.Lock()
		free = append(free, m)
		mu.Unlock()
	}
	closeAll = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range all {
			m.Close()
		}
	}
	return keep, closeAll
}

// exactArgs is cobra.ExactArgs with a usage exit status and a plain message.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr("%s takes %d argument(s): rewind %s (see rewind %s --help)", cmd.Name(), n, cmd.Use, cmd.Name())
		}
		return nil
	}
}

// refuseRawToTerminal refuses --raw when stdout is a terminal: raw journal
// bytes may hold sequences that drive it. --raw is for pipes and files.
func refuseRawToTerminal(raw bool, stdout io.Writer) error {
	if !raw {
		return nil
	}
	// A terminal, not any character device: /dev/null is one too.
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(f.Fd()) {
		return usageErr("--raw prints the journal's bytes unchanged and is for pipes and files; stdout is a terminal (drop --raw, or pipe the output)")
	}
	return nil
}
