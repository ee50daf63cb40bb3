package demo

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// errEnough stops a simulator when Generate has written its n events.
var errEnough = errors.New("demo: event budget reached")

// An engine is what a simulator runs on: a random source, a clock and a
// place for its lines. The same simulator code serves Run and Generate;
// only the engine differs.
//
// In live mode (Run) timestamps come from the wall clock, wait sleeps
// for the pacing interval before each event, and the simulator may look at
// the file system for human decisions. Otherwise (Generate) time is
// virtual: every event advances the clock by a random gap, nothing sleeps,
// and decisions are made up by the simulator itself.
type engine struct {
	r     *rand.Rand
	live  bool
	ctx   context.Context
	every time.Duration
	paced bool
	clock int64 // last timestamp handed out, Unix ms
	left  int   // events still to write (Generate); negative means no limit
	write func(line []byte) error
	w     jw // scratch line buffer
}

// genesis is the virtual start time of generated journals
// (2026-01-05T09:00:00Z); the seed moves it by up to 30 days.
const genesis = 1767603600000

func newEngine(seed int64) *engine {
	return &engine{r: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)), left: -1}
}

func newLiveEngine(ctx context.Context, seed int64, every time.Duration, write func([]byte) error) *engine {
	e := newEngine(seed)
	e.live, e.ctx, e.every, e.write = true, ctx, every, write
	return e
}

func newGenEngine(seed int64, n int, write func([]byte) error) *engine {
	e := newEngine(seed)
	e.left, e.write = n, write
	e.clock = genesis + e.r.Int64N(30*24*3600*1000)
	return e
}

// wait returns the timestamp for the next paced event. Live, it first
// sleeps for the pacing interval (except before the very first event) and
// fails once the context is done. Otherwise it advances the virtual clock
// by a random gap in [lo, hi] ms.
func (e *engine) wait(lo, hi int64) (int64, error) {
	if !e.live {
		return e.step(lo, hi), nil
	}
	if e.paced {
		if err := e.sleep(e.every); err != nil {
			return 0, err
		}
	}
	e.paced = true
	if err := e.ctx.Err(); err != nil {
		return 0, err
	}
	return e.wall(), nil
}

// step returns a timestamp without pacing: the wall clock when live, the
// virtual clock advanced by a random gap in [lo, hi] ms otherwise.
func (e *engine) step(lo, hi int64) int64 {
	if e.live {
		return e.wall()
	}
	e.clock += lo + e.r.Int64N(hi-lo+1)
	return e.clock
}

// wall returns the wall clock in Unix ms, never going backwards.
func (e *engine) wall() int64 {
	ms := time.Now().UnixMilli()
	if ms < e.clock {
		ms = e.clock
	}
	e.clock = ms
	return ms
}

// sleep pauses for d or until the context is done.
func (e *engine) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.ctx.Done():
		return e.ctx.Err()
	case <-t.C:
		return nil
	}
}

// line resets and returns the scratch line buffer.
func (e *engine) line() *jw {
	e.w.reset()
	return &e.w
}

// emit writes the scratch line followed by a newline.
func (e *engine) emit() error {
	if e.left == 0 {
		return errEnough
	}
	e.w.b = append(e.w.b, '\n')
	if err := e.write(e.w.b); err != nil {
		return err
	}
	if e.left > 0 {
		e.left--
		if e.left == 0 {
			return errEnough
		}
	}
	return nil
}

// Random helpers.

func (e *engine) intn(n int) int         { return e.r.IntN(n) }
func (e *engine) between(lo, hi int) int { return lo + e.r.IntN(hi-lo+1) }
func (e *engine) chance(p float64) bool  { return e.r.Float64() < p }

func pick[T any](e *engine, xs []T) T { return xs[e.r.IntN(len(xs))] }

// size returns a target text size in bytes: mostly small, sometimes a few
// kilobytes, rarely close to 20 KB.
func (e *engine) size() int {
	switch p := e.r.Float64(); {
	case p < 0.70:
		return e.between(120, 1400)
	case p < 0.95:
		return e.between(1400, 6000)
	default:
		return e.between(6000, 19500)
	}
}

const base36 = "0123456789abcdefghijklmnopqrstuvwxyz"

// hex returns n random lowercase hex digits.
func (e *engine) hex(n int) string {
	b := make([]byte, n)
	var v uint64
	for i := range b {
		if i%16 == 0 {
			v = e.r.Uint64()
		}
		b[i] = hexDigits[v&0xf]
		v >>= 4
	}
	return string(b)
}

// b36 returns n random base-36 digits, like
// Math.random().toString(36).slice(2, 2+n).
func (e *engine) b36(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = base36[e.r.IntN(36)]
	}
	return string(b)
}

// alnum returns n random characters from [0-9A-Za-z].
func (e *engine) alnum(n int) string {
	const set = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	for i := range b {
		b[i] = set[e.r.IntN(len(set))]
	}
	return string(b)
}

// uuid returns a random version-4 UUID.
func (e *engine) uuid() string {
	h := []byte(e.hex(32))
	h[12] = '4'
	h[16] = "89ab"[e.r.IntN(4)]
	return string(h[0:8]) + "-" + string(h[8:12]) + "-" + string(h[12:16]) + "-" + string(h[16:20]) + "-" + string(h[20:32])
}
