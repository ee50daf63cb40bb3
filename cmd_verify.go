package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/render"
	"github.com/rewind-tui/rewind/verify"
)

func newVerifyCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify PATH",
		Short: "Check a journal and list every problem found; change nothing",
		Long: `Check a journal the way journalctl --verify checks systemd's, and print one line
per problem:

  FILE:LINE: offset OFF, LEN bytes: KIND: message

then a summary line. Problems that concern the whole file (a JSON array or
pretty-printed JSON instead of JSONL, a wrong file name) or a file next to it
(.delta/VERSION, snapshot.json) have no line: FILE: KIND: message.

It reports bad lines (not JSON, not an object, invalid UTF-8, NUL bytes, too long,
blank), a torn last line, duplicate or case-variant keys, a byte order mark,
seqs that repeat, skip or go back, timestamps that go backwards, and each
format's own rules: Delta Engine's file name, form and .delta/VERSION, DeltaMind's
snapshot.json version, Durable Stream's event envelope. rewind never rewrites a
journal: verify only shows.

Exit status: 0 when no problem was found, 1 when some were, 2 when the journal
cannot be read. --json prints the report as indented JSON instead.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			var rep verify.Report
			var checked atomic.Int64
			err = g.withLine(s, func(int64) func(time.Duration) string {
				return checkingLine(s.J.Path, s.R.Events(), checked.Load)
			}, func() (err error) {
				rep, err = verify.CheckProgress(s, &checked)
				return err
			})
			if err != nil {
				return usageErr("%s: %v", s.J.Path, err)
			}
			if asJSON {
				if err := writeJSON(stdout, rep); err != nil {
					return err
				}
			} else {
				if err := writeReport(stdout, &rep); err != nil {
					return err
				}
				for _, n := range rep.Notes {
					fmt.Fprintf(cmd.ErrOrStderr(), "rewind: %s: note: %s\n", render.Line(rep.Path), n)
				}
			}
			if !rep.OK() {
				return &exitError{exitRefused, errQuiet}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as indented JSON")
	return cmd
}

// writeReport prints one line per problem and the summary line.
func writeReport(w io.Writer, rep *verify.Report) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	path := render.Line(rep.Path)
	for _, p := range rep.Problems {
		switch {
		case p.File != "":
			fmt.Fprintf(bw, "%s: %s: %s\n", render.Line(p.File), p.Kind, render.Line(p.Message))
		case p.Line == 0:
			fmt.Fprintf(bw, "%s: %s: %s\n", path, p.Kind, render.Line(p.Message))
		default:
			fmt.Fprintf(bw, "%s:%d: offset %d, %s: %s: %s\n", path, p.Line, p.Offset, plural(p.Length, "byte"), p.Kind, render.Line(p.Message))
		}
	}
	bw.WriteString(summary(rep) + "\n")
	return bw.Flush()
}

// summary is the last line of the text report.
func summary(rep *verify.Report) string {
	path := render.Line(rep.Path)
	if rep.OK() {
		return fmt.Sprintf("%s: OK, %s, no problems", path, plural(int64(rep.Events), "event"))
	}
	return fmt.Sprintf("%s: %s, %s, %s (%s)", path, plural(int64(rep.Records), "record"), plural(int64(rep.Events), "event"),
		plural(int64(len(rep.Problems)), "problem"), plural(int64(rep.BadLines), "bad line"))
}

// plural returns "1 event", "2 events".
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.FormatInt(n, 10) + " " + word + "s"
}
