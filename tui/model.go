// Package tui holds every Bubble Tea model of rewind: the root, which routes
// keys and lays out the panes; the timeline, state tree and projection panes;
// the prompts, the run picker, the pending list and the decision dialog.
//
// All I/O happens in commands: the state of a position, its rendered
// projection and the journal's growth are computed off the UI goroutine and
// arrive as messages tagged with a generation, so late answers are dropped.
package tui

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/rewind-tui/rewind/app"
	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/journal/tail"
	"github.com/rewind-tui/rewind/keymap"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
	"github.com/rewind-tui/rewind/replay"
)

var lipglossNone = lipgloss.NewStyle()

// Options configure the UI.
type Options struct {
	// Dark selects the dark styles; decided once before the program starts.
	Dark bool
	// Keys is the keymap (keymap.Default() unless a test changes it).
	Keys keymap.Map
	// Open opens a journal target; the run picker and the tailer use it.
	Open func(journal.Target) (*app.Session, error)
	// Poll is how often the journal is re-checked when no watcher reports
	// (default 250 ms).
	Poll time.Duration
	// As is the identity written with decisions.
	As string
	// Debug, when not nil, receives one line per message the root handles.
	Debug io.Writer
	// Now returns the current time (time.Now unless a test fixes it).
	Now func() time.Time
	// Session makes a session of a journal the follower opened (when the
	// journal did not exist yet at start).
	Session func(journal.Target, *journal.Journal) (*app.Session, error)
	// Updates, when not nil, are the journal follower's reports (fsnotify
	// plus a slow re-check); without it the journal is polled every Poll.
	Updates <-chan tail.Update
	// FirstFrame, when not nil, is called once, on its own goroutine, a
	// frame after the first state is shown (tail.Follower.Resume: the
	// backlog of a large journal is indexed once the first screen is up).
	FirstFrame func()
	// Fold, when not nil, is told each replay the model shows, so that the
	// follower whose Updates the model reads folds into it as it indexes
	// (tail.Options.Each).
	Fold *app.LiveFold
}

type focus int

const (
	focusTimeline focus = iota
	focusState
	focusProjection
	numPanes
)

// frameTime is one frame of the terminal renderer (60 per second): what
// FirstFrame waits for the first screen to be written.
const frameTime = time.Second / 60

// Model is the root model.
type Model struct {
	o          Options
	firstShown bool // FirstFrame was called
	keys       keymap.Map
	st         render.Styles
	md         *render.Markdown
	target     journal.Target
	sess       *app.Session

	w, h  int
	focus focus

	tl   timeline
	tr   tree
	proj viewport.Model
	// projLines are the lines of the projection given to proj, which
	// scrolls them: panes shows those from its YOffset on (projView)
	// rather than its View, which wrapped, padded and measured each again.
	projLines []string
	help      help.Model

	showHelp bool
	prompt   *promptState
	runs     *runPicker
	pend     *pendingList
	dialog   *decisionDialog

	gen int // generation of state requests
	// latest is gen, for the renders of a projection's rest that run off
	// the UI goroutine: one whose state is no longer the latest stops.
	latest *atomic.Int64
	// early is the first state's work, started with the session, before
	// the terminal's size is known (see startEarly); the first request
	// takes it.
	early *earlyState
	// stateBusy is set while a state request runs; stateQueued when
	// another was asked for meanwhile.
	stateBusy, stateQueued bool
	shownPos               int // position whose state is shown
	shownGen               int
	doc                    int
	follow                 bool
	newCount               int
	pending                []model.Pending
	// indexing is the progress of a backlog being indexed in the
	// background, nil when the index is complete; bar draws it.
	indexing *tail.Progress
	// jumpTo is a position asked for (':', a mark) that was not indexed yet:
	// the cursor goes there once it is (0: none). Any key forgets it.
	jumpTo    int
	bar       progress.Model
	secs      *sectionRenderer // the projection pane's renderer
	status    string
	statusBad bool
	notice    string
	dataGen   int  // generation of the session (bumped when reopened)
	owned     bool // sess was opened by the model (run list, pending list)
	keySeq    int  // keys pressed so far
	// opens counts the runs asked for (openRun) and the returns to the
	// run list: a run that opens after the user asked for another, or
	// went back to the list, is closed, not shown.
	opens    int
	incOff   int64     // offset of the incomplete last line seen, or -1
	incSince time.Time // when it was first seen
	tv       travel
}

type promptState struct {
	kind  rune // ':' or '#'
	input textinput.Model
}

// New returns the root model for target. When target is a .delta/
// directory without a chosen run, the run picker is shown first.
func New(target journal.Target, sess *app.Session, o Options) Model {
	if o.Poll == 0 {
		o.Poll = 250 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	st := render.NewStyles(o.Dark)
	m := Model{
		o: o, keys: o.Keys, st: st, md: render.NewMarkdown(o.Dark), target: target,
		tr: newTree(st), proj: viewport.New(), help: help.New(), follow: true, latest: new(atomic.Int64),
		bar: progress.New(progress.WithWidth(24), progress.WithDefaultBlend()),
	}
	m.secs = newSectionRenderer(m.md)
	m.help.Styles = help.DefaultStyles(o.Dark)
	if sess != nil {
		m.setSession(sess)
	} else if target.DeltaDir != "" {
		m.runs = newRunPicker(st, target.DeltaDir)
	}
	return m
}

// replaceSession shows s (nil: none) instead of the current session, and
// closes the current one if the model opened it (owned). Sessions handed in
// by the caller or made from the follower's journals are not the model's to
// close. Late messages about the old session are dropped by dataGen.
func (m *Model) replaceSession(s *app.Session, owned bool) {
	if m.sess != nil && m.sess != s && m.owned {
		m.sess.Close()
	}
	m.owned = owned
	if s == nil {
		m.sess = nil
		if m.o.Fold != nil {
			m.o.Fold.Show(nil)
		}
		return
	}
	m.setSession(s)
}

func (m *Model) setSession(s *app.Session) {
	m.sess = s
	if m.o.Fold != nil {
		m.o.Fold.Show(s.R)
	}
	m.dataGen++
	m.tl = newTimeline(m.st, sessionAdapter{s})
	m.tl.setRecords(s.J.Index.Records(), true)
	m.tl.selectRecord(m.tl.recs.Len() - 1)
	m.follow = true
	m.newCount = 0
	m.doc = 0
	m.early = startEarly(s, m.tl.pos(), m.dataGen, s.F.Docs()[0])
	m.tr = newTree(m.st)
	m.initTravel()
	m.notice = strings.Join(s.Notes, "; ")
	m.layout()
}

// sessionAdapter gives the timeline the calls it needs.
type sessionAdapter struct{ s *app.Session }

func (a sessionAdapter) Read(r journal.Record) ([]byte, error) { return a.s.J.Read(r) }
func (a sessionAdapter) Describe(ev model.Event) model.Row     { return a.s.F.Describe(ev) }
func (a sessionAdapter) Bad(r journal.Record) string           { return a.s.J.Index.Describe(r) }
func (a sessionAdapter) FindKey(key string) (int, error)       { return a.s.J.FindKey(key) }

// Init starts watching the journal. The first state is asked for when the
// terminal's size comes (tea.WindowSizeMsg, sent at start): asked for here
// too, on a copy of the model that does not keep the request, it was
// computed twice at once, the first time for a pane of the wrong width
// (scripts/first-screen, 1 GB journals, 7 runs: Durable Stream 311 -> 263
// ms, DeltaMind 274 -> 228 ms).
func (m Model) Init() tea.Cmd {
	if m.sess == nil && m.runs != nil {
		return m.runs.load()
	}
	return m.watch()
}

// stateMsg is sent when the state, its changes and its projection for a
// position have been computed.
type stateMsg struct {
	gen, dataGen int
	pos          int
	obj          model.Object
	changed      map[string]replay.Op
	md           string
	// rest, when not "", is the projection's text of which md is only the
	// top (sectionRenderer.RenderTop), rendered to width by a restMsg.
	rest  string
	width int
	bp    bool // the breakpoint expression is true for this state
	err   error
}

// restMsg is the whole projection of the state of request gen, whose
// stateMsg had only its top.
type restMsg struct {
	gen, dataGen int
	md           string
}

// renderRest returns the command that renders the whole projection of st,
// a stateMsg that brought only its top, into a restMsg. A held key asks
// for a state a frame: a rest that is no longer the latest state's stops,
// with no message, so that renders do not pile up.
func (m Model) renderRest(st stateMsg) tea.Cmd {
	secs, latest := m.secs, m.latest
	gen, dg, doc, width := st.gen, st.dataGen, st.rest, st.width
	return func() tea.Msg {
		out, err := secs.RenderUnless(render.Text(doc), width, func() bool { return latest.Load() != int64(gen) })
		if errors.Is(err, errStale) {
			return nil
		}
		if err != nil {
			out = render.Plain(doc)
		}
		return restMsg{gen: gen, dataGen: dg, md: out}
	}
}

// grewMsg is sent when the journal was re-read: records were added, or the
// file was truncated, replaced or deleted. fromWatch marks the message of
// the watch loop, which re-arms it.
type grewMsg struct {
	dataGen   int
	added     int
	reset     bool
	newJ      *journal.Journal
	notice    string
	pending   []model.Pending
	err       error
	fromWatch bool
	// progress is the follower's progress in indexing a backlog (a large
	// journal opened in the background); nil for plain growth.
	progress *tail.Progress
}

// requestState asks for the state of the selected position. One request
// runs at a time: asking while one runs (a held j key) only remembers to
// ask again for wherever the cursor is when it is done, so work never piles
// up behind the keyboard.
func (m *Model) requestState() tea.Cmd {
	if m.sess == nil {
		return nil
	}
	m.gen++
	m.latest.Store(int64(m.gen))
	if m.stateBusy {
		m.stateQueued = true
		return nil
	}
	m.stateBusy = true
	gen, dg, pos := m.gen, m.dataGen, m.tl.pos()
	docs := m.sess.F.Docs()
	doc := docs[m.doc%len(docs)]
	width, height := m.proj.Width(), m.proj.Height()
	secs := m.secs
	bp := m.tv.bp
	sess := m.sess
	early := m.early
	m.early = nil
	return func() tea.Msg {
		var w stateWork
		if early != nil && early.pos == pos && early.dataGen == dg && early.doc == doc {
			<-early.done
			w = early.w
		} else {
			w = workState(sess, pos, doc)
		}
		if w.err != nil {
			return stateMsg{gen: gen, dataGen: dg, pos: pos, err: w.err}
		}
		s, obj, changed, text := w.s, w.obj, w.changed, w.text
		// The top of the projection first, as much as fills the pane; the
		// rest comes after (restMsg) unless it is rendered already.
		out, rest, err := secs.RenderTop(render.Text(text), width, height)
		if err != nil {
			out, rest = render.Plain(text), false
		}
		if !rest {
			text = ""
		}
		hit := false
		if bp != nil {
			// The expression sees the whole state, not the pane's window,
			// made as far as it reads it, from the state checked before.
			hit = bp.match(sess.F, s, pos, dg)
		}
		return stateMsg{gen: gen, dataGen: dg, pos: pos, obj: obj, changed: changed, md: out, rest: text, width: width, bp: hit}
	}
}

// stateWork is what a state request computes before the projection is
// rendered to the pane's size: the state at a position, the state pane's
// object, what the position's event changed there, and the projection's
// text.
type stateWork struct {
	s       model.State
	obj     model.Object
	changed map[string]replay.Op
	text    string
	err     error
}

// workState computes the stateWork of position pos of sess, with its
// projection doc. It reads the session's replay, safe for concurrent use.
func workState(sess *app.Session, pos int, doc string) stateWork {
	r, f := sess.R, sess.F
	s, err := r.StateAt(pos)
	if err != nil {
		return stateWork{err: err}
	}
	// Formats whose states grow with the journal give the panes a
	// window of the state and the end of the projection, and say what
	// an event changed without building views (replay.Toucher).
	w := stateWork{s: s, obj: model.PaneStateJSON(f, s, pos, paneItems)}
	if pos > 0 {
		if prev, err := r.StateAt(pos - 1); err == nil {
			if t, ok := s.(replay.Toucher); ok {
				w.changed = touchedOps(t.Touched(prev), model.PaneStateJSON(f, prev, pos, paneItems))
			} else {
				w.changed = replay.ChangedPaths(model.PaneStateJSON(f, prev, pos, paneItems), w.obj)
			}
		}
	}
	if pv, ok := f.(model.PaneViews); ok {
		w.text = answeredNote(sess, s) + pv.PaneRender(s, doc, maxPaneDoc)
	} else {
		w.text = fitDoc(answeredNote(sess, s)+f.Render(s, doc), maxPaneDoc, model.IsLogDoc(f, doc))
	}
	return w
}

// earlyState is the stateWork of a session's first position, started
// when the session is shown, on a goroutine of its own: the first state
// request waits for the terminal's size (tea.WindowSizeMsg, the pane's
// width for the projection), and Bubble Tea takes 7-20 ms to start and
// send it, in which the state is folded and its panes' text made (1 GB
// journals: 5-20 ms). done is closed once w is set.
type earlyState struct {
	pos, dataGen int
	doc          string
	done         chan struct{}
	w            stateWork
}

// startEarly starts the stateWork of position pos of sess.
func startEarly(sess *app.Session, pos, dataGen int, doc string) *earlyState {
	e := &earlyState{pos: pos, dataGen: dataGen, doc: doc, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		e.w = workState(sess, pos, doc)
	}()
	return e
}

// paneItems is how many of the last items of a list that grows with the
// journal the state pane gets (model.PaneViews).
const paneItems = 200

// maxPaneDoc is the most Markdown the projection pane renders at each
// cursor move: glamour takes ~0.3 s per MiB, far over a frame, and a pane
// shows a few screens of it (16 KiB is about 300 lines of a DeltaMind
// list). `rewind render` prints a projection whole. At 48 KiB, a cursor
// move at the end of 1 GB of DeltaMind took up to 80 ms from key press to
// new state when a long section changed; at 16 KiB up to 40 ms.
const maxPaneDoc = 16 << 10

// fitDoc cuts a long Markdown document to about max bytes for the pane: its
// end for a log that grows at its end (tail), else its start, cut before a
// heading when one is near the cut (else at a line end), with a note of
// what was left out and how to see it.
func fitDoc(doc string, max int, tail bool) string {
	if len(doc) <= max {
		return doc
	}
	if tail {
		cut := len(doc) - max
		i := strings.Index(doc[cut:], "\n#")
		if i < 0 || i > max/2 {
			i = strings.IndexByte(doc[cut:], '\n')
		}
		if i >= 0 {
			cut += i + 1
		}
		return fmt.Sprintf("*… %s earlier in this projection, not shown here (`rewind render` prints it whole).*\n\n", journal.HumanBytes(int64(cut))) + doc[cut:]
	}
	cut := strings.LastIndex(doc[:max], "\n#")
	if cut < max/2 {
		cut = strings.LastIndexByte(doc[:max], '\n')
	}
	if cut <= 0 {
		cut = max
	}
	return doc[:cut] + fmt.Sprintf("\n\n*… %s more of this projection, not shown here (`rewind render` prints it whole).*\n", journal.HumanBytes(int64(len(doc)-cut)))
}

// touchedOps marks the paths a Toucher reported as Added where the state
// before (its pane view, prev) had nothing, Changed elsewhere, plus their
// ancestors as Changed, as replay.ChangedPaths does from two whole views.
func touchedOps(paths []replay.Path, prev model.Object) map[string]replay.Op {
	out := replay.TouchedPaths(paths)
	for _, p := range paths {
		if _, whole := replay.Member(p); !whole && !existsIn(prev, p) {
			out[p.String()] = replay.Added
		}
	}
	return out
}

// existsIn reports whether path p is in v, a pane view: inside a Window,
// items before its first are there, items past its total are not.
func existsIn(v any, p replay.Path) bool {
	for _, e := range p {
		switch k := e.(type) {
		case string:
			o, ok := v.(model.Object)
			if !ok {
				return false
			}
			if v, ok = o.Get(k); !ok {
				_, cut := o.Get("…") // a map the pane view cut: it may be there
				return cut
			}
		case int:
			switch a := v.(type) {
			case []any:
				if k < 0 || k >= len(a) {
					return false
				}
				v = a[k]
			case model.Window:
				if k < 0 || k >= a.Total {
					return false
				}
				if k < a.From || k-a.From >= len(a.Items) {
					return true // left out of the window, but there
				}
				v = a.Items[k-a.From]
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

// answeredNote returns a Markdown block for a Delta Engine question that
// was answered (interaction/response.txt written) but not yet picked up by
// the engine: the answer as given, unless the question is sensitive. It
// reads files, so it runs in commands only.
func answeredNote(sess *app.Session, s model.State) string {
	if len(s.Pending()) == 0 {
		return ""
	}
	ans, given, sensitive := app.AnswerGiven(sess)
	if !given {
		return ""
	}
	if sensitive {
		ans = "(sensitive: not shown)"
	}
	return "> **Answered:** " + ans + "\n>\n> waiting for the engine to resume (`delta continue`)\n\n"
}

// watch waits for the journal to change and reports it: from the
// follower's updates when there is a follower (several updates that arrive
// together become one message), else by re-reading the file after o.Poll.
func (m *Model) watch() tea.Cmd {
	var j *journal.Journal
	var r *replay.Replay
	if m.sess != nil {
		j, r = m.sess.J, m.sess.R
	} else if m.o.Updates == nil || m.target.Journal == "" {
		return nil
	}
	dg, poll, ch := m.dataGen, m.o.Poll, m.o.Updates
	if ch != nil {
		return func() tea.Msg {
			u, ok := <-ch
			if !ok {
				return nil
			}
			msg := grewMsg{dataGen: dg, fromWatch: true}
			for {
				collect(&msg, u, j)
				select {
				case u, ok = <-ch:
					if ok {
						continue
					}
				default:
				}
				break
			}
			// While a backlog is indexed, the fold to its end waits for the
			// last step: progress must not queue behind it. (With Options.
			// Fold, the follower has folded most of it by then.)
			if msg.newJ == nil && j != nil && (msg.progress == nil || msg.progress.Done >= msg.progress.Total) {
				finish(&msg, j, r)
			}
			return msg
		}
	}
	return func() tea.Msg {
		time.Sleep(poll)
		added, err := j.Update()
		msg := grewMsg{dataGen: dg, added: added, err: err, fromWatch: true}
		finish(&msg, j, r)
		return msg
	}
}

// collect folds one follower update into msg.
func collect(msg *grewMsg, u tail.Update, cur *journal.Journal) {
	if u.Notice != "" {
		msg.notice = u.Notice
	}
	if u.Err != nil {
		msg.err = u.Err
	}
	if u.Progress != nil {
		msg.progress = u.Progress
	}
	switch u.Kind {
	case tail.Appended:
		msg.added += u.Added
	case tail.Reset, tail.Rotated, tail.Appeared:
		if u.J != nil && u.J != cur {
			msg.newJ, msg.reset = u.J, true
		}
	}
}

// recompute asks for the pending list and the incomplete-line marker again
// (after a decision was written), without re-arming the watch.
func (m *Model) recompute() tea.Cmd {
	j, r, dg := m.sess.J, m.sess.R, m.dataGen
	return func() tea.Msg {
		msg := grewMsg{dataGen: dg}
		finish(&msg, j, r)
		return msg
	}
}

// writingDelay is how long an incomplete last line must stay incomplete
// before the timeline shows it as "writing…": a writer is usually in the
// middle of it and finishes within milliseconds.
const writingDelay = 1500 * time.Millisecond

// writingTickMsg is sent writingDelay after an incomplete last line at off
// was first seen.
type writingTickMsg struct {
	dataGen int
	off     int64
}

// checkWriting shows the incomplete last line once it has stayed
// incomplete for writingDelay, and schedules the check when it is new.
func (m *Model) checkWriting() tea.Cmd {
	inc, ok := m.sess.J.Index.Incomplete()
	if !ok {
		m.tl.writing, m.incOff = "", -1
		return nil
	}
	if inc.Off != m.incOff {
		m.incOff, m.incSince, m.tl.writing = inc.Off, time.Now(), ""
		dg, off := m.dataGen, inc.Off
		return tea.Tick(writingDelay, func(time.Time) tea.Msg { return writingTickMsg{dg, off} })
	}
	if time.Since(m.incSince) >= writingDelay {
		m.tl.writing = fmt.Sprintf("writing… %d bytes without a newline yet at offset %d", inc.Len, inc.Off)
	}
	return nil
}

// finish adds what the status line needs: the pending list at the end of
// the journal. It runs off the UI goroutine.
func finish(msg *grewMsg, j *journal.Journal, r *replay.Replay) {
	if end, err := r.StateAt(r.Events()); err == nil {
		msg.pending = end.Pending()
	}
}

// Update routes messages: modal inputs first, then global keys, then the
// focused pane.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.update(msg)
	if mm, ok := next.(Model); ok && mm.sess != nil {
		// Describe the rows the next frame shows here, not in View: it reads
		// the journal.
		mm.tl.fill()
		return mm, cmd
	}
	return next, cmd
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.o.Debug != nil {
		fmt.Fprintf(m.o.Debug, "%s %T %s\n", time.Now().Format("15:04:05.000"), msg, debugText(msg))
	}
	if mm, cmd, ok := m.travelMsg(msg); ok {
		return mm, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.layout()
		return m, m.requestState()
	case stateMsg:
		m.stateBusy = false
		if m.stateQueued {
			m.stateQueued = false
			if msg.gen != m.gen || msg.dataGen != m.dataGen {
				return m, m.requestState()
			}
		}
		if msg.gen != m.gen || msg.dataGen != m.dataGen {
			return m, nil
		}
		if msg.err != nil {
			m.setStatus("cannot compute the state: "+msg.err.Error(), true)
			return m, nil
		}
		m.shownPos = msg.pos
		m.tr.setState(msg.obj, msg.changed)
		off := m.proj.YOffset()
		m.setProjection(msg.md)
		if m.shownGen == m.gen {
			m.proj.SetYOffset(off)
		}
		m.shownGen = m.gen
		cmd := m.afterState(msg.bp)
		if msg.rest != "" {
			cmd = tea.Batch(cmd, m.renderRest(msg))
		}
		if ff := m.o.FirstFrame; ff != nil && !m.firstShown {
			m.firstShown = true
			cmd = tea.Batch(cmd, func() tea.Msg { time.Sleep(frameTime); ff(); return nil })
		}
		return m, cmd
	case restMsg:
		if msg.gen == m.shownGen && msg.gen == m.gen && msg.dataGen == m.dataGen {
			off := m.proj.YOffset()
			m.setProjection(msg.md)
			m.proj.SetYOffset(off)
		}
		return m, nil
	case openedMsg:
		return m.runOpened(msg)
	case allPendingMsg:
		if m.pend != nil {
			m.pend.fill(msg, m.sessRun())
		}
		return m, nil
	case writingTickMsg:
		if msg.dataGen == m.dataGen && m.sess != nil && msg.off == m.incOff {
			return m, m.checkWriting()
		}
		return m, nil
	case grewMsg:
		if msg.dataGen != m.dataGen {
			return m, nil
		}
		if m.sess == nil {
			return m.journalAppeared(msg)
		}
		return m.applyGrowth(msg)
	case runsMsg:
		if m.runs != nil && m.sess == nil && m.runs.set(msg) {
			return m, m.runs.reload()
		}
		return m, nil
	case tea.MouseWheelMsg:
		return m.wheel(msg)
	case tea.KeyPressMsg:
		return m.key(msg)
	case decisionMsg:
		return m.decisionDone(msg)
	}
	return m, nil
}

// journalAppeared opens the session once a journal that did not exist at
// start appears.
func (m Model) journalAppeared(msg grewMsg) (tea.Model, tea.Cmd) {
	if msg.notice != "" {
		m.notice = msg.notice
	}
	if msg.newJ == nil || m.o.Session == nil {
		return m, m.watch()
	}
	s, err := m.o.Session(m.target, msg.newJ)
	if err != nil {
		m.setStatus(err.Error(), true)
		return m, m.watch()
	}
	m.setSession(s)
	return m, tea.Batch(m.requestState(), m.watch(), m.recompute())
}

func (m Model) applyGrowth(msg grewMsg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	if msg.newJ != nil {
		// A new generation of the journal (truncated, replaced, rotated):
		// replay it from the start.
		m.sess.Adopt(msg.newJ)
		m.setSession(m.sess)
		m.notice = msg.notice
		return m, tea.Batch(m.requestState(), m.watch(), m.recompute())
	}
	if msg.fromWatch {
		cmds = append(cmds, m.watch())
	}
	if msg.err != nil {
		m.setStatus("cannot read the journal: "+msg.err.Error(), true)
	}
	if msg.notice != "" {
		m.notice = msg.notice
	}
	if m.sess.Redetect() {
		// The format was guessed from an empty journal: start over with the
		// detected one (the pending list follows on the next refresh).
		m.setSession(m.sess)
		return m, tea.Batch(m.requestState(), m.watch())
	}
	indexing := msg.progress != nil && msg.progress.Done < msg.progress.Total
	if msg.progress != nil {
		m.indexing = msg.progress
		if !indexing {
			m.indexing = nil
		}
	}
	if !indexing {
		m.pending = msg.pending
		if m.pend != nil && m.pend.unknown != "" {
			m.pend.items, m.pend.unknown = m.pending, ""
		}
	}
	cmds = append(cmds, m.checkWriting())
	if msg.added > 0 || msg.reset || (msg.progress != nil && !indexing) {
		// While a backlog is indexed the cursor stays where it is (the
		// user scrubs what is indexed); following resumes at its end.
		wasEnd := m.follow && !indexing
		m.tl.setRecords(m.sess.J.Index.Records(), msg.reset)
		if m.tv.filtering {
			cmds = append(cmds, m.visGrew(msg.reset))
		}
		if wasEnd {
			m.newCount = 0
			m.tl.selectLast()
			cmds = append(cmds, m.requestState())
		} else {
			m.newCount += msg.added
		}
	}
	if n := m.jumpTo; n > 0 && (m.tl.recs.Events() >= n || !m.moreToIndex()) {
		m.jumpTo = 0
		if !m.tl.selectEvent(n) {
			m.setStatus(fmt.Sprintf("no position %d: positions run from 1 to %d", n, m.tl.recs.Events()), true)
		} else {
			m.setStatus(fmt.Sprintf("at position %d", n), false)
			cmds = append(cmds, m.moved())
		}
	}
	return m, tea.Batch(cmds...)
}

// jumpWhenIndexed makes position n, when it is not indexed yet but may be
// (the journal holds bytes not indexed yet), where the cursor goes once it
// is (applyGrowth), and reports whether it did.
func (m *Model) jumpWhenIndexed(n int) bool {
	if n <= m.tl.recs.Events() || !m.moreToIndex() {
		return false
	}
	m.jumpTo, m.follow = n, false
	return true
}

// moreToIndex reports whether the journal holds bytes the index has not
// read yet: a backlog indexed in the background, or one whose indexing
// has not begun (the first screen shows a prefix).
func (m *Model) moreToIndex() bool {
	if m.indexing != nil {
		return true
	}
	st, err := m.sess.J.File().Stat()
	if err != nil {
		return false
	}
	read := m.sess.J.Index.Consumed()
	if r, ok := m.sess.J.Index.Incomplete(); ok {
		read = r.Off + r.Len
	}
	return st.Size() > read
}

func (m *Model) setStatus(s string, bad bool) {
	m.status, m.statusBad = s, bad
}

// moved is called after the cursor moved: follow mode is on only at the end.
func (m *Model) moved() tea.Cmd {
	m.follow = m.tl.atEnd()
	if m.follow {
		m.newCount = 0
	}
	return m.requestState()
}

func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.keySeq++
	m.status, m.statusBad = "", false
	m.jumpTo = 0
	g := m.keys.Global
	if m.dialog != nil {
		return m.dialogKey(msg)
	}
	if m.prompt != nil {
		return m.promptKey(msg)
	}
	if m.showHelp {
		if key.Matches(msg, g.Quit) && msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
		m.showHelp = false
		return m, nil
	}
	if m.runs != nil && m.sess == nil {
		return m.runsKey(msg)
	}
	if m.pend != nil {
		return m.pendingKey(msg)
	}
	if m.tv.overlay != nil {
		return m.overlayKey(msg)
	}
	if m.sess != nil {
		if mm, cmd, ok := m.travelKey(msg); ok {
			return mm, cmd
		}
	}
	switch {
	case key.Matches(msg, g.Quit):
		return m, tea.Quit
	case key.Matches(msg, g.Help):
		m.showHelp = true
		return m, nil
	case key.Matches(msg, g.Focus):
		m.focus = (m.focus + 1) % numPanes
		return m, nil
	case key.Matches(msg, g.FocusBack):
		m.focus = (m.focus + numPanes - 1) % numPanes
		return m, nil
	case key.Matches(msg, m.keys.Runs.Back) && m.target.DeltaDir != "":
		// The list as it was, the cursor on the run just left, re-read
		// at once: keys pressed on the way back are not lost to a
		// "Reading runs…" screen.
		if m.runs == nil {
			m.runs = newRunPicker(m.st, m.target.DeltaDir)
		}
		m.opens++
		m.replaceSession(nil, false)
		m.dataGen++
		return m, m.runs.load()
	}
	if m.sess == nil {
		return m, nil
	}
	switch {
	case key.Matches(msg, g.Goto), key.Matches(msg, g.GotoKey):
		ti := textinput.New()
		ti.Prompt = string(msg.String()) + " "
		ti.CharLimit = 200
		ti.Focus()
		m.prompt = &promptState{kind: rune(msg.String()[0]), input: ti}
		return m, nil
	case key.Matches(msg, g.Time):
		m.tl.absolute = !m.tl.absolute
		return m, nil
	case key.Matches(msg, g.Doc):
		m.doc = (m.doc + 1) % len(m.sess.F.Docs())
		m.proj.GotoTop()
		return m, m.requestState()
	case key.Matches(msg, g.Pending):
		m.pend = newPendingList(m.st, m.pending, m.o.Now())
		if m.target.DeltaDir != "" {
			return m, m.allRunsPending()
		}
		if p := m.indexing; p != nil {
			// The pending list needs the fold to the end: say so rather
			// than "nothing is waiting"; it fills in when indexing is done.
			m.pend.items = nil
			m.pend.unknown = fmt.Sprintf("The journal is still being indexed (%d%%): what waits for a decision is known once it is.",
				indexedPct(p))
		}
		return m, nil
	case key.Matches(msg, g.Approve), key.Matches(msg, g.Reject):
		return m.openDialog(key.Matches(msg, g.Approve), nil)
	case key.Matches(msg, g.Last), key.Matches(msg, g.Follow):
		m.tl.selectLast()
		return m, m.moved()
	case key.Matches(msg, g.First):
		if m.tl.count() > 0 {
			m.tl.selectRecord(m.tl.at(0))
		}
		return m, m.moved()
	case key.Matches(msg, g.PrevType), key.Matches(msg, g.NextType):
		dir := 1
		if key.Matches(msg, g.PrevType) {
			dir = -1
		}
		typ := m.tl.selectedType()
		if !m.tl.findType(typ, dir) {
			m.setStatus(fmt.Sprintf("no %s event %s", render.Line(typ), map[int]string{1: "after this one", -1: "before this one"}[dir]), false)
			return m, nil
		}
		return m, m.moved()
	}
	switch m.focus {
	case focusState:
		return m.treeKey(msg)
	case focusProjection:
		switch {
		case key.Matches(msg, g.Down):
			m.proj.ScrollDown(1)
		case key.Matches(msg, g.Up):
			m.proj.ScrollUp(1)
		case key.Matches(msg, g.PageDown):
			m.proj.ScrollDown(m.proj.Height())
		case key.Matches(msg, g.PageUp):
			m.proj.ScrollUp(m.proj.Height())
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, g.Down):
		m.tl.move(1)
	case key.Matches(msg, g.Up):
		m.tl.move(-1)
	case key.Matches(msg, g.PageDown):
		m.tl.move(m.tl.visibleRows())
	case key.Matches(msg, g.PageUp):
		m.tl.move(-m.tl.visibleRows())
	default:
		return m, nil
	}
	return m, m.moved()
}

func (m Model) treeKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	g, t := m.keys.Global, m.keys.Tree
	switch {
	case key.Matches(msg, g.Down):
		m.tr.move(1)
	case key.Matches(msg, g.Up):
		m.tr.move(-1)
	case key.Matches(msg, g.PageDown):
		m.tr.move(m.tr.h - 1)
	case key.Matches(msg, g.PageUp):
		m.tr.move(-(m.tr.h - 1))
	case key.Matches(msg, t.Toggle):
		m.tr.toggle()
	case key.Matches(msg, t.Expand):
		m.tr.setFold(false)
	case key.Matches(msg, t.Collapse):
		m.tr.setFold(true)
	case key.Matches(msg, t.ExpandAll):
		m.tr.foldAll(false)
	case key.Matches(msg, t.CollapseAll):
		m.tr.foldAll(true)
	}
	return m, nil
}

func (m Model) promptKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	d := m.keys.Dialog
	switch {
	case key.Matches(msg, d.Cancel):
		m.prompt = nil
		return m, nil
	case key.Matches(msg, d.Confirm):
		p := m.prompt
		m.prompt = nil
		val := strings.TrimSpace(p.input.Value())
		if p.kind == '/' || p.kind == 's' || p.kind == 'B' {
			return m.travelPrompt(p.kind, val)
		}
		if p.kind == ':' {
			n, err := strconv.Atoi(val)
			if err == nil && m.jumpWhenIndexed(n) {
				m.setStatus(fmt.Sprintf("position %d is not indexed yet: going there when it is", n), false)
				return m, nil
			}
			if err != nil || !m.tl.selectEvent(n) {
				m.setStatus(fmt.Sprintf("no position %s: positions run from 1 to %d", render.Line(val), m.tl.recs.Events()), true)
				return m, nil
			}
			return m, m.moved()
		}
		if !m.tl.findKey(val) {
			msg := fmt.Sprintf("no event with seq or id %s", render.Line(val))
			if m.moreToIndex() {
				msg += fmt.Sprintf(" in the %d indexed so far", m.tl.recs.Events())
			}
			m.setStatus(msg, true)
			return m, nil
		}
		return m, m.moved()
	}
	var cmd tea.Cmd
	m.prompt.input, cmd = m.prompt.input.Update(msg)
	return m, cmd
}

func (m Model) wheel(msg tea.MouseWheelMsg) (tea.Model, tea.Cmd) {
	if m.sess == nil {
		return m, nil
	}
	d := 3
	if msg.Button == tea.MouseWheelUp {
		d = -3
	} else if msg.Button != tea.MouseWheelDown {
		return m, nil
	}
	switch m.focus {
	case focusState:
		m.tr.move(d)
		return m, nil
	case focusProjection:
		if d > 0 {
			m.proj.ScrollDown(d)
		} else {
			m.proj.ScrollUp(-d)
		}
		return m, nil
	}
	m.tl.move(d)
	return m, m.moved()
}

// Pane sizes: the timeline on top, state and projection side by side below.
func (m *Model) layout() {
	if m.w == 0 || m.h == 0 {
		return
	}
	bodyH := m.h - 2 // status line and help line
	if bodyH < 6 {
		bodyH = 6
	}
	topH := bodyH * 45 / 100
	if topH < 5 {
		topH = 5
	}
	botH := bodyH - topH
	leftW := m.w / 2
	rightW := m.w - leftW
	// inner sizes: border 2, title line 1
	m.tl.setSize(m.w-2, topH-3)
	m.tr.setSize(leftW-2, botH-3)
	m.proj.SetWidth(rightW - 2)
	m.proj.SetHeight(botH - 3)
	m.help.SetWidth(m.w)
}

// View draws the screen.
func (m Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if m.w == 0 || m.h == 0 {
		v.SetContent("rewind: starting…")
		return v
	}
	var body string
	switch {
	case m.showHelp:
		body = m.helpView()
	case m.sess == nil && m.runs != nil:
		body = m.runs.view(m.w, m.h-2)
	case m.sess == nil:
		body = m.st.Dim.Render("Waiting for " + render.Line(m.target.Journal) + " to appear…")
	default:
		body = m.panes()
	}
	if m.pend != nil && !m.showHelp {
		body = overlay(body, m.pend.view(m.st, m.w, m.h-2), m.w, m.h-2)
	}
	if m.tv.overlay != nil && !m.showHelp {
		body = overlay(body, m.tv.overlay.view(m.st, m.w, m.h-2), m.w, m.h-2)
	}
	if m.dialog != nil && !m.showHelp {
		body = overlay(body, m.dialog.view(m.st, m.w), m.w, m.h-2)
	}
	out := body + "\n" + m.statusLine() + "\n" + m.helpLine()
	v.SetContent(render.Filter(out))
	return v
}

func (m Model) panes() string {
	bodyH := m.h - 2
	topH := bodyH * 45 / 100
	if topH < 5 {
		topH = 5
	}
	botH := bodyH - topH
	leftW := m.w / 2
	rightW := m.w - leftW
	name := render.Line(filepath.Join(filepath.Base(filepath.Dir(m.sess.J.Path)), filepath.Base(m.sess.J.Path)))
	title := fmt.Sprintf("Timeline · %s · %s · %d events", m.sess.F.Name(), name, m.tl.recs.Events())
	top := m.box(title, m.tl.view(), m.w, topH, m.focus == focusTimeline)
	stTitle := fmt.Sprintf("State after #%d", m.shownPos)
	if cur := m.tl.pos(); cur != m.shownPos {
		// A long fold (a jump across a large journal) is under way.
		stTitle += fmt.Sprintf(" · folding to #%d…", cur)
	}
	left := m.box(stTitle, m.tr.view(m.focus == focusState), leftW, botH, m.focus == focusState)
	docs := m.sess.F.Docs()
	prTitle := "Projection · " + docs[m.doc%len(docs)]
	if len(docs) > 1 {
		prTitle += " (D: next)"
	}
	right := m.box(prTitle, m.projView(), rightW, botH, m.focus == focusProjection)
	// The boxes are exactly as wide and as high as asked, so they are
	// joined row by row, without measuring their lines again as
	// lipgloss.JoinHorizontal and JoinVertical do.
	var b strings.Builder
	for _, r := range top {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	for i := range botH {
		b.WriteString(left[i])
		b.WriteString(right[i])
		if i < botH-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// setProjection gives proj the rendered projection md to scroll.
func (m *Model) setProjection(md string) {
	m.projLines = strings.Split(md, "\n")
	m.proj.SetContentLines(slices.Clone(m.projLines))
}

// projView returns the projection's lines that proj has scrolled to, as
// many as its height: what its View shows, less its padding (box pads).
func (m Model) projView() string {
	from := min(m.proj.YOffset(), len(m.projLines))
	to := min(from+max(m.proj.Height(), 0), len(m.projLines)) // negative in a tiny terminal
	return strings.Join(m.projLines[from:to], "\n")
}

// box draws a bordered pane of outer size w×h with a title line, and
// returns its rows: max(h, 3) of them, each max(w, 3) columns wide.
//
// Every row of content is cut and padded to the inner width once
// (render.Fit), and the border is drawn around them with the pane style's
// border and colour: with the width and height set, lipgloss wrapped,
// aligned and measured each line again, and its joins once more (a 160x50
// screen on 100,000 events: 3.3-3.9 ms a View, most of it measuring
// graphemes; see BenchmarkView100k).
func (m Model) box(title, content string, w, h int, focused bool) []string {
	st, ts := m.st.Pane, m.st.Title
	if focused {
		st, ts = m.st.PaneFocused, m.st.TitleFocused
	}
	inW, inH := max(w-2, 1), max(h-2, 1)
	bd := st.GetBorderStyle()
	fg := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
	left, right := fg.Render(bd.Left), fg.Render(bd.Right)
	rows := make([]string, 0, inH+2)
	rows = append(rows, fg.Render(bd.TopLeft+strings.Repeat(bd.Top, inW)+bd.TopRight))
	rows = append(rows, left+render.Fit(ts.Render(render.Truncate(title, inW)), inW)+right)
	lines := strings.Split(content, "\n")
	for i := range inH - 1 {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		rows = append(rows, left+render.Fit(l, inW)+right)
	}
	return append(rows, fg.Render(bd.BottomLeft+strings.Repeat(bd.Bottom, inW)+bd.BottomRight))
}

func (m Model) statusLine() string {
	if m.sess == nil {
		return m.st.Dim.Render(render.Truncate("Pick a run: ↑/↓ and enter; q quits", m.w))
	}
	var parts []string
	if p := m.indexing; p != nil && m.status != "" {
		// The answer to the last key comes first: the bar gives way.
		parts = append(parts, m.st.StatusInfo.Render("indexing ")+fmt.Sprintf("%d%%", indexedPct(p)))
	} else if p != nil {
		parts = append(parts, m.indexingStatus(p))
	}
	parts = append(parts, fmt.Sprintf("%d/%d", m.tl.pos(), m.tl.recs.Events()))
	if m.status != "" {
		s := m.st.StatusInfo
		if m.statusBad {
			s = m.st.StatusErr
		}
		parts = append(parts, s.Render(render.Line(m.status)))
	}
	if m.follow && m.indexing != nil {
		// The cursor stays while a backlog is indexed (the user scrubs
		// what is indexed) and goes to the last event at its end.
		parts = append(parts, m.st.Follow.Render("● following once indexed"))
	} else if m.follow {
		parts = append(parts, m.st.Follow.Render("● following"))
	} else if m.newCount > 0 {
		parts = append(parts, m.st.Paused.Render(fmt.Sprintf("+%d new, G to follow", m.newCount)))
	} else {
		parts = append(parts, m.st.Paused.Render("paused"))
	}
	if m.indexing != nil && len(m.pending) == 0 {
		// The pending list needs the fold to the end: not known yet.
		parts = append(parts, m.st.Dim.Render("pending: after indexing"))
	} else if n := len(m.pending); n > 0 {
		parts = append(parts, m.st.PendingBadge.Render(fmt.Sprintf("%d pending (p)", n)))
	} else {
		parts = append(parts, m.st.Dim.Render("0 pending"))
	}
	parts = append(parts, m.travelStatus()...)
	if m.status == "" && m.notice != "" {
		parts = append(parts, m.st.StatusWarn.Render(render.Line(m.notice)))
	}
	return render.Truncate(strings.Join(parts, "  "), m.w)
}

// indexedPct is how much of a backlog is indexed, in percent, rounded as
// the progress bar rounds it.
func indexedPct(p *tail.Progress) int {
	return int(math.Round(100 * float64(p.Done) / float64(max(p.Total, 1))))
}

// indexingStatus is the status line's progress bar for a journal indexed
// in the background: share done, bytes, and rates in bytes and events per
// second.
func (m Model) indexingStatus(p *tail.Progress) string {
	frac := 0.0
	if p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	rate := ""
	if secs := p.Elapsed.Seconds(); secs > 0.01 {
		rate = fmt.Sprintf(" · %s/s · %s events/s", journal.HumanBytes(int64(float64(p.Done)/secs)), humanCount(float64(p.Events)/secs))
	}
	return m.st.StatusInfo.Render("indexing ") + m.bar.ViewAs(frac) +
		m.st.Dim.Render(fmt.Sprintf(" %s of %s%s", journal.HumanBytes(p.Done), journal.HumanBytes(p.Total), rate))
}

// humanCount formats a count as 950, 12.3k or 4.1M.
func humanCount(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", n/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0fk", n/1e3)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

func (m Model) helpLine() string {
	if m.prompt != nil {
		return m.prompt.input.View()
	}
	return render.Truncate(m.help.ShortHelpView(m.keys.ShortHelp()), m.w)
}

func (m Model) helpView() string {
	h := m.help
	h.ShowAll = true
	h.SetWidth(0)
	intro := m.st.TitleFocused.Render("rewind keys") + m.st.Dim.Render("  (any key closes)") + "\n\n"
	groups := m.keys.FullHelp()
	// As many columns side by side as fit, then the next row of columns.
	var rows []string
	for start := 0; start < len(groups); {
		end := start + 1
		for end < len(groups) && lipgloss.Width(h.FullHelpView(groups[start:end+1])) <= m.w-4 {
			end++
		}
		rows = append(rows, h.FullHelpView(groups[start:end]))
		start = end
	}
	keys := strings.Join(rows, "\n\n")
	text := intro + keys + "\n\n" + m.st.Dim.Render(
		"Timeline rows: position, the format's seq or id, time, type, actor, summary.\n"+
			"Red rows are bad lines (never hidden, never folded). State marks: + added, ~ changed by the selected event.\n"+
			"Decisions: a (approve/answer) or r (reject) on a pending item opens a dialog that needs a second key to confirm.\n"+
			"Time travel: m<letter> marks, '<letter> jumps, d<letter> diffs the mark with here (dd: with the previous event);\n"+
			"b blames the state path under the state pane's cursor; / filters with jq, s finds the first state where a jq expression holds;\n"+
			"space plays from here (+/- speed, any key stops); B stops play and follow when a jq expression over the state becomes true.")
	return lipgloss.NewStyle().Width(m.w).Height(m.h-2).MaxHeight(m.h-2).Padding(1, 2).Render(text)
}

// overlay draws fg centred over bg.
func overlay(bg, fg string, w, h int) string {
	bgLines := strings.Split(bg, "\n")
	fgLines := strings.Split(fg, "\n")
	fw := 0
	for _, l := range fgLines {
		if x := render.Width(l); x > fw {
			fw = x
		}
	}
	top := (h - len(fgLines)) / 2
	if top < 0 {
		top = 0
	}
	left := (w - fw) / 2
	if left < 0 {
		left = 0
	}
	for i, l := range fgLines {
		y := top + i
		if y >= len(bgLines) {
			break
		}
		pad := strings.Repeat(" ", left)
		bgLines[y] = render.PadRight(pad+l, w)
	}
	return strings.Join(bgLines, "\n")
}

func debugText(msg tea.Msg) string {
	switch m := msg.(type) {
	case tea.KeyPressMsg:
		return strconv.Quote(m.String())
	case tea.WindowSizeMsg:
		return fmt.Sprintf("%dx%d", m.Width, m.Height)
	case grewMsg:
		return fmt.Sprintf("added=%d reset=%v", m.added, m.reset)
	case stateMsg:
		return fmt.Sprintf("gen=%d pos=%d", m.gen, m.pos)
	}
	return ""
}
