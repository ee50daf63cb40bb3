package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/render"
)

func newIndexCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var replayToo bool
	var seeks int
	cmd := &cobra.Command{
		Use:   "index PATH",
		Short: "Build the index of a journal, print counts and timings, and exit",
		Long: `Build the index of a journal (offset, length, type, seq or id and timestamp of
every record), print the counts and how long it took, and exit. With --replay, also
fold every event and build the keyframes, as the TUI does in the background. With
--seek N, then ask for the state at N random positions (what scrubbing the timeline
does) and print the latency percentiles. For benchmarks: scripts/bench times this
command against wc -l, jq and lnav.`,
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
			if seeks > 0 {
				replayToo = true
			}
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
			if seeks > 0 && evs > 0 {
				rng := rand.New(rand.NewPCG(1, 2))
				lat := make([]time.Duration, seeks)
				for i := range lat {
					p := rng.IntN(evs) + 1
					t := time.Now()
					if _, err := s.R.StateAt(p); err != nil {
						return usageErr("%s: %v", s.J.Path, err)
					}
					lat[i] = time.Since(t)
				}
				slices.Sort(lat)
				ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) }
				fmt.Fprintf(stdout, "seek %d random positions: p50 %s ms, p99 %s ms, max %s ms\n", seeks,
					ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), ms(lat[len(lat)-1]))
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Fprintf(stdout, "heap in use %s\n", journal.HumanBytes(int64(ms.HeapInuse)))
			return nil
		},
	}
	cmd.Flags().BoolVar(&replayToo, "replay", false, "also replay every event and build the keyframes")
	cmd.Flags().IntVar(&seeks, "seek", 0, "then time the state at `N` random positions (implies --replay)")
	return cmd
}
