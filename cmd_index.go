package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/render"
)

func newIndexCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var replayToo bool
	cmd := &cobra.Command{
		Use:   "index PATH",
		Short: "Build the index of a journal, print counts and timings, and exit",
		Long: `Build the index of a journal (offset, length, type, seq or id and timestamp of
every record), print the counts and how long it took, and exit. With --replay, also
fold every event and build the keyframes, as the TUI does in the background. For
benchmarks: scripts/bench times this command against wc -l, jq and lnav.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t0 := time.Now()
			s, err := g.open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			indexed := time.Since(t0)
			recs, evs := s.J.Index.Counts()
			size := s.J.Size()
			fmt.Fprintf(stdout, "%s: %s, %s\n", render.Line(s.J.Path), s.F.Name(), journal.HumanBytes(size))
			fmt.Fprintf(stdout, "records %d, events %d, bad lines %d\n", recs, evs, recs-evs)
			fmt.Fprintf(stdout, "index %s (%.0f MB/s, %.0f events/s)\n", indexed.Round(time.Millisecond),
				float64(size)/1e6/indexed.Seconds(), float64(evs)/indexed.Seconds())
			if replayToo {
				t1 := time.Now()
				if err := s.R.Extend(cmd.Context(), nil); err != nil {
					return usageErr("%s: %v", s.J.Path, err)
				}
				if _, err := s.R.StateAt(evs); err != nil {
					return usageErr("%s: %v", s.J.Path, err)
				}
				d := time.Since(t1)
				fmt.Fprintf(stdout, "replay %s (%.0f MB/s), %d keyframes\n", d.Round(time.Millisecond),
					float64(size)/1e6/d.Seconds(), s.R.Keyframes()/s.R.K)
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Fprintf(stdout, "heap in use %s\n", journal.HumanBytes(int64(ms.HeapInuse)))
			return nil
		},
	}
	cmd.Flags().BoolVar(&replayToo, "replay", false, "also replay every event and build the keyframes")
	return cmd
}
