package demo

import "strings"

var deltaTasks = []string{
	"Add a refresh-token endpoint with tests",
	"Migrate session storage from cookies to Redis",
	"Fix the flaky login rate-limit test",
	"Upgrade the build to Node 20 and fix type errors",
}

var askPrompts = []string{
	"Which environment should the migration run against: staging or production?",
	"config/auth.yaml already exists. Overwrite it?",
	"What should the release branch be called?",
	"Should expired refresh tokens be deleted or kept for auditing?",
	"The test suite needs a database URL. Which one should I use?",
}

var askAnswers = []string{
	"staging", "yes, overwrite it", "release/2026-01", "keep them for 30 days", "postgres://localhost:5432/app_test", "no",
}

// deltaRun simulates one Delta Engine run (`delta run`) writing
// .delta/<run_id>/journal.jsonl.
type deltaRun struct {
	e        *engine
	seq      int64
	runID    string
	task     string
	agentRef string
	iters    int // iterations_completed: iterations that ran tools
	buf      []byte
	args     jw

	// ask returns the human's answer to an ask_human prompt. Run blocks
	// on interaction/response.txt; Generate makes one up.
	ask func(actionID, prompt string) (string, error)
	// iterated, if not nil, is called after each iteration that ran tools.
	iterated func() error
	// resumed, if not nil, is called after the answer to ask_human has
	// been written.
	resumed func() error
}

// begin starts an event with the next seq; the payload object is open.
func (r *deltaRun) begin(typ string, ts int64) *jw {
	r.seq++
	w := r.e.line()
	w.obj()
	w.ki("seq", r.seq)
	w.kiso("timestamp", ts)
	w.ks("type", typ)
	w.kobj("payload")
	return w
}

func (r *deltaRun) finish(w *jw) error {
	w.end()
	w.end()
	return r.e.emit()
}

func (r *deltaRun) run() error {
	e := r.e
	ts, err := e.wait(0, 0)
	if err != nil {
		return err
	}
	w := r.begin("RUN_START", ts)
	w.ks("run_id", r.runID)
	w.ks("task", r.task)
	w.ks("agent_ref", r.agentRef)
	if err := r.finish(w); err != nil {
		return err
	}
	if err := r.userMessage(r.task, 0, 2); err != nil {
		return err
	}
	for n := 0; ; n++ {
		var err error
		if (e.live && n%12 == 1) || (!e.live && n > 0 && e.chance(0.04)) {
			err = r.askHuman()
		} else {
			err = r.iteration()
		}
		if err != nil {
			return err
		}
	}
}

func (r *deltaRun) userMessage(content string, lo, hi int64) error {
	ts, err := r.e.wait(lo, hi)
	if err != nil {
		return err
	}
	w := r.begin("USER_MESSAGE", ts)
	w.ks("content", content)
	return r.finish(w)
}

func (r *deltaRun) systemMessage(level, content string, ts int64) error {
	w := r.begin("SYSTEM_MESSAGE", ts)
	w.ks("level", level)
	w.ks("content", content)
	return r.finish(w)
}

// A deltaCall is one tool call of a THOUGHT.
type deltaCall struct {
	id, name, command string
	args              []byte // tool_args as a JSON object
}

// call makes up a tool call.
func (r *deltaRun) call() deltaCall {
	e := r.e
	c := deltaCall{id: "call_" + e.alnum(24)}
	a := &r.args
	a.b = nil
	a.comma = false
	a.obj()
	switch e.intn(6) {
	case 0:
		c.name, c.command = "list_files", "ls -la"
	case 1:
		p := pick(e, paths)
		c.name, c.command = "read_file", "cat "+p
		a.ks("filename", p)
	case 2:
		p := pick(e, paths)
		c.name, c.command = "write_to_file", "tee "+p
		a.ks("filename", p)
		a.kb("content", e.appendSource(nil, e.size()/3, false))
	case 3:
		cmd := pick(e, commands)
		c.name, c.command = "run_shell", cmd
		a.ks("command", cmd)
	case 4:
		p := pick(e, words)
		c.name, c.command = "search_code", "grep -rn "+p+" ."
		a.ks("pattern", p)
	default:
		c.name, c.command = "run_tests", pick(e, []string{"npm test -- --run", "go test ./..."})
	}
	a.end()
	c.args = a.b
	return c
}

// thought writes a THOUGHT with the given tool calls (none for a final
// answer).
func (r *deltaRun) thought(content []byte, calls []deltaCall, ts int64) error {
	w := r.begin("THOUGHT", ts)
	w.kb("content", content)
	w.ks("llm_invocation_ref", r.e.uuid())
	if len(calls) > 0 {
		w.karr("tool_calls")
		for _, c := range calls {
			w.obj()
			w.ks("id", c.id)
			w.ks("type", "function")
			w.kobj("function")
			w.ks("name", c.name)
			w.kb("arguments", c.args)
			w.end()
			w.end()
		}
		w.endArr()
	}
	return r.finish(w)
}

func (r *deltaRun) request(c deltaCall, ts int64) error {
	w := r.begin("ACTION_REQUEST", ts)
	w.ks("action_id", c.id)
	w.ks("tool_name", c.name)
	w.key("tool_args")
	w.raw(c.args)
	w.ks("resolved_command", c.command)
	return r.finish(w)
}

func (r *deltaRun) result(id, status string, observation []byte, ts int64) error {
	w := r.begin("ACTION_RESULT", ts)
	w.ks("action_id", id)
	w.ks("status", status)
	w.kb("observation_content", observation)
	w.ks("execution_ref", id)
	return r.finish(w)
}

// iteration writes THOUGHT → (ACTION_REQUEST → ACTION_RESULT)* for one
// to three tool calls; now and then it is a tool-less remark instead.
func (r *deltaRun) iteration() error {
	e := r.e
	ts, err := e.wait(800, 25000)
	if err != nil {
		return err
	}
	calls := make([]deltaCall, e.between(1, 3))
	if e.chance(0.05) {
		calls = calls[:0]
	}
	for i := range calls {
		calls[i] = r.call()
	}
	r.buf = r.buf[:0]
	if e.intn(7) != 0 {
		r.buf = e.appendProse(r.buf, e.size()/2)
	}
	if err := r.thought(r.buf, calls, ts); err != nil {
		return err
	}
	for _, c := range calls {
		ts, err := e.wait(0, 3)
		if err != nil {
			return err
		}
		if err := r.request(c, ts); err != nil {
			return err
		}
		if ts, err = e.wait(3, 30000); err != nil {
			return err
		}
		status, exit := "SUCCESS", "0"
		r.buf = r.buf[:0]
		if e.chance(0.08) {
			status, exit = "FAILED", "1"
			r.buf = append(r.buf, "=== STDERR ===\n"...)
			r.buf = append(r.buf, strings.Fields(c.command)[0]...)
			r.buf = append(r.buf, ": "...)
			r.buf = append(r.buf, pick(e, paths)...)
			r.buf = append(r.buf, ": No such file or directory\n"...)
		} else {
			r.buf = append(r.buf, "=== STDOUT ===\n"...)
			switch c.name {
			case "read_file":
				r.buf = e.appendSource(r.buf, e.size(), false)
			case "write_to_file":
				r.buf = append(r.buf, pick(e, codeLines)...)
			default:
				r.buf = e.appendCommandOutput(r.buf, c.command, e.size())
			}
		}
		r.buf = append(r.buf, "\n=== EXIT CODE: "...)
		r.buf = append(r.buf, exit...)
		r.buf = append(r.buf, " ==="...)
		if err := r.result(c.id, status, r.buf, ts); err != nil {
			return err
		}
	}
	if len(calls) > 0 {
		r.iters++
		if r.iterated != nil {
			return r.iterated()
		}
	}
	return nil
}

// askHuman writes the ask_human pause and, once answered, the resume:
// THOUGHT(ask_human) → ACTION_REQUEST → SYSTEM_MESSAGE, then
// USER_MESSAGE → ACTION_RESULT with the answer.
func (r *deltaRun) askHuman() error {
	e := r.e
	ts, err := e.wait(800, 20000)
	if err != nil {
		return err
	}
	prompt := pick(e, askPrompts)
	a := &r.args
	a.b = nil
	a.comma = false
	a.obj()
	a.ks("prompt", prompt)
	a.end()
	c := deltaCall{id: "call_" + e.alnum(24), name: "ask_human", command: "ask_human " + prompt, args: a.b}
	r.buf = append(r.buf[:0], "Before I go on I need a decision from you."...)
	if err := r.thought(r.buf, []deltaCall{c}, ts); err != nil {
		return err
	}
	if ts, err = e.wait(0, 2); err != nil {
		return err
	}
	if err := r.request(c, ts); err != nil {
		return err
	}
	if ts, err = e.wait(0, 3); err != nil {
		return err
	}
	if err := r.systemMessage("INFO", "Agent pausing for human input", ts); err != nil {
		return err
	}
	answer, err := r.ask(c.id, prompt)
	if err != nil {
		return err
	}
	if err := r.userMessage(answer, 5000, 900000); err != nil {
		return err
	}
	if ts, err = e.wait(1, 10); err != nil {
		return err
	}
	if err := r.result(c.id, "SUCCESS", []byte(answer), ts); err != nil {
		return err
	}
	if r.resumed != nil {
		return r.resumed()
	}
	return nil
}
