// Command rewind is a terminal UI for the append-only JSONL journals that
// AI-agent engines write (Delta Engine, Durable Stream, DeltaMind, and any
// JSONL of typed events): it tails a journal live, replays it through the
// engine's own fold to show the state at any point, and lets a human decide
// pending checkpoints. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/internal/gctune"
	"github.com/rewind-tui/rewind/internal/prefault"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model/formats"
	"github.com/rewind-tui/rewind/render"
)

// Exit statuses, for scripts.
const (
	exitOK      = 0
	exitRefused = 1 // a check failed, a decision was refused, --where never matched
	exitUsage   = 2 // a usage error, an unreadable path, an I/O error
)

// exitError carries an exit status with the message for stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, a...)}
}

func refused(format string, a ...any) error {
	return &exitError{exitRefused, fmt.Errorf(format, a...)}
}

// globalFlags are the flags every command shares.
type globalFlags struct {
	stderr    io.Writer // where progress goes, when it is a terminal
	format    string
	maxRecord int64
	debug     string
	as        string
}

func main() {
	if os.Getenv("GOGC") == "" {
		// The index is one pointer-free array the collector never scans,
		// and folds keep little, so a large live heap is collected at
		// GOGC 25 rather than the default's 100, which lets the heap grow
		// to twice what is live (1 GB Durable Stream, rewind index
		// --replay: peak RSS 370 MiB -> 199 MiB, same time). A small live
		// heap may grow to heapBudget first: at a fixed 25, a fold whose
		// live heap is 20 MB collected after every 5 MB it allocated
		// (rewind state of 1 GB of DeltaMind: 50 collections, now 23).
		// See BENCHMARKS.md.
		gctune.Start(heapBudget, gcPercent, 100)
	}
	stop := startProfiles(os.Getenv("REWIND_CPUPROFILE"), os.Getenv("REWIND_MEMPROFILE"))
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// startProfiles starts a CPU profile written to cpu and returns the
// function that stops it and writes a heap profile to mem, when these name
// files (REWIND_CPUPROFILE, REWIND_MEMPROFILE: for go tool pprof, see
// BENCHMARKS.md). A file that cannot be created is reported and skipped.
func startProfiles(cpu, mem string) (stop func()) {
	var f *os.File
	if cpu != "" {
		var err error
		if f, err = os.Create(cpu); err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "rewind: REWIND_CPUPROFILE:", err)
			f = nil
		}
	}
	return func() {
		if f != nil {
			pprof.StopCPUProfile()
			f.Close()
		}
		if mem == "" {
			return
		}
		m, err := os.Create(mem)
		if err == nil {
			err = pprof.WriteHeapProfile(m)
			m.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "rewind: REWIND_MEMPROFILE:", err)
		}
	}
}

// gcPercent is rewind's least GOGC unless the environment sets one, and
// heapBudget (bytes) the heap it lets grow to with a higher one, up to 100
// (see gctune).
const (
	gcPercent  = 25
	heapBudget = 80 << 20
)

// interruptGrace is how long a command has, after SIGINT or SIGTERM, to
// stop on its own before rewind exits anyway: the commands that watch
// their context use it to restore the terminal (the TUI), let go of the
// lock (decide) or stop following (tail); the others (state, blame, …)
// would run on to their end.
const interruptGrace = 2 * time.Second

func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go exitOnSignal(sigs, cancel, done)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if !errors.Is(err, errQuiet) {
		fmt.Fprintln(stderr, "rewind: "+render.Line(err.Error()))
	}
	return code
}

// exitOnSignal cancels the command's context on the first signal from
// sigs, then exits the process with 128 + the signal's number (130 for
// SIGINT, 143 for SIGTERM, as a shell reports a process the signal
// killed) when the command has not returned (done) after interruptGrace,
// or at once on a second signal.
func exitOnSignal(sigs <-chan os.Signal, cancel func(), done <-chan struct{}) {
	var sig os.Signal
	select {
	case sig = <-sigs:
	case <-done:
		return
	}
	cancel()
	select {
	case <-sigs:
	case <-time.After(interruptGrace):
	case <-done:
		return
	}
	code := 130
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	os.Exit(code)
}

// errQuiet is returned when the message was printed already.
var errQuiet = errors.New("")

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globalFlags{stderr: stderr}
	root := &cobra.Command{
		Use:   "rewind [PATH]",
		Short: "Inspect, replay and decide on AI-agent journals",
		Long: `rewind opens an agent journal (Delta Engine .delta/<run>/journal.jsonl,
Durable Stream .opencode/durable_stream.jsonl, DeltaMind .deltamind/provenance.jsonl,
or any JSONL of typed events), replays it through the engine's own fold, and lets you
scrub through its history: timeline, state and Markdown projection.

PATH is a journal file or a directory holding one; without PATH, rewind looks in the
working directory and its parents for .delta/, .deltamind/ or .opencode/.
Press ? in the TUI for keys.`,
		Args:          cobra.MaximumNArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			return runTUI(cmd.Context(), g, path, tuiOptions{as: g.as})
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v (see rewind --help)", err) })
	pf := root.PersistentFlags()
	pf.StringVar(&g.format, "format", "", "override format detection: "+strings.Join(formats.Names(), ", "))
	pf.Int64Var(&g.maxRecord, "max-record", journal.DefaultMaxRecord, "longest line read as a record, in bytes; longer ones are skipped and marked")
	pf.StringVar(&g.debug, "debug", "", "log every UI message to this file")
	root.Flags().StringVar(&g.as, "as", "", "identity written with decisions made in the TUI (default: your login name)")
	root.AddCommand(
		newDemoCmd(g),
		newStateCmd(g, stdout),
		newRenderCmd(g, stdout),
		newEventsCmd(g, stdout),
		newPendingCmd(g, stdout),
		newDecideCmd(g, stdout, true),
		newDecideCmd(g, stdout, false),
		newAnswerCmd(g, stdout),
		newVerifyCmd(g, stdout),
		newTailCmd(g, stdout, stderr),
		newDiffCmd(g, stdout),
		newBlameCmd(g, stdout),
		newForkCmd(g, stdout),
		newIndexCmd(g, stdout),
	)
	return root
}

// open resolves and opens PATH for a headless command, mapping failures to
// exit status 2 with the path and the cause.
func (g *globalFlags) open(path string) (*app.Session, error) {
	return g.openPrefix(path, 0)
}

// openPrefix is open indexing only the first prefix bytes (see
// app.Options.Prefix); 0 indexes the whole journal.
//
// A large journal read whole is read after its first MiB with progress on
// stderr (startProgress), which is erased before open returns.
func (g *globalFlags) openPrefix(path string, prefix int64) (*app.Session, error) {
	t, err := app.Resolve(path)
	if err != nil {
		return nil, usageErr("%s", describeOpenError(path, err))
	}
	whole := false
	if st, err := os.Stat(t.Journal); err == nil && prefix == 0 {
		growingHeap(st.Size())
		if showsProgress(g.stderr, st.Size()) {
			whole, prefix = true, foldPrefix
		}
	}
	s, err := app.Open(t, app.Options{Format: g.format, MaxRecord: g.maxRecord, Prefix: prefix})
	if err != nil {
		return nil, usageErr("%s", describeOpenError(path, err))
	}
	if whole {
		return g.readThrough(s, path, -1, 0)
	}
	return s, nil
}

// readThrough indexes s's journal until it holds event at (at < 0: to its
// end), step bytes at a time (step <= 0: at once; journal.UpdateThrough),
// with progress on stderr when it is a terminal and the journal large,
// and then settles a format guessed from an empty prefix. It closes s
// when the journal cannot be read.
func (g *globalFlags) readThrough(s *app.Session, path string, at int, step int64) (*app.Session, error) {
	err := g.withProgress(s, func() error {
		st, err := s.J.File().Stat()
		if err != nil {
			return err
		}
		return s.J.UpdateThrough(st.Size(), step, at)
	})
	if err != nil {
		s.Close()
		return nil, usageErr("%s", describeOpenError(path, err))
	}
	s.Redetect()
	return s, nil
}

// withProgress runs read, which reads the rest of s's journal, with
// progress on stderr when it is a terminal and the journal is large.
func (g *globalFlags) withProgress(s *app.Session, read func() error) error {
	return g.withLine(s, func(size int64) func(time.Duration) string {
		return readingLine(s.J.Path, size, func() (int64, int) {
			_, evs := s.J.Index.Counts()
			return s.J.Index.Consumed(), evs
		})
	}, read)
}

// withLine runs work with the progress line that text makes (given the
// journal's size in bytes) on stderr, when it is a terminal and s's
// journal is large (startProgress).
func (g *globalFlags) withLine(s *app.Session, text func(size int64) func(time.Duration) string, work func() error) error {
	st, err := s.J.File().Stat()
	if err != nil {
		return err
	}
	p := startProgress(g.stderr, st.Size(), time.Now(), text(st.Size()))
	defer p.End()
	return work()
}

// openLast opens path for a one-shot command that wants the state after
// the last event: it folds while it indexes (app.FoldWhileIndexing), which
// on two cores takes about as long as indexing alone.
func (g *globalFlags) openLast(path string) (*app.Session, error) {
	return g.openThrough(path, -1, 0)
}

// openThrough is openLast for the state after event at (at >= 0), which
// is then the replay's tip: the journal is indexed and folded only until
// event at, step bytes (eventsStep) at a time after its first MiB
// (app.FoldWhileIndexingThrough), so that rewind state --at 1000 of a
// large journal reads its start only. A journal of fewer events is read
// whole, for resolveAt to say how many it has.
func (g *globalFlags) openThrough(path string, at int, step int64) (*app.Session, error) {
	s, err := g.openPrefix(path, foldPrefix)
	if err != nil {
		return nil, err
	}
	if at < 0 {
		if st, err := s.J.File().Stat(); err == nil {
			growingHeap(st.Size())
		}
	}
	s.R.OneShot()
	if err := g.withProgress(s, func() error { return s.FoldWhileIndexingThrough(at, step) }); err != nil {
		s.Close()
		return nil, usageErr("%s", describeOpenError(path, err))
	}
	return s, nil
}

// openIndexedThrough is open for a command that reads the journal by
// position up to event at (at >= 0) only (rewind diff A B): it indexes
// the journal until event at is indexed, step bytes (eventsStep) at a
// time after its first MiB, and no further. A journal of fewer events is
// read whole, for resolveAt to say how many it has.
func (g *globalFlags) openIndexedThrough(path string, at int, step int64) (*app.Session, error) {
	s, err := g.openPrefix(path, foldPrefix)
	if err != nil {
		return nil, err
	}
	return g.readThrough(s, path, at, step)
}

// growingHeap asks for huge pages for the heap a headless command is about
// to grow reading the whole of a journal of size bytes, when it is
// hugeHeapFrom or more (prefault.HugeHeap): an eighth of the journal's
// size, 32 to 512 MiB of address space (the index and a fold's state are
// a tenth or less). 1 GB, side by side: rewind state of Durable Stream
// 1091 -> 947 ms, Delta Engine 1580 -> 1485 ms, DeltaMind 2829 -> 2703
// ms; peak RSS 0 to 11 MB more (BENCHMARKS.md, session 38). Not for a
// command that reads the start of a journal (rewind events, state --at
// N): the collection and the first huge pages' zeroing cost it 3 ms.
func growingHeap(size int64) {
	if size >= hugeHeapFrom {
		prefault.HugeHeap(int(min(max(size/8, 32<<20), 512<<20)))
	}
}

const hugeHeapFrom = 64 << 20

// foldPrefix is how much of the journal openLast indexes before it starts
// folding: enough to detect the format.
const foldPrefix = 1 << 20

func describeOpenError(path string, err error) string {
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s: no such file or directory", pe.Path)
	case errors.As(err, &pe) && errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s: permission denied (check the file's mode)", pe.Path)
	case errors.As(err, &pe):
		return fmt.Sprintf("%s: %v", pe.Path, pe.Err)
	}
	if path == "" {
		return err.Error()
	}
	if strings.Contains(err.Error(), path) {
		return err.Error()
	}
	return fmt.Sprintf("%s: %v", path, err)
}
