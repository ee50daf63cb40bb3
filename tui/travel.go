package tui

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/bookmarks"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/query"
	"github.com/rewind-tui/rewind/render"
	"github.com/rewind-tui/rewind/replay"
	"github.com/rewind-tui/rewind/statediff"
)

// travel is the time-travel state of the root model: marks, the filter
// and hidden types, play, the breakpoint, and the overlays of diff and
// blame. Pointer fields are shared by the copies of Model that Bubble Tea
// keeps; they are only touched on the UI goroutine, except touches, which
// guards itself.
type travel struct {
	prefix     string // "m", "'" or "d" while waiting for the letter
	marks      bookmarks.Marks
	filter     *query.Query
	hidden     map[string]bool
	probs      bool
	matches    int
	filtering  bool
	visPending bool
	visUpto    int    // the records the shown ones were computed over
	visFull    bool   // the computation under way replaces the shown records
	run        *bgRun // the filter computation under way; pointers are shared by the Model's copies
	search     *bgRun
	searchSrc  string
	blame      *bgRun
	blamePath  string

	playing bool
	speed   int // index in speeds
	playGen int
	bp      *breakpoint
	bpWas   bool

	touches *touchIndex
	overlay *listOverlay
}

// speeds are the play speeds; 0 is the original pace, -1 instant.
var speeds = []float64{1, 2, 5, 10, 100, 1000, -1}

func speedName(i int) string {
	if speeds[i] < 0 {
		return "instant"
	}
	return fmt.Sprintf("%gx", speeds[i])
}

// touchIndex is the blame record of a session, built once in the
// background and extended as the journal grows.
type touchIndex struct {
	mu sync.Mutex // serializes Extend
	t  *replay.Touches
}

// listOverlay is a scrollable list drawn over the panes: the diff lines or
// the blame hits. Every line is already sanitized.
type listOverlay struct {
	title string
	lines []string
	pos   []int // for blame: the position each line jumps to
	sel   int
	top   int
	stop  context.CancelFunc // for a diff: stops its projections, when not nil
}

// closeOverlay closes the overlay, and stops the work still under way for
// it (a diff's projections).
func (m *Model) closeOverlay() {
	if o := m.tv.overlay; o != nil && o.stop != nil {
		o.stop()
	}
	m.tv.overlay = nil
}

func (m *Model) initTravel() {
	m.closeOverlay()
	if m.tv.run != nil {
		m.tv.run.gen.Add(1)    // the old session's filter stops
		m.tv.search.gen.Add(1) // and its state search
		m.tv.blame.gen.Add(1)
	}
	m.tv = travel{hidden: map[string]bool{}, touches: &touchIndex{t: replay.NewTouches()}, run: new(bgRun), search: new(bgRun), blame: new(bgRun)}
	if m.sess != nil {
		m.tv.marks, _ = bookmarks.Load(m.sess.J.Path)
	}
	if m.tv.marks == nil {
		m.tv.marks = bookmarks.Marks{}
	}
}

// visMsg is sent when the shown records for the filter and hidden types
// have been computed.
type visMsg struct {
	gen        int64
	dataGen    int
	from, upto int // the records looked at: from, the first, to upto (excluded)
	vis        []int
	matches    int
	err        string
}

// visChunk is how many events a filter worker takes at a time.
const visChunk = 4096

// visFor computes which of the records from index from on to show; it runs
// off the UI goroutine. When the filter or the problems toggle needs the
// events' bytes, they are read in blocks (journal.Each) and looked at on
// every CPU, a chunk of events at a time, each worker with its own
// query.Matcher; run counts the events done, and the computation stops
// (ok false) once run.gen is no longer gen. The first run-time error, in
// file order, is returned.
func visFor(s *app.Session, recs journal.Records, from int, q *query.Query, hidden map[string]bool, probs bool, run *bgRun, gen int64) (vis []int, matches int, firstErr string, ok bool) {
	if q == nil && len(hidden) == 0 && !probs {
		return nil, 0, "", true
	}
	base := recs.EventsThrough(from - 1) // events before record from
	n := recs.Events() - base            // events to look at
	var keep []bool                      // keep[pos-base]: the event at pos is shown
	if q != nil || probs {
		keep = make([]bool, n+1)
		chunks := (n + visChunk - 1) / visChunk
		errs := make([]string, chunks)
		run.total.Store(int64(n))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), chunks) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mt *query.Matcher
				if q != nil {
					mt = q.Matcher()
					defer mt.Close()
				}
				for {
					c := int(next.Add(1)) - 1
					if c >= chunks || run.gen.Load() != gen {
						return
					}
					first, last := base+c*visChunk+1, base+min((c+1)*visChunk, n)
					errs[c] = visKeep(s, recs, first, last, hidden, probs, mt, keep[first-base:])
					run.done.Add(int64(last - first + 1))
				}
			}()
		}
		wg.Wait()
		if run.gen.Load() != gen {
			return nil, 0, "", false
		}
		for _, e := range errs {
			if e != "" {
				firstErr = e
				break
			}
		}
	}
	vis = make([]int, 0, (recs.Len()-from)/4)
	for i, rec := range recs.All(from) {
		switch {
		case !rec.Event():
			vis = append(vis, i) // bad lines are never hidden
		case keep != nil && int(rec.Pos)-base <= n && keep[int(rec.Pos)-base], keep == nil && !hidden[rec.Type()]:
			matches++
			vis = append(vis, i)
		}
	}
	return vis, matches, firstErr, true
}

// visKeep sets keep[pos-first] for each event from first to last that the
// hidden types, the problems toggle and mt (nil: no filter) show, reading
// the events in blocks, and returns mt's first run-time error.
func visKeep(s *app.Session, recs journal.Records, first, last int, hidden map[string]bool, probs bool, mt *query.Matcher, keep []bool) (firstErr string) {
	i := recs.EventIndex(first) - 1 // the record before the event at first
	_ = s.J.Each(first, last, func(ev model.Event) error {
		for i++; !recs.IsEvent(i); i++ { // the next event's record, without a search
		}
		if hidden[recs.Type(i)] || probs && !s.F.Describe(ev).Problem {
			return nil
		}
		if mt != nil {
			ok, err := mt.MatchEvent(ev.Raw)
			if err != nil && firstErr == "" {
				firstErr = err.Error()
			}
			if !ok {
				return nil
			}
		}
		keep[ev.Pos-first] = true
		return nil
	})
	return firstErr
}

// requestVis recomputes the shown records in the background: the filter,
// the hidden types or the problems toggle changed.
func (m *Model) requestVis() tea.Cmd { return m.requestVisFrom(0) }

// visGrew brings the shown records up to the journal's growth: only the
// records added since the last result are looked at. While a computation
// runs, it waits for it (the result's visMsg asks for the rest).
func (m *Model) visGrew(reset bool) tea.Cmd {
	switch {
	case reset || m.tv.visUpto > m.tl.recs.Len():
		return m.requestVis()
	case m.tv.visPending:
		return nil
	}
	return m.requestVisFrom(m.tv.visUpto)
}

// requestVisFrom computes the shown records from record index from on in
// the background, to replace (from 0) or extend the shown ones.
func (m *Model) requestVisFrom(from int) tea.Cmd {
	if m.sess == nil {
		return nil
	}
	gen := m.tv.run.gen.Add(1) // an older computation stops
	if m.tv.filter == nil && len(m.tv.hidden) == 0 && !m.tv.probs {
		m.tv.filtering = false
		m.tv.visPending = false
		m.tl.setVisible(nil)
		return nil
	}
	m.tv.filtering, m.tv.visPending, m.tv.visFull = true, true, from == 0
	m.tv.run.done.Store(0)
	m.tv.run.total.Store(0)
	dg, s, recs := m.dataGen, m.sess, m.sess.J.Index.Records()
	q, probs, run := m.tv.filter, m.tv.probs, m.tv.run
	hidden := make(map[string]bool, len(m.tv.hidden))
	for k, v := range m.tv.hidden {
		hidden[k] = v
	}
	compute := func() tea.Msg {
		vis, n, err, ok := visFor(s, recs, from, q, hidden, probs, run, gen)
		if !ok {
			return nil // a newer request replaced this one
		}
		return visMsg{gen: gen, dataGen: dg, from: from, upto: recs.Len(), vis: vis, matches: n, err: err}
	}
	return tea.Batch(compute, progressTick(visTickMsg{gen}))
}

// visTickMsg redraws the filter's progress while it is computed.
type visTickMsg struct{ gen int64 }

// diffMsg is sent when the state changes between two positions have been
// computed; the diff of their projections follows (diffDocsMsg).
type diffMsg struct {
	dataGen int
	rep     statediff.Report
	lines   []string // rep's ChangesLines, sanitized
	err     error
}

// diffDocsMsg is sent when the projection diffs of the report shown in
// overlay have been computed.
type diffDocsMsg struct {
	dataGen int
	overlay *listOverlay
	lines   []string // the report's DocsLines, sanitized
}

// blameMsg is sent when the events that changed a path are known.
type blameMsg struct {
	dataGen int
	path    string
	lines   []string
	pos     []int
	err     error
}

// searchMsg is sent when the state search has found (or not) a position.
type searchMsg struct {
	gen     int64
	dataGen int
	src     string
	pos     int
	err     error
}

// playMsg advances play by one event.
type playMsg struct{ gen int }

// requestDiff computes the state changes between positions a and b in the
// background, saying so on the status line: between far positions of a
// large journal they take seconds (both states are made whole). Their
// overlay then shows while the projections are compared (diffMsg).
func (m *Model) requestDiff(a, b int) tea.Cmd {
	m.setStatus(fmt.Sprintf("diff #%d → #%d: comparing the states…", a, b), false)
	r, dg := m.sess.R, m.dataGen
	return func() tea.Msg {
		rep, err := statediff.Changes(r, a, b)
		if err != nil {
			return diffMsg{dataGen: dg, err: err}
		}
		return diffMsg{dataGen: dg, rep: rep, lines: safeLines(rep.ChangesLines())}
	}
}

// comparingDocs stands for a diff's projection lines in its overlay until
// they are compared.
const comparingDocs = "projection: comparing…"

// safeLines returns lines passed through render.Line.
func safeLines(lines []string) []string {
	for i, l := range lines {
		lines[i] = render.Line(l)
	}
	return lines
}

func (m *Model) requestBlame(p replay.Path) tea.Cmd {
	r, dg, ti, s, run := m.sess.R, m.dataGen, m.tv.touches, m.sess, m.tv.blame
	gen := run.gen.Add(1)
	run.phase.Store(0)
	run.done.Store(0)
	run.total.Store(int64(r.Events()))
	m.tv.blamePath = p.String()
	blame := func() tea.Msg {
		// The record of what each event changed is built once, on the
		// first blame (on 1 GB, tens of seconds), and extended after.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ti.mu.Lock()
		err := ti.t.Extend(ctx, r, func(done int) {
			if run.gen.Load() != gen {
				cancel() // stopped or replaced; what is recorded stays
			}
			run.done.Store(int64(done))
		})
		ti.mu.Unlock()
		if run.gen.Load() != gen {
			return nil
		}
		if err != nil {
			run.total.Store(0)
			return blameMsg{dataGen: dg, err: err}
		}
		recs := s.J.Index.Records()
		msg := blameMsg{dataGen: dg, path: p.String()}
		// Then the events recorded as having changed p, or maybe (a
		// coarse record), are checked against the states.
		hits := ti.t.Blame(p)
		run.done.Store(0)
		run.total.Store(int64(len(hits)))
		run.phase.Store(1)
		defer func() {
			if run.gen.Load() == gen {
				run.total.Store(0)
			}
		}()
		effects := replay.NewEffects(r, p).Recorded(ti.t)
		for i, h := range hits {
			if run.gen.Load() != gen {
				return nil
			}
			run.done.Store(int64(i))
			if len(msg.pos) >= 200 {
				msg.lines = append(msg.lines, "… more: rewind blame prints them all")
				break
			}
			e, err := effects.At(h.Pos)
			if err != nil || e.Op == "" {
				continue
			}
			line := fmt.Sprintf("#%-6d %-20s %s", h.Pos, render.Fit(render.Line(recs.Type(recs.EventIndex(h.Pos))), 20), render.Line(effect(e)))
			msg.lines = append(msg.lines, line)
			msg.pos = append(msg.pos, h.Pos)
		}
		return msg
	}
	return tea.Batch(blame, progressTick(blameTickMsg{gen}))
}

// blameTickMsg redraws the progress of the blame record's building.
type blameTickMsg struct{ gen int64 }

// effect is a blame line's text (replay.Effect.Text), each value cut at its
// first line and to 300 bytes, or 140 on each side of a change.
func effect(e replay.Effect) string {
	return e.Text(func(v any) string { return firstLine(statediff.CompactPrefix(v, 300), 300) },
		func(v any) string { return firstLine(statediff.CompactPrefix(v, 140), 140) })
}

func (m *Model) requestSearch(q *query.Query) tea.Cmd {
	s, dg, run := m.sess, m.dataGen, m.tv.search
	gen := run.gen.Add(1) // an earlier search stops
	n := s.R.Events()
	run.done.Store(0)
	run.total.Store(int64(n))
	m.tv.searchSrc = q.Src
	search := func() tea.Msg {
		found, err := s.FirstStateWhere(q, func(pos int) bool {
			run.done.Store(int64(pos))
			return run.gen.Load() == gen
		})
		if run.gen.Load() != gen {
			return nil // stopped, or replaced by a newer search
		}
		run.total.Store(0)
		return searchMsg{gen: gen, dataGen: dg, src: q.Src, pos: found, err: err}
	}
	return tea.Batch(search, progressTick(searchTickMsg{gen}))
}

// bgRun is a computation under way off the UI goroutine (a state search,
// the blame record): how far it is, and its generation, which a newer
// request (or session) moves on, to stop it or drop its result.
type bgRun struct {
	phase       atomic.Int32 // what it is doing, for a computation in steps
	gen         atomic.Int64
	done, total atomic.Int64 // events folded, and to fold; total is 0 when done
}

// searchTickMsg redraws the state search's progress.
type searchTickMsg struct{ gen int64 }

// progressTick sends msg in 200 ms, to redraw a progress.
func progressTick(msg tea.Msg) tea.Cmd {
	return tea.Tick(200*time.Millisecond, func(time.Time) tea.Msg { return msg })
}

// running reports whether a computation is under way.
func (r *bgRun) running() bool { return r.total.Load() > 0 }

// stop makes the computation under way stop and its result be dropped.
func (r *bgRun) stop() {
	r.gen.Add(1)
	r.total.Store(0)
}

// percent is how far run is, 0 to 99, and false when it is not running.
func (r *bgRun) percent() (int64, bool) {
	total := r.total.Load()
	if total <= 0 {
		return 0, false
	}
	return min(100*r.done.Load()/total, 99), true
}

// playDelay returns what works out how long to wait before the event after
// the selected one: the gap between their timestamps divided by the speed
// (at most 5 s; 100 ms at that speed when either has none), which reads
// their lines, so nextPlay calls it off the UI goroutine. It returns nil
// when there is nothing to wait for (instant speed, the last event).
func (m *Model) playDelay() func() time.Duration {
	sp := speeds[m.tv.speed]
	i := m.tl.selRow()
	if sp < 0 || i+1 >= m.tl.count() {
		return nil
	}
	j := m.sess.J
	a, b := m.tl.recs.At(m.tl.at(i)), m.tl.recs.At(m.tl.at(i+1))
	return func() time.Duration {
		ta, tb := recordTime(j, a), recordTime(j, b)
		if ta.IsZero() || tb.IsZero() || !tb.After(ta) {
			return time.Duration(float64(100*time.Millisecond) / sp)
		}
		return min(time.Duration(float64(tb.Sub(ta))/sp), 5*time.Second)
	}
}

// recordTime is the timestamp of rec, read from its line; zero when it has
// none or cannot be read. Safe on any goroutine.
func recordTime(j *journal.Journal, rec journal.Record) time.Time {
	raw, err := j.Read(rec)
	if err != nil {
		return time.Time{}
	}
	return rec.TimeIn(raw)
}

func (m *Model) nextPlay() tea.Cmd {
	gen := m.tv.playGen
	delay := m.playDelay()
	if delay == nil {
		return func() tea.Msg { return playMsg{gen: gen} }
	}
	return func() tea.Msg {
		time.Sleep(delay())
		return playMsg{gen: gen}
	}
}

func (m *Model) stopPlay() {
	m.tv.playing = false
	m.tv.playGen++
}

// travelKey handles the time-travel keys; ok is false when msg is not one.
func (m Model) travelKey(msg tea.KeyPressMsg) (Model, tea.Cmd, bool) {
	tk := m.keys.Travel
	if m.tv.playing {
		switch {
		case key.Matches(msg, tk.Faster), key.Matches(msg, tk.Slower):
		default:
			m.stopPlay()
			m.setStatus("stopped", false)
			return m, nil, true
		}
	}
	if key.Matches(msg, m.keys.Dialog.Cancel) && (m.tv.search.running() || m.tv.blame.running()) {
		// esc stops a state search or a blame under way.
		m.tv.search.stop()
		m.tv.blame.stop()
		m.setStatus("stopped", false)
		return m, nil, true
	}
	if p := m.tv.prefix; p != "" {
		m.tv.prefix = ""
		letter := msg.String()
		if p == "d" && letter == "d" {
			pos := m.tl.pos()
			if pos < 1 {
				return m, nil, true
			}
			return m, m.requestDiff(pos-1, pos), true
		}
		if len(letter) != 1 || !unicode.IsLetter(rune(letter[0])) {
			m.setStatus("marks are letters a-z, A-Z", true)
			return m, nil, true
		}
		switch p {
		case "m":
			m.tv.marks[letter] = m.tl.pos()
			if err := bookmarks.Save(m.sess.J.Path, m.tv.marks); err != nil {
				m.setStatus("mark "+letter+" set, but not saved: "+err.Error(), true)
			} else {
				m.setStatus(fmt.Sprintf("mark %s → #%d", letter, m.tl.pos()), false)
			}
			return m, nil, true
		case "'", "d":
			pos, ok := m.tv.marks[letter]
			if !ok {
				m.setStatus("no mark "+letter, true)
				return m, nil, true
			}
			if p == "d" {
				return m, m.requestDiff(pos, m.tl.pos()), true
			}
			if m.jumpWhenIndexed(pos) {
				m.setStatus(fmt.Sprintf("mark %s is #%d, not indexed yet: going there when it is", letter, pos), false)
				return m, nil, true
			}
			if !m.tl.selectEvent(pos) {
				m.setStatus(fmt.Sprintf("mark %s is #%d, past the end", letter, pos), true)
				return m, nil, true
			}
			return m, m.moved(), true
		}
	}
	switch {
	case key.Matches(msg, tk.Mark):
		m.tv.prefix = "m"
	case key.Matches(msg, tk.Jump):
		m.tv.prefix = "'"
	case key.Matches(msg, tk.Diff):
		m.tv.prefix = "d"
	case key.Matches(msg, tk.Blame):
		path := m.tr.cursorPath()
		if path == nil {
			m.setStatus("blame: put the state pane's cursor on a path (tab)", true)
			return m, nil, true
		}
		m.setStatus("blame "+path.String()+"…", false)
		return m, m.requestBlame(path), true
	case key.Matches(msg, tk.Filter), key.Matches(msg, tk.Search), key.Matches(msg, tk.Breakpoint):
		ti := textinput.New()
		ti.Prompt = msg.String() + " jq> "
		ti.CharLimit = 500
		switch {
		case key.Matches(msg, tk.Filter) && m.tv.filter != nil:
			ti.SetValue(m.tv.filter.Src)
		case key.Matches(msg, tk.Breakpoint) && m.tv.bp != nil:
			ti.SetValue(m.tv.bp.q.Src)
		}
		ti.Focus()
		m.prompt = &promptState{kind: rune(msg.String()[0]), input: ti}
	case key.Matches(msg, tk.NextMatch), key.Matches(msg, tk.PrevMatch):
		if m.tv.filter == nil {
			m.setStatus("no filter: / sets one", false)
			return m, nil, true
		}
		d := 1
		if key.Matches(msg, tk.PrevMatch) {
			d = -1
		}
		for i := m.tl.selRow() + d; i >= 0 && i < m.tl.count(); i += d {
			if m.tl.recs.IsEvent(m.tl.at(i)) {
				m.tl.selectRecord(m.tl.at(i))
				return m, m.moved(), true
			}
		}
		m.setStatus("no more matches", false)
	case key.Matches(msg, tk.HideType):
		typ := m.tl.selectedType()
		if m.tv.hidden[typ] {
			delete(m.tv.hidden, typ)
		} else {
			m.tv.hidden[typ] = true
		}
		return m, m.requestVis(), true
	case key.Matches(msg, tk.ShowAll):
		m.tv.hidden = map[string]bool{}
		return m, m.requestVis(), true
	case key.Matches(msg, tk.Problems):
		m.tv.probs = !m.tv.probs
		return m, m.requestVis(), true
	case key.Matches(msg, tk.Play):
		if m.tl.atEnd() {
			m.setStatus("at the last event: nothing to play", false)
			return m, nil, true
		}
		m.tv.playing = true
		m.tv.playGen++
		m.tv.bpWas = false
		return m, m.nextPlay(), true
	case key.Matches(msg, tk.Faster):
		if m.tv.speed < len(speeds)-1 {
			m.tv.speed++
		}
		m.setStatus("speed "+speedName(m.tv.speed), false)
	case key.Matches(msg, tk.Slower):
		if m.tv.speed > 0 {
			m.tv.speed--
		}
		m.setStatus("speed "+speedName(m.tv.speed), false)
	case key.Matches(msg, tk.CopyEvent):
		if m.tl.recs.Len() == 0 {
			return m, nil, true
		}
		rec := m.tl.recs.At(m.tl.sel)
		if !rec.Event() {
			m.setStatus("a bad line is not an event: nothing copied", true)
			return m, nil, true
		}
		raw, err := m.sess.J.Read(rec)
		if err != nil {
			m.setStatus("cannot read the event: "+err.Error(), true)
			return m, nil, true
		}
		m.setStatus(fmt.Sprintf("copied event #%d as JSON (terminal-safe escapes)", rec.Pos), false)
		return m, tea.SetClipboard(string(render.SafeJSON(raw))), true
	case key.Matches(msg, tk.CopyPath):
		p := m.tr.cursorPath()
		if p == nil {
			m.setStatus("copy path: put the state pane's cursor on a path (tab)", true)
			return m, nil, true
		}
		s := string(render.SafeJSON([]byte(p.String())))
		m.setStatus("copied "+s, false)
		return m, tea.SetClipboard(s), true
	default:
		return m, nil, false
	}
	return m, nil, true
}

// travelPrompt handles the confirmed jq prompts: / (filter), s (state
// search), B (breakpoint). An empty expression clears the filter or the
// breakpoint.
func (m Model) travelPrompt(kind rune, val string) (Model, tea.Cmd) {
	if val == "" {
		switch kind {
		case '/':
			m.tv.filter = nil
			m.setStatus("filter cleared", false)
			return m, m.requestVis()
		case 'B':
			m.tv.bp.close()
			m.tv.bp = nil
			m.setStatus("breakpoint cleared", false)
		}
		return m, nil
	}
	q, err := query.Compile(val)
	if err != nil {
		m.setStatus(err.Error(), true)
		return m, nil
	}
	switch kind {
	case '/':
		m.tv.filter = q
		return m, m.requestVis()
	case 's':
		m.setStatus("searching for the first state where "+q.Src+"…", false)
		return m, m.requestSearch(q)
	case 'B':
		m.tv.bp.close()
		m.tv.bp = &breakpoint{q: q}
		m.tv.bpWas = false
		m.setStatus("breakpoint: play and follow stop when "+q.Src, false)
	}
	return m, nil
}

// travelMsg handles the messages of the time-travel commands.
func (m Model) travelMsg(msg tea.Msg) (Model, tea.Cmd, bool) {
	switch msg := msg.(type) {
	case visTickMsg:
		if msg.gen != m.tv.run.gen.Load() || !m.tv.visPending {
			return m, nil, true
		}
		return m, progressTick(msg), true
	case visMsg:
		if msg.gen != m.tv.run.gen.Load() || msg.dataGen != m.dataGen {
			return m, nil, true
		}
		m.tv.visPending = false
		if msg.from == 0 {
			m.tv.matches = msg.matches
			m.tl.setVisible(msg.vis)
		} else {
			// The records the journal grew by: the shown ones before them
			// stay.
			m.tv.matches += msg.matches
			m.tl.setVisible(append(m.tl.vis, msg.vis...))
		}
		m.tv.visUpto = msg.upto
		if msg.err != "" {
			m.setStatus(msg.err, true)
		}
		if m.follow {
			m.tl.selectLast()
		}
		cmds := []tea.Cmd{m.requestState()}
		if m.tl.recs.Len() > msg.upto {
			cmds = append(cmds, m.requestVisFrom(msg.upto)) // it grew meanwhile
		}
		return m, tea.Batch(cmds...), true
	case diffMsg:
		if msg.dataGen != m.dataGen {
			return m, nil, true
		}
		if msg.err != nil {
			m.setStatus("diff: "+msg.err.Error(), true)
			return m, nil, true
		}
		m.setStatus("", false)
		// The changes now; the projections, which on a large journal
		// take seconds more, when they are compared.
		lines := append(msg.lines[1:], "", comparingDocs)
		ctx, stop := context.WithCancel(context.Background())
		o := &listOverlay{title: fmt.Sprintf("Diff #%d → #%d", msg.rep.From, msg.rep.To), lines: lines, stop: stop}
		o.title += " · " + fmt.Sprintf("%d change(s)", len(msg.rep.Changes)) + " · esc closes"
		m.closeOverlay()
		m.tv.overlay = o
		rep, dg := msg.rep, msg.dataGen
		return m, func() tea.Msg {
			defer stop()
			if rep.AddDocsContext(ctx) != nil {
				return nil // closed before the projections were compared
			}
			return diffDocsMsg{dataGen: dg, overlay: o, lines: safeLines(rep.DocsLines())}
		}, true
	case diffDocsMsg:
		if o := msg.overlay; msg.dataGen == m.dataGen && m.tv.overlay == o {
			// The projections' lines in place of the two that said
			// they were being compared.
			o.lines = slices.Concat(o.lines[:len(o.lines)-2], msg.lines)
		}
		return m, nil, true
	case blameMsg:
		if msg.dataGen != m.dataGen {
			return m, nil, true
		}
		if msg.err != nil {
			m.setStatus("blame: "+msg.err.Error(), true)
			return m, nil, true
		}
		m.setStatus("", false)
		if len(msg.pos) == 0 {
			m.setStatus("no event changed "+msg.path, false)
			return m, nil, true
		}
		m.closeOverlay()
		m.tv.overlay = &listOverlay{title: fmt.Sprintf("Blame %s · %d event(s), newest first · enter jumps · esc closes", render.Line(msg.path), len(msg.pos)), lines: msg.lines, pos: msg.pos}
		return m, nil, true
	case searchTickMsg:
		pct, running := m.tv.search.percent()
		if msg.gen != m.tv.search.gen.Load() || !running {
			return m, nil, true
		}
		m.setStatus(fmt.Sprintf("searching for the first state where %s… %d%%", m.tv.searchSrc, pct), false)
		return m, progressTick(msg), true
	case blameTickMsg:
		pct, running := m.tv.blame.percent()
		if msg.gen != m.tv.blame.gen.Load() || !running {
			return m, nil, true
		}
		what := "recording what each event changed"
		if m.tv.blame.phase.Load() == 1 {
			what = "checking the events that may have changed it"
		}
		m.setStatus(fmt.Sprintf("blame %s… %s, %d%%", m.tv.blamePath, what, pct), false)
		return m, progressTick(msg), true
	case searchMsg:
		if msg.dataGen != m.dataGen || msg.gen != m.tv.search.gen.Load() {
			return m, nil, true
		}
		if msg.err != nil {
			m.setStatus("search: "+msg.err.Error(), true)
			return m, nil, true
		}
		if msg.pos == 0 {
			m.setStatus(msg.src+" is true at no position", false)
			return m, nil, true
		}
		m.tl.selectEvent(msg.pos)
		m.setStatus(fmt.Sprintf("%s first true at #%d", msg.src, msg.pos), false)
		return m, m.moved(), true
	case playMsg:
		if msg.gen != m.tv.playGen || !m.tv.playing {
			return m, nil, true
		}
		if m.tl.atEnd() {
			m.stopPlay()
			m.setStatus("played to the last event", false)
			return m, m.moved(), true
		}
		m.tl.move(1)
		return m, m.moved(), true
	}
	return m, nil, false
}

// breakpoint is the B expression and the query.StateMatcher its checks
// share: each state the cursor reaches is checked from the one checked
// before, so a breakpoint over a long list (Delta Engine's messages) costs
// what the cursor's move changed, not the whole list at every move. The
// state requests that check it run one at a time; mu guards it all the
// same, and close.
type breakpoint struct {
	q      *query.Query
	mu     sync.Mutex
	m      *query.StateMatcher
	dg     int // the data generation of the states m was given
	closed bool
}

// match reports whether the expression is true for state s of format f
// after position pos, of the session's data generation dg (a new
// generation, a journal read again, starts a new StateMatcher).
func (b *breakpoint) match(f model.Format, s model.State, pos, dg int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	if b.m == nil || b.dg != dg {
		if b.m != nil {
			b.m.Close()
		}
		b.m, b.dg = b.q.States(f), dg
	}
	hit, _ := b.m.Match(s, pos)
	return hit
}

// close stops its StateMatcher; a nil breakpoint is left alone.
func (b *breakpoint) close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.m != nil {
		b.m.Close()
		b.m = nil
	}
}

// afterState runs when a state arrived: the breakpoint check, then the
// next play step.
func (m *Model) afterState(bpHit bool) tea.Cmd {
	if m.tv.bp != nil {
		was := m.tv.bpWas
		m.tv.bpWas = bpHit
		if bpHit && !was && (m.tv.playing || m.follow) {
			m.stopPlay()
			m.follow = false
			m.setStatus("🔔 breakpoint: "+m.tv.bp.q.Src+" became true", true)
			return nil
		}
	}
	if m.tv.playing {
		return m.nextPlay()
	}
	return nil
}

// overlayKey handles keys while the diff or blame list is shown.
func (m Model) overlayKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	o := m.tv.overlay
	g := m.keys.Global
	h := m.h - 8
	if h < 3 {
		h = 3
	}
	switch {
	case key.Matches(msg, m.keys.Dialog.Cancel), key.Matches(msg, g.Quit) && msg.String() == "q":
		m.closeOverlay()
	case key.Matches(msg, g.Down):
		o.move(1, h)
	case key.Matches(msg, g.Up):
		o.move(-1, h)
	case key.Matches(msg, g.PageDown):
		o.move(h, h)
	case key.Matches(msg, g.PageUp):
		o.move(-h, h)
	case key.Matches(msg, m.keys.Dialog.Confirm):
		if o.pos != nil && o.sel < len(o.pos) {
			m.closeOverlay()
			m.tl.selectEvent(o.pos[o.sel])
			return m, m.moved()
		}
		m.closeOverlay()
	}
	return m, nil
}

func (o *listOverlay) move(d, h int) {
	o.sel += d
	if o.sel >= len(o.lines) {
		o.sel = len(o.lines) - 1
	}
	if o.sel < 0 {
		o.sel = 0
	}
	if o.sel < o.top {
		o.top = o.sel
	}
	if o.sel >= o.top+h {
		o.top = o.sel - h + 1
	}
}

func (o *listOverlay) view(st render.Styles, w, h int) string {
	inner := w - 6
	if inner < 20 {
		inner = w
	}
	rows := h - 6
	if rows < 3 {
		rows = 3
	}
	var b strings.Builder
	b.WriteString(st.DialogTitle.Render(render.Truncate(o.title, inner)) + "\n\n")
	for i := o.top; i < len(o.lines) && i < o.top+rows; i++ {
		l := render.Fit(o.lines[i], inner)
		switch {
		case o.pos != nil && i == o.sel:
			l = st.OptionActive.Render(l)
		case o.pos == nil && i == o.sel:
			l = st.TreeCursor.Render(l)
		case strings.HasPrefix(o.lines[i], "+"):
			l = st.TreeAdded.Render(l)
		case strings.HasPrefix(o.lines[i], "-"):
			l = st.StatusErr.Render(l)
		case strings.HasPrefix(o.lines[i], "~"):
			l = st.TreeChanged.Render(l)
		}
		b.WriteString(l + "\n")
	}
	if n := len(o.lines) - (o.top + rows); n > 0 {
		b.WriteString(st.Dim.Render(fmt.Sprintf("… %d more lines (↓)", n)))
	}
	return st.Dialog.Render(strings.TrimRight(b.String(), "\n"))
}

// visProgress is how far the filter under way is, " 45%", or "" when it
// reads no events (types hidden only).
func (m Model) visProgress() string {
	pct, running := m.tv.run.percent()
	if !running {
		return ""
	}
	return fmt.Sprintf(" %d%%", pct)
}

// travelStatus returns the status line parts of time travel.
func (m Model) travelStatus() []string {
	var parts []string
	if m.tv.playing {
		parts = append(parts, m.st.Follow.Render("▶ playing "+speedName(m.tv.speed)))
	}
	if m.tv.filter != nil {
		s := fmt.Sprintf("/%s: %d match(es)", render.Line(firstLine(m.tv.filter.Src, 40)), m.tv.matches)
		if m.tv.visPending && m.tv.visFull {
			s = fmt.Sprintf("/%s: filtering…%s", render.Line(firstLine(m.tv.filter.Src, 40)), m.visProgress())
		}
		parts = append(parts, m.st.PendingBadge.Render(s))
	}
	if m.tv.visPending && m.tv.visFull && m.tv.filter == nil {
		parts = append(parts, m.st.Dim.Render("filtering…"+m.visProgress()))
	}
	if n := len(m.tv.hidden); n > 0 {
		parts = append(parts, m.st.Dim.Render(fmt.Sprintf("%d type(s) hidden (X)", n)))
	}
	if m.tv.probs {
		parts = append(parts, m.st.StatusWarn.Render("problems only (!)"))
	}
	if m.tv.bp != nil {
		parts = append(parts, m.st.Dim.Render("B: "+render.Line(firstLine(m.tv.bp.q.Src, 30))))
	}
	if m.tv.prefix != "" {
		parts = append(parts, m.st.Dim.Render(m.tv.prefix+"…"))
	}
	return parts
}
