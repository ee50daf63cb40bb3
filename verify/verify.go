// Package verify checks a journal the way `journalctl --verify` checks
// systemd's: it reads the whole file and lists every anomaly it finds, with
// the line, byte offset and length of the bytes concerned, and never repairs
// anything. It reports what the tolerant index of package journal marked
// (bad lines, lenient readings, a torn last line), the file's shape (a JSON
// array or pretty-printed JSON instead of JSONL), sequence numbers and
// timestamps that do not run forward, and the rules of the journal's own
// format: Delta Engine's file name and .delta/VERSION, DeltaMind's
// snapshot.json version, Durable Stream's event envelope.
//
// Check only reads. No message quotes journal bytes raw: anything taken from
// a journal or a file name is passed through render.Line first.
package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/journal/lockfile"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/deltaengine"
	"github.com/rewind-tui/rewind/model/deltamind"
	"github.com/rewind-tui/rewind/render"
)

// Problem kinds: the short machine names of Problem.Kind.
const (
	// Lines the index could not read as events (journal.Problem.Bad).
	KindBlankLine   = "blank-line"
	KindNotJSON     = "not-json"
	KindNotObject   = "not-object"
	KindInvalidUTF8 = "invalid-utf8"
	KindNUL         = "nul-bytes"
	KindTooLong     = "too-long"
	KindIncomplete  = "incomplete-last-line"

	// Events the index read leniently.
	KindDuplicateKeys = "duplicate-keys"
	KindCaseKeys      = "case-variant-keys"
	KindBOM           = "bom"

	// The shape of the file (Line 0: the whole file).
	KindJSONArray = "json-array"
	KindPretty    = "pretty-printed"

	// Ordering.
	KindSeqDuplicate  = "seq-duplicate"
	KindSeqGap        = "seq-gap"
	KindSeqOutOfOrder = "seq-out-of-order"
	KindSeqMissing    = "seq-missing"
	KindSeqInvalid    = "seq-invalid"
	KindIDDuplicate   = "id-duplicate"
	KindTimeBackwards = "time-backwards"

	// The format's own rules.
	KindFileName        = "file-name"
	KindEnvelope        = "envelope"
	KindDeltaVersion    = "delta-version"
	KindSnapshotVersion = "snapshot-version"
	KindSnapshot        = "snapshot"
)

// Problem is one anomaly of a journal.
type Problem struct {
	// Line is the 1-based line number of the bytes concerned; 0 when the
	// problem concerns the file as a whole (its form, its name) or another
	// file (File).
	Line int `json:"line"`
	// Offset is the byte offset of the first byte concerned.
	Offset int64 `json:"offset"`
	// Length is the number of bytes concerned (without the line ending).
	Length int64 `json:"length"`
	// Kind is a short machine name, one of the Kind constants.
	Kind string `json:"kind"`
	// Message says what is wrong in plain words. It holds no raw journal
	// bytes: it is safe to print to a terminal.
	Message string `json:"message"`
	// File is the file the problem is in when it is not the journal
	// (.delta/VERSION, snapshot.json); empty otherwise.
	File string `json:"file,omitempty"`
}

// Report is the result of Check.
type Report struct {
	// Path is the journal file checked.
	Path string `json:"path"`
	// Format is the journal's format: delta-engine, durable-stream,
	// deltamind or generic.
	Format string `json:"format"`
	// Form is the file's shape: "jsonl", "json-array" or "pretty-printed".
	Form string `json:"form"`
	// Records is the number of records the index holds: events and bad
	// lines, without an incomplete last line.
	Records int `json:"records"`
	// Events is the number of records that are events.
	Events int `json:"events"`
	// BadLines is the number of records that are not events, plus one for
	// an incomplete last line.
	BadLines int `json:"bad_lines"`
	// Problems lists every anomaly in file order; those that concern the
	// whole file or another file (Line 0) come first.
	Problems []Problem `json:"problems"`
	// Notes are things worth knowing that are not problems: a writer that
	// holds the journal's lock right now, rotated files not checked.
	Notes []string `json:"notes,omitempty"`
}

// OK reports whether the journal has no problems.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Check verifies the journal of s as it was when s was opened (records
// appended since are not looked at) and returns what it found. It reads the
// journal's events once (their members on every CPU, checked in file
// order); it writes nothing. An I/O error while
// reading events is returned with the report of what was checked before it.
func Check(s *app.Session) (Report, error) { return CheckProgress(s, nil) }

// CheckProgress is Check telling how far it is: when checked is not nil,
// it holds the position of the last event checked (every 1024 events, and
// the last), for another goroutine to show.
func CheckProgress(s *app.Session, checked *atomic.Int64) (Report, error) {
	c := checker{s: s, checked: checked}
	c.rep = Report{
		Path:     s.J.Path,
		Format:   s.F.Name(),
		Form:     formName(s.J.Form()),
		Problems: []Problem{},
	}
	c.rep.Records, c.rep.Events = s.J.Index.Counts()
	c.form()
	c.index()
	err := c.events()
	c.formatFiles()
	c.lock()
	for i := range c.rep.Problems {
		c.rep.Problems[i].Message = render.Line(c.rep.Problems[i].Message)
	}
	sort.SliceStable(c.rep.Problems, func(i, j int) bool {
		a, b := c.rep.Problems[i], c.rep.Problems[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Line != 0 && a.Offset < b.Offset
	})
	return c.rep, err
}

// checker holds the state of one Check.
type checker struct {
	s   *app.Session
	rep Report
	// formAt is the index in rep.Problems of the form problem, or -1.
	formAt int
	// checked, when not nil, is the position of the last event checked.
	checked *atomic.Int64
}

func (c *checker) add(p Problem) { c.rep.Problems = append(c.rep.Problems, p) }

func (c *checker) addAt(r *journal.Record, kind, format string, a ...any) {
	c.add(Problem{Line: int(r.Line), Offset: r.Off, Length: r.Len, Kind: kind, Message: fmt.Sprintf(format, a...)})
}

func (c *checker) note(format string, a ...any) {
	c.rep.Notes = append(c.rep.Notes, render.Line(fmt.Sprintf(format, a...)))
}

func formName(f journal.Form) string {
	switch f {
	case journal.FormArray:
		return "json-array"
	case journal.FormPretty:
		return "pretty-printed"
	}
	return "jsonl"
}

// form reports a journal that is not in JSONL form, in plain words with the
// fix (journal.Form.Warning).
func (c *checker) form() {
	c.formAt = -1
	kind := ""
	switch c.s.J.Form() {
	case journal.FormArray:
		kind = KindJSONArray
	case journal.FormPretty:
		kind = KindPretty
	default:
		return
	}
	msg := c.s.J.Form().Warning()
	if kind == KindPretty {
		msg = prettyWarning
	}
	c.formAt = len(c.rep.Problems)
	c.add(Problem{Offset: 0, Length: c.s.J.Size(), Kind: kind, Message: msg})
}

// prettyWarning replaces journal.FormPretty.Warning, whose fix (jq -c
// '.[]') would turn each pretty-printed object into its member values: a
// stream of objects is compacted with jq -c '.' instead.
const prettyWarning = "this file holds pretty-printed JSON, not one object per line: probably reformatted by an editor or tool; shown read-only, decisions are refused; " +
	"convert it back with: jq -c . FILE > journal.jsonl.new, check it, then move it into place (rewind never rewrites a journal)"

// kinds maps the index's problem codes to kinds.
var kinds = map[journal.Problem]string{
	journal.ProblemBlank:       KindBlankLine,
	journal.ProblemNotJSON:     KindNotJSON,
	journal.ProblemNotObject:   KindNotObject,
	journal.ProblemInvalidUTF8: KindInvalidUTF8,
	journal.ProblemNUL:         KindNUL,
	journal.ProblemTooLong:     KindTooLong,
	journal.ProblemIncomplete:  KindIncomplete,
	journal.WarnDuplicateKeys:  KindDuplicateKeys,
	journal.WarnCaseKeys:       KindCaseKeys,
	journal.WarnBOM:            KindBOM,
}

// Kind returns the kind of a journal.Problem; "" for journal.OK.
func Kind(p journal.Problem) string {
	if p == journal.OK {
		return ""
	}
	if k, ok := kinds[p]; ok {
		return k
	}
	return strings.ReplaceAll(p.String(), " ", "-")
}

// index reports every record the index marked, and the incomplete last
// line.
func (c *checker) index() {
	for _, rec := range c.s.J.Index.Records().All(0) {
		r := &rec
		if r.Problem == journal.OK {
			continue
		}
		if r.Problem.Bad() {
			c.rep.BadLines++
		}
		c.addAt(r, Kind(r.Problem), "%s", c.reason(r))
	}
	if r, ok := c.s.J.Index.Incomplete(); ok {
		c.rep.BadLines++
		msg := c.reason(&r)
		if held, _, err := lockfile.Check(c.s.J.Path, lockfile.Options{}); err == nil && held {
			msg += "; a writer holds the journal's lock now, so it may be in the middle of this line: run verify again"
		}
		c.addAt(&r, KindIncomplete, "%s", msg)
	}
}

// reason is Index.Describe without the position, which Problem carries.
func (c *checker) reason(r *journal.Record) string {
	d := c.s.J.Index.Detail(*r)
	if d == "" {
		return r.Problem.String()
	}
	return r.Problem.String() + ": " + d
}

// formatFiles checks the files next to the journal that its format relies
// on, and the journal's name.
func (c *checker) formatFiles() {
	t := c.s.Target
	if c.rep.Format == model.DeltaEngine {
		c.deltaEngineFile()
	}
	if t.DeltaDir != "" {
		c.deltaVersion(t.DeltaDir)
	}
	if t.Snapshot != "" {
		c.snapshot(t.Snapshot)
	}
	if n := len(t.Rotated); n > 0 {
		c.note("%d rotated file(s) next to %s were not checked (%s … %s): run rewind verify on each",
			n, filepath.Base(c.s.J.Path), filepath.Base(t.Rotated[0]), filepath.Base(t.Rotated[n-1]))
	}
}

// deltaEngineFile applies Delta Engine's Journal.validateJournalFormat
// checks (deltaengine.CheckJournalFile). The array and pretty-print checks
// add to the form problem when there is one.
func (c *checker) deltaEngineFile() {
	path := c.s.J.Path
	if inRunDir(c.s.Target) {
		for _, msg := range deltaengine.CheckJournalFile(path, nil) {
			c.add(Problem{Kind: KindFileName, Message: msg + "; rename it back to " + deltaengine.JournalName + " (Delta Engine refuses to resume the run)"})
		}
	}
	head := make([]byte, 64)
	n, _ := c.s.J.File().ReadAt(head, 0)
	head = head[:n]
	for _, msg := range deltaengine.CheckJournalFile(deltaengine.JournalName, head) {
		if c.formAt >= 0 {
			p := &c.rep.Problems[c.formAt]
			p.Message += "; Delta Engine: " + msg
			continue
		}
		kind := KindPretty
		if len(head) > 0 && head[0] == '[' {
			kind = KindJSONArray
		}
		fix := journal.FormArray.Warning()
		if kind == KindPretty {
			fix = prettyWarning
		}
		c.add(Problem{Length: c.s.J.Size(), Kind: kind, Message: msg + "; " + fix})
	}
}

// inRunDir reports whether the journal of t sits in a Delta Engine run
// directory (.delta/<run_id>/, or a directory with a metadata.json), where
// the engine only reads a file named journal.jsonl. A Delta Engine journal
// copied elsewhere under another name is not held to that rule.
func inRunDir(t journal.Target) bool {
	if t.RunDir != "" {
		return true
	}
	dir := filepath.Dir(t.Journal)
	if filepath.Base(filepath.Dir(dir)) == ".delta" {
		return true
	}
	st, err := os.Stat(filepath.Join(dir, "metadata.json"))
	return err == nil && st.Mode().IsRegular()
}

// deltaVersion checks .delta/VERSION: Delta Engine loads only schema
// versions 1.x.
func (c *checker) deltaVersion(dir string) {
	file := filepath.Join(dir, "VERSION")
	_, err := deltaengine.CheckVersion(dir)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		c.note("%s has no VERSION file (Delta Engine writes \"1.2\" when it creates the directory)", dir)
	case errors.Is(err, deltaengine.ErrVersion):
		c.add(Problem{File: file, Kind: KindDeltaVersion, Message: err.Error() + ": Delta Engine will not load this .delta directory"})
	default:
		c.add(Problem{File: file, Kind: KindDeltaVersion, Message: "cannot read VERSION: " + errText(err)})
	}
}

// snapshot checks DeltaMind's snapshot.json next to provenance.jsonl: its
// version must be 1 (DeltaMind's parseSnapshot throws otherwise), and it
// must be a snapshot rewind can use.
func (c *checker) snapshot(file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		c.add(Problem{File: file, Kind: KindSnapshot, Message: "cannot read snapshot.json: " + errText(err)})
		return
	}
	var v struct {
		Version jsontext.Value `json:"version"`
	}
	if err := model.Unmarshal(raw, &v); err != nil {
		c.add(Problem{File: file, Kind: KindSnapshot, Message: "snapshot.json is not a JSON object: DeltaMind cannot load it"})
		return
	}
	if string(v.Version) != "1" {
		got := "missing"
		if len(v.Version) > 0 {
			got = clip(string(v.Version))
		}
		c.add(Problem{File: file, Kind: KindSnapshotVersion,
			Message: "snapshot.json version is " + got + ", want 1: DeltaMind refuses it (Snapshot version mismatch)"})
		return
	}
	if _, err := deltamind.WithSnapshot(raw); err != nil {
		c.add(Problem{File: file, Kind: KindSnapshot, Message: "snapshot.json cannot be used: " + errText(err)})
	}
}

// lock notes a writer that holds the journal's lock (proper-lockfile's
// <file>.lock directory) now, or a stale lock left by one that died.
func (c *checker) lock() {
	held, age, err := lockfile.Check(c.s.J.Path, lockfile.Options{})
	switch {
	case err != nil:
	case held:
		c.note("a writer holds the journal's lock (refreshed %s ago): records may be appended while verify runs", age.Round(1e6))
	case age > 0:
		c.note("a stale lock directory is next to the journal (last refreshed %s ago): its writer probably died; the next writer takes it over", age.Round(1e9))
	}
}

// errText returns err's text for a message (sanitized later with the rest).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// clip returns journal text shortened for a message: at most 40 bytes of
// its first line, sanitized.
func clip(s string) string {
	const max = 40
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return render.Line(s)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
