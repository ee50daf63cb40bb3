// Package query compiles the jq expressions a user types (with
// github.com/itchyny/gojq) and evaluates them over events and states: the
// timeline filter, the state search, breakpoints, `--where`, and the jq
// paths that blame and copy use.
//
// An expression is true for an input when its first output is neither
// false nor null (so `select(.type == "THOUGHT")` and `.status == "FAILED"`
// both work); an expression with no output is false. Errors are values: a
// bad expression is reported by Compile with jq's own message, and a run-time
// error (`.a.b` on a string) makes the input not match.
package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/itchyny/gojq"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/replay"
)

// Query is one compiled jq expression. It is safe for concurrent use.
type Query struct {
	// Src is the expression as typed.
	Src  string
	code *gojq.Code
	// keys are the only top-level members of its input the expression
	// reads, when partial (rootKeys).
	keys    []string
	partial bool
}

// Timeout bounds one evaluation, so an expression such as `repeat(.)` can
// not hang the caller.
const Timeout = 2 * time.Second

// Compile parses and compiles src. The error is jq's own message (which can
// quote src: the caller sanitizes it before showing it).
func Compile(src string) (*Query, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return nil, errors.New("empty expression")
	}
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("jq: %v", err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("jq: %v", err)
	}
	keys, partial := rootKeys(q)
	return &Query{Src: src, code: code, keys: keys, partial: partial}, nil
}

// MatchState is Match over the state after position at, the object
// model.StateJSON gives, made only as far as the expression reads it: for
// an expression that names the members it reads (`.pending | length > 0`,
// `.iterations > 40`), the object holds only those, and a state's lists
// that grow with the journal (model.StreamViews) are made only when it
// reads them, and a format's other members (model.KeyViews) not at all. A
// search for the first state where such an expression holds
// then costs a fold of the journal, not the making of every state whole.
func (q *Query) MatchState(f model.Format, s model.State, at int) (bool, error) {
	return q.Match(q.stateInput(f, s, at))
}

// stateInput is MatchState's input.
func (q *Query) stateInput(f model.Format, s model.State, at int) any {
	if !q.partial {
		return Value(model.StateJSON(f, s, at))
	}
	m := make(map[string]any, len(q.keys))
	for _, fl := range model.StateMembers(f, s, at, q.keys, model.StreamStateJSON) {
		m[fl.Key] = Value(fl.Value)
	}
	return m
}

// Match reports whether the expression is true for v (a value from Event
// or State): its first output is neither false nor null. A run-time error is
// returned with match false. To evaluate q over many inputs, a Matcher
// costs less.
func (q *Query) Match(v any) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	return q.match(ctx, v)
}

func (q *Query) match(ctx context.Context, v any) (bool, error) {
	it := q.code.RunWithContext(ctx, v)
	out, ok := it.Next()
	if !ok {
		return false, nil
	}
	if err, isErr := out.(error); isErr {
		var he *gojq.HaltError
		if errors.As(err, &he) && he.Value() == nil {
			return false, nil
		}
		return false, fmt.Errorf("jq: %v", err)
	}
	return out != nil && out != false, nil
}

// Matcher is Match for many inputs, one after the other: instead of a
// timer per evaluation, one context serves them all, and a watchdog
// goroutine cancels it when an evaluation has run for Timeout (the
// evaluation fails, the next one gets a new context). An evaluation takes
// half the time of Match's (0.66 against 1.39 µs for .type == "x" on a
// Durable Stream event). A Matcher must not be used by two goroutines at
// once; Close stops its watchdog.
type Matcher struct {
	q      *Query
	mu     sync.Mutex // guards ctx and cancel
	ctx    context.Context
	cancel context.CancelFunc
	start  atomic.Int64 // UnixNano when the running evaluation began; 0 between them
	stop   chan struct{}
	dec    decoder // MatchEvent's
}

// Matcher returns a Matcher of q; Close it when done.
func (q *Query) Matcher() *Matcher {
	m := &Matcher{q: q, stop: make(chan struct{})}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	go m.watch()
	return m
}

func (m *Matcher) watch() {
	t := time.NewTicker(Timeout / 8)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case now := <-t.C:
			if s := m.start.Load(); s != 0 && now.UnixNano()-s > int64(Timeout) {
				m.mu.Lock()
				m.cancel()
				m.mu.Unlock()
			}
		}
	}
}

// Match is Query.Match.
func (m *Matcher) Match(v any) (bool, error) {
	m.mu.Lock()
	if m.ctx.Err() != nil {
		m.ctx, m.cancel = context.WithCancel(context.Background())
	}
	ctx := m.ctx
	m.mu.Unlock()
	m.start.Store(time.Now().UnixNano())
	defer m.start.Store(0)
	return m.q.match(ctx, v)
}

// MatchEvent is Match(Event(raw)) with a decoding that allocates little:
// the value lives only during the call, in storage the Matcher reuses. A
// raw that is not JSON matches nothing.
func (m *Matcher) MatchEvent(raw []byte) (bool, error) {
	v, err := m.dec.decodeReusing(raw)
	if err != nil {
		return false, nil
	}
	return m.Match(v)
}

// Close stops the watchdog. The Matcher must not be used after.
func (m *Matcher) Close() {
	close(m.stop)
	m.mu.Lock()
	m.cancel()
	m.mu.Unlock()
}

// Event decodes one journal record for a query: objects become
// map[string]any and numbers json.Number, as gojq expects, exactly as
// encoding/json's Decoder with UseNumber decodes them (see decode).
func Event(raw []byte) (any, error) {
	return decode(raw)
}

// Value converts a state value (model.Object, []any, int, int64, …) into
// the plain form gojq evaluates: map[string]any, []any, int, float64,
// json.Number, string, bool, nil.
func Value(v any) any {
	switch x := v.(type) {
	case model.Object:
		m := make(map[string]any, len(x))
		for _, f := range x {
			m[f.Key] = Value(f.Value)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Value(e)
		}
		return out
	case int64:
		return int(x)
	case int32:
		return int(x)
	case nil, bool, string, int, float64, json.Number:
		return x
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case model.Literal:
		return x.String()
	case *model.Literal: // a Transient list's, boxed without allocating
		if x == nil {
			return nil
		}
		return x.String()
	case model.Lazy:
		// Made item by item; an item is converted before the next.
		if x.Object {
			m := make(map[string]any, x.Len)
			x.Each(func(f any) bool {
				if f, ok := f.(model.Field); ok {
					m[f.Key] = Value(f.Value)
				}
				return true
			})
			return m
		}
		out := make([]any, 0, x.Len)
		x.Each(func(e any) bool {
			out = append(out, Value(e))
			return true
		})
		return out
	}
	// Anything else: through encoding/json, as model.Object marshals it.
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	out, _ := Event(b)
	return out
}

// Path parses a jq path expression (`.items[3].summary`, `.pending[0]`,
// `."odd key"`) into a replay.Path, by asking jq for path(EXPR). Only
// plain paths are accepted: an expression with more than one path, or one
// that needs the input's values, is an error.
func Path(src string) (replay.Path, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return nil, errors.New("empty path")
	}
	q, err := gojq.Parse("[path(" + src + ")]")
	if err != nil {
		return nil, fmt.Errorf("jq: %v", err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("jq: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	out, _ := code.RunWithContext(ctx, nil).Next()
	if err, ok := out.(error); ok {
		return nil, fmt.Errorf("jq: %v", err)
	}
	paths, _ := out.([]any)
	if len(paths) != 1 {
		return nil, fmt.Errorf("%s is not a single path (it gives %d)", src, len(paths))
	}
	elems, _ := paths[0].([]any)
	p := make(replay.Path, 0, len(elems))
	for _, e := range elems {
		switch k := e.(type) {
		case string:
			p = append(p, k)
		case int:
			if k < 0 {
				return nil, fmt.Errorf("%s: negative index %d (count from the start)", src, k)
			}
			p = append(p, k)
		case float64:
			if k < 0 || k != float64(int(k)) {
				return nil, fmt.Errorf("%s: index %v is not a whole number", src, k)
			}
			p = append(p, int(k))
		default:
			return nil, fmt.Errorf("%s: a path element is neither a key nor an index", src)
		}
	}
	return p, nil
}
