package writer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/rewind-tui/rewind/internal/nodetest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/journal/lockfile"
)

// TestNodeInterop checks that Append and Node writers using
// proper-lockfile@4.1.2 (testdata/node_writer.js) exclude each other. It
// runs only with REWIND_NODE_TESTS=1, and then fails (never skips) if node,
// npm or the package install is unavailable.
func TestNodeInterop(t *testing.T) {
	node := nodetest.Node(t, "testdata/node_writer.js")
	if node == nil {
		return
	}

	t.Run("concurrent writers", func(t *testing.T) {
		const perWriter = 100
		p := journal(t, "")
		want := map[string]int{}
		start := time.Now()
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		for k := range 3 {
			id := fmt.Sprintf("node-%d", k)
			want[id] = perWriter
			cmds = append(cmds, node("append", p, id, fmt.Sprint(perWriter)))
		}
		for k := range 2 {
			id := fmt.Sprintf("go-%d", k)
			want[id] = perWriter
			cmds = append(cmds, helperCmd(t, "append", "REWIND_HELPER_FILE="+p, "REWIND_HELPER_ID="+id, fmt.Sprint("REWIND_HELPER_N=", perWriter)))
		}
		for _, c := range cmds {
			var b strings.Builder
			c.Stdout, c.Stderr = &b, &b
			outs = append(outs, &b)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Errorf("%v: %v\n%s", c.Args, err, outs[i])
			}
		}
		t.Logf("%d locked appends (3 Node + 2 Go processes) in %v", 5*perWriter, time.Since(start).Round(time.Millisecond))
		checkSeqJournal(t, p, want)
		assertNoLock(t, p)
	})

	t.Run("SIGKILLed Node holder", func(t *testing.T) {
		p := journal(t, firstLine)
		cmd := node("hold", p)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killed := false
		defer func() {
			if !killed {
				cmd.Process.Kill()
				cmd.Wait()
			}
		}()
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "locked\n" {
			t.Fatalf("node hold: %q, %v\n%s", line, err, stderr.String())
		}
		o := Options{Lock: lockfile.Options{Stale: 2 * time.Second}}

		// While Node is alive (and refreshing), Go cannot get in.
		before := snap(t, p)
		o.Lock.Wait = 500 * time.Millisecond
		_, err = Append(context.Background(), p, o, constBuild(rec))
		var he *lockfile.HeldError
		if !errors.As(err, &he) {
			t.Fatalf("Append while Node holds the lock: %v, want *lockfile.HeldError", err)
		}
		assertUnchanged(t, p, before)
		if held, _, err := lockfile.Check(p, o.Lock); !held || err != nil {
			t.Errorf("Check = %v, %v; want held", held, err)
		}

		// SIGKILL leaves the lock directory behind; Go takes it over once
		// it is Stale old.
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		killed = true
		if fi, err := os.Stat(p + ".lock"); err != nil || !fi.IsDir() {
			t.Fatalf("lock directory gone after SIGKILL: %v", err)
		}
		killedAt := time.Now()
		o.Lock.Wait = 10 * time.Second
		res, err := Append(context.Background(), p, o, constBuild(rec))
		if err != nil {
			t.Fatalf("Append after SIGKILL: %v", err)
		}
		waited := time.Since(killedAt)
		t.Logf("took over the dead Node lock %v after SIGKILL (Stale 2s)", waited.Round(time.Millisecond))
		if waited > 4*time.Second {
			t.Errorf("takeover took %v, want about Stale (2s) after the last refresh", waited)
		}
		if got, _ := os.ReadFile(p); string(got) != firstLine+rec+"\n" || res.Offset != int64(len(firstLine)) {
			t.Errorf("journal = %q, res = %+v", got, res)
		}
		assertNoLock(t, p)
	})

	t.Run("Node waits for Go", func(t *testing.T) {
		// Go holds the lock (through Append, inside build) while a Node
		// writer tries to append; Node must wait and its record come after.
		p := journal(t, "")
		var wg sync.WaitGroup
		var nodeErr error
		var nodeOut []byte
		_, err := Append(context.Background(), p, Options{}, func(size int64) ([]byte, error) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				nodeOut, nodeErr = node("append", p, "node-0", "1").CombinedOutput()
			}()
			time.Sleep(700 * time.Millisecond) // Node retries up to ~2.5 s
			return []byte(`{"writer":"go-0","n":0,"seq":1}`), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if nodeErr != nil {
			t.Fatalf("node: %v\n%s", nodeErr, nodeOut)
		}
		checkSeqJournal(t, p, map[string]int{"go-0": 1, "node-0": 1})
	})
}
