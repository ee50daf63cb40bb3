package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/deltaengine"
)

func newForkCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var at int
	var out string
	cmd := &cobra.Command{
		Use:   "fork PATH --at N --out NEWPATH",
		Short: "Write a new journal holding the first N events, to resume from that point",
		Long: `Write a new journal holding the first N events of PATH byte for byte (with any
bad lines between them), so the engine can carry on from that point. The original is
never touched and NEWPATH is never overwritten.

  Delta Engine: NEWPATH is the new run directory (its name is the new run id), or an
                existing .delta/ directory, in which a run id is made up. The run's
                metadata.json is copied with the new run_id and status INTERRUPTED, so
                "delta continue --run-id ID" resumes from event N.
  DeltaMind:    NEWPATH is a new .deltamind/ directory: provenance.jsonl, snapshot.json
                (version 1: the items, seq and deltaLog after event N) and the four
                Markdown documents at that point.
  otherwise:    NEWPATH is the new journal file.

It prints the path of what it wrote.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("fork needs --out NEWPATH")
			}
			s, err := g.open(args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			n := s.R.Events()
			if at < 1 || at > n {
				return usageErr("%s: --at %d: give a position from 1 to %d", s.J.Path, at, n)
			}
			if s.J.Form() != journal.FormJSONL {
				return usageErr("%s: fork copies JSONL journals; this one is %s", s.J.Path, s.J.Form().Warning())
			}
			var wrote string
			switch s.F.Name() {
			case model.DeltaEngine:
				wrote, err = forkDeltaEngine(s, at, out)
			case model.DeltaMind:
				wrote, err = forkDeltaMind(s, at, out)
			default:
				wrote = out
				err = writePrefix(s, at, out)
			}
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					return usageErr("%s", describeOpenError(out, err))
				}
				return usageErr("%v", err)
			}
			_, err = fmt.Fprintln(stdout, wrote)
			return err
		},
	}
	cmd.Flags().IntVar(&at, "at", 0, "keep the first N events (1-based)")
	cmd.Flags().StringVar(&out, "out", "", "where to write the new journal (see above)")
	return cmd
}

// prefixEnd returns the byte offset just past event at's line (its line
// ending included).
func prefixEnd(s *app.Session, at int) int64 {
	recs := s.J.Index.Records()
	if i := recs.EventIndex(at); i+1 < recs.Len() {
		return recs.At(i + 1).Off
	}
	return s.J.Index.Consumed()
}

// writePrefix writes the journal's bytes up to the end of event at to a
// new file dst (never an existing one).
func writePrefix(s *app.Session, at int, dst string) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.NewSectionReader(s.J.File(), 0, prefixEnd(s, at)))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}

func forkDeltaEngine(s *app.Session, at int, out string) (string, error) {
	runDir := out
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		id, err := newRunID()
		if err != nil {
			return "", err
		}
		runDir = filepath.Join(out, id)
	}
	id := filepath.Base(filepath.Clean(runDir))
	if err := os.Mkdir(runDir, 0o755); err != nil {
		return "", err
	}
	meta := map[string]any{}
	if s.Target.RunDir != "" {
		if b, err := os.ReadFile(filepath.Join(s.Target.RunDir, "metadata.json")); err == nil {
			_ = json.Unmarshal(b, &meta)
		}
	}
	st, err := s.R.StateAt(at)
	if err != nil {
		return "", err
	}
	view := st.View()
	meta["run_id"] = id
	meta["status"] = "INTERRUPTED"
	if v, ok := view.Get("iterations"); ok {
		meta["iterations_completed"] = v
	}
	if v, ok := view.Get("task"); ok && meta["task"] == nil {
		meta["task"] = v
	}
	for _, k := range []string{"end_time", "error", "pid", "hostname", "process_name"} {
		delete(meta, k)
	}
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(runDir, "metadata.json"), b, 0o644); err != nil {
		return "", err
	}
	if err := writePrefix(s, at, filepath.Join(runDir, deltaengine.JournalName)); err != nil {
		return "", err
	}
	return runDir, nil
}

// newRunID makes a run id the way Delta Engine does: UTC time and six hex
// digits (20261121_222941_a7f3c2).
func newRunID() (string, error) {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return time.Now().UTC().Format("20060102_150405") + "_" + hex.EncodeToString(b), nil
}

func forkDeltaMind(s *app.Session, at int, out string) (string, error) {
	if err := os.Mkdir(out, 0o755); err != nil {
		return "", err
	}
	st, err := s.R.StateAt(at)
	if err != nil {
		return "", err
	}
	view := st.View()
	seq, _ := view.Get("seq")
	itemsV, _ := view.Get("items")
	items, _ := itemsV.([]any)
	items = append([]any(nil), items...)
	id := func(v any) string {
		o, _ := v.(model.Object)
		s, _ := o.Get("id")
		str, _ := s.(string)
		return str
	}
	sort.SliceStable(items, func(i, j int) bool { return id(items[i]) < id(items[j]) })
	skip := map[int]bool{}
	if dv, ok := view.Get("disagreements"); ok {
		for _, d := range dv.([]any) {
			if o, ok := d.(model.Object); ok {
				if p, ok := o.Get("at"); ok {
					if n, ok := p.(int); ok {
						skip[n] = true
					}
				}
			}
		}
	}
	deltaLog := []any{}
	stamp := ""
	err = s.J.Each(1, at, func(ev model.Event) error {
		var line struct {
			Type      string          `json:"type"`
			Timestamp string          `json:"timestamp"`
			Delta     json.RawMessage `json:"delta"`
		}
		if model.Unmarshal(ev.Raw, &line) != nil {
			return nil
		}
		if line.Timestamp != "" {
			stamp = line.Timestamp
		}
		if line.Type == "accepted" && !skip[ev.Pos] && len(line.Delta) > 0 {
			if d, err := model.FromRaw(line.Delta); err == nil {
				if _, ok := d.(model.Object); ok {
					deltaLog = append(deltaLog, d)
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if stamp == "" {
		stamp = model.FormatTime(time.Now())
	}
	snap := obj("version", 1, "timestamp", stamp, "seq", seq, "items", items, "deltaLog", deltaLog)
	b, err := model.Indent(snap)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(out, "snapshot.json"), b, 0o644); err != nil {
		return "", err
	}
	for _, doc := range s.F.Docs() {
		if err := os.WriteFile(filepath.Join(out, doc+".md"), []byte(s.F.Render(st, doc)), 0o644); err != nil {
			return "", err
		}
	}
	if err := writePrefix(s, at, filepath.Join(out, "provenance.jsonl")); err != nil {
		return "", err
	}
	return out, nil
}

// obj builds a model.Object from key, value pairs.
func obj(kv ...any) model.Object {
	o := make(model.Object, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, model.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return o
}
