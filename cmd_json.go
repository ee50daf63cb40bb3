package main

import (
	"io"
	"runtime"
	"strconv"
	"sync"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// safeStrings are the encoder's string writers, as an Appender gets them:
// terminal-safe.
var safeStrings = model.Strings{String: render.AppendJSONString, Literal: render.AppendJSONLiteral}

// writeJSON prints v (an Object or any value of the kinds Object holds)
// indented by two spaces and terminal-safe, streaming it: a state of a
// gigabyte journal is written without building its JSON text in memory.
func writeJSON(w io.Writer, v any) error {
	e := &encoder{w: w, b: make([]byte, 0, flushSize+4<<10)}
	e.value(v, 0)
	e.b = append(e.b, '\n')
	e.flush()
	return e.err
}

// flushSize is how many bytes the encoder of writeJSON gathers before it
// writes them.
const flushSize = 64 << 10

// encoder appends JSON text to b: writeJSON's, which writes b out to w
// every flushSize bytes, or a part's (w nil), which keeps it all.
type encoder struct {
	w   io.Writer
	b   []byte
	err error // the first error of w
}

// flush writes what b holds to w, unless w failed before.
func (e *encoder) flush() {
	if e.w == nil {
		return
	}
	if e.err == nil && len(e.b) > 0 {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

// write writes p to w after what b holds.
func (e *encoder) write(p []byte) {
	e.flush()
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

func (e *encoder) value(v any, depth int) {
	switch x := v.(type) {
	case model.Object:
		l := list{e: e, depth: depth, object: true}
		for _, f := range x {
			if !l.field(f.Key, f.Value) {
				break
			}
		}
		l.end()
		return
	case []any:
		l := list{e: e, depth: depth}
		for _, el := range x {
			if !l.item(el) {
				break
			}
		}
		l.end()
		return
	case model.Lazy:
		e.lazy(x, depth)
		return
	case model.Appender:
		e.b = x.AppendIndented(e.b, depth, safeStrings)
		return
	}
	e.scalar(v, depth)
}

// lazy writes the items of x as they are made. A long list is made on
// other goroutines while this one writes: in parts, several at a time,
// when x has Parts; read ahead on one goroutine when its items may be
// kept (not Transient).
func (e *encoder) lazy(x model.Lazy, depth int) {
	if e.w != nil && x.Len >= aheadMin {
		switch {
		case x.Parts != nil && workers() > 1:
			e.parts(x, depth)
			return
		case !x.Transient:
			x.Each = readAhead(x.Each)
		}
	}
	l := list{e: e, depth: depth, object: x.Object}
	x.Each(func(v any) bool {
		if x.Object {
			f := v.(model.Field)
			return l.field(f.Key, f.Value)
		}
		return l.item(v)
	})
	l.end()
}

// list writes the items of one JSON array, or the members of one object,
// one per line at depth+1, as they come: this is how a model.Lazy list of
// a million messages is written holding one at a time.
type list struct {
	e      *encoder
	depth  int
	object bool
	n      int // items written
}

// next writes what goes before an item: the opening bracket or a comma,
// a newline and the indentation.
func (l *list) next() {
	e := l.e
	switch {
	case l.n > 0:
		e.b = append(e.b, ',')
	case l.object:
		e.b = append(e.b, '{')
	default:
		e.b = append(e.b, '[')
	}
	l.n++
	e.b = model.AppendLine(e.b, l.depth+1)
}

// item writes one element of an array; false when writing failed.
func (l *list) item(v any) bool {
	l.next()
	l.e.value(v, l.depth+1)
	return l.e.more()
}

// field writes one member of an object; false when writing failed.
func (l *list) field(key string, v any) bool {
	l.next()
	l.e.b = render.AppendJSONString(l.e.b, key)
	l.e.b = append(l.e.b, ':', ' ')
	l.e.value(v, l.depth+1)
	return l.e.more()
}

// more writes b out when it holds flushSize bytes, and reports whether
// writing can go on (w has not failed).
func (e *encoder) more() bool {
	if e.w != nil && len(e.b) >= flushSize {
		e.flush()
	}
	return e.err == nil
}

// end closes the list ([] or {} when it had no item).
func (l *list) end() {
	e := l.e
	switch {
	case l.n > 0:
		e.b = model.AppendLine(e.b, l.depth)
	case l.object:
		e.b = append(e.b, '{')
	default:
		e.b = append(e.b, '[')
	}
	if l.object {
		e.b = append(e.b, '}')
	} else {
		e.b = append(e.b, ']')
	}
}

// scalar writes one value as model.Marshal would, escaped as by
// render.SafeJSON: strings (decoded, *string, model.Literal or *model.Literal),
// integers, booleans and null directly, other values with model.Marshal (a nested value of
// another type is indented by re-encoding).
func (e *encoder) scalar(v any, depth int) {
	switch x := v.(type) {
	case string:
		e.b = render.AppendJSONString(e.b, x)
		return
	case model.Literal:
		e.b = render.AppendJSONLiteral(e.b, x)
		return
	case *model.Literal:
		if x != nil {
			e.b = render.AppendJSONLiteral(e.b, *x)
			return
		}
	case *string:
		if x != nil {
			e.b = render.AppendJSONString(e.b, *x)
			return
		}
	case int:
		e.b = strconv.AppendInt(e.b, int64(x), 10)
		return
	case int64:
		e.b = strconv.AppendInt(e.b, x, 10)
		return
	case bool:
		e.b = strconv.AppendBool(e.b, x)
		return
	case nil:
		e.b = append(e.b, "null"...)
		return
	}
	b, err := model.Marshal(v)
	if err != nil {
		if e.err == nil {
			e.err = err
		}
		return
	}
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		parsed, err := model.FromRaw(b)
		if err == nil {
			if _, isObj := parsed.(model.Object); isObj {
				e.value(parsed, depth)
				return
			}
		}
	}
	e.b = append(e.b, render.SafeJSON(b)...)
}

// Lists of at least aheadMin items are made on other goroutines while
// this one writes, so that `rewind state` uses every CPU.
const (
	aheadMin   = 64        // shorter lists are written as they come
	aheadItems = 64        // items per read-ahead batch at most
	aheadBytes = 256 << 10 // string bytes per read-ahead batch, about, at most
)

// workers is how many parts of a model.Lazy with Parts are made at the
// same time: one per CPU, at most four.
func workers() int { return min(runtime.GOMAXPROCS(0), 4) }

// partBuffers holds the buffers parts are written into, for reuse.
var partBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1<<20); return &b }}

// part is one part of a lazy list in flight: done gets its text once a
// worker has made it.
type part struct {
	each func(yield func(any) bool)
	done chan made
}

// made is the text of a part (a buffer from partBuffers) and the error
// that stopped it, if one did.
type made struct {
	buf *[]byte
	err error
}

// parts writes the items of x (which has Parts), made by workers() parts
// at a time on as many goroutines, each part's items written into a
// buffer of its own as ",\n" and the indented item; this goroutine writes
// the buffers out in order, the first one's comma changed into the
// opening bracket. An item is written before the part's next one is made,
// so x may be Transient. When writing fails, the parts in flight are told
// to stop and parts returns once every goroutine has.
func (e *encoder) parts(x model.Lazy, depth int) {
	n := workers()
	order := make(chan *part, 4*n) // the parts in order, at most 4n in flight
	jobs := make(chan *part, 4*n)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // hands out the parts
		defer wg.Done()
		defer close(order)
		defer close(jobs)
		x.Parts(func(each func(yield func(any) bool)) bool {
			p := &part{each: each, done: make(chan made, 1)}
			select {
			case order <- p:
			case <-stop:
				return false
			}
			jobs <- p // the workers take it: they never wait on done
			return true
		})
	}()
	for range n {
		wg.Add(1)
		go func() { // makes and writes parts
			defer wg.Done()
			for p := range jobs {
				p.done <- makePart(x, p.each, depth, stop)
			}
		}()
	}
	defer func() {
		close(stop)
		for p := range order { // let the hand-out end
			partBuffers.Put((<-p.done).buf)
		}
		wg.Wait()
	}()

	written := false
	for p := range order {
		m := <-p.done
		buf := m.buf
		if m.err != nil && e.err == nil {
			e.err = m.err
		}
		if b := *buf; len(b) > 0 && e.err == nil {
			if !written {
				b[0] = '['
				if x.Object {
					b[0] = '{'
				}
				written = true
			}
			e.write(b)
		}
		partBuffers.Put(buf)
		if e.err != nil {
			return
		}
	}
	l := list{e: e, depth: depth, object: x.Object}
	if written {
		l.n = 1
	}
	l.end()
}

// makePart writes the items of one part of x, each as ",\n", the
// indentation of depth+1 and the item, into a buffer from partBuffers.
// It stops early once stop is closed, or at the first item it cannot
// write (a value encoding/json refuses).
func makePart(x model.Lazy, each func(yield func(any) bool), depth int, stop <-chan struct{}) made {
	buf := partBuffers.Get().(*[]byte)
	pe := &encoder{b: (*buf)[:0]}
	each(func(v any) bool {
		pe.b = model.AppendLine(append(pe.b, ','), depth+1)
		if x.Object {
			f := v.(model.Field)
			pe.b = render.AppendJSONString(pe.b, f.Key)
			pe.b = append(pe.b, ':', ' ')
			v = f.Value
		}
		pe.value(v, depth+1)
		select {
		case <-stop:
			return false
		default:
			return pe.err == nil
		}
	})
	*buf = pe.b
	return made{buf, pe.err}
}

// readAhead returns an each that yields what each yields, in order, while
// each runs on its own goroutine up to two batches ahead (a batch ends at
// aheadItems items or aheadBytes of their strings, so that large items do
// not pile up). each must not depend on the calling goroutine: Lazy.Each
// reads through its own reader; and its items must stay valid after yield
// returns (not Transient). When yield returns false, each is told to stop
// and readAhead returns once it has.
func readAhead(each func(yield func(any) bool)) func(yield func(any) bool) {
	return func(yield func(any) bool) {
		batches := make(chan []any, 1)
		stop := make(chan struct{})
		go func() {
			defer close(batches)
			var batch []any
			size := 0
			send := func() bool {
				select {
				case batches <- batch:
					batch, size = make([]any, 0, aheadItems), 0
					return true
				case <-stop:
					return false
				}
			}
			each(func(v any) bool {
				batch = append(batch, v)
				if size += stringBytes(v); len(batch) >= aheadItems || size >= aheadBytes {
					return send()
				}
				return true
			})
			if len(batch) > 0 {
				send()
			}
		}()
		defer func() {
			close(stop)
			for range batches { // wait for each to return
			}
		}()
		for b := range batches {
			for _, v := range b {
				if !yield(v) {
					return
				}
			}
		}
	}
}

// stringBytes is about how many bytes of text v holds: the lengths of its
// strings, its keys and its nested values' strings. A Lazy counts as empty
// (its items are made when it is written).
func stringBytes(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case model.Literal:
		return len(x)
	case *model.Literal:
		if x != nil {
			return len(*x)
		}
	case *string:
		if x != nil {
			return len(*x)
		}
	case model.Field:
		return len(x.Key) + stringBytes(x.Value)
	case model.Object:
		n := 0
		for _, f := range x {
			n += len(f.Key) + stringBytes(f.Value)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += stringBytes(e)
		}
		return n
	}
	return 8
}
