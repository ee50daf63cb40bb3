package demo

import (
	"strconv"
	"time"
)

// jw appends compact JSON to a byte slice, keeping keys in the order they
// are written, as JavaScript's JSON.stringify does. Commas are inserted
// automatically: comma records whether the next value or key needs one.
type jw struct {
	b     []byte
	comma bool
}

func (w *jw) reset() { w.b = w.b[:0]; w.comma = false }

func (w *jw) sep() {
	if w.comma {
		w.b = append(w.b, ',')
	}
}

// key writes "k": (k must not need escaping).
func (w *jw) key(k string) {
	w.sep()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
	w.comma = false
}

func (w *jw) obj() { w.sep(); w.b = append(w.b, '{'); w.comma = false }
func (w *jw) end() { w.b = append(w.b, '}'); w.comma = true }
func (w *jw) arr() { w.sep(); w.b = append(w.b, '['); w.comma = false }
func (w *jw) endArr() {
	w.b = append(w.b, ']')
	w.comma = true
}

func (w *jw) str(s string)   { w.sep(); w.b = appendQuoted(w.b, s); w.comma = true }
func (w *jw) bytes(s []byte) { w.sep(); w.b = appendQuoted(w.b, s); w.comma = true }
func (w *jw) int(n int64)    { w.sep(); w.b = strconv.AppendInt(w.b, n, 10); w.comma = true }
func (w *jw) boolean(v bool) { w.sep(); w.b = strconv.AppendBool(w.b, v); w.comma = true }
func (w *jw) float(f float64) {
	w.sep()
	w.b = strconv.AppendFloat(w.b, f, 'f', -1, 64)
	w.comma = true
}
func (w *jw) ks(k, v string) { w.key(k); w.str(v) }
func (w *jw) kb(k string, v []byte) {
	w.key(k)
	w.bytes(v)
}
func (w *jw) ki(k string, v int64) { w.key(k); w.int(v) }
func (w *jw) kobj(k string)        { w.key(k); w.obj() }
func (w *jw) karr(k string)        { w.key(k); w.arr() }

// iso writes ms as a string in the form of JavaScript's Date.toISOString.
func (w *jw) iso(ms int64) {
	w.sep()
	w.b = append(w.b, '"')
	w.b = appendISO(w.b, ms)
	w.b = append(w.b, '"')
	w.comma = true
}

func (w *jw) kiso(k string, ms int64) { w.key(k); w.iso(ms) }

// appendISO appends ms formatted like Date.prototype.toISOString.
func appendISO(b []byte, ms int64) []byte {
	return time.UnixMilli(ms).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a JSON string escaped the way JSON.stringify
// escapes it: quote, backslash and control characters only (no HTML
// escaping). s is assumed to be valid UTF-8.
func appendQuoted[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// raw writes v, which must be valid JSON, as the next value.
func (w *jw) raw(v []byte) { w.sep(); w.b = append(w.b, v...); w.comma = true }
