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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewind-tui/rewind/internal/rawjson"
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
// searches need. 40 bytes and no pointers: the index of a journal costs 40
// bytes per line plus 4 per event, whatever the size of the lines, and the
// garbage collector never scans it. The type is an index into a
// process-wide table; the seq or id is not copied: KeyIn reads it from the
// record's bytes, Journal.Key from the file.
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
	// typ is the top-level "type" field's index in the type table.
	typ uint16
	// Problem says why the line is bad, or what was lenient about an event.
	Problem Problem
	// keyLen and keyOff locate the literal of the record's key (its
	// top-level "seq", else its "id") in the record's bytes; keyLen is 0
	// when there is none, or when it is longer than 255 bytes or starts
	// after the first 64 KiB.
	keyLen uint8
	keyOff uint16
}

// setKey records that the key's literal is n bytes at offset off of the
// record, when it fits the compact form.
func (r *Record) setKey(off, n int) {
	if n <= 0 || n > 255 || off < 0 || off > 0xFFFF {
		r.keyOff, r.keyLen = 0, 0
		return
	}
	r.keyOff, r.keyLen = uint16(off), uint8(n)
}

// HasKey reports whether the record has a seq or id.
func (r *Record) HasKey() bool { return r.keyLen > 0 }

// KeyIn returns the record's key, the format's own number or name (the
// top-level "seq" when present, else the top-level "id"; a string's
// contents, a number as written), read from raw, the record's bytes. It is
// "" when the record has none, or when raw is not the record's bytes.
func (r *Record) KeyIn(raw []byte) string {
	a, b := int(r.keyOff), int(r.keyOff)+int(r.keyLen)
	if r.keyLen == 0 || b > len(raw) {
		return ""
	}
	return keyText(raw[a:b])
}

// keyText is a key literal's text: a number as written, a string's contents.
func keyText(lit []byte) string {
	if len(lit) == 0 || lit[0] != '"' {
		return string(lit)
	}
	s, _ := rawjson.Unquote(lit)
	return s
}

// Type returns the top-level "type" field, "" when absent (or not a
// string, or when the process has already seen 65,535 other types).
func (r *Record) Type() string { return typeName(r.typ) }

// Event reports whether the record is an event (not a bad line).
func (r *Record) Event() bool { return r.Pos > 0 }

// Time returns the record's timestamp, or the zero Time.
func (r *Record) Time() time.Time {
	if r.TS == 0 {
		return time.Time{}
	}
	return time.UnixMilli(r.TS).UTC()
}

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
