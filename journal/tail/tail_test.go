package tail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
)

// deadline is how long a test waits for the index to converge.
const deadline = 3 * time.Second

// harness runs a Follower on a real file and collects its updates.
type harness struct {
	t    *testing.T
	f    *Follower
	path string
	ups  []Update
}

func follow(t *testing.T, path string, o Options) *harness {
	t.Helper()
	f, err := Follow(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &harness{t: t, f: f, path: path}
}

// until reads updates until cond holds, failing the test after deadline.
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	end := time.After(deadline)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case u, ok := <-h.f.Updates():
			if !ok {
				h.t.Fatalf("updates closed while waiting for %s", what)
			}
			h.ups = append(h.ups, u)
		case <-tick.C:
		case <-end:
			h.t.Fatalf("no %s within %v; records %v; updates:\n%s", what, deadline, keys(h.f.Journal()), h.log())
		}
	}
}

// drain collects the updates that arrive within d.
func (h *harness) drain(d time.Duration) {
	end := time.After(d)
	for {
		select {
		case u := <-h.f.Updates():
			h.ups = append(h.ups, u)
		case <-end:
			return
		}
	}
}

// converge waits until the journal followed holds exactly want (type/key
// of each record), then checks that it stays so (no late duplicates).
func (h *harness) converge(want ...string) *journal.Journal {
	h.t.Helper()
	h.until(fmt.Sprintf("%d records", len(want)), func() bool {
		return reflect.DeepEqual(keys(h.f.Journal()), want)
	})
	h.drain(50 * time.Millisecond)
	if got := keys(h.f.Journal()); !reflect.DeepEqual(got, want) {
		h.t.Fatalf("records changed after converging:\n got %v\nwant %v\nupdates:\n%s", got, want, h.log())
	}
	return h.f.Journal()
}

// saw returns the updates of kind k collected so far.
func (h *harness) saw(k Kind) []Update {
	var out []Update
	for _, u := range h.ups {
		if u.Kind == k {
			out = append(out, u)
		}
	}
	return out
}

func (h *harness) waitKind(k Kind) Update {
	h.t.Helper()
	h.until(k.String()+" update", func() bool { return len(h.saw(k)) > 0 })
	return h.saw(k)[0]
}

func (h *harness) log() string {
	var b strings.Builder
	for _, u := range h.ups {
		n := -1
		if u.J != nil {
			n, _ = u.J.Index.Counts()
		}
		fmt.Fprintf(&b, "  %-8s added=%d records=%d %q %v\n", u.Kind, u.Added, n, u.Notice, u.Err)
	}
	return b.String()
}

// keys returns "type/key" for each record of j.
func keys(j *journal.Journal) []string {
	out := []string{}
	if j == nil {
		return out
	}
	for _, r := range j.Index.Records().All(0) {
		if r.Problem.Bad() {
			out = append(out, "bad:"+r.Problem.String())
			continue
		}
		out = append(out, r.Type()+"/"+j.Key(r))
	}
	return out
}

func line(typ, key string) string {
	return fmt.Sprintf(`{"type":%q,"id":%q,"actor":"system","payload":{}}`+"\n", typ, key)
}

// lines returns n lines of type typ with keys prefix1..prefixN, and their
// type/key strings.
func lines(typ, prefix string, n int) (string, []string) {
	var b strings.Builder
	var ks []string
	for i := 1; i <= n; i++ {
		k := fmt.Sprintf("%s%d", prefix, i)
		b.WriteString(line(typ, k))
		ks = append(ks, typ+"/"+k)
	}
	return b.String(), ks
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// appendTo appends s to path in one write(2) on an O_APPEND fd.
func appendTo(t testing.TB, path, s string) {
	t.Helper()
	fd, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fd.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := fd.Close(); err != nil {
		t.Fatal(err)
	}
}

func journalPath(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "journal.jsonl")
	if content != "\x00none" {
		write(t, p, content)
	}
	return p
}

func noKind(t *testing.T, h *harness, kinds ...Kind) {
	t.Helper()
	for _, k := range kinds {
		if len(h.saw(k)) > 0 {
			t.Errorf("unexpected %s update; updates:\n%s", k, h.log())
		}
	}
}

func TestAppendOneLine(t *testing.T) {
	old, ks := lines("a", "k", 2)
	p := journalPath(t, old)
	h := follow(t, p, Options{})
	j := h.f.Journal()
	if got := keys(j); !reflect.DeepEqual(got, ks) {
		t.Fatalf("initial records %v, want %v", got, ks)
	}
	appendTo(t, p, line("b", "k3"))
	if h.converge(append(ks, "b/k3")...) != j {
		t.Error("the journal changed on a plain append")
	}
	if a := h.saw(Appended); len(a) != 1 || a[0].Added != 1 || a[0].J != j {
		t.Errorf("want one Appended of 1 record; updates:\n%s", h.log())
	}
	noKind(t, h, Reset, Rotated, Appeared, Deleted, Error)
}

func TestAppendThousandInOneWrite(t *testing.T) {
	p := journalPath(t, "")
	h := follow(t, p, Options{})
	s, ks := lines("a", "k", 1000)
	appendTo(t, p, s)
	h.converge(ks...)
	noKind(t, h, Reset, Error)
}

func TestAppendHugeLine(t *testing.T) {
	p := journalPath(t, line("a", "k1"))
	h := follow(t, p, Options{})
	big := `{"type":"big","id":"b1","payload":{"text":"` + strings.Repeat("x", 5<<20) + `"}}` + "\n"
	appendTo(t, p, big+line("a", "k2"))
	j := h.converge("a/k1", "big/b1", "a/k2")
	if r := j.Index.Records().At(1); r.Len != int64(len(big)-1) || r.Problem.Bad() {
		t.Errorf("big record %+v", r)
	}
	noKind(t, h, Reset, Error)
}

func TestLineInPieces(t *testing.T) {
	p := journalPath(t, line("a", "k1"))
	h := follow(t, p, Options{Stale: 200 * time.Millisecond})
	full := line("piece", "p1")
	parts := []string{full[:10], full[10:30], full[30:]}
	for i, part := range parts {
		appendTo(t, p, part)
		if i < len(parts)-1 {
			h.drain(300 * time.Millisecond)
			if got := keys(h.f.Journal()); !reflect.DeepEqual(got, []string{"a/k1"}) {
				t.Fatalf("after piece %d: records %v, want only a/k1", i+1, got)
			}
		}
	}
	h.converge("a/k1", "piece/p1")
	w := h.saw(Writing)
	if len(w) != 1 {
		t.Fatalf("want 1 Writing update, got %d; updates:\n%s", len(w), h.log())
	}
	// Under load the report may come after the second piece.
	if !strings.Contains(w[0].Notice, "10 B at offset 53") && !strings.Contains(w[0].Notice, "30 B at offset 53") {
		t.Errorf("Writing notice %q does not give the size and offset of the incomplete line", w[0].Notice)
	}
	noKind(t, h, Reset, Error)
}

func TestWaitingThenAppeared(t *testing.T) {
	p := journalPath(t, "\x00none")
	h := follow(t, p, Options{})
	if h.f.Journal() != nil {
		t.Fatal("a journal before the file exists")
	}
	u := h.waitKind(Waiting)
	if u.J != nil || !strings.Contains(u.Notice, "journal.jsonl") {
		t.Errorf("Waiting update %+v", u)
	}
	s, ks := lines("a", "k", 2)
	write(t, p, s)
	j := h.converge(ks...)
	a := h.saw(Appeared)
	if len(a) != 1 || a[0].J != j {
		t.Errorf("want one Appeared carrying the journal; updates:\n%s", h.log())
	}
}

func TestDeletedAndRecreated(t *testing.T) {
	s, ks := lines("a", "k", 2)
	p := journalPath(t, s)
	h := follow(t, p, Options{})
	j := h.f.Journal()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	u := h.waitKind(Deleted)
	if u.J != j || !strings.Contains(u.Notice, "deleted") {
		t.Errorf("Deleted update %+v", u)
	}
	if got := keys(h.f.Journal()); h.f.Journal() != j || !reflect.DeepEqual(got, ks) {
		t.Errorf("after deletion: records %v, want the old ones %v", got, ks)
	}
	noKind(t, h, Reset)
	write(t, p, line("new", "n1"))
	nj := h.converge("new/n1")
	if nj == j {
		t.Error("recreated file read into the old journal")
	}
	if a := h.saw(Appeared); len(a) != 1 || a[0].J != nj {
		t.Errorf("want one Appeared; updates:\n%s", h.log())
	}
	if got := keys(j); !reflect.DeepEqual(got, ks) {
		t.Errorf("old journal's records changed: %v", got)
	}
}

func TestTruncateToZeroAndRegrow(t *testing.T) {
	s, _ := lines("a", "k", 3)
	p := journalPath(t, s)
	h := follow(t, p, Options{})
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	u := h.waitKind(Reset)
	if !strings.Contains(u.Notice, fmt.Sprintf("truncated (was %d B)", len(s))) {
		t.Errorf("Reset notice %q", u.Notice)
	}
	s2, ks2 := lines("b", "n", 2)
	appendTo(t, p, s2)
	h.converge(ks2...)
}

// TestTruncateRegrowBetweenChecks pauses the Follower while the file is
// truncated and rewritten longer than before: only the fingerprint can tell.
func TestTruncateRegrowBetweenChecks(t *testing.T) {
	s, _ := lines("a", "k", 3)
	p := journalPath(t, s)
	h := follow(t, p, Options{Poll: time.Hour})
	j := h.f.Journal()
	h.f.hold.Lock()
	s2, ks2 := lines("b", "n", 5)
	write(t, p, s2) // O_TRUNC, then one write: same inode, larger
	h.f.hold.Unlock()
	h.converge(ks2...)
	u := h.saw(Reset)
	if len(u) != 1 || u[0].J == j || !strings.Contains(u[0].Notice, "modified in place") {
		t.Errorf("want one Reset for an in-place modification; updates:\n%s", h.log())
	}
}

func TestRewriteSameSize(t *testing.T) {
	s, _ := lines("a", "k", 3)
	p := journalPath(t, s)
	h := follow(t, p, Options{})
	j := h.f.Journal()
	s2, ks2 := lines("b", "k", 3)
	if len(s2) != len(s) {
		t.Fatal("test lines differ in size")
	}
	fd, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fd.WriteAt([]byte(s2), 0); err != nil {
		t.Fatal(err)
	}
	fd.Close()
	nj := h.converge(ks2...)
	if nj == j {
		t.Error("same journal after an in-place rewrite")
	}
	if u := h.saw(Reset); len(u) != 1 || !strings.Contains(u[0].Notice, "modified in place") {
		t.Errorf("want one Reset; updates:\n%s", h.log())
	}
}

// TestRotation renames the journal away as Durable Stream does, with a
// record appended just before the rename and one appended through a file
// descriptor still open on the old file just after it.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "durable_stream.jsonl")
	s, ks := lines("a", "k", 2)
	write(t, p, s)
	h := follow(t, p, Options{})
	old := h.f.Journal()
	held, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	appendTo(t, p, line("a", "k3"))
	rotated := filepath.Join(dir, "durable_stream_2026-11-20.jsonl")
	if err := os.Rename(p, rotated); err != nil {
		t.Fatal(err)
	}
	if _, err := held.WriteString(line("a", "k4")); err != nil {
		t.Fatal(err)
	}
	s2, ks2 := lines("b", "n", 2)
	write(t, p, s2)
	nj := h.converge(ks2...)
	if got, want := keys(old), append(ks, "a/k3", "a/k4"); !reflect.DeepEqual(got, want) {
		t.Errorf("old journal ends with %v, want %v", got, want)
	}
	r := h.saw(Rotated)
	if len(r) != 1 || r[0].J != nj || r[0].Notice != "journal rotated to durable_stream_2026-11-20.jsonl: following the new file" {
		t.Errorf("want one Rotated; updates:\n%s", h.log())
	}
	noKind(t, h, Reset, Deleted, Error)
}

// TestRotationLater: the size rotation renames the file after an append;
// the next file is only created by the next append.
func TestRotationLater(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "durable_stream.jsonl")
	s, ks := lines("a", "k", 2)
	write(t, p, s)
	h := follow(t, p, Options{})
	old := h.f.Journal()
	if err := os.Rename(p, filepath.Join(dir, "durable_stream_1795300146798.jsonl")); err != nil {
		t.Fatal(err)
	}
	u := h.waitKind(Waiting)
	if u.J != old || !strings.Contains(u.Notice, "rotated to durable_stream_1795300146798.jsonl") {
		t.Errorf("Waiting update %+v", u)
	}
	if got := keys(h.f.Journal()); !reflect.DeepEqual(got, ks) {
		t.Errorf("records while waiting: %v", got)
	}
	appendTo(t, p, line("b", "n1"))
	h.converge("b/n1")
	if len(h.saw(Rotated)) != 1 {
		t.Errorf("want one Rotated; updates:\n%s", h.log())
	}
}

func TestEditorSave(t *testing.T) {
	s, _ := lines("a", "k", 3)
	p := journalPath(t, s)
	h := follow(t, p, Options{})
	j := h.f.Journal()
	s2, ks2 := lines("b", "n", 2)
	tmp := p + ".swp"
	write(t, tmp, s2)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	nj := h.converge(ks2...)
	u := h.saw(Reset)
	if nj == j || len(u) != 1 || !strings.Contains(u[0].Notice, "replaced by another program (new inode)") {
		t.Errorf("want one Reset for a replacement; updates:\n%s", h.log())
	}
}

// TestDeltaMindSave rewrites the whole file with its old lines plus new
// ones, as DeltaMind's saveSession does, several times, both in place
// (writeFileSync) and through a temporary file renamed over it.
func TestDeltaMindSave(t *testing.T) {
	for _, viaRename := range []bool{false, true} {
		t.Run(fmt.Sprintf("rename=%v", viaRename), func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "provenance.jsonl")
			content, want := lines("delta", "d", 3)
			write(t, p, content)
			h := follow(t, p, Options{})
			for save := 1; save <= 5; save++ {
				more, ks := lines("delta", fmt.Sprintf("s%d.", save), 2)
				content += more
				want = append(want, ks...)
				if viaRename {
					write(t, p+".tmp", content)
					if err := os.Rename(p+".tmp", p); err != nil {
						t.Fatal(err)
					}
				} else {
					write(t, p, content)
				}
				h.converge(want...)
			}
			if viaRename {
				for _, u := range h.saw(Reset) {
					if !strings.Contains(u.Notice, "rewritten whole") {
						t.Errorf("Reset notice %q", u.Notice)
					}
				}
			}
			t.Logf("updates:\n%s", h.log())
		})
	}
}

func TestBurst(t *testing.T) {
	p := journalPath(t, "")
	h := follow(t, p, Options{})
	fd, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 1; i <= 10000; i++ {
		k := fmt.Sprint(i)
		if _, err := fd.WriteString(line("e", k)); err != nil {
			t.Fatal(err)
		}
		want = append(want, "e/"+k)
	}
	fd.Close()
	h.converge(want...)
	added := 0
	for _, u := range h.ups {
		if u.Kind != Appended {
			t.Errorf("unexpected update %s %q", u.Kind, u.Notice)
		}
		added += u.Added
	}
	if added != 10000 || len(h.ups) > 5 {
		t.Errorf("%d updates adding %d records, want a handful adding 10000", len(h.ups), added)
	}
	t.Logf("10,000 appends arrived in %d updates", len(h.ups))
}

// TestBurstWhileReading reads updates while the burst is written: every
// update then carries what one check found, and none is lost.
func TestBurstWhileReading(t *testing.T) {
	p := journalPath(t, "")
	h := follow(t, p, Options{})
	var want []string
	for i := 1; i <= 10000; i++ {
		want = append(want, "e/"+fmt.Sprint(i))
	}
	go func() {
		fd, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		for i := 1; i <= 10000; i++ {
			fd.WriteString(line("e", fmt.Sprint(i)))
		}
		fd.Close()
	}()
	h.converge(want...)
	added := 0
	for _, u := range h.ups {
		added += u.Added
	}
	if added != 10000 {
		t.Errorf("updates add up to %d records", added)
	}
	t.Logf("10,000 appends read concurrently arrived in %d updates", len(h.ups))
}

func TestChmodOnly(t *testing.T) {
	s, ks := lines("a", "k", 2)
	p := journalPath(t, s)
	h := follow(t, p, Options{Poll: 50 * time.Millisecond})
	j := h.f.Journal()
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	h.drain(300 * time.Millisecond)
	if len(h.ups) != 0 || h.f.Journal() != j || !reflect.DeepEqual(keys(j), ks) {
		t.Errorf("chmod changed something; updates:\n%s", h.log())
	}
}

func TestPollingOnly(t *testing.T) {
	s, ks := lines("a", "k", 2)
	p := journalPath(t, s)
	h := follow(t, p, Options{Poll: 50 * time.Millisecond, noWatch: true})
	u := h.waitKind(Error)
	if !strings.Contains(u.Notice, "checking every 50ms") {
		t.Errorf("notice %q", u.Notice)
	}
	appendTo(t, p, line("b", "k3"))
	h.converge(append(ks, "b/k3")...)
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, p, line("c", "n1"))
	h.converge("c/n1")
}

// TestSymlink follows a journal through a symbolic link in another
// directory: the real parent is watched.
func TestSymlink(t *testing.T) {
	s, ks := lines("a", "k", 1)
	real := journalPath(t, s)
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	h := follow(t, link, Options{Poll: time.Hour})
	appendTo(t, real, line("b", "k2"))
	h.converge(append(ks, "b/k2")...)
}

// TestJournalsClosed checks that superseded journals are closed once the
// caller has moved two journals on, and the current one never is.
func TestJournalsClosed(t *testing.T) {
	p := journalPath(t, line("a", "k1"))
	h := follow(t, p, Options{})
	first := h.f.Journal()
	for i := 0; i < 4; i++ {
		write(t, p, line("b", fmt.Sprint(i))) // a different first line each time: Reset
		h.converge("b/" + fmt.Sprint(i))
	}
	if _, err := first.File().Stat(); err == nil {
		t.Error("first journal still open after four resets")
	}
	if _, err := h.f.Journal().File().Stat(); err != nil {
		t.Errorf("current journal: %v", err)
	}
	h.f.mu.Lock()
	n := len(h.f.open)
	h.f.mu.Unlock()
	if n > 3 {
		t.Errorf("%d journals open", n)
	}
}

func TestCloseStops(t *testing.T) {
	p := journalPath(t, line("a", "k1"))
	f, err := Follow(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-f.Updates(); ok {
		t.Error("Updates not closed after Close")
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := Follow(context.Background(), t.TempDir(), Options{}); err == nil {
		t.Error("following a directory did not fail")
	}
}

// TestDirectoryRenamed renames the journal's directory away (inotify then
// reports nothing more) and creates a new one with a new journal: the
// periodic check re-adds the watch and follows the new file.
func TestDirectoryRenamed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "journal.jsonl")
	s, ks := lines("a", "k", 2)
	write(t, p, s)
	h := follow(t, p, Options{Poll: 100 * time.Millisecond})
	old := h.f.Journal()
	if err := os.Rename(dir, filepath.Join(root, "run.old")); err != nil {
		t.Fatal(err)
	}
	h.waitKind(Waiting)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, p, line("b", "n1"))
	h.converge("b/n1")
	if got := keys(old); !reflect.DeepEqual(got, ks) {
		t.Errorf("old journal: %v", got)
	}
	start := time.Now()
	appendTo(t, p, line("b", "n2"))
	h.converge("b/n1", "b/n2")
	t.Logf("append seen after %v; updates:\n%s", time.Since(start), h.log())
}

// A large journal opened with Initial shows its first lines at once and
// is indexed on in steps, reported with their progress (updates the reader
// has not taken yet are merged), to the same records a whole Open gives;
// appends during the catch-up are not lost.
func TestInitialThenCatchUpInSteps(t *testing.T) {
	s, ks := lines("a", "k", 3000)
	p := journalPath(t, s)
	// Held until Resume, so that what Follow returned with is read before
	// the catch-up starts: without Hold, a fast machine indexed all 3000
	// records before the test looked.
	h := follow(t, p, Options{Initial: 4096, Step: 16 << 10, Hold: time.Hour})
	first := keys(h.f.Journal())
	if len(first) == 0 || len(first) >= len(ks) || !reflect.DeepEqual(first, ks[:len(first)]) {
		t.Fatalf("Follow returned with %d of %d records; want a prefix", len(first), len(ks))
	}
	h.f.Resume()
	appendTo(t, p, line("b", "late"))
	h.converge(append(ks, "b/late")...)
	var progs []*Progress
	for _, u := range h.saw(Appended) {
		if u.Progress != nil {
			progs = append(progs, u.Progress)
		}
	}
	if len(progs) == 0 {
		t.Fatalf("no progress reported; updates:\n%s", h.log())
	}
	for i := 1; i < len(progs); i++ {
		if progs[i].Done < progs[i-1].Done || progs[i].Events < progs[i-1].Events {
			t.Fatalf("progress went backwards: %+v then %+v", progs[i-1], progs[i])
		}
	}
	last := progs[len(progs)-1]
	if last.Done != last.Total || last.Events != len(ks) && last.Events != len(ks)+1 {
		t.Fatalf("last progress %+v, want done with %d events", last, len(ks))
	}
	noKind(t, h, Reset, Error)
}

// With Hold, the backlog of a journal opened with Initial waits for Resume
// (the caller's first screen is up), then is indexed in full; without
// Resume it is indexed once Hold has passed.
func TestHoldWaitsForResume(t *testing.T) {
	s, ks := lines("a", "k", 3000)
	h := follow(t, journalPath(t, s), Options{Initial: 4096, Step: 16 << 10, Hold: time.Hour, Poll: time.Hour})
	first := keys(h.f.Journal())
	if len(first) == 0 || len(first) >= len(ks) {
		t.Fatalf("Follow returned with %d of %d records; want a prefix", len(first), len(ks))
	}
	h.drain(300 * time.Millisecond)
	if got := keys(h.f.Journal()); len(got) != len(first) {
		t.Fatalf("the backlog was indexed before Resume: %d records, then %d", len(first), len(got))
	}
	h.f.Resume()
	h.converge(ks...)

	h = follow(t, journalPath(t, s), Options{Initial: 4096, Step: 16 << 10, Hold: 50 * time.Millisecond})
	h.converge(ks...)
	noKind(t, h, Reset, Error)
}

// Options.Each sees every event appended to the journal after Follow hands
// it over, once, in order, with its bytes and its journal, both from the
// backlog's steps and from a later append; the events Follow indexed
// before returning are not passed again.
func TestEachSeesEventsAfterHandover(t *testing.T) {
	s, ks := lines("a", "k", 3000)
	p := journalPath(t, s)
	var (
		mu   sync.Mutex
		seen []string
		pos  []int
		js   = map[*journal.Journal]bool{}
	)
	each := func(j *journal.Journal, ev model.Event, _ any, _ int) bool {
		mu.Lock()
		defer mu.Unlock()
		js[j] = true
		pos = append(pos, ev.Pos)
		seen = append(seen, string(ev.Raw)+"\n")
		return true
	}
	// Held until Resume, so that first is what Follow returned with (see
	// TestInitialThenCatchUpInSteps).
	h := follow(t, p, Options{Initial: 4096, Step: 16 << 10, Hold: time.Hour, Each: each})
	first := len(keys(h.f.Journal()))
	h.f.Resume()
	appendTo(t, p, line("b", "late"))
	all := append(ks, "b/late")
	j := h.converge(all...)
	mu.Lock()
	defer mu.Unlock()
	if len(js) != 1 || !js[j] {
		t.Fatalf("Each was given %d journals, want only the one followed", len(js))
	}
	if len(pos) != len(all)-first {
		t.Fatalf("Each saw %d events, want the %d after the first %d", len(pos), len(all)-first, first)
	}
	want, _ := lines("a", "k", 3000)
	want += line("b", "late")
	for i, p := range pos {
		if p != first+1+i {
			t.Fatalf("event %d passed at position %d, want %d", i, p, first+1+i)
		}
	}
	if got := strings.Join(seen, ""); !strings.HasSuffix(want, got) || len(got) == len(want) {
		t.Fatalf("Each's bytes are not the journal's lines after the first %d", first)
	}
}

// Each returning false is not called again during the same update, and
// the index is still completed: the caller folds what was skipped later.
func TestEachFalseStopsForTheUpdate(t *testing.T) {
	s, ks := lines("a", "k", 3000)
	var calls atomic.Int32
	h := follow(t, journalPath(t, s), Options{Initial: 4096, Step: 16 << 10, Hold: time.Hour,
		Each: func(*journal.Journal, model.Event, any, int) bool { calls.Add(1); return false }})
	first := len(keys(h.f.Journal()))
	h.f.Resume()
	h.converge(ks...)
	// One call per step of 16 KiB (about 250 lines each), not one per event.
	if n := int(calls.Load()); n == 0 || n > (len(ks)-first)/100 {
		t.Fatalf("Each was called %d times for %d events indexed in steps", n, len(ks)-first)
	}
	noKind(t, h, Reset, Error)
}
