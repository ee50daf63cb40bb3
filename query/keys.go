package query

import (
	"strings"

	"github.com/itchyny/gojq"
)

// rootKeys returns the top-level members of its input that q can read,
// when that can be told from q's syntax alone, and ok false otherwise (q
// may read the whole input). It is conservative: every construct it does
// not know to leave the input alone makes it give up. An expression whose
// '.' is the input only where it names a member by a constant
// (`.pending | length > 0`, `.status == "FAILED" and .iterations > 3`,
// `select(.items[0].id == "d-1")`) gives those members: evaluated over an
// object with only them, it gives what it gives over the whole object.
// Whatever a pipe's right side does, its input is the left side's output,
// so it reaches the input only through variables, which are bound nowhere
// the input is '.'.
func rootKeys(q *gojq.Query) (keys []string, ok bool) {
	k := keyScan{}
	if !k.query(q) {
		return nil, false
	}
	return k.keys, true
}

type keyScan struct{ keys []string }

func (k *keyScan) add(key string) {
	for _, x := range k.keys {
		if x == key {
			return
		}
	}
	k.keys = append(k.keys, key)
}

// query reports whether q, with the input as '.', reads only members it
// names (added to k.keys).
func (k *keyScan) query(q *gojq.Query) bool {
	if q == nil {
		return true
	}
	if q.Meta != nil || len(q.Imports) > 0 || len(q.FuncDefs) > 0 || len(q.Patterns) > 0 {
		return false
	}
	if q.Term != nil {
		return q.Left == nil && q.Right == nil && k.term(q.Term)
	}
	switch q.Op {
	case gojq.OpPipe:
		return k.query(q.Left) // the right side's '.' is the left side's output
	case gojq.OpComma, gojq.OpAdd, gojq.OpSub, gojq.OpMul, gojq.OpDiv, gojq.OpMod,
		gojq.OpEq, gojq.OpNe, gojq.OpGt, gojq.OpLt, gojq.OpGe, gojq.OpLe,
		gojq.OpAnd, gojq.OpOr, gojq.OpAlt:
		return k.query(q.Left) && k.query(q.Right)
	}
	return false // assignments output the whole input
}

// term is query for one term and its suffixes.
func (k *keyScan) term(t *gojq.Term) bool {
	switch t.Type {
	case gojq.TermTypeIndex:
		// .name, ."name", .["name"]: a member; any other index reads more.
		ix := t.Index
		switch c := constString(ix.Start); {
		case ix.Name != "":
			k.add(ix.Name)
		case ix.Str != nil && ix.Str.Queries == nil && !ix.IsSlice && ix.Start == nil && ix.End == nil:
			k.add(ix.Str.Str)
		case ix.Str == nil && !ix.IsSlice && ix.End == nil && c != nil:
			k.add(*c)
		default:
			return false
		}
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeNumber:
	case gojq.TermTypeString:
		for _, q := range t.Str.Queries { // "\(.a)": interpolations read the input
			if !k.query(q) {
				return false
			}
		}
	case gojq.TermTypeUnary:
		if !k.term(t.Unary.Term) {
			return false
		}
	case gojq.TermTypeArray:
		if t.Array.Query != nil && !k.query(t.Array.Query) {
			return false
		}
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			switch {
			case kv.Val == nil && kv.Key != "" && !strings.HasPrefix(kv.Key, "$"):
				k.add(kv.Key) // {a} is {a: .a}
			case kv.Val == nil:
				return false
			case !k.query(kv.Val) || kv.KeyQuery != nil && !k.query(kv.KeyQuery):
				return false
			}
			if kv.KeyString != nil {
				for _, q := range kv.KeyString.Queries {
					if !k.query(q) {
						return false
					}
				}
			}
		}
	case gojq.TermTypeIf:
		if !k.query(t.If.Cond) || !k.query(t.If.Then) || !k.query(t.If.Else) {
			return false
		}
		for _, e := range t.If.Elif {
			if !k.query(e.Cond) || !k.query(e.Then) {
				return false
			}
		}
	case gojq.TermTypeTry:
		// The catch's '.' is the error message.
		if !k.query(t.Try.Body) {
			return false
		}
	case gojq.TermTypeQuery:
		if !k.query(t.Query) {
			return false
		}
	case gojq.TermTypeFunc:
		if !k.fn(t.Func) {
			return false
		}
	default:
		// ., .., reduce, foreach, label, @format: they read the input
		// whole, or bind it.
		return false
	}
	// Suffixes act on the term's output, but an index expression in them
	// (.a[.b]) is evaluated with the term's input.
	for _, s := range t.SuffixList {
		if s.Index != nil && (!k.query(s.Index.Start) || !k.query(s.Index.End)) {
			return false
		}
	}
	return true
}

// fn is query for a function call: variables (none is bound to the
// input), empty, and select, whose argument reads the same input.
func (k *keyScan) fn(f *gojq.Func) bool {
	switch {
	case strings.HasPrefix(f.Name, "$"):
		return len(f.Args) == 0
	case f.Name == "empty":
		return len(f.Args) == 0
	case f.Name == "select":
		return len(f.Args) == 1 && k.query(f.Args[0])
	}
	return false
}

// constString returns the string a query is when it is one string
// literal.
func constString(q *gojq.Query) *string {
	if q == nil || q.Term == nil || q.Left != nil || q.Right != nil || q.Term.Type != gojq.TermTypeString ||
		q.Term.Str.Queries != nil || len(q.Term.SuffixList) > 0 {
		return nil
	}
	return &q.Term.Str.Str
}
