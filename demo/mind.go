package demo

import (
	"bytes"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

var (
	mindDecisions = []string{
		"Use jsonwebtoken for signing", "Use Redis for the blacklist, not a database table", "Use PostgreSQL for the database",
		"Store refresh tokens hashed with SHA-256", "Rotate refresh tokens on every use", "Keep the REST API, no GraphQL",
	}
	mindConstraints = []string{
		"no external database — use SQLite only", "must coexist with session auth", "can't use HttpOnly cookies",
		"p99 latency under 200 ms", "no new runtime dependencies", "must run on Node 20",
	}
	mindTasks = []string{
		"add a token blacklist table — check on every request", "create a hybrid middleware that checks JWT first, falls back to session",
		"add a deprecation warning header to session-auth responses", "write the refresh-token migration",
		"add integration tests for logout", "document token lifetimes in the README",
	}
	mindFacts = []string{
		"Node 20 is required", "the gateway strips Authorization on redirects", "the mobile client caches tokens for 24 h",
		"CI runs on ubuntu-22.04", "sessions table has 1.2M rows",
	}
	mindHypotheses = []string{
		"the flaky test is a clock-skew issue", "the 401s come from the stale cache", "token size is what slows the gateway",
	}
	mindGoals = []string{
		"a REST API using Express", "replace cookie sessions with JWT auth", "ship token refresh before the 2.0 release",
	}
	mindBranches = [][]string{
		{"Redis", "Postgres"}, {"JWT", "opaque tokens"}, {"blue/green", "in-place migration"}, {"vitest", "jest", "node:test"},
	}
	mindRevisions = []string{
		"up to 5 seconds response time", "only for the admin API", "behind a feature flag", "with a 7-day TTL", "after the 2.0 release",
	}
	mindResolutions = []string{
		"done", "scaffolded with npm init", "merged in #231", "But the core refactor is done", "covered by the new tests",
	}
	mindReasons = []string{
		"replaced by a newer decision", "no longer relevant after the rewrite", "contradicted by the load test",
	}
	mindConfidence = []string{"low", "medium", "high", "high", "certain"}
	mindModes      = []string{"relaxed", "tightened", "amended"}
)

// A mindItem is a DeltaMind state item, kept only when Run needs a
// snapshot.json.
type mindItem struct {
	id, semID, kind, summary, status, confidence string
	turns                                        []string
	last                                         int64
	tags                                         []string
}

// A mindRef is a reconcile target the simulator may refer to later.
type mindRef struct{ id, kind, summary string }

// A mindOut is one provenance line of the current batch.
type mindOut struct {
	ts       int64
	delta    []byte
	itemID   string // accepted
	reason   string // rejected
	accepted bool
}

// mind simulates a DeltaMind session: batches of memory deltas,
// reconciled against the state and logged to provenance.jsonl.
type mind struct {
	e     *engine
	seq   int // state.seq: accepted deltas so far
	turn  int
	idN   int
	pools map[string][]mindRef // targets by kind, bounded
	all   []mindRef
	batch []mindOut
	dw    jw // the batch's deltas, back to back

	// track keeps the full state for snapshot.json (Run only).
	track bool
	items map[string]*mindItem
	log   [][]byte

	// saved, if not nil, is called after each batch's lines are emitted.
	saved func() error
}

func newMind(e *engine, track bool) *mind {
	m := &mind{e: e, pools: map[string][]mindRef{}, track: track}
	if track {
		m.items = map[string]*mindItem{}
	}
	return m
}

func (m *mind) run() error {
	for {
		if err := m.process(); err != nil {
			return err
		}
	}
}

func (m *mind) remember(r mindRef) {
	p := append(m.pools[r.kind], r)
	if len(p) > 128 {
		p = append(p[:0], p[64:]...)
	}
	m.pools[r.kind] = p
	m.all = append(m.all, r)
	if len(m.all) > 1024 {
		m.all = append(m.all[:0], m.all[512:]...)
	}
}

func (m *mind) forget(kind, id string) {
	p := m.pools[kind]
	if i := slices.IndexFunc(p, func(r mindRef) bool { return r.id == id }); i >= 0 {
		m.pools[kind] = slices.Delete(p, i, i+1)
	}
}

// process writes one batch of deltas the way Session.process does: all
// lines carry the state's seq as it is after the batch.
func (m *mind) process() error {
	e := m.e
	ts, err := e.wait(2000, 90000)
	if err != nil {
		return err
	}
	m.batch = m.batch[:0]
	m.dw.reset()
	for n := e.between(1, 5); n > 0; n-- {
		m.turn += e.between(1, 4)
		m.delta(ts)
		ts = e.step(0, 4)
	}
	for _, o := range m.batch {
		w := e.line()
		w.obj()
		if o.accepted {
			w.ks("type", "accepted")
		} else {
			w.ks("type", "rejected")
		}
		w.ki("seq", int64(m.seq))
		w.kiso("timestamp", o.ts)
		w.key("delta")
		w.raw(o.delta)
		if o.accepted {
			w.ks("itemId", o.itemID)
			w.ks("resultingStatus", "active")
		} else {
			w.ks("reason", o.reason)
		}
		w.end()
		if err := e.emit(); err != nil {
			return err
		}
	}
	if m.saved != nil {
		return m.saved()
	}
	return nil
}

// delta makes up one delta, reconciles it and appends it to the batch.
func (m *mind) delta(ts int64) {
	e := m.e
	w := &m.dw
	w.comma = false
	begin := len(w.b)
	w.obj()
	out := mindOut{ts: ts, accepted: true}
	turn := "t-" + strconv.Itoa(m.turn)
	newID := func(prefix string) string {
		m.idN++
		return prefix + strconv.Itoa(m.idN)
	}
	head := func(kind, idKey, id string) {
		w.ks("kind", kind)
		w.kiso("timestamp", ts)
		w.ks(idKey, id)
		out.itemID = id
	}
	target := func(kind string) (mindRef, bool) {
		p := m.pools[kind]
		if len(p) == 0 {
			return mindRef{}, false
		}
		return p[e.intn(len(p))], true
	}

	if len(m.all) > 3 && e.chance(0.08) {
		m.reject(w, &out, ts, turn)
	} else {
		var it *mindItem // the item created or changed, for the snapshot
		switch k := e.intn(100); {
		case k < 14 || len(m.all) < 3:
			id, s, c := newID("d-"), pick(e, mindDecisions), pick(e, mindConfidence)
			head("decision_made", "id", id)
			w.ks("summary", s)
			w.ks("confidence", c)
			m.remember(mindRef{id, "decision", s})
			it = m.create(id, "decision", s, "active", c, ts, nil)
		case k < 22:
			t, ok := target("decision")
			if !ok {
				w.b = w.b[:begin]
				m.delta(ts)
				return
			}
			s := pick(e, mindRevisions)
			if len(t.summary) < 200 {
				s = t.summary + " → revised: " + s
			}
			head("decision_revised", "targetId", t.id)
			w.ks("summary", s)
			c := ""
			if e.chance(0.5) {
				c = pick(e, mindConfidence)
				w.ks("confidence", c)
			}
			m.resummarize("decision", t.id, s)
			if it = m.item(t.id); it != nil {
				it.summary = s
				if c != "" {
					it.confidence = c
				}
			}
		case k < 32:
			id, s, hard := newID("c-"), pick(e, mindConstraints), e.chance(0.6)
			head("constraint_added", "id", id)
			w.ks("summary", s)
			w.key("hard")
			w.boolean(hard)
			m.remember(mindRef{id, "constraint", s})
			if hard {
				it = m.create(id, "constraint", s, "active", "certain", ts, []string{"hard"})
			} else {
				it = m.create(id, "constraint", s, "active", "high", ts, []string{"soft"})
			}
		case k < 37:
			t, ok := target("constraint")
			if !ok {
				w.b = w.b[:begin]
				m.delta(ts)
				return
			}
			s, mode := pick(e, mindConstraints)+" ("+pick(e, mindRevisions)+")", pick(e, mindModes)
			head("constraint_revised", "targetId", t.id)
			w.ks("summary", s)
			w.ks("mode", mode)
			m.resummarize("constraint", t.id, s)
			if it = m.item(t.id); it != nil {
				it.summary = s
				if !slices.Contains(it.tags, mode) {
					it.tags = append(it.tags, mode)
				}
			}
		case k < 53:
			id, s := newID("task-"), pick(e, mindTasks)
			head("task_opened", "id", id)
			w.ks("summary", s)
			m.remember(mindRef{id, "task", s})
			it = m.create(id, "task", s, "active", "high", ts, nil)
		case k < 63:
			t, ok := target("task")
			if !ok {
				w.b = w.b[:begin]
				m.delta(ts)
				return
			}
			res := pick(e, mindResolutions)
			head("task_closed", "targetId", t.id)
			w.ks("resolution", res)
			m.forget("task", t.id)
			if it = m.item(t.id); it != nil {
				it.status = "resolved"
				it.summary += " → " + res
			}
		case k < 75:
			id, s, c := newID("f-"), pick(e, mindFacts), pick(e, mindConfidence)
			head("fact_learned", "id", id)
			w.ks("summary", s)
			w.ks("confidence", c)
			m.remember(mindRef{id, "fact", s})
			it = m.create(id, "fact", s, "active", c, ts, nil)
		case k < 81:
			id, s, c := newID("h-"), pick(e, mindHypotheses), pick(e, mindConfidence)
			head("hypothesis_introduced", "id", id)
			w.ks("summary", s)
			w.ks("confidence", c)
			m.remember(mindRef{id, "hypothesis", s})
			it = m.create(id, "hypothesis", s, "tentative", c, ts, nil)
		case k < 85:
			id, alts := newID("b-"), pick(e, mindBranches)
			head("branch_created", "id", id)
			w.karr("alternatives")
			for _, a := range alts {
				w.str(a)
			}
			w.endArr()
			s := strings.Join(alts, " | ")
			m.remember(mindRef{id, "hypothesis", s})
			it = m.create(id, "hypothesis", s, "tentative", "medium", ts, append([]string{"branch"}, alts...))
		case k < 90:
			t := m.all[e.intn(len(m.all))]
			reason := pick(e, mindReasons)
			head("item_superseded", "targetId", t.id)
			w.ks("reason", reason)
			m.forget(t.kind, t.id)
			if it = m.item(t.id); it != nil {
				it.status = "superseded"
				it.summary += " [superseded: " + reason + "]"
			}
		default:
			id, s, c := newID("g-"), pick(e, mindGoals), pick(e, mindConfidence)
			head("goal_set", "id", id)
			w.ks("summary", s)
			w.ks("confidence", c)
			m.remember(mindRef{id, "goal", s})
			it = m.create(id, "goal", s, "active", c, ts, nil)
		}
		if it != nil {
			if !slices.Contains(it.turns, turn) {
				it.turns = append(it.turns, turn)
			}
			it.last = ts
		}
		m.seq++
	}
	w.karr("sourceTurns")
	if out.accepted || out.reason != missingProvenance {
		w.obj()
		w.ks("turnId", turn)
		w.end()
	}
	w.endArr()
	w.end()
	out.delta = w.b[begin:]
	if out.accepted && m.track {
		m.log = append(m.log, bytes.Clone(out.delta))
	}
	m.batch = append(m.batch, out)
}

const missingProvenance = "Missing provenance: sourceTurns is empty"

// reject writes a delta the reconciler rejects, with its real reason.
func (m *mind) reject(w *jw, out *mindOut, ts int64, turn string) {
	e := m.e
	out.accepted = false
	head := func(kind, idKey, id string) {
		w.ks("kind", kind)
		w.kiso("timestamp", ts)
		w.ks(idKey, id)
	}
	switch e.intn(3) {
	case 0: // unknown target
		id := "d-" + strconv.Itoa(m.idN+100+e.intn(900))
		head("decision_revised", "targetId", id)
		w.ks("summary", "use Fastify")
		out.reason = `decision_revised target "` + id + `" not found`
	case 1: // target of the wrong kind
		t := m.all[e.intn(len(m.all))]
		kinds := []string{"decision", "constraint", "task"}
		kind := pick(e, kinds)
		for kind == t.kind {
			kind = pick(e, kinds)
		}
		switch kind {
		case "decision":
			head("decision_revised", "targetId", t.id)
			w.ks("summary", pick(e, mindDecisions))
			out.reason = `decision_revised target "` + t.id + `" is ` + t.kind + `, not decision`
		case "constraint":
			head("constraint_revised", "targetId", t.id)
			w.ks("summary", pick(e, mindConstraints))
			out.reason = `constraint_revised target "` + t.id + `" is ` + t.kind + `, not constraint`
		default:
			head("task_closed", "targetId", t.id)
			w.ks("resolution", "done")
			out.reason = `task_closed target "` + t.id + `" is ` + t.kind + `, not task`
		}
	default: // no provenance
		m.idN++
		head("fact_learned", "id", "f-"+strconv.Itoa(m.idN))
		w.ks("summary", pick(e, mindFacts))
		w.ks("confidence", pick(e, mindConfidence))
		out.reason = missingProvenance
	}
}

func (m *mind) resummarize(kind, id, s string) {
	p := m.pools[kind]
	for i := range p {
		if p[i].id == id {
			p[i].summary = s
		}
	}
}

func (m *mind) item(id string) *mindItem {
	if !m.track {
		return nil
	}
	return m.items[id]
}

func (m *mind) create(id, kind, summary, status, conf string, ts int64, tags []string) *mindItem {
	if !m.track {
		return nil
	}
	it := &mindItem{id: id, semID: semanticID(kind, summary), kind: kind, summary: summary,
		status: status, confidence: conf, last: ts, tags: tags}
	m.items[id] = it
	return it
}

var semPrefix = map[string]string{
	"fact": "f", "preference": "p", "goal": "g", "decision": "d", "hypothesis": "h", "rejected_option": "r",
	"open_question": "q", "task": "t", "dependency": "dep", "risk": "rsk", "constraint": "c", "artifact": "a",
}

// semanticID imitates DeltaMind's semanticId: the kind's prefix and the
// FNV-1a hash of the summary's sorted, lower-cased tokens.
func semanticID(kind, summary string) string {
	toks := strings.FieldsFunc(strings.ToLower(summary), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	slices.Sort(toks)
	h := fnv.New32a()
	h.Write([]byte(strings.Join(toks, " ")))
	s := strconv.FormatUint(uint64(h.Sum32()), 16)
	return semPrefix[kind] + "-" + strings.Repeat("0", 8-len(s)) + s
}

// snapshot returns the compact JSON of snapshot.json (StateSnapshot
// version 1); the caller indents it.
func (m *mind) snapshot(ts int64) []byte {
	w := &jw{}
	w.obj()
	w.ki("version", 1)
	w.kiso("timestamp", ts)
	w.ki("seq", int64(m.seq))
	w.karr("items")
	ids := make([]string, 0, len(m.items))
	for id := range m.items {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		it := m.items[id]
		w.obj()
		w.ks("id", it.id)
		w.ks("semanticId", it.semID)
		w.ks("kind", it.kind)
		w.ks("summary", it.summary)
		w.ks("status", it.status)
		w.ks("confidence", it.confidence)
		w.ks("scope", "session")
		w.karr("sourceTurns")
		for _, t := range it.turns {
			w.obj()
			w.ks("turnId", t)
			w.end()
		}
		w.endArr()
		w.kiso("lastTouched", it.last)
		if len(it.tags) > 0 {
			w.karr("tags")
			for _, t := range it.tags {
				w.str(t)
			}
			w.endArr()
		}
		w.end()
	}
	w.endArr()
	w.karr("deltaLog")
	for _, d := range m.log {
		w.raw(d)
	}
	w.endArr()
	w.end()
	return w.b
}
