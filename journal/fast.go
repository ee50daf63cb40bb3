package journal

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// The fast path of the classifier: a line that jsontext validates strictly
// (well-formed, valid UTF-8, no duplicate names) is an event, and its few
// index fields are picked by walking the top-level members without
// decoding anything: strings are skipped with bytes.IndexByte, nested
// values by counting brackets outside strings. Anything unusual (escapes in
// a wanted value, a member name with escapes) falls back to the tokenizer.

// fastClassify handles valid lines and reports whether it did.
func (c *classifier) fastClassify(line []byte, r *Record) bool {
	if !jsontext.Value(line).IsValid() {
		return false
	}
	c.keys = c.keys[:0]
	var seq, id []byte
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false // a valid non-object: the slow path says what it is
	}
	i++
	for {
		i = skipWS(line, i)
		if i >= len(line) {
			return false
		}
		if line[i] == '}' {
			break
		}
		if line[i] != '"' {
			return false
		}
		end := skipString(line, i)
		if end < 0 {
			return false
		}
		name := line[i+1 : end-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			return false
		}
		if len(c.keys) < 64 {
			c.keys = append(c.keys, string(name))
		}
		i = skipWS(line, end)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		i = skipWS(line, i+1)
		vEnd := skipValue(line, i)
		if vEnd < 0 {
			return false
		}
		v := line[i:vEnd]
		switch string(name) {
		case "type":
			if s, ok := simpleString(v); ok {
				r.Type = c.internBytes(s)
			} else if len(v) > 0 && v[0] == '"' {
				return false
			}
		case "seq":
			if isNumber(v) {
				seq = v
			} else if s, ok := simpleString(v); ok {
				seq = s
			} else if len(v) > 0 && v[0] == '"' {
				return false
			}
		case "id":
			if isNumber(v) {
				id = v
			} else if s, ok := simpleString(v); ok {
				id = s
			} else if len(v) > 0 && v[0] == '"' {
				return false
			}
		case "timestamp":
			if isNumber(v) {
				r.TS = parseMillis(v)
			} else if s, ok := simpleString(v); ok {
				r.TS = isoMillis(s)
			}
		}
		i = skipWS(line, vEnd)
		if i < len(line) && line[i] == ',' {
			i++
		}
	}
	switch {
	case seq != nil:
		r.Key = string(seq)
	case id != nil:
		r.Key = string(id)
	}
	if hasCaseVariants(c.keys) {
		r.Problem = WarnCaseKeys
	}
	return true
}

func (c *classifier) internBytes(b []byte) string {
	if v, ok := c.intern[string(b)]; ok { // no allocation for the lookup
		return v
	}
	return c.internStr(string(b))
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just after the string starting at b[i]
// (a '"'), or -1.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// Count the backslashes before the quote: an odd number escapes it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// skipValue returns the index just after the JSON value starting at b[i],
// or -1. The line is known to be valid JSON.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := skipString(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	return j
}

// simpleString returns the contents of a JSON string without escapes.
func simpleString(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, false
	}
	return s, true
}

func isNumber(v []byte) bool {
	return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

// parseMillis reads a JSON number as Unix milliseconds (Durable Stream's
// timestamp); 0 when it is not a plausible one.
func parseMillis(v []byte) int64 {
	var n int64
	for _, c := range v {
		if c == '.' || c == 'e' || c == 'E' {
			break
		}
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
		if n > 1e16 {
			return 0
		}
	}
	return n
}

// isoMillis reads the toISOString form 2026-11-21T22:29:47.177Z quickly,
// and anything else through model.ParseTime.
func isoMillis(s []byte) int64 {
	if len(s) == 24 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[19] == '.' && s[23] == 'Z' {
		d := func(a, b int) (int, bool) {
			n := 0
			for _, c := range s[a:b] {
				if c < '0' || c > '9' {
					return 0, false
				}
				n = n*10 + int(c-'0')
			}
			return n, true
		}
		y, ok1 := d(0, 4)
		mo, ok2 := d(5, 7)
		dd, ok3 := d(8, 10)
		h, ok4 := d(11, 13)
		mi, ok5 := d(14, 16)
		se, ok6 := d(17, 19)
		ms, ok7 := d(20, 23)
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && mo >= 1 && mo <= 12 && dd >= 1 && dd <= 31 {
			days := daysFromCivil(y, mo, dd)
			return ((days*24+int64(h))*60+int64(mi))*60000 + int64(se)*1000 + int64(ms)
		}
	}
	return timestampMillis(jsontext.String(string(s)))
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic
// Gregorian), Howard Hinnant's algorithm.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
