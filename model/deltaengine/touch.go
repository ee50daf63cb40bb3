package deltaengine

import (
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// Touched returns the paths of the state JSON (model.StateJSON without
// "at") that differ between prev and s, the paths replay.Diff would report,
// for replay's blame records (replay.Toucher). When s extends prev's log (s
// was folded from prev, as blame's pass asks), only the events between them
// are read back from the journal, so the cost does not grow with the
// conversation; for any other prev both views are built and diffed.
func (s *state) Touched(prev model.State) []replay.Path {
	p, ok := prev.(*state)
	if !ok || p == nil || !s.extends(p) {
		return replay.DiffPaths(nil, replay.StateView(Format, prev), replay.StateView(Format, s))
	}
	var out []replay.Path
	if pp, sp := model.PendingObjects(p), model.PendingObjects(s); len(pp) != 0 || len(sp) != 0 {
		out = replay.DiffPaths(out, pp, sp, "pending")
	}
	if p.x.runID != s.x.runID {
		out = append(out, replay.Path{"run_id"})
	}
	if !p.x.task.Equal(s.x.task) {
		out = append(out, replay.Path{"task"})
	}
	if p.status() != s.status() {
		out = append(out, replay.Path{"status"})
	}
	if p.iterations != s.iterations {
		out = append(out, replay.Path{"iterations"})
	}
	for k := p.msgs; k < s.msgs; k++ {
		out = append(out, replay.Path{"messages", k})
	}
	out = s.touchedActions(p, out)
	if p.x.sysCounts != s.x.sysCounts {
		out = replay.DiffPaths(out, p.systemMessages(), s.systemMessages(), "system_messages")
	}
	if a, b := p.lastSeq(), s.lastSeq(); a != b {
		out = append(out, replay.Path{"last_seq"})
	}
	if p.x.seqProblems != s.x.seqProblems {
		out = replay.DiffPaths(out, p.problems(), s.problems(), "seq_problems")
	}
	return out
}

// extends reports whether the first p.nLog entries of s's log are p's.
func (s *state) extends(p *state) bool {
	if s.nLog < p.nLog || s.msgs < p.msgs {
		return false
	}
	if p.nLog == 0 || s.log == p.log {
		return true
	}
	for a := s.log; a != nil; a = a.parent {
		if a.parent == p.log && a.base >= p.nLog {
			return true
		}
		if a.base < p.nLog {
			return false
		}
	}
	return false
}

// touchedActions appends the paths of the actions changed by the log
// entries s has after p's.
func (s *state) touchedActions(p *state, out []replay.Path) []replay.Path {
	var sr, pr *reader
	defer func() {
		// Their read buffers go back to the pool: blame's pass calls
		// this for every event.
		if sr != nil {
			sr.release()
		}
		if pr != nil {
			pr.release()
		}
	}()
	done := map[string]bool{}
	// The two readers share what they decode: p's entries are s's first
	// ones, so an action's request is read once, not once per state.
	some := map[int]*actEvent{}
	for i := p.nLog; i < s.nLog; i++ {
		if sr == nil {
			sr = s.log.snapshot(s.nLog).keepingReader(0, some)
		}
		e := sr.get(i)
		if k := e.kind(); k != kRequest && k != kResult {
			continue
		}
		id := sr.info(i).id
		if done[id] {
			continue
		}
		done[id] = true
		if e.has(fFirst) {
			out = append(out, replay.Path{"actions", id})
			continue
		}
		if pr == nil {
			pr = p.log.snapshot(p.nLog).keepingReader(0, some)
		}
		was, _ := pr.action(id)
		now, _ := sr.action(id)
		out = replay.DiffPaths(out, was.object(), now.object(), "actions", id)
	}
	return out
}
