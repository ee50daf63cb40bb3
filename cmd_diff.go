package main

import (
	"bufio"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/render"
	"github.com/rewind-tui/rewind/statediff"
)

func newDiffCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff PATH A B",
		Short: "Print the state diff and the projection diff between positions A and B",
		Long: `Print what differs between the state after position A and the state after
position B (1-based, events only; 0 is the state before the first event): every path
added (+), removed (-) or changed (~) with its old and new values, multi-line strings
diffed by line, then the unified diff of each Markdown projection that changed.
--json prints {"from","to","changes":[{"path","op","old","new"}],"projection":[{"doc","diff"}]}.`,
		Args: exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The journal is read only as far as the later position, when
			// both are numbers; otherwise whole, for the error to say how
			// many events it has.
			var pos [2]int
			bad := "" // the first position that is not a number
			for i, a := range args[1:] {
				n, err := strconv.Atoi(a)
				if (err != nil || n < 0) && bad == "" {
					bad = a
				}
				pos[i] = n
			}
			open := g.open
			if bad == "" {
				open = func(path string) (*app.Session, error) {
					return g.openIndexedThrough(path, max(pos[0], pos[1]), eventsStep)
				}
			}
			s, err := open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			if bad != "" {
				return usageErr("%s: position %q is not a number from 0 to %d", s.J.Path, bad, s.R.Events())
			}
			for i := range pos {
				if pos[i], err = resolveAt(s, pos[i]); err != nil {
					return err
				}
			}
			rep, err := statediff.Changes(s.R, pos[0], pos[1])
			if err != nil {
				return usageErr("%s: %v", s.J.Path, err)
			}
			if asJSON {
				rep.AddDocs()
				return writeJSON(stdout, rep.JSON())
			}
			// The state changes first, flushed: on a large journal the
			// projections take seconds more.
			w := bufio.NewWriter(stdout)
			put := func(lines []string) error {
				for _, l := range lines {
					w.WriteString(render.Line(l) + "\n")
				}
				return w.Flush()
			}
			if err := put(rep.ChangesLines()); err != nil {
				return err
			}
			rep.AddDocs()
			return put(rep.DocsLines())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the diff as JSON")
	return cmd
}
