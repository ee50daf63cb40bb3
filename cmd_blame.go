package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/query"
	"github.com/rewind-tui/rewind/render"
	"github.com/rewind-tui/rewind/replay"
	"github.com/rewind-tui/rewind/statediff"
)

func newBlameCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blame PATH JQPATH",
		Short: "List every event that changed a path of the state, newest first",
		Long: `List every event that changed JQPATH (a jq path into the state, as rewind state
prints it: .items[3], .pending[0].prompt, .status), newest first, one line per event:
its position, its seq or id, its type and what it did to the path (added, removed,
changed old → new), separated by tabs. For a whole list or object (.messages,
.actions, .items, .sessions, .pending) it says which item: added [42] {…}, and how
many more it changed. Exit status 1 when no event changed the path.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := query.Path(args[1])
			if err != nil {
				return usageErr("%v", err)
			}
			if len(p) == 0 {
				// Every event changes the state as a whole: the answer
				// would be the journal, each line made twice.
				return usageErr("blame needs a path into the state, such as .status or .items[0]: every event changes %s", args[1])
			}
			s, err := g.open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			tc := replay.NewTouches()
			if err := g.record(cmd.Context(), s, tc, p); err != nil {
				return usageErr("%s: %v", s.J.Path, err)
			}
			recs := s.J.Index.Records()
			w := bufio.NewWriter(stdout)
			n := 0
			effects := replay.NewEffects(s.R, p).Recorded(tc)
			for _, h := range tc.Blame(p) {
				e, err := effects.At(h.Pos)
				if err != nil {
					return usageErr("%s: %v", s.J.Path, err)
				}
				if e.Op == "" {
					continue // a coarse record: the path itself did not change
				}
				n++
				rec := recs.Event(h.Pos)
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", h.Pos, render.Line(s.J.Key(rec)), render.Line(rec.Type()), render.Line(effectText(e)))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if n == 0 {
				return refused("%s: no event changed %s", s.J.Path, p)
			}
			return nil
		},
	}
	return cmd
}

// record builds tc, the record of what each event of s changed, with
// progress on stderr when it is a terminal and the journal is large (the
// pass folds every event and diffs what it changed: several seconds per
// gigabyte, after the reading).
func (g *globalFlags) record(ctx context.Context, s *app.Session, tc *replay.Touches, p replay.Path) error {
	var done atomic.Int64
	line := func(int64) func(time.Duration) string { return blameLine(p, s.R.Events(), done.Load) }
	return g.withLine(s, line, func() error {
		return tc.Extend(ctx, s.R, func(n int) { done.Store(int64(n)) })
	})
}

// blameLine is the text of the progress of blame's recording pass over
// total events: done gives how many are recorded.
func blameLine(p replay.Path, total int, done func() int64) func(time.Duration) string {
	path := render.Line(p.String())
	return func(time.Duration) string {
		n := done()
		return fmt.Sprintf("rewind: blame %s: recording what each event changed  %d of %d events (%d%%)",
			path, n, total, n*100/int64(max(total, 1)))
	}
}

// effectText says what an event did to a path (replay.Effect.Text), each
// value cut to 200 characters; only their start is made (a list of
// thousands of items, made whole for every line, took minutes).
func effectText(e replay.Effect) string {
	show := func(v any) string { return clip(statediff.CompactPrefix(v, 4*200)) }
	return e.Text(show, show)
}

func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
