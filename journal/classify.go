package journal

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// classifier reads one line into a Record: whether it is an event, and its
// type. It keeps a decoder and an intern table between
// calls, so it is not safe for concurrent use; make one per goroutine.
type classifier struct {
	rd     bytes.Reader
	dec    *jsontext.Decoder
	intern map[string]uint16 // a cache of the process-wide type table
	// recent caches the types of the last lines, by their first and last
	// bytes: most lines have one of a few types.
	recent [64]recentType
	keys   []string
	names  [][]byte   // the fast path's top-level names
	shape  shape      // the top-level names of the last line it accepted
	skel   skeletons  // the layouts of the lines it accepted
	endsOf []lineEnds // where each record of a block has its ends (Ends)

	seen     map[string]struct{} // name checks of objects with many members
	seenFold map[string]string

	detail string // why the last line classified is bad (for Index.Detail)
}

var (
	strictOpts  = []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(true)}
	lenientOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
)

// recentType is a type and its index in the type table.
type recentType struct {
	name string
	id   uint16
}

func newClassifier() *classifier {
	c := &classifier{intern: map[string]uint16{}}
	c.dec = jsontext.NewDecoder(&c.rd)
	return c
}

func (c *classifier) internStr(s string) uint16 {
	if v, ok := c.intern[s]; ok {
		return v
	}
	id := internType(s)
	if len(c.intern) < 1<<12 {
		c.intern[s] = id
	}
	return id
}

// classify fills r.Problem and r's type from line (the record's bytes
// without the line ending), and c.detail with why a bad line is bad.
func (c *classifier) classify(line []byte, r *Record) {
	c.detail = ""
	if len(bytes.TrimSpace(line)) == 0 {
		r.Problem = ProblemBlank
		return
	}
	if c.fastClassify(line, r) {
		return
	}
	if i := bytes.IndexByte(line, 0); i >= 0 {
		r.Problem = ProblemNUL
		c.detail = fmt.Sprintf("%d NUL bytes, the first at byte %d of the line", bytes.Count(line, []byte{0}), i)
		return
	}
	if !utf8.Valid(line) {
		r.Problem = ProblemInvalidUTF8
		c.detail = fmt.Sprintf("first invalid byte at byte %d of the line", firstInvalidUTF8(line))
		return
	}
	err := c.scan(line, r, strictOpts)
	if errors.Is(err, jsontext.ErrDuplicateName) {
		r.Problem = WarnDuplicateKeys
		r.typ = 0
		err = c.scan(line, r, lenientOpts)
	}
	if err != nil {
		if r.Problem != ProblemNotObject {
			r.Problem = ProblemNotJSON
		}
		r.typ = 0
		c.detail = jsonErrorText(err)
		return
	}
	if r.Problem == OK && hasCaseVariants(c.keys) {
		r.Problem = WarnCaseKeys
	}
}

// scan tokenizes line as one JSON object and picks the top-level type
// without decoding anything else.
func (c *classifier) scan(line []byte, r *Record, opts []jsontext.Options) error {
	c.rd.Reset(line)
	c.dec.Reset(&c.rd, opts...)
	c.keys = c.keys[:0]
	tok, err := c.dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		r.Problem = ProblemNotObject
		return fmt.Errorf("the line holds a JSON %s", kindName(tok.Kind()))
	}
	for c.dec.PeekKind() != '}' {
		nt, err := c.dec.ReadToken()
		if err != nil {
			return err
		}
		name := nt.String()
		if len(c.keys) < 64 {
			c.keys = append(c.keys, name)
		}
		if name == "type" && c.dec.PeekKind() == '"' {
			vt, err := c.dec.ReadToken()
			if err != nil {
				return err
			}
			r.typ = c.internStr(vt.String())
			continue
		}
		if err := c.dec.SkipValue(); err != nil {
			return err
		}
	}
	if _, err := c.dec.ReadToken(); err != nil {
		return err
	}
	if _, err := c.dec.ReadToken(); err == nil {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "value"
}

// jsonErrorText returns the decoder's message without journal bytes (the
// byte offset is kept, the offending text is not).
func jsonErrorText(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg := se.Err.Error()
		if errors.Is(se.Err, jsontext.ErrDuplicateName) {
			msg = "duplicate object member name"
		}
		if i := strings.IndexByte(msg, '\''); i >= 0 || strings.ContainsAny(msg, "\"`") {
			msg = genericSyntaxMessage(msg)
		}
		return fmt.Sprintf("%s at byte %d of the line", msg, se.ByteOffset)
	}
	if errors.Is(err, errEOF) {
		return "the JSON value ends early"
	}
	return genericSyntaxMessage(err.Error())
}

var errEOF = errors.New("unexpected EOF")

// genericSyntaxMessage drops any quoted input from a decoder message, so an
// error text never carries journal bytes.
func genericSyntaxMessage(msg string) string {
	if i := strings.IndexAny(msg, "'\"`"); i >= 0 {
		msg = strings.TrimSpace(msg[:i])
		msg = strings.TrimSuffix(msg, ":")
	}
	if msg == "" {
		return "invalid JSON"
	}
	return msg
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// hasCaseVariants reports whether two top-level keys differ only in case
// ({"seq":1,"SEQ":9}): Node's JSON.parse and rewind keep them apart, Go's
// encoding/json v1 would not.
func hasCaseVariants(keys []string) bool {
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[i] != keys[j] && strings.EqualFold(keys[i], keys[j]) {
				return true
			}
		}
	}
	return false
}
