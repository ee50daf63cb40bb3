package generic

import (
	"strings"
	"unicode/utf8"

	"github.com/rewind-tui/rewind/model"
)

// maxEventJSON is the length in runes at which the SUMMARY projection cuts
// an event's JSON.
const maxEventJSON = 600

// Render returns the SUMMARY projection of s: pending requests first, then
// a table of events per type, then the last event of each type as compact
// JSON. Any other doc name yields "".
func (format) Render(s model.State, doc string) string {
	st, ok := s.(*state)
	if !ok || st == nil || doc != Doc {
		return ""
	}
	var b strings.Builder
	for _, p := range st.Pending() {
		b.WriteString("> **Waiting for you:** " + quote(or(p.Prompt, "(no prompt)")) + "\n>\n")
		b.WriteString("> " + p.Kind + " " + codeSpan(p.ID))
		if p.RequestedBy != "" {
			b.WriteString(", requested by " + p.RequestedBy)
		}
		if p.RequestedAt != "" {
			b.WriteString(" at " + p.RequestedAt)
		}
		b.WriteString("\n")
		for _, o := range p.Options {
			b.WriteString("> - " + codeSpan(o.ID) + " " + o.Label + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("# Journal summary\n\n")
	b.WriteString("**Events:** " + model.Itoa(int64(st.events)) + "  \n")
	b.WriteString("**Pending requests:** " + model.Itoa(int64(st.pending.Len())) + "\n")
	if st.types.Len() == 0 {
		return b.String()
	}
	b.WriteString("\n## Events per type\n\n| type | count |\n|---|---:|\n")
	for it := st.types.Iterator(); !it.Done(); {
		_, typ := it.Next()
		c, _ := st.counts.Get(typ)
		b.WriteString("| " + strings.ReplaceAll(codeSpan(typ), "|", `\|`) + " | " + model.Itoa(int64(c)) + " |\n")
	}
	b.WriteString("\n## Last event of each type\n")
	for it := st.types.Iterator(); !it.Done(); {
		_, typ := it.Next()
		raw, _ := st.last.Get(typ)
		js := compactJSON(raw)
		if n := utf8.RuneCountInString(js); n > maxEventJSON {
			js = string([]rune(js)[:maxEventJSON]) + "\n… " + model.Itoa(int64(n-maxEventJSON)) + " more characters"
		}
		b.WriteString("\n### " + codeSpan(typ) + "\n\n" + fence(js))
	}
	return b.String()
}

func fence(s string) string {
	f := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return f + "json\n" + s + "\n" + f + "\n"
}

func codeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	f := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || f != "`" {
		return f + " " + s + " " + f
	}
	return f + s + f
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

func quote(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
