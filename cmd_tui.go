package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/demo"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/journal/tail"
	"github.com/rewind-tui/rewind/keymap"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/tui"
)

type tuiOptions struct {
	as string
}

// runTUI opens PATH (or searches for a journal) and runs the UI until the
// user quits.
func runTUI(ctx context.Context, g *globalFlags, path string, o tuiOptions) error {
	t, err := journal.Locate(path)
	if err != nil {
		// A journal file that does not exist yet, in a directory that does:
		// wait for it, like tail -F.
		if errors.Is(err, fs.ErrNotExist) && path != "" && strings.HasSuffix(path, ".jsonl") && isDir(filepath.Dir(path)) {
			t = journal.Target{Journal: path}
		} else {
			return usageErr("%s", describeOpenError(path, err))
		}
	}
	return runTUITarget(ctx, g, t, o)
}

// initialIndex is how much of a journal the TUI indexes before its first
// screen: a few milliseconds of indexing, and a fold of its events that
// fits the first frame. 4 MiB until session 30: the first state's fold was
// then 13,800 events of DeltaMind, 15-25 ms of the first screen (1 MiB:
// 3-8 ms; scripts/first-screen on 1 GB, eight runs alternated, medians
// DeltaMind 146 -> 143 ms, Durable Stream 160 -> 122, Delta Engine 129 ->
// 128).
const initialIndex = 1 << 20

// initialHold is the longest the rest of a large journal waits to be
// indexed while the first screen is drawn (the TUI says when it is up,
// usually sooner: tui.Options.FirstFrame). Drawing it beside two indexing
// workers took 106-128 ms (medians, 2 GB journals) against 84-90 ms.
const initialHold = 300 * time.Millisecond

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func runTUITarget(ctx context.Context, g *globalFlags, t journal.Target, o tuiOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := app.Options{Format: g.format, MaxRecord: g.maxRecord}
	var sess *app.Session
	var updates <-chan tail.Update
	var resume func()
	fold := new(app.LiveFold)
	if t.Journal != "" {
		// Index the first few MiB before the first screen and the rest in
		// the background, with a progress bar: a 1 GB journal opens at once.
		f, err := tail.Follow(ctx, t.Journal, tail.Options{MaxRecord: g.maxRecord, Initial: initialIndex, Hold: initialHold,
			Each: fold.Each, Prepare: fold.Prepare})
		if err != nil {
			return usageErr("%s", describeOpenError(t.Journal, err))
		}
		defer f.Close()
		updates, resume = f.Updates(), f.Resume
		if j := f.Journal(); j != nil {
			s, err := app.FromJournal(t, j, opts)
			if err != nil {
				return usageErr("%s", describeOpenError(t.Journal, err))
			}
			sess = s
		}
	}
	// Decide dark or light once, before the program starts: querying the
	// terminal later would turn its reply into key presses.
	dark := true
	if term.IsTerminal(os.Stdout.Fd()) {
		dark = lipgloss.HasDarkBackground(os.Stdin, os.Stdout)
	}
	var dbg io.Writer
	if g.debug != "" {
		f, err := os.OpenFile(g.debug, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return usageErr("--debug %s: %v", g.debug, err)
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		defer bw.Flush()
		dbg = bw
	}
	m := tui.New(t, sess, tui.Options{
		Dark:  dark,
		Keys:  keymap.Default(),
		As:    identity(o.as),
		Debug: dbg,
		Open: func(t journal.Target) (*app.Session, error) {
			return app.Open(t, opts)
		},
		Session: func(t journal.Target, j *journal.Journal) (*app.Session, error) {
			return app.FromJournal(t, j, opts)
		},
		Updates:    updates,
		FirstFrame: resume,
		Fold:       fold,
	})
	// The color profile is lipgloss's, detected once at its start for
	// stdout: Bubble Tea would detect it again, and in tmux that runs
	// "tmux info", 5-15 ms before the first screen.
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithColorProfile(lipgloss.Writer.Profile))
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}

// identity is the name written with decisions: --as, else the login name.
func identity(as string) string {
	if as != "" {
		return as
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if n := os.Getenv("USER"); n != "" {
		return n
	}
	return "user"
}

func newDemoCmd(g *globalFlags) *cobra.Command {
	var out, format string
	var events int
	var seed int64
	var interval time.Duration
	var as string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Open the TUI on a simulated agent run (no files or network needed)",
		Long: `Start a simulated agent run that appends realistic events to a journal in a
temporary directory, a few per second, including a checkpoint that waits for your
decision, and open the TUI on it. The directory is removed when you quit.

With --out FILE --events N, write N events of --format as fast as possible to FILE
and exit (a generator for large journals).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out != "" {
				if events <= 0 {
					return usageErr("--out needs --events N (N > 0)")
				}
				return generate(out, format, events, seed)
			}
			dir, err := os.MkdirTemp("", "rewind-demo-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			path, err := demo.Run(ctx, dir, demo.Options{Interval: interval, Seed: seed, Format: format})
			if err != nil {
				return err
			}
			t, err := journal.Locate(path)
			if err != nil {
				return err
			}
			if format == model.DeltaEngine {
				t = app.RunTarget(filepath.Dir(filepath.Dir(path)), filepath.Dir(path))
			}
			return runTUITarget(ctx, g, t, tuiOptions{as: as})
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "write a generated journal to FILE and exit")
	f.IntVar(&events, "events", 0, "with --out: the number of events")
	f.StringVar(&format, "format", model.DurableStream, "simulated format: durable-stream, delta-engine or deltamind")
	f.Int64Var(&seed, "seed", 1, "random seed, for repeatable runs")
	f.DurationVar(&interval, "interval", 400*time.Millisecond, "time between simulated events")
	f.StringVar(&as, "as", "", "identity written with your decisions (default: your login name)")
	return cmd
}

func generate(out, format string, n int, seed int64) error {
	f, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return usageErr("%v (rewind demo --out never overwrites a file)", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := demo.Generate(w, format, n, seed); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
