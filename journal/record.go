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
	"bytes"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewind-tui/rewind/internal/rawjson"
	"github.com/rewind-tui/rewind/model"
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
// where it is, what it is, and the type the timeline and the index-level
// searches need. The index stores 8 bytes a record (see Records); a
// Record is the unpacked value it hands out. The seq or id and the
// timestamp are not kept: KeyIn and TimeIn read them from the record's
// bytes (Journal.Key from the file).
type Record struct {
	// Off is the byte offset of the record's first byte (after a BOM).
	Off int64
	// Len is the length in bytes, without the line ending ("\n" or "\r\n").
	Len int64
	// Line is the 1-based line number.
	Line int32
	// Pos is the 1-based event position, 0 for a bad line.
	Pos int32
	// typ is the top-level "type" field's index in the type table.
	typ uint16
	// Problem says why the line is bad, or what was lenient about an event.
	Problem Problem
}

// KeyIn returns the record's key read from raw, its bytes (see LineKey),
// or "" when the record is a bad line.
func (r *Record) KeyIn(raw []byte) string {
	if !r.Event() {
		return ""
	}
	return LineKey(raw)
}

// TimeIn returns the record's timestamp read from raw, its bytes (see
// LineTime), or the zero Time when the record is a bad line.
func (r *Record) TimeIn(raw []byte) time.Time {
	if !r.Event() {
		return time.Time{}
	}
	return LineTime(raw)
}

// LineKey returns the key of the JSON object raw (a record's bytes): the format's own
// number or name, its top-level "seq" when that is a string or a number,
// else its top-level "id" (the last of each when a name repeats, as
// JSON.parse reads it); a string's contents, a number as written. It is ""
// when there is none or raw is not a JSON object.
func LineKey(raw []byte) string {
	var seq, id []byte
	if !rawjson.Members(raw, func(name, v []byte) bool {
		switch {
		case rawjson.NameIs(name, "seq"):
			seq = keyLiteral(v, seq)
		case rawjson.NameIs(name, "id"):
			id = keyLiteral(v, id)
		}
		return true
	}) {
		return ""
	}
	if seq == nil {
		seq = id
	}
	return keyText(seq)
}

// keyLiteral returns v when it can be a key (a string or a number), else
// the key found before.
func keyLiteral(v, before []byte) []byte {
	if len(v) > 0 && (v[0] == '"' || rawjson.IsNumber(v)) {
		return v
	}
	return before
}

// keyText is a key literal's text: a number as written, a string's contents.
func keyText(lit []byte) string {
	if len(lit) == 0 || lit[0] != '"' {
		return string(lit)
	}
	s, _ := rawjson.Unquote(lit)
	return s
}

// LineTime returns the timestamp of the JSON object raw (a record's bytes): its
// top-level "timestamp" (the last one when the name repeats), Unix
// milliseconds as a number (Durable Stream) or an ISO-8601 string (Delta
// Engine, DeltaMind), in UTC at millisecond precision. It is the zero Time
// when there is none or it is not a plausible time.
func LineTime(raw []byte) time.Time {
	var ts []byte
	if !rawjson.Members(raw, func(name, v []byte) bool {
		if rawjson.NameIs(name, "timestamp") {
			ts = v
		}
		return true
	}) {
		return time.Time{}
	}
	return ParseTimestamp(ts)
}

// ParseTimestamp returns the time a "timestamp" member's value gives, as
// LineTime reads it: lit is the value's JSON literal, Unix milliseconds as
// a number or an ISO-8601 string. It is the zero Time when lit is not a
// plausible time.
func ParseTimestamp(lit []byte) time.Time {
	ms := timestampOf(lit)
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// timestampOf reads a timestamp literal as Unix milliseconds, 0 when it is
// not one.
func timestampOf(v []byte) int64 {
	switch {
	case len(v) == 0:
		return 0
	case rawjson.IsNumber(v):
		if bytes.ContainsAny(v, ".eE") {
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil || f < 0 || f > 1e16 {
				return 0
			}
			return int64(f)
		}
		return parseMillis(v)
	case v[0] == '"':
		if s, ok := rawjson.Plain(v); ok {
			return isoMillis(s)
		}
		if s, ok := rawjson.Unquote(v); ok {
			if tm := model.ParseTime(s); !tm.IsZero() {
				return tm.UnixMilli()
			}
		}
	}
	return 0
}

// Type returns the top-level "type" field, "" when absent (or not a
// string, or when the process has already seen 65,535 other types).
func (r *Record) Type() string { return typeName(r.typ) }

// Event reports whether the record is an event (not a bad line).
func (r *Record) Event() bool { return r.Pos > 0 }

// The type table: every distinct "type" string the process has indexed,
// so that a record holds a 2-byte index instead of a string. Index 0 is
// "". Names are written once before the count that publishes them, so
// readers need no lock.
var types struct {
	mu    sync.Mutex
	ids   map[string]uint16
	n     atomic.Uint32
	names [1 << 16]string
}

// internType returns the index of type name s, adding it if there is room.
func internType(s string) uint16 {
	if s == "" {
		return 0
	}
	types.mu.Lock()
	defer types.mu.Unlock()
	if id, ok := types.ids[s]; ok {
		return id
	}
	n := types.n.Load()
	if n == 0 {
		n = 1
		types.ids = map[string]uint16{}
	}
	if n >= 1<<16 {
		return 0
	}
	types.names[n] = strings.Clone(s)
	types.ids[s] = uint16(n)
	types.n.Store(n + 1)
	return uint16(n)
}

func typeName(id uint16) string {
	if uint32(id) >= types.n.Load() {
		return ""
	}
	return types.names[id]
}
