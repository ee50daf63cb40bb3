package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/spf13/cobra"

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
changed old → new), separated by tabs. For a whole list that grows with the journal
(.messages, .actions, .items) it says which item: added [42] {…}, and how many more
it changed. Exit status 1 when no event changed the path.`,
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
			if err := tc.Extend(cmd.Context(), s.R, nil); err != nil {
				return usageErr("%s: %v", s.J.Path, err)
			}
			recs := s.J.Index.Records()
			w := bufio.NewWriter(stdout)
			n := 0
			effects := replay.NewEffects(s.R, p)
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
