package demo

import (
	"fmt"
	"strconv"
)

// A topic is a decision the simulated orchestrator asks a human to make
// at a checkpoint, together with the work the checkpoint gates.
type topic struct {
	question string
	options  []option
	work     string // the gated work, as an intent description
	agent    string // the agent that does it
}

type option struct{ id, label, description string }

var topics = []topic{
	{"Approve database migration plan?", []option{
		{"blue-green", "Blue/green migration", "Copy into a shadow table, then switch reads over"},
		{"in-place", "In-place migration", "Faster, riskier"},
		{"defer", "Defer to next release", ""},
	}, "Apply the refresh-token schema migration", "chief-of-staff/executor"},
	{"Delete legacy session table?", []option{
		{"yes", "Yes", ""},
		{"no", "No", ""},
	}, "Drop the legacy sessions table and its indexes", "chief-of-staff/executor"},
	{"Deploy the auth refactor to staging?", []option{
		{"staging", "Deploy to staging", "Full rollout on the staging cluster"},
		{"canary", "Canary 5% in production", "Needs on-call approval"},
	}, "Deploy the auth refactor", "chief-of-staff/deployer"},
	{"Upgrade jsonwebtoken from 8.5.1 to 9.0.2?", []option{
		{"upgrade", "Upgrade now", "Breaking: verify() no longer accepts unsigned tokens"},
		{"pin", "Pin 8.5.1", "Track the CVE separately"},
	}, "Upgrade jsonwebtoken and fix call sites", "chief-of-staff/executor"},
	{"Force-push the rebased feature branch?", []option{
		{"force-with-lease", "Force-push with lease", ""},
		{"new-branch", "Push to a new branch", "Keeps the old history for reviewers"},
	}, "Publish the rebased auth-refactor branch", "chief-of-staff/git"},
}

var rejectReasons = []string{
	"Keep it until next release", "Not during the release freeze", "Needs a rollback plan first",
	"Security review still pending", "Too risky on a Friday", "Wait for the load test results",
}

var epicTitles = []string{
	"Refactor auth module", "Token refresh flow", "Session storage migration", "Harden login rate limiting",
	"Split monolith routes", "Observability for auth",
}

var taskTitles = []string{
	"Refactor Auth", "Add refresh endpoint", "Write migration", "Update middleware", "Backfill refresh hashes",
	"Add integration tests", "Remove cookie fallback", "Document token lifetimes",
}

// A checkpoint decision, read from the journal (Run) or made up (Generate).
type decision struct {
	approved bool
	option   string // selected_option, if any
	reason   string // rejection reason, if any
}

// A session is an OpenCode session whose events the simulator writes.
type session struct{ id, parent, title string }

// durable simulates an OpenCode process with the Durable Stream plugin:
// an orchestrator session that plans, asks for approval at checkpoints,
// spawns sub-agents for approved work and keeps a ledger.
type durable struct {
	e         *engine
	corr      string // correlation id of the simulated plugin process
	dir       string // project directory shown in session info
	project   string
	epicN     int
	taskN     int
	topicN    int
	buf, buf2 []byte

	// decide, when not nil, reports whether someone has approved or
	// rejected checkpoint id (Run). When nil the simulator decides by
	// itself and writes the decision line (Generate).
	decide func(id string) (decision, bool, error)
}

func newDurable(e *engine, dir string) *durable {
	return &durable{e: e, corr: e.hex(16), dir: dir, project: e.hex(40)}
}

// run writes episodes until the engine stops it.
func (d *durable) run() error {
	for first := true; ; first = false {
		if err := d.episode(first); err != nil {
			return err
		}
	}
}

// episode is one root session: an epic with its tasks, a planner, one or
// more checkpoints gating work, and the work itself.
func (d *durable) episode(first bool) error {
	e := d.e
	d.epicN++
	root, err := d.sessionCreated("", pick(e, epicTitles))
	if err != nil {
		return err
	}
	epic := "epic_" + strconv.Itoa(d.epicN)
	if err := d.ledger("ledger.epic.created", 5, 80, "epicId", epic, "epicTitle", root.title); err != nil {
		return err
	}
	task, err := d.taskCreated(epic)
	if err != nil {
		return err
	}
	planner, err := d.spawn(root, "Plan "+root.title, "chief-of-staff/planner",
		"Break \""+root.title+"\" into tasks and flag anything that needs human approval.")
	if err != nil {
		return err
	}
	if err := d.turn(root, first); err != nil {
		return err
	}
	n := e.between(1, 3)
	if e.live {
		n = -1 // forever
	}
	for i := 0; i != n; i++ {
		if i > 0 {
			if task, err = d.taskCreated(epic); err != nil {
				return err
			}
		}
		t := topics[d.topicN%len(topics)]
		d.topicN++
		dec, ok, err := d.checkpoint(root, t)
		if err != nil {
			return err
		}
		if i == 0 {
			if err := d.finishIntent(planner, true, "Plan ready: 4 tasks, "+strconv.Itoa(max(n, 2))+" need approval"); err != nil {
				return err
			}
		}
		if !ok { // left pending: the session goes idle waiting for it
			return d.idle(root)
		}
		if dec.approved {
			err = d.gated(root, t, dec, task)
		} else {
			err = d.rejected(root, t, dec, task)
		}
		if err != nil {
			return err
		}
		for k := e.between(1, 2); k > 0; k-- {
			if err := d.turn(root, false); err != nil {
				return err
			}
		}
	}
	if err := d.ledger("ledger.epic.completed", 50, 900, "epicId", epic, "summary", root.title+" done"); err != nil {
		return err
	}
	return d.idle(root)
}

// begin starts an envelope; the payload value must follow.
func (d *durable) begin(typ, stream, actor string) *jw {
	w := d.e.line()
	w.obj()
	w.ks("type", typ)
	w.ks("stream_id", stream)
	w.ks("correlation_id", d.corr)
	w.ks("actor", actor)
	w.key("payload")
	return w
}

// finish ends an envelope with its id and timestamp and emits it.
func (d *durable) finish(w *jw, ts int64) error {
	w.key("id")
	w.b = append(w.b, '"')
	var tmp [16]byte
	s := strconv.AppendInt(tmp[:0], ts, 36)
	for i := len(s); i < 9; i++ {
		w.b = append(w.b, '0')
	}
	w.b = append(w.b, s...)
	w.b = append(w.b, '_')
	v := d.e.r.Uint64()
	for i := 0; i < 16; i++ {
		w.b = append(w.b, hexDigits[v>>60])
		v <<= 4
	}
	w.b = append(w.b, '"')
	w.comma = true
	w.ki("timestamp", ts)
	w.end()
	return d.e.emit()
}

// openID returns an OpenCode-style identifier: prefix, 12 hex digits of
// time, 14 random base-62 characters.
func (d *durable) openID(prefix string) string {
	return prefix + "_" + d.e.hex(12) + d.e.alnum(14)
}

func (d *durable) sessionCreated(parent, title string) (*session, error) {
	ts, err := d.e.wait(400, 20000)
	if err != nil {
		return nil, err
	}
	s := &session{id: d.openID("ses"), parent: parent, title: title}
	w := d.begin("lifecycle.session.created", s.id, "system")
	w.obj()
	w.ks("id", s.id)
	w.ks("projectID", d.project)
	w.ks("directory", d.dir)
	if parent != "" {
		w.ks("parentID", parent)
	}
	w.ks("title", title)
	w.ks("version", "0.15.8")
	w.kobj("time")
	w.ki("created", ts)
	w.ki("updated", ts)
	w.end()
	w.end()
	return s, d.finish(w, ts)
}

func (d *durable) idle(s *session) error {
	ts, err := d.e.wait(100, 2000)
	if err != nil {
		return err
	}
	w := d.begin("lifecycle.session.idle", s.id, "system")
	w.obj()
	w.end()
	return d.finish(w, ts)
}

// ledger writes a ledger event whose payload is the given key/value pairs.
func (d *durable) ledger(typ string, lo, hi int64, kv ...string) error {
	ts, err := d.e.wait(lo, hi)
	if err != nil {
		return err
	}
	w := d.begin(typ, "ledger-events", "ledger")
	w.obj()
	for i := 0; i+1 < len(kv); i += 2 {
		w.ks(kv[i], kv[i+1])
	}
	w.end()
	return d.finish(w, ts)
}

func (d *durable) taskCreated(epic string) (string, error) {
	d.taskN++
	id := "task_" + strconv.Itoa(d.taskN)
	return id, d.ledger("ledger.task.created", 5, 200, "taskId", id, "taskTitle", pick(d.e, taskTitles), "epicId", epic)
}

// spawn writes agent.spawned with a createIntent payload and returns the
// intent id.
func (d *durable) spawn(parent *session, description, agent, prompt string) (string, error) {
	ts, err := d.e.wait(50, 1500)
	if err != nil {
		return "", err
	}
	id := "intent_" + strconv.FormatInt(ts, 10) + "_" + d.e.b36(6)
	w := d.begin("agent.spawned", parent.id, "orchestrator")
	w.obj()
	w.ks("description", description)
	w.ks("agent", agent)
	w.ks("prompt", prompt)
	w.ks("parent_session_id", parent.id)
	w.ki("timeout_ms", 600000)
	w.ks("id", id)
	w.ks("status", "pending")
	w.ki("created_at", ts)
	w.end()
	return id, d.finish(w, ts)
}

func (d *durable) finishIntent(id string, ok bool, text string) error {
	ts, err := d.e.wait(200, 30000)
	if err != nil {
		return err
	}
	typ, key := "agent.completed", "result"
	if !ok {
		typ, key = "agent.failed", "error"
	}
	w := d.begin(typ, d.corr, "orchestrator")
	w.obj()
	w.ks("intent_id", id)
	w.ks(key, text)
	w.end()
	return d.finish(w, ts)
}

// delta writes an execution.text_delta or execution.reasoning_delta.
func (d *durable) delta(typ string, s *session, msg, part string, text []byte) error {
	ts, err := d.e.wait(15, 400)
	if err != nil {
		return err
	}
	w := d.begin(typ, s.id, "system")
	w.obj()
	w.ks("sessionID", s.id)
	w.ks("messageID", msg)
	w.ks("partID", part)
	w.kb("delta", text)
	w.end()
	return d.finish(w, ts)
}

// chunk returns one streamed delta: usually a few tokens, sometimes a
// larger block (a code fence or a paragraph).
func (d *durable) chunk() []byte {
	e := d.e
	d.buf = d.buf[:0]
	switch p := e.intn(100); {
	case p < 3:
		d.buf = append(d.buf, "\n```ts\n"...)
		d.buf = e.appendSource(d.buf, e.size()/2, false)
		d.buf = append(d.buf, "```\n"...)
	case p < 8:
		d.buf = e.appendProse(d.buf, e.between(150, 900))
	default:
		d.buf = e.appendTokens(d.buf, e.between(1, 8))
	}
	return d.buf
}

func (d *durable) stepStart(s *session, msg string) error {
	ts, err := d.e.wait(100, 3000)
	if err != nil {
		return err
	}
	w := d.begin("execution.step_start", s.id, "system")
	w.obj()
	w.ks("id", d.openID("prt"))
	w.ks("sessionID", s.id)
	w.ks("messageID", msg)
	w.ks("type", "step-start")
	w.end()
	return d.finish(w, ts)
}

func (d *durable) stepFinish(s *session, msg, reason string) error {
	e := d.e
	ts, err := e.wait(20, 400)
	if err != nil {
		return err
	}
	in, out := e.between(2000, 90000), e.between(20, 4000)
	w := d.begin("execution.step_finish", s.id, "system")
	w.obj()
	w.ks("id", d.openID("prt"))
	w.ks("sessionID", s.id)
	w.ks("messageID", msg)
	w.ks("type", "step-finish")
	w.ks("reason", reason)
	w.key("cost")
	w.float(float64(in*3+out*15) / 1e6)
	w.kobj("tokens")
	w.ki("input", int64(in))
	w.ki("output", int64(out))
	w.ki("reasoning", int64(e.intn(2000)))
	w.kobj("cache")
	w.ki("read", int64(e.intn(60000)))
	w.ki("write", int64(e.intn(8000)))
	w.end()
	w.end()
	w.end()
	return d.finish(w, ts)
}

// turn writes one assistant message: a step with reasoning, tool calls
// and streamed text. A quick turn is one reasoning and one text delta,
// so that Run reaches its first checkpoint within a few events.
func (d *durable) turn(s *session, quick bool) error {
	e := d.e
	msg := d.openID("msg")
	if err := d.stepStart(s, msg); err != nil {
		return err
	}
	nr, nt, tools := e.between(0, 10), e.between(5, 40), e.between(0, 3)
	if quick {
		nr, nt, tools = 1, 1, 0
	}
	if nr > 0 {
		part := d.openID("prt")
		for i := 0; i < nr; i++ {
			if err := d.delta("execution.reasoning_delta", s, msg, part, d.chunk()); err != nil {
				return err
			}
		}
	}
	for i := 0; i < tools; i++ {
		if err := d.tool(s, msg); err != nil {
			return err
		}
	}
	part := d.openID("prt")
	for i := 0; i < nt; i++ {
		if err := d.delta("execution.text_delta", s, msg, part, d.chunk()); err != nil {
			return err
		}
	}
	if quick {
		return nil
	}
	reason := "stop"
	if tools > 0 {
		reason = "tool-calls"
	}
	return d.stepFinish(s, msg, reason)
}

// tool writes execution.tool_start and execution.tool_finish for one tool
// part, plus files.changed when the tool edits a file.
func (d *durable) tool(s *session, msg string) error {
	e := d.e
	name := pick(e, []string{"read", "read", "bash", "bash", "grep", "glob", "edit", "edit", "write"})
	path := pick(e, paths)
	var title string
	in := &jw{b: d.buf2[:0]}
	in.obj()
	switch name {
	case "read", "write":
		in.ks("filePath", d.dir+"/"+path)
		if name == "write" {
			in.kb("content", e.appendSource(nil, e.size(), false))
		}
		title = path
	case "edit":
		in.ks("filePath", d.dir+"/"+path)
		in.ks("oldString", pick(e, codeLines))
		in.ks("newString", pick(e, codeLines))
		title = path
	case "bash":
		title = pick(e, commands)
		in.ks("command", title)
		in.ks("description", "Run "+title)
	case "grep":
		title = pick(e, words)
		in.ks("pattern", title)
		in.ks("path", d.dir)
	case "glob":
		title = "**/*.ts"
		in.ks("pattern", title)
	}
	in.end()
	d.buf2 = in.b
	part, call := d.openID("prt"), "toolu_01"+e.alnum(22)

	start, err := e.wait(50, 2000)
	if err != nil {
		return err
	}
	w := d.begin("execution.tool_start", s.id, "system")
	d.toolPart(w, s, msg, part, call, name)
	w.ks("status", "running")
	w.key("input")
	w.raw(in.b)
	w.kobj("time")
	w.ki("start", start)
	w.end()
	w.end()
	w.end()
	if err := d.finish(w, start); err != nil {
		return err
	}

	end, err := e.wait(30, 15000)
	if err != nil {
		return err
	}
	d.buf = d.buf[:0]
	var diff []byte
	switch name {
	case "read":
		d.buf = append(d.buf, "<file>\n"...)
		d.buf = e.appendSource(d.buf, e.size(), true)
		d.buf = append(d.buf, "\n(End of file - total 212 lines)\n</file>"...)
	case "bash":
		d.buf = e.appendCommandOutput(d.buf, title, e.size())
	case "grep", "glob":
		d.buf = append(d.buf, "Found 14 matches\n"...)
		d.buf = e.appendCommandOutput(d.buf, "grep", e.size()/2)
	case "edit":
		diff = e.appendDiff(nil, d.dir+"/"+path, e.size())
	}
	w = d.begin("execution.tool_finish", s.id, "system")
	d.toolPart(w, s, msg, part, call, name)
	w.ks("status", "completed")
	w.key("input")
	w.raw(in.b)
	w.kb("output", d.buf)
	w.ks("title", title)
	w.kobj("metadata")
	switch name {
	case "bash":
		w.ki("exit", 0)
		w.ks("description", "Run "+title)
	case "edit":
		w.kb("diff", diff)
	case "read":
		w.ks("preview", pick(e, codeLines))
	}
	w.end()
	w.kobj("time")
	w.ki("start", start)
	w.ki("end", end)
	w.end()
	w.end()
	w.end()
	if err := d.finish(w, end); err != nil {
		return err
	}
	if name == "edit" || name == "write" {
		return d.filesChanged(d.dir + "/" + path)
	}
	return nil
}

// toolPart writes the common fields of a tool part and opens its state.
func (d *durable) toolPart(w *jw, s *session, msg, part, call, name string) {
	w.obj()
	w.ks("id", part)
	w.ks("sessionID", s.id)
	w.ks("messageID", msg)
	w.ks("type", "tool")
	w.ks("callID", call)
	w.ks("tool", name)
	w.kobj("state")
}

func (d *durable) filesChanged(file string) error {
	ts, err := d.e.wait(1, 50)
	if err != nil {
		return err
	}
	w := d.begin("files.changed", d.corr, "system")
	w.obj()
	w.ks("file", file)
	w.end()
	return d.finish(w, ts)
}

// checkpoint writes checkpoint.requested and waits for the decision,
// doing low-key work meanwhile. ok is false if the checkpoint is left
// pending (Generate only).
func (d *durable) checkpoint(s *session, t topic) (dec decision, ok bool, err error) {
	e := d.e
	ts, err := e.wait(200, 5000)
	if err != nil {
		return dec, false, err
	}
	id := "cp_" + strconv.FormatInt(ts, 10) + "_" + e.b36(6)
	w := d.begin("checkpoint.requested", s.id, "chief-of-staff")
	w.obj()
	w.ks("id", id)
	w.ks("decision_point", t.question)
	w.karr("options")
	for _, o := range t.options {
		w.obj()
		w.ks("id", o.id)
		w.ks("label", o.label)
		if o.description != "" {
			w.ks("description", o.description)
		}
		w.end()
	}
	w.endArr()
	w.ks("requested_by", "chief-of-staff")
	w.ki("requested_at", ts)
	w.ki("expires_at", ts+300000)
	w.end()
	if err := d.finish(w, ts); err != nil {
		return dec, false, err
	}

	budget, pending := e.between(2, 25), e.chance(0.08)
	msg, part := d.openID("msg"), ""
	for n := 0; ; n++ {
		if d.decide != nil {
			dec, ok, err := d.decide(id)
			if ok || err != nil {
				return dec, ok, err
			}
		} else if n >= budget {
			if pending {
				return dec, false, nil
			}
			return d.decideItself(id, t)
		}
		if n%8 == 0 {
			part = d.openID("prt")
		}
		if err := d.waiting(s, msg, part, n, t); err != nil {
			return dec, false, err
		}
	}
}

// waiting writes the n-th low-key event while a checkpoint is pending: a
// heartbeat step around a trickle of status text.
func (d *durable) waiting(s *session, msg, part string, n int, t topic) error {
	switch n % 8 {
	case 0:
		return d.stepStart(s, msg)
	case 7:
		return d.stepFinish(s, msg, "stop")
	case 1:
		d.buf = append(d.buf[:0], "Waiting for approval: "...)
		d.buf = append(d.buf, t.question...)
		return d.delta("execution.text_delta", s, msg, part, d.buf)
	default:
		d.buf = d.e.appendTokens(d.buf[:0], d.e.between(2, 6))
		typ := "execution.text_delta"
		if n%3 == 0 {
			typ = "execution.reasoning_delta"
		}
		return d.delta(typ, s, msg, part, d.buf)
	}
}

// decideItself plays the human in Generate: it approves or rejects the
// checkpoint and writes the line the approver's process would write.
func (d *durable) decideItself(id string, t topic) (decision, bool, error) {
	e := d.e
	ts, err := e.wait(2000, 120000)
	if err != nil {
		return decision{}, false, err
	}
	var dec decision
	var w *jw
	if e.chance(0.75) {
		dec = decision{approved: true, option: pick(e, t.options).id}
		w = d.begin("checkpoint.approved", d.corr, "user")
		w.obj()
		w.ks("checkpoint_id", id)
		w.ks("approved_by", "user")
		if e.chance(0.9) {
			w.ks("selected_option", dec.option)
		} else {
			dec.option = ""
		}
	} else {
		dec = decision{reason: pick(e, rejectReasons)}
		w = d.begin("checkpoint.rejected", d.corr, "user")
		w.obj()
		w.ks("checkpoint_id", id)
		w.ks("rejected_by", "user")
		if e.chance(0.8) {
			w.ks("reason", dec.reason)
		} else {
			dec.reason = ""
		}
	}
	w.end()
	return dec, true, d.finish(w, ts)
}

// gated does the work an approved checkpoint allowed: a sub-agent intent
// for the chosen option, a ledger task, and the sub-agent's session.
func (d *durable) gated(root *session, t topic, dec decision, task string) error {
	e := d.e
	opt := t.options[0]
	for _, o := range t.options {
		if o.id == dec.option {
			opt = o
		}
	}
	msg := d.openID("msg")
	d.buf = append(d.buf[:0], "Approved ("...)
	d.buf = append(d.buf, opt.label...)
	d.buf = append(d.buf, "). Handing off: "...)
	d.buf = append(d.buf, t.work...)
	d.buf = append(d.buf, '.')
	if err := d.delta("execution.text_delta", root, msg, d.openID("prt"), d.buf); err != nil {
		return err
	}
	intent, err := d.spawn(root, t.work+" ("+opt.label+")", t.agent,
		fmt.Sprintf("Checkpoint approved with option %q (%s). %s. Report the files you changed.", opt.id, opt.label, t.work))
	if err != nil {
		return err
	}
	if err := d.ledger("ledger.task.started", 5, 300, "taskId", task, "agent", t.agent); err != nil {
		return err
	}
	child, err := d.sessionCreated(root.id, t.work+" (@"+t.agent+" subagent)")
	if err != nil {
		return err
	}
	for k := e.between(1, 3); k > 0; k-- {
		if err := d.turn(child, false); err != nil {
			return err
		}
	}
	if err := d.idle(child); err != nil {
		return err
	}
	if e.chance(0.85) {
		result := t.work + " (" + opt.id + "): done, tests pass"
		if err := d.finishIntent(intent, true, result); err != nil {
			return err
		}
		return d.ledger("ledger.task.completed", 5, 300, "taskId", task, "result", result)
	}
	msgErr := "Tests failed: " + strconv.Itoa(e.between(1, 7)) + " failing"
	if err := d.finishIntent(intent, false, msgErr); err != nil {
		return err
	}
	return d.ledger("ledger.task.failed", 5, 300, "taskId", task, "error", msgErr)
}

// rejected logs a rejected checkpoint and moves on.
func (d *durable) rejected(root *session, t topic, dec decision, task string) error {
	reason := dec.reason
	if reason == "" {
		reason = "no reason given"
	}
	d.buf = append(d.buf[:0], "Checkpoint rejected ("...)
	d.buf = append(d.buf, reason...)
	d.buf = append(d.buf, "). Skipping: "...)
	d.buf = append(d.buf, t.work...)
	d.buf = append(d.buf, ". Moving on with the rest of the plan."...)
	if err := d.delta("execution.text_delta", root, d.openID("msg"), d.openID("prt"), d.buf); err != nil {
		return err
	}
	return d.ledger("ledger.task.failed", 5, 300, "taskId", task, "error", "Skipped: checkpoint rejected ("+reason+")")
}
