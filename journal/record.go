// Package journal turns the bytes of a JSONL journal into records: an index
// of byte offsets per line with the few fields the timeline needs, tolerant
// of every kind of broken input, readable on demand, and extendable as the
// file grows. It never writes: the only writer is package journal/writer.
//
// The index holds no payloads. A record's bytes are read back from the file
// with ReadAt when a fold or a pane needs them, so memory grows with the
// number of records, not with the size of the file.
package journal

import (
	"fmt"
	"strconv"
	"time"
)

// Problem classifies a line that is not an event, or an event that needed a
// lenient reading. The zero Problem means a clean event.
type Problem uint8

// Problems a record can carry. Those up to ProblemIncomplete make the record
// a bad line (not an event); the others are warnings on an event.
const (
	OK Problem = iota
	ProblemBlank
	ProblemNotJSON
	ProblemNotObject
	ProblemInvalidUTF8
	ProblemNUL
	ProblemTooLong
	ProblemIncomplete

	// warnFirst is the first warning: an event that was read leniently.
	warnFirst Problem = 16

	WarnDuplicateKeys Problem = 16
	WarnCaseKeys      Problem = 17
	WarnBOM           Problem = 18
)

// Bad reports whether p makes the record a bad line rather than an event.
func (p Problem) Bad() bool { return p != OK && p < warnFirst }

// String returns a short name for p.
func (p Problem) String() string {
	switch p {
	case OK:
		return "ok"
	case ProblemBlank:
		return "blank line"
	case ProblemNotJSON:
		return "not JSON"
	case ProblemNotObject:
		return "JSON value is not an object"
	case ProblemInvalidUTF8:
		return "invalid UTF-8"
	case ProblemNUL:
		return "NUL bytes"
	case ProblemTooLong:
		return "record too long"
	case ProblemIncomplete:
		return "incomplete last line"
	case WarnDuplicateKeys:
		return "duplicate keys (the last one counts, as in JSON.parse)"
	case WarnCaseKeys:
		return "keys that differ only in case (matched case-sensitively)"
	case WarnBOM:
		return "byte order mark at the start of the file (ignored)"
	}
	return "problem " + strconv.Itoa(int(p))
}

// Record is one line of a journal (or one element of a JSON array journal):
// where it is, what it is, and the fields the timeline and the index-level
// searches need. 48 bytes plus the two strings.
type Record struct {
	// Off is the byte offset of the record's first byte (after a BOM).
	Off int64
	// Len is the length in bytes, without the line ending ("\n" or "\r\n").
	Len int64
	// TS is the record's timestamp in Unix milliseconds, 0 when it has none.
	TS int64
	// Line is the 1-based line number.
	Line int32
	// Pos is the 1-based event position, 0 for a bad line.
	Pos int32
	// Problem says why the line is bad, or what was lenient about an event.
	Problem Problem
	// Type is the top-level "type" field (interned), "" when absent.
	Type string
	// Key is the format's own number or name: the top-level "seq" when
	// present, else the top-level "id"; "" when neither is a scalar.
	Key string
	// Detail is a short explanation for bad lines (the JSON error, the
	// size of a skipped line); empty for events. It quotes no journal text.
	Detail string
}

// Event reports whether the record is an event (not a bad line).
func (r *Record) Event() bool { return r.Pos > 0 }

// Time returns the record's timestamp, or the zero Time.
func (r *Record) Time() time.Time {
	if r.TS == 0 {
		return time.Time{}
	}
	return time.UnixMilli(r.TS).UTC()
}

// Describe returns a one-line description of a bad line: its line number,
// offset, length and reason. It quotes no journal bytes, so it needs no
// sanitizing.
func (r *Record) Describe() string {
	s := fmt.Sprintf("line %d, offset %d, %d bytes: %s", r.Line, r.Off, r.Len, r.Problem)
	if r.Detail != "" {
		s += ": " + r.Detail
	}
	return s
}
