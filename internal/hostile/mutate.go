package hostile

import (
	"bytes"
	"io"
	"math/rand"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// A jnode is a parsed JSON value that keeps what a hostile writer could
// vary: member order, duplicate names, names written with escapes, and
// scalars exactly as written.
type jnode struct {
	kind  byte     // '{', '[' or 0 for a scalar
	names []string // raw name literals, quotes included, for objects
	elems []*jnode
	lit   string // the raw scalar
}

func parseNode(line []byte) (*jnode, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	n, err := readNode(dec)
	return n, err == nil
}

func readNode(dec *jsontext.Decoder) (*jnode, error) {
	switch dec.PeekKind() {
	case '{', '[':
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		n := &jnode{kind: byte(tok.Kind())}
		end := jsontext.Kind('}')
		if n.kind == '[' {
			end = ']'
		}
		for dec.PeekKind() != end {
			if n.kind == '{' {
				name, err := dec.ReadValue()
				if err != nil {
					return nil, err
				}
				n.names = append(n.names, string(name))
			}
			e, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, e)
		}
		_, err = dec.ReadToken()
		return n, err
	case 0:
		return nil, io.ErrUnexpectedEOF
	}
	v, err := dec.ReadValue()
	if err != nil {
		return nil, err
	}
	return &jnode{lit: string(v)}, nil
}

func (n *jnode) append(b []byte, spaced bool) []byte {
	sp := func() {
		if spaced {
			b = append(b, ' ')
		}
	}
	switch n.kind {
	case '{':
		b = append(b, '{')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			sp()
			b = append(b, n.names[i]...)
			sp()
			b = append(b, ':')
			sp()
			b = e.append(b, spaced)
		}
		sp()
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			sp()
			b = e.append(b, spaced)
		}
		sp()
		return append(b, ']')
	}
	return append(b, n.lit...)
}

// objects returns n and every object nested in it.
func (n *jnode) objects() []*jnode {
	var out []*jnode
	if n.kind == '{' {
		out = append(out, n)
	}
	for _, e := range n.elems {
		out = append(out, e.objects()...)
	}
	return out
}

func quoteJSON(s string) string {
	b, _ := jsontext.AppendQuote(nil, s)
	return string(b)
}

// LongString returns a JSON string literal longer than model.InlineText
// full of escapes.
func LongString(r *rand.Rand) string {
	parts := []string{`a`, `\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\u0000`, `\t`, `é`, `\/`, ` `, `\u001b[2J`, `}`, `{`, `]`}
	var b strings.Builder
	b.WriteByte('"')
	for n := 260 + r.Intn(3000); b.Len() < n; {
		b.WriteString(parts[r.Intn(len(parts))])
	}
	b.WriteByte('"')
	return b.String()
}

// randomValue returns a JSON value of a random type, often the wrong one.
func randomValue(r *rand.Rand) *jnode {
	pool := []string{`null`, `true`, `false`, `0`, `-0`, `7`, `1.5`, `1e3`, `-12`, `9223372036854775807`,
		`9223372036854775808`, `-9223372036854775808`, `""`, `"x"`, `"cp_1"`, `"intent_1"`, `"task_1"`, `"epic_1"`,
		`[]`, `["a",null,"b"]`, `[1]`, `[null]`, `{}`, `{"id":"o1","label":"L"}`, `[{"id":"o1","label":"L"},null]`,
		`[{"id":1}]`, `{"deep":[1,{"x":null}]}`, `"ty\u0070e"`, `"\u00e9\ud800"`}
	switch r.Intn(6) {
	case 0:
		return &jnode{lit: LongString(r)}
	case 1:
		p := Payloads[r.Intn(len(Payloads))]
		return &jnode{lit: quoteJSON(p.Value)}
	}
	n, _ := parseNode([]byte(pool[r.Intn(len(pool))]))
	return n
}

// escapeName rewrites one ASCII letter of the name literal as \u00XX.
func escapeName(r *rand.Rand, lit string) string {
	if len(lit) < 3 {
		return lit
	}
	i := 1 + r.Intn(len(lit)-2)
	c := lit[i]
	if c < 'a' || c > 'z' {
		return lit
	}
	return lit[:i] + `\u00` + strconv.FormatInt(int64(c), 16) + lit[i+1:]
}

// A variant is a member that mutate adds to an object of a line (the
// root when root is set), with one of the values (raw JSON), so that
// lines take other types and collide with each other's ids.
// Variant is a member Mutate may add: Name with one of Values (JSON
// literals), at the root object when Root, else in any object.
type Variant struct {
	Name   string
	Root   bool
	Values []string
}

// Mutate changes line in one to three hostile ways (escaped and duplicate
// names, values of other types, long strings with escapes, removed
// members, variant members, odd numbers, spacing) and returns the new line,
// which is still one valid JSON object (possibly with duplicate names).
// Folds compared with a reference fold use it to find lines they read
// differently.
func Mutate(r *rand.Rand, line []byte, variants []Variant) []byte {
	root, ok := parseNode(line)
	if !ok || root.kind != '{' {
		return line
	}
	spaced := false
	for k := 1 + r.Intn(3); k > 0; k-- {
		objs := root.objects()
		o := objs[r.Intn(len(objs))]
		if r.Intn(3) == 0 {
			o = root
		}
		switch r.Intn(10) {
		case 0: // an escaped name
			if len(o.names) > 0 {
				i := r.Intn(len(o.names))
				o.names[i] = escapeName(r, o.names[i])
			}
		case 1: // a duplicate with another value, before or after
			if len(o.names) > 0 {
				i := r.Intn(len(o.names))
				j := r.Intn(len(o.names) + 1)
				o.names = append(o.names[:j], append([]string{o.names[i]}, o.names[j:]...)...)
				o.elems = append(o.elems[:j], append([]*jnode{randomValue(r)}, o.elems[j:]...)...)
			}
		case 2, 3: // a value of another type
			if len(o.elems) > 0 {
				o.elems[r.Intn(len(o.elems))] = randomValue(r)
			}
		case 4: // a long string with escapes in a string member
			for i, e := range o.elems {
				if e.kind == 0 && strings.HasPrefix(e.lit, `"`) && r.Intn(2) == 0 {
					o.elems[i] = &jnode{lit: LongString(r)}
				}
			}
		case 5: // a member removed
			if len(o.names) > 0 {
				i := r.Intn(len(o.names))
				o.names = append(o.names[:i], o.names[i+1:]...)
				o.elems = append(o.elems[:i], o.elems[i+1:]...)
			}
		case 6, 7: // a variant member
			v := variants[r.Intn(len(variants))]
			if v.Root {
				o = root
			}
			n, _ := parseNode([]byte(v.Values[r.Intn(len(v.Values))]))
			o.names = append(o.names, strconv.Quote(v.Name))
			o.elems = append(o.elems, n)
		case 8: // odd numbers
			for i, e := range o.elems {
				if e.kind == 0 && e.lit != "" && (e.lit[0] == '-' || e.lit[0] >= '0' && e.lit[0] <= '9') {
					o.elems[i] = &jnode{lit: []string{"1.5", "1e3", "-0", "9223372036854775808", "-1", "0", "2E1", "-9223372036854775808"}[r.Intn(8)]}
				}
			}
		case 9:
			spaced = true
		}
	}
	return root.append(nil, spaced)
}

// Quoted returns the JSON string literals of ss.
func Quoted(ss ...string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quoteJSON(s)
	}
	return out
}
