package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/journal/writer"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/deltaengine"
	"github.com/rewind-tui/rewind/replay"
)

// DecidedError is returned when the item was decided before rewind could
// write: by another rewind, the agent or a person. Nothing was written.
type DecidedError struct{ Verdict model.Verdict }

func (e *DecidedError) Error() string {
	v := e.Verdict
	how := "rejected"
	if v.Approved {
		how = "approved"
	}
	s := fmt.Sprintf("%s was already %s by %s at position %d", v.ID, how, v.By, v.At)
	if v.Option != "" {
		s += " (option " + v.Option + ")"
	}
	if v.Reason != "" {
		s += " (reason: " + v.Reason + ")"
	}
	return s + "; nothing written"
}

// NotPendingError is returned when the item is unknown or not waiting.
type NotPendingError struct {
	ID     string
	Reason string
}

func (e *NotPendingError) Error() string {
	return fmt.Sprintf("%s is %s; nothing written", e.ID, e.Reason)
}

// Refused reports whether err means "refused, nothing written" for a reason
// in the journal (already decided, unknown, not pending): exit status 1.
func Refused(err error) bool {
	var d *DecidedError
	var n *NotPendingError
	return errors.As(err, &d) || errors.As(err, &n)
}

// Written describes a decision that landed.
type Written struct {
	// Path is the file written: the journal, or interaction/response.txt.
	Path string
	// Offset is where the record starts in the journal (-1 for response.txt).
	Offset int64
	// Record is what was written.
	Record []byte
}

// Decide writes d in the session's own format: for Delta Engine by
// answering through interaction/response.txt (Answer), for formats that
// append decisions (model.Decider) by appending one record under the
// proper-lockfile lock after re-reading everything appended since the
// session was opened. At most one decision per item: if the item was decided
// meanwhile, nothing is written and a *DecidedError says who decided it.
func Decide(ctx context.Context, s *Session, d model.Decision, o writer.Options) (Written, error) {
	if s.F.Name() == model.DeltaEngine {
		if !d.Approve {
			return Written{}, fmt.Errorf("a Delta Engine ask_human question is answered, not rejected: use answer (the a key) with your text")
		}
		return Answer(s, d.ID, d.Reason)
	}
	dec, ok := s.F.(model.Decider)
	if !ok {
		return Written{}, fmt.Errorf("the %s format has no decisions that rewind can write", s.F.Name())
	}
	if w := s.J.Form().Warning(); w != "" {
		return Written{}, &writer.RefusedError{Path: s.J.Path, Reason: w}
	}
	var rec []byte
	res, err := writer.Append(ctx, s.J.Path, o, func(size int64) ([]byte, error) {
		st, err := foldFresh(s, size)
		if err != nil {
			return nil, err
		}
		if v, ok := dec.Verdict(st, d.ID); ok {
			return nil, &DecidedError{v}
		}
		p, ok := findPending(st, d.ID)
		if !ok {
			return nil, &NotPendingError{d.ID, "not a pending item of this journal (unknown id)"}
		}
		rec, err = dec.DecisionRecord(st, p, d)
		return rec, err
	})
	if err != nil {
		return Written{}, err
	}
	return Written{Path: s.J.Path, Offset: res.Offset, Record: rec}, nil
}

// foldFresh re-reads the journal up to size with a new index (the session's
// index may lag behind) and folds it to the end.
func foldFresh(s *Session, size int64) (model.State, error) {
	j, err := journal.Open(s.J.Path, 0)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	if j.Form() != journal.FormJSONL {
		return nil, &writer.RefusedError{Path: s.J.Path, Reason: j.Form().Warning()}
	}
	if _, err := j.UpdateTo(size); err != nil {
		return nil, err
	}
	r := replay.New(j, s.F)
	return r.StateAt(r.Events())
}

func findPending(st model.State, id string) (model.Pending, bool) {
	for _, p := range st.Pending() {
		if p.ID == id {
			return p, true
		}
	}
	return model.Pending{}, false
}

// Answer answers a Delta Engine run waiting for input: it writes text to
// <run>/interaction/response.txt atomically (temporary file, then rename),
// exactly as a human would before `delta continue`. The journal itself is
// not written; the engine appends USER_MESSAGE and ACTION_RESULT when it
// resumes. id may be "" for "the pending question".
func Answer(s *Session, id, text string) (Written, error) {
	runDir := s.Target.RunDir
	if runDir == "" {
		runDir = filepath.Dir(s.J.Path)
	}
	st, err := foldFresh(s, fileSize(s.J.Path))
	if err != nil {
		return Written{}, err
	}
	pend := st.Pending()
	if len(pend) == 0 {
		return Written{}, &NotPendingError{orDefault(id, "this run"), "not waiting for input (no ask_human call without a result)"}
	}
	p := pend[len(pend)-1]
	if id != "" && p.ID != id {
		return Written{}, &NotPendingError{id, "not the question this run waits on (" + p.ID + ")"}
	}
	dir := filepath.Join(runDir, "interaction")
	resp := filepath.Join(dir, "response.txt")
	if _, err := os.Stat(resp); err == nil {
		return Written{}, &NotPendingError{p.ID, "already answered: interaction/response.txt exists and waits for `delta continue`"}
	}
	if _, err := os.Stat(dir); err != nil {
		return Written{}, fmt.Errorf("%s: %w (is the run paused by ask_human?)", dir, err)
	}
	if err := writer.WriteFileAtomic(dir, "response.txt", []byte(text), 0o644); err != nil {
		return Written{}, err
	}
	return Written{Path: resp, Offset: -1, Record: []byte(text)}, nil
}

// AnswerGiven returns the answer waiting in interaction/response.txt for a
// Delta Engine run, if any, and whether the question is sensitive.
func AnswerGiven(s *Session) (answer string, given, sensitive bool) {
	runDir := s.Target.RunDir
	if runDir == "" || s.F.Name() != model.DeltaEngine {
		return "", false, false
	}
	if req, err := deltaengine.ReadRequest(runDir); err == nil && req != nil {
		sensitive = req.Sensitive
	}
	b, err := os.ReadFile(filepath.Join(runDir, "interaction", "response.txt"))
	if err != nil {
		return "", false, sensitive
	}
	return strings.TrimRight(string(b), "\n"), true, sensitive
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
