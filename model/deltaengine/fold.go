package deltaengine

import (
	"fmt"
	"math"

	"github.com/benbjohnson/immutable"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// Format is the Delta Engine format: its fold, its CONVERSATION projection
// and its timeline rows. It is stateless and safe for concurrent use.
var Format model.Format = format{}

type format struct{}

// state is the immutable result of folding a journal prefix. It holds no
// text of the conversation: messages and actions are the first nLog
// entries of a log shared with the other states of the replay (see
// log.go), read back from the journal by View and Render. Everything else
// is a few words, or persistent collections that change only on rare
// events (system messages, seq problems), so a state costs the same
// whatever the length of the journal and keyframes share all of it.
type state struct {
	events     int // events folded (including ones the fold ignores)
	iterations int
	msgs       int // messages in the conversation
	acts       int // actions (distinct action_ids), for the pane's count

	log  *arena
	nLog int

	lastSeqN    int64
	lastSeqOK   bool
	interrupted bool
	maxSeq      int64  // highest integer seq so far
	run         seqRun // the seqs seen since the last break in their order

	x *extra
}

// extra holds the fields of a state that change on few events; Apply
// copies it only then.
type extra struct {
	runID  string
	task   model.Text
	runEnd string // status of a RUN_END not followed by more work

	sysLevels *immutable.List[string] // system message levels, first appearance order
	sysCounts *immutable.Map[string, int]

	lastSeq     string                              // the last seq as written, when it is not an integer
	runs        *immutable.SortedMap[int64, seqRun] // seqs seen before run, by last seq
	runsMax     int64                               // highest seq in runs
	seqProblems *immutable.List[string]

	pending *ask
}

// seqRun is a run of seqs first..last seen at consecutive positions from
// pos: seq first+i was first seen at position pos+i. A journal whose seqs
// run 1, 2, 3… has one run, however long.
type seqRun struct {
	first, last int64
	pos         int
	ok          bool // the run is not empty
}

// message is one entry of the conversation processJournalSource rebuilds,
// as the views decode it.
type message struct {
	role       string // "user", "assistant" or "tool"
	content    string
	null       bool // content is null (an assistant message with empty text)
	toolCalls  []toolCall
	hasCalls   bool // the THOUGHT carried a tool_calls key
	toolCallID string
}

// action is one action_id's last ACTION_REQUEST and the ACTION_RESULT that
// followed it, as the views decode them.
type action struct {
	id        string
	toolName  string
	toolArgs  []byte // raw JSON, nil when absent
	command   string
	status    string // "PENDING" until a result arrives
	obs       string
	hasObs    bool
	requested int64 // seq of the ACTION_REQUEST, when it had one
	hasReq    bool
	result    int64
	hasResult bool
	// requestPos is 1 when the action was requested at a position above 0,
	// 0 when at position 0 (events built by hand), -1 when never requested.
	requestPos int
}

// ask is the pending ask_human call.
type ask struct {
	id     string
	prompt string
	at     int
	when   string
}

var emptyExtra = &extra{
	sysLevels: emptyStrings, sysCounts: emptyCounts,
	runs: emptyRuns, seqProblems: emptyStrings,
}

func (format) Name() string { return model.DeltaEngine }

func (format) Init() model.State { return &state{x: emptyExtra} }

func (format) Docs() []string { return []string{Doc} }

// Apply folds one journal line. A line that is not an envelope with an
// object payload, or whose payload fields have the wrong JSON types, leaves
// the state unchanged. Apply reads only the fields it needs (rawjson) and
// keeps no text: a line costs the state one log entry at most.
func (f format) Apply(s model.State, ev model.Event) model.State {
	st, ok := s.(*state)
	if !ok || st == nil {
		st = f.Init().(*state)
		s = st
	}
	l, ok := parseLine(ev.Raw)
	if !ok {
		return s
	}
	return f.apply(st, ev, &l)
}

// Prepare parses each line of a batch as Apply does (parseLine) into a
// []preparedLine (model.PrepareLines); see model.Preparer.
func (format) Prepare(lines [][]byte, prev any) any {
	return model.PrepareLines(lines, prev, func(raw []byte, pl *preparedLine) { pl.l, pl.ok = parseLine(raw) })
}

// PrepareEnds is Prepare reading each line where the first line of its
// layout had its values (model.EndsPreparer, lineLayout), without walking
// the payload's text again after the index.
func (format) PrepareEnds(lines [][]byte, scalars []model.LineScalars, prev any) any {
	c := lineCaches.Get().(*lineCache)
	defer lineCaches.Put(c)
	return model.PrepareLinesScalars(lines, scalars, prev, func(raw []byte, ls *model.LineScalars, pl *preparedLine) {
		pl.l, pl.ok = c.parse(raw, ls)
	})
}

// preparedLine is what Prepare read of one line: parseLine's results.
type preparedLine struct {
	l  line
	ok bool
}

// ApplyPrepared is Apply(s, ev), ev's line being the i-th of the batch
// Prepare read into p.
func (f format) ApplyPrepared(s model.State, ev model.Event, p any, i int) model.State {
	return f.applyPrepared(s, ev, p, i, false)
}

// ApplyPreparedInPlace is ApplyPrepared for a one-shot fold
// (model.InPlacePreparer): when mine is set, the line is folded into s
// itself instead of a copy of it (rewind state of 1 GB of Delta Engine:
// 0.88 M states of 112 bytes, each dropped at the next event). What s
// shares with earlier states (its log, its extra fields) is copied on
// change as always.
func (f format) ApplyPreparedInPlace(s model.State, ev model.Event, p any, i int, mine bool) model.State {
	return f.applyPrepared(s, ev, p, i, mine)
}

// applyPrepared is ApplyPrepared, folding into s itself when inPlace is
// set (ApplyPreparedInPlace's mine).
func (f format) applyPrepared(s model.State, ev model.Event, p any, i int, inPlace bool) model.State {
	pl := model.Prepared[preparedLine](p, i)
	if pl == nil {
		return f.Apply(s, ev)
	}
	st, ok := s.(*state)
	if !ok || st == nil {
		st = f.Init().(*state)
		s = st
	}
	switch {
	case !pl.ok:
		return s
	case inPlace:
		foldLine(st, ev, &pl.l)
		return st
	}
	return f.apply(st, ev, &pl.l)
}

// apply is Apply for the line of ev, which parseLine read into l: the
// line folded into a copy of st.
func (f format) apply(st *state, ev model.Event, l *line) model.State {
	n := *st // shallow copy: everything shared is persistent
	foldLine(&n, ev, l)
	return &n
}

// foldLine folds the line of ev, which parseLine read into l, into n, whose
// shared parts (log, x) it copies on change.
func foldLine(n *state, ev model.Event, l *line) {
	p := &l.p
	switch l.typ {
	case tRunStart:
		x := n.mut()
		x.runID, x.task = str(p.s[0]), model.TextOf(ev, p.s[1])
		n.resumed()
	case tRunEnd:
		x := n.mut()
		x.runEnd = str(p.s[0])
		if x.runEnd == "" {
			x.runEnd = StatusCompleted // a RUN_END without status still ends the run
		}
	case tUserMessage:
		n.add(ev, kUser, idKey{}, false, longest(ev.Raw, p.s[0]))
		n.msgs++
		n.resumed()
	case tThought:
		n.add(ev, kThought, idKey{}, false, longest(ev.Raw, p.s[0]))
		n.msgs++
		n.iterations++
		n.resumed()
	case tActionRequest:
		id := strBytes(p.s[0])
		var flags uint64 = kRequest
		if ev.Pos > 0 {
			flags |= fPos
		}
		if n.add(ev, flags, keyOf(id), true, longest(ev.Raw, p.s[1], p.s[2], p.x)) {
			n.acts++
		}
		if string(strBytes(p.s[1])) == AskHuman {
			var args struct {
				Prompt any `json:"prompt"`
			}
			_ = model.Unmarshal(p.x, &args)
			prompt, _ := args.Prompt.(string)
			n.mut().pending = &ask{id: string(id), prompt: prompt, at: ev.Pos, when: model.FormatTime(timeOf(jsontext.Value(l.ts)))}
		}
		n.resumed()
	case tActionResult:
		id := strBytes(p.s[0])
		if n.add(ev, kResult, keyOf(id), true, longest(ev.Raw, p.s[1], p.s[2])) {
			n.acts++
		}
		n.msgs++
		if n.x.pending != nil && n.x.pending.id == string(id) {
			n.mut().pending = nil
		}
		n.resumed()
	case tSystemMessage:
		x := n.mut()
		level := str(p.s[0])
		c, seen := x.sysCounts.Get(level)
		if !seen {
			x.sysLevels = x.sysLevels.Append(level)
		}
		x.sysCounts = x.sysCounts.Set(level, c+1)
		if string(strBytes(p.s[1])) == InterruptedMessage {
			n.interrupted = true
		}
	case tHook, tOther:
		// Hook audits change nothing; unknown types (for example legacy
		// trace.jsonl lines) are counted for seq checks only.
	}
	n.events++
	n.checkSeq(l.seq, ev.Pos)
}

// mut returns s's extra fields, copied first if s still shares them with
// the state it was copied from. Apply calls it at most a few times per
// event, on a fresh copy of the state.
func (s *state) mut() *extra {
	c := *s.x
	s.x = &c
	return s.x
}

// add appends the entry of ev (of the given kind and flags, its longest
// payload value at long) to the log. It reports whether the entry is the
// first of its action_id.
func (s *state) add(ev model.Event, flags uint64, key idKey, hasKey bool, long span) (first bool) {
	a := s.log
	if a == nil {
		a = newArena(ev.Src)
	}
	e := entry{ref: flags, n: uint32(len(ev.Raw)), long: long}
	if a.fileBacked(ev.Src, ev.Off, len(ev.Raw)) {
		e.ref |= uint64(ev.Off) << offShift
	} else {
		e.ref |= fInline
	}
	s.log, first = a.add(s.nLog, e, ev.Raw, key, hasKey)
	s.nLog++
	return first
}

// resumed records that the run did work after an interruption or a RUN_END
// (delta continue), so neither describes its status any more.
func (s *state) resumed() {
	if s.x.runEnd != "" {
		s.mut().runEnd = ""
	}
	s.interrupted = false
}

// checkSeq records seq problems of the event at pos. Seqs must run 1, 2, 3…
// in file order; problems are reported, never repaired.
func (s *state) checkSeq(raw []byte, pos int) {
	v, ok, text := seqNum(raw)
	s.lastSeqN, s.lastSeqOK = v, ok
	if !ok {
		x := s.mut()
		x.lastSeq = text
		if text == "" {
			x.seqProblems = x.seqProblems.Append(fmt.Sprintf("seq missing at position %d", pos))
		} else {
			x.seqProblems = x.seqProblems.Append(fmt.Sprintf("seq %s is not an integer at position %d", text, pos))
		}
		return
	}
	if first, dup := s.seen(v); dup {
		x := s.mut()
		x.seqProblems = x.seqProblems.Append(fmt.Sprintf("seq %d repeated at position %d (first at position %d)", v, pos, first))
		return
	}
	s.markSeen(v, pos)
	switch {
	case v < s.maxSeq:
		x := s.mut()
		x.seqProblems = x.seqProblems.Append(fmt.Sprintf("seq %d out of order at position %d (after seq %d)", v, pos, s.maxSeq))
		return
	case v == s.maxSeq+1:
	case v == s.maxSeq+2:
		x := s.mut()
		x.seqProblems = x.seqProblems.Append(fmt.Sprintf("seq %d missing before position %d", s.maxSeq+1, pos))
	case v > s.maxSeq+2:
		x := s.mut()
		x.seqProblems = x.seqProblems.Append(fmt.Sprintf("seq %d-%d missing before position %d", s.maxSeq+1, v-1, pos))
	}
	s.maxSeq = v
}

// seen returns the position where seq v was first seen, if it was.
func (s *state) seen(v int64) (int, bool) {
	if r := s.run; r.ok && v >= r.first && v <= r.last {
		return r.pos + int(v-r.first), true
	}
	if s.x.runs.Len() == 0 || v > s.x.runsMax {
		return 0, false
	}
	it := s.x.runs.Iterator()
	it.Seek(v)
	if _, r, ok := it.Next(); ok && r.first <= v {
		return r.pos + int(v-r.first), true
	}
	return 0, false
}

// markSeen records that seq v was first seen at pos: it extends the
// current run when v and pos both follow it, and starts a new one
// otherwise.
func (s *state) markSeen(v int64, pos int) {
	r := &s.run
	if r.ok && r.last < math.MaxInt64 && v == r.last+1 && pos == r.pos+int(r.last-r.first)+1 {
		r.last = v
		return
	}
	if r.ok {
		x := s.mut()
		x.runs = x.runs.Set(r.last, *r)
		if x.runs.Len() == 1 || r.last > x.runsMax {
			x.runsMax = r.last
		}
	}
	*r = seqRun{first: v, last: v, pos: pos, ok: true}
}

// status derives the run status from the journal alone: a RUN_END's status;
// else WAITING_FOR_INPUT while an ask_human call has no result; else
// INTERRUPTED after the engine's interrupt message; else RUNNING. Work after
// a RUN_END or an interruption (delta continue) makes the run RUNNING again.
// An empty journal has status "".
func (s *state) status() string {
	switch {
	case s.events == 0:
		return ""
	case s.x.runEnd != "":
		return s.x.runEnd
	case s.x.pending != nil:
		return StatusWaitingForInput
	case s.interrupted:
		return StatusInterrupted
	}
	return StatusRunning
}

// Pending returns the ask_human call still waiting for an answer, if any.
func (s *state) Pending() []model.Pending {
	p := s.x.pending
	if p == nil {
		return nil
	}
	return []model.Pending{{
		ID: p.id, Kind: AskHuman, Prompt: p.prompt, Options: []model.Option{},
		RequestedAt: p.when, RequestedBy: "agent", At: p.at,
	}}
}

// View returns run_id, task, status, iterations, messages, actions,
// system_messages, last_seq and seq_problems, in that order. It reads every
// message and action back from the journal.
func (s *state) View() model.Object {
	msgs := make([]any, 0, s.msgs)
	actions := model.Object{}
	if s.log != nil {
		sn := s.log.snapshot(s.nLog)
		// Two readers, each going forwards through the file, sharing the
		// action events they decode: an ACTION_RESULT's observation is
		// in the messages and in the actions, decoded once.
		infos := make([]*actEvent, s.nLog)
		seqr, lookr := sn.reader(readBlock, infos), sn.reader(readBlock, infos)
		defer seqr.release()
		defer lookr.release()
		for i := range s.nLog {
			if sn.get(i).isMessage() {
				msgs = append(msgs, seqr.message(i).object())
			}
		}
		for i := range s.nLog {
			if sn.get(i).has(fFirst) {
				a, _ := lookr.action(lookr.info(i).id)
				actions = append(actions, model.Field{Key: a.id, Value: a.object()})
			}
		}
	}
	return s.view(msgs, actions, s.problems())
}

// view is the state's view with the given messages, actions and seq
// problems (all of them for View, the last ones for PaneView).
func (s *state) view(msgs, actions, problems any) model.Object {
	return model.Object{
		{Key: "run_id", Value: s.x.runID},
		{Key: "task", Value: s.x.task.String()},
		{Key: "status", Value: s.status()},
		{Key: "iterations", Value: s.iterations},
		{Key: "messages", Value: msgs},
		{Key: "actions", Value: actions},
		{Key: "system_messages", Value: s.systemMessages()},
		{Key: "last_seq", Value: s.lastSeq()},
		{Key: "seq_problems", Value: problems},
	}
}

// systemMessages returns the count of system messages by level.
func (s *state) systemMessages() model.Object {
	sys := model.Object{}
	for it := s.x.sysLevels.Iterator(); !it.Done(); {
		_, lvl := it.Next()
		c, _ := s.x.sysCounts.Get(lvl)
		sys = append(sys, model.Field{Key: lvl, Value: c})
	}
	return sys
}

// lastSeq returns the last line's seq: the integer, the text when it is
// not one, or nil when it was missing.
func (s *state) lastSeq() any {
	switch {
	case s.lastSeqOK:
		return s.lastSeqN
	case s.x.lastSeq != "":
		return s.x.lastSeq
	}
	return nil
}

// problems returns the seq problems in order.
func (s *state) problems() []any {
	problems := make([]any, 0, s.x.seqProblems.Len())
	for it := s.x.seqProblems.Iterator(); !it.Done(); {
		_, p := it.Next()
		problems = append(problems, p)
	}
	return problems
}

// ToolName returns the tool_name of action id as requested in s (a Delta
// Engine state), or "" when s has no such ACTION_REQUEST.
func ToolName(s model.State, id string) string {
	st, ok := s.(*state)
	if !ok || st == nil || st.log == nil {
		return ""
	}
	return st.log.snapshot(st.nLog).reader(0, nil).toolName(id)
}

// object returns the message as the OpenAI message processJournalSource
// builds.
func (m message) object() model.Object {
	var content any = m.content
	if m.null {
		content = nil
	}
	o := model.Object{{Key: "role", Value: m.role}, {Key: "content", Value: content}}
	switch {
	case m.role == "tool":
		o = append(o, model.Field{Key: "tool_call_id", Value: m.toolCallID})
	case m.hasCalls:
		calls := make([]any, 0, len(m.toolCalls))
		for _, c := range m.toolCalls {
			calls = append(calls, model.Object{
				{Key: "id", Value: c.ID}, {Key: "type", Value: c.Type},
				{Key: "function", Value: model.Object{{Key: "name", Value: c.Function.Name}, {Key: "arguments", Value: c.Function.Arguments}}},
			})
		}
		o = append(o, model.Field{Key: "tool_calls", Value: calls})
	}
	return o
}

func (a action) object() model.Object {
	var args any = model.Object{}
	if a.toolArgs != nil {
		if v, err := model.FromRaw(a.toolArgs); err == nil {
			args = v
		}
	}
	var req, res, obs any
	if a.hasReq {
		req = a.requested
	}
	if a.hasResult {
		res = a.result
	}
	if a.hasObs {
		obs = a.obs
	}
	return model.Object{
		{Key: "tool_name", Value: a.toolName},
		{Key: "tool_args", Value: args},
		{Key: "resolved_command", Value: a.command},
		{Key: "status", Value: a.status},
		{Key: "observation", Value: obs},
		{Key: "requested_at", Value: req},
		{Key: "result_at", Value: res},
	}
}

// emptyMaps and lists shared by every initial state.
var (
	emptyStrings = immutable.NewList[string]()
	emptyCounts  = immutable.NewMap[string, int](immutable.NewHasher(""))
	emptyRuns    = immutable.NewSortedMap[int64, seqRun](immutable.NewComparer(int64(0)))
)
