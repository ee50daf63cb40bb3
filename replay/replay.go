// Package replay is rewind's format-agnostic time machine: it folds a
// journal's events through a model.Format, keeps a keyframe of the state
// every K events, and returns the state after any position by replaying at
// most K-1 events from the nearest keyframe. It also diffs states.
//
// States are persistent values (see package model), so a keyframe shares
// structure with its neighbours instead of copying the state.
package replay

import (
	"context"
	"sync"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
)

// DefaultInterval is the number of events between keyframes.
const DefaultInterval = 256

// Replay folds one journal through one format.
//
// Replay is safe for concurrent use: a background goroutine may Extend while
// the UI asks for states.
type Replay struct {
	J *journal.Journal
	F model.Format
	// K is the keyframe interval in events.
	K int

	mu   sync.Mutex
	keys []model.State // keys[i] is the state after event i*K
	// tip is the last state computed past the last keyframe, so following a
	// live journal folds only the new events.
	tipPos  int
	tip     model.State
	oneShot bool
	// mine is the tip when a one-shot fold made it in place
	// (model.InPlacePreparer) and StateAt has not returned it: the next
	// line may be folded into it.
	mine model.State
}

// New returns a Replay of j through f with keyframes every DefaultInterval
// events. Nothing is folded until a state is asked for or Extend runs.
func New(j *journal.Journal, f model.Format) *Replay {
	return &Replay{J: j, F: f, K: DefaultInterval, keys: []model.State{f.Init()}}
}

// Events returns the number of events indexed so far.
func (r *Replay) Events() int {
	_, n := r.J.Index.Counts()
	return n
}

// OneShot makes r keep no keyframes, for a caller that asks for one state
// and exits (rewind state, rewind render): the fold then holds only the
// state it is building, not one snapshot every K events; and when r's
// format is a model.InPlacePreparer, FollowPrepared folds each line into
// the state it made for the line before, unless StateAt returned that
// state (which stays as it is). Call it before the first StateAt.
func (r *Replay) OneShot() {
	r.mu.Lock()
	r.K, r.oneShot = 1<<30, true
	r.mu.Unlock()
}

// IsOneShot reports whether OneShot was called.
func (r *Replay) IsOneShot() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.oneShot
}

// Keyframes returns how many events are covered by keyframes.
func (r *Replay) Keyframes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return (len(r.keys) - 1) * r.K
}

// StateAt returns the state after the event at position pos (1-based; 0 is
// the state before any event). Positions past the last event give the state
// after the last event.
func (r *Replay) StateAt(pos int) (model.State, error) {
	if n := r.Events(); pos > n {
		pos = n
	}
	if pos < 0 {
		pos = 0
	}
	r.mu.Lock()
	ki := pos / r.K
	if ki >= len(r.keys) {
		ki = len(r.keys) - 1
	}
	s, from := r.keys[ki], ki*r.K+1
	if r.tip != nil && r.tipPos <= pos && r.tipPos >= from {
		s, from = r.tip, r.tipPos+1
		r.mine = nil // returned, or folded from: it stays as it is
	}
	r.mu.Unlock()
	err := r.J.Each(from, pos, func(ev model.Event) error {
		s = r.F.Apply(s, ev)
		if ev.Pos%r.K == 0 {
			r.addKey(ev.Pos/r.K, s)
		}
		return nil
	})
	if err == nil {
		r.mu.Lock()
		if pos >= r.tipPos {
			r.tip, r.tipPos = s, pos
		}
		r.mu.Unlock()
	}
	return s, err
}

// Follow folds ev onto the last state computed (the tip), for a caller
// that reads the events while they are indexed (journal.UpdateEach)
// rather than asking StateAt to read them back; it keeps keyframes as
// StateAt does. It reports false, folding nothing, when ev is not the
// event right after the tip.
func (r *Replay) Follow(ev model.Event) bool { return r.follow(ev, nil, nil, 0) }

// FollowPrepared is Follow for a fold whose format f (the replay's, or
// nil: then it is Follow) read ev's line ahead into p, as lines[i] of its
// batch (model.Preparer): ev is folded with ApplyPrepared, or in a
// one-shot replay with ApplyPreparedInPlace when f has it (see OneShot).
func (r *Replay) FollowPrepared(f model.Preparer, ev model.Event, p any, i int) bool {
	return r.follow(ev, f, p, i)
}

// follow is a Following of one event: the replay's lock taken to read the
// tip and again to set it.
func (r *Replay) follow(ev model.Event, f model.Preparer, p any, i int) bool {
	var w Following
	r.startFollowing(&w, f)
	ok := w.Follow(ev, p, i)
	w.End()
	return ok
}

// A Following folds consecutive events onto a replay's tip from one
// goroutine, taking the replay's lock when it starts, at each keyframe and
// when it ends; FollowPrepared is a Following of one event, so a caller
// that folds many takes the lock twice an event: rewind state of 1 GB of
// DeltaMind (3.5 M events) spent 0.08 s of CPU in those locks, on the one
// goroutine of the fold that cannot be split, and took 2092 -> 1969 ms
// with a Following for the whole journal (scripts/ab, 10 runs
// alternated; CPU 3.88 -> 3.63 s). That is for a caller that reads the
// journal in order while no one else follows the replay
// (app.Session.FoldWhileIndexingThrough); the UI's LiveFold, whose states
// are asked for while it folds, follows event by event.
//
// StateAt may run meanwhile: it sees the tip as it was when the Following
// started (none, when the first event is folded into it in place: it then
// folds from a keyframe), then the state at each keyframe, then, after
// End, the last state folded. A Following is not safe for concurrent use.
type Following struct {
	r    *Replay
	f    model.Preparer
	ip   model.InPlacePreparer // f's, when r is one-shot (see OneShot)
	k    int                   // r.K
	s    model.State           // the state after pos
	pos  int
	mine bool // s is the fold's own: the next line may be folded into it
}

// Following starts a Following of r through f (nil: Apply, as Follow).
// Call End when it is done.
func (r *Replay) Following(f model.Preparer) *Following {
	w := new(Following)
	r.startFollowing(w, f)
	return w
}

func (r *Replay) startFollowing(w *Following, f model.Preparer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*w = Following{r: r, f: f, k: r.K, s: r.tip, pos: r.tipPos}
	if w.s == nil {
		w.s, w.pos = r.keys[0], 0
	}
	if ip, ok := f.(model.InPlacePreparer); ok && r.oneShot {
		w.ip = ip
	}
	if w.mine = w.ip != nil && w.s == r.mine; w.mine {
		// s is about to change: until it is the tip again, StateAt folds
		// from the keyframe instead of reading it.
		r.tip = nil
	}
}

// Follow folds ev, the i-th line of a batch f read ahead into p (see
// FollowPrepared), and reports false, folding nothing, when ev is not the
// event right after the last one folded.
func (w *Following) Follow(ev model.Event, p any, i int) bool {
	if ev.Pos != w.pos+1 {
		return false
	}
	prev := w.s
	switch {
	case w.ip != nil:
		w.s = w.ip.ApplyPreparedInPlace(w.s, ev, p, i, w.mine)
	case w.f != nil:
		w.s = w.f.ApplyPrepared(w.s, ev, p, i)
	default:
		w.s = w.r.F.Apply(w.s, ev)
	}
	w.pos = ev.Pos
	if ev.Pos%w.k == 0 {
		w.r.addKey(ev.Pos/w.k, w.s)
		w.mine = false // a keyframe stays as it is
		w.publish()
		return true
	}
	w.mine = w.ip != nil && (w.s != prev || w.mine)
	return true
}

// End makes the last state folded the replay's tip, unless StateAt has
// meanwhile made a later one. The Following is not used afterwards.
func (w *Following) End() { w.publish() }

func (w *Following) publish() {
	r := w.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if w.pos < r.tipPos && r.tip != nil {
		return
	}
	r.tip, r.tipPos, r.mine = w.s, w.pos, nil
	if w.mine {
		r.mine = w.s
	}
}

// addKey records s as keyframe i if it is the next one missing.
func (r *Replay) addKey(i int, s model.State) {
	r.mu.Lock()
	if i == len(r.keys) {
		r.keys = append(r.keys, s)
	}
	r.mu.Unlock()
}

// Extend folds forward from the last keyframe until keyframes cover every
// complete block of K events indexed so far, calling progress (if not nil)
// after each block with the number of events covered. It returns early
// when ctx is done.
func (r *Replay) Extend(ctx context.Context, progress func(done int)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.mu.Lock()
		ki := len(r.keys) - 1
		s := r.keys[ki]
		r.mu.Unlock()
		from, to := ki*r.K+1, (ki+1)*r.K
		if to > r.Events() {
			return nil
		}
		err := r.J.Each(from, to, func(ev model.Event) error {
			s = r.F.Apply(s, ev)
			return nil
		})
		if err != nil {
			return err
		}
		r.addKey(ki+1, s)
		if progress != nil {
			progress(to)
		}
	}
}

// Fold replays every event from the start without keyframes, the
// straightforward way, calling fn with the state after each event. Tests use
// it as the reference for StateAt.
func Fold(j *journal.Journal, f model.Format, fn func(pos int, s model.State)) error {
	s := f.Init()
	return j.Each(1, int(^uint(0)>>1), func(ev model.Event) error {
		s = f.Apply(s, ev)
		fn(ev.Pos, s)
		return nil
	})
}

// JSON returns the full state object after pos, as `rewind state` prints it.
func (r *Replay) JSON(pos int) (model.Object, error) {
	return r.stateObject(pos, model.StateJSON)
}

// StreamJSON is JSON with the format's StreamView (model.StreamStateJSON):
// the lists that grow with the journal are model.Lazy, made as they are
// written. For printing the whole state; the result reads the journal
// when written, so write it before the replay's journal is closed.
func (r *Replay) StreamJSON(pos int) (model.Object, error) {
	return r.stateObject(pos, model.StreamStateJSON)
}

// stateObject returns view of the state after pos, pos clamped to the
// events indexed.
func (r *Replay) stateObject(pos int, view func(model.Format, model.State, int) model.Object) (model.Object, error) {
	s, err := r.StateAt(pos)
	if err != nil {
		return nil, err
	}
	if n := r.Events(); pos > n {
		pos = n
	}
	return view(r.F, s, pos), nil
}
