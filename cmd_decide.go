package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/journal/writer"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

func newPendingCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "pending PATH",
		Short: "Print the decisions a human still owes, as a JSON list",
		Long: `Print every pending item (Durable Stream checkpoints, a Delta Engine ask_human
question, generic <name>.requested events) as a JSON list, oldest first, in the same
shape as "pending" in rewind state. For a .delta/ directory, the items of all its runs.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			items, err := pendingOf(g, args[0])
			if err != nil {
				return err
			}
			list := make([]any, 0, len(items))
			for _, it := range items {
				list = append(list, it.Object())
			}
			return writeJSON(stdout, list)
		},
	}
}

// pendingOf returns the pending items of PATH; for a .delta/ directory,
// those of every run, oldest first.
func pendingOf(g *globalFlags, path string) ([]model.Pending, error) {
	t, err := journal.Locate(path)
	if err != nil {
		return nil, usageErr("%s", describeOpenError(path, err))
	}
	if t.Journal == "" && t.DeltaDir != "" {
		items, err := app.PendingOfRuns(t.DeltaDir, func(t journal.Target) (*app.Session, error) {
			return app.Open(t, app.Options{Format: g.format, MaxRecord: g.maxRecord})
		})
		if err != nil {
			return nil, usageErr("%v", err)
		}
		out := make([]model.Pending, len(items))
		for i := range items {
			out[i] = items[i].Pending
		}
		return out, nil
	}
	s, err := g.open(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	st, err := s.R.StateAt(s.R.Events())
	if err != nil {
		return nil, usageErr("%s: %v", s.J.Path, err)
	}
	return st.Pending(), nil
}

func newDecideCmd(g *globalFlags, stdout io.Writer, approve bool) *cobra.Command {
	var option, reason, as string
	var wait time.Duration
	use, short := "approve PATH ID", "Approve a pending checkpoint (appends the decision under the lock)"
	if !approve {
		use, short = "reject PATH ID", "Reject a pending checkpoint (appends the decision under the lock)"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

The decision is appended in the journal's own format (Durable Stream: a
checkpoint.approved or checkpoint.rejected event) under the same lock the Node
writers take (proper-lockfile: <journal>.lock), after re-reading everything appended
since. Exit status: 0 written; 1 refused (already decided, unknown or not pending);
2 usage or I/O error (locked too long, disk full, not JSONL).`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			// Now stays zero: the record is stamped when it is built,
			// under the lock, so that its timestamp (and its time-based
			// id) is not older than the events appended while rewind
			// waited for the lock.
			d := model.Decision{ID: args[1], Approve: approve, Option: option, Reason: reason, By: identity(as)}
			ctx, cancel := context.WithTimeout(cmd.Context(), wait+5*time.Second)
			defer cancel()
			o := writer.Options{}
			o.Lock.Wait = wait
			w, err := app.Decide(ctx, s, d, o)
			return reportDecision(stdout, w, err)
		},
	}
	f := cmd.Flags()
	if approve {
		f.StringVar(&option, "option", "", "the option id to select")
	} else {
		f.StringVar(&reason, "reason", "", "why it is rejected")
	}
	f.StringVar(&as, "as", "", "identity to record as approver/rejecter (default: your login name)")
	f.DurationVar(&wait, "wait", 31*time.Second, "how long to wait while another writer holds the journal's lock")
	return cmd
}

func newAnswerCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "answer PATH TEXT",
		Short: "Answer a Delta Engine run waiting for input (writes interaction/response.txt)",
		Long: `Answer the ask_human question a Delta Engine run waits on: TEXT is written to
<run>/interaction/response.txt atomically, exactly as for "delta continue". The journal
is not written; the engine appends the answer when it resumes.
Exit status: 0 written; 1 refused (not waiting, already answered); 2 usage or I/O error.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			if s.F.Name() != model.DeltaEngine {
				return usageErr("%s: answer is for Delta Engine runs; use approve or reject for %s journals", s.J.Path, s.F.Name())
			}
			w, err := app.Answer(s, "", args[1])
			return reportDecision(stdout, w, err)
		},
	}
}

func reportDecision(stdout io.Writer, w app.Written, err error) error {
	if err != nil {
		if app.Refused(err) {
			return refused("%v", err)
		}
		return usageErr("not written: %v", err)
	}
	if w.Offset < 0 {
		fmt.Fprintf(stdout, "answered: wrote %s\n", render.Line(w.Path))
		return nil
	}
	fmt.Fprintf(stdout, "written to %s at offset %d: %s\n", render.Line(w.Path), w.Offset, render.SafeJSON(w.Record))
	return nil
}
