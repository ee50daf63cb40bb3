package generic

import (
	"github.com/rewind-tui/rewind/model/md"
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
		b.WriteString("> **Waiting for you:** " + md.QuoteLines(md.Or(p.Prompt, "(no prompt)")) + "\n>\n")
		b.WriteString("> " + p.Kind + " " + md.CodeSpan(p.ID))
		if p.RequestedBy != "" {
			b.WriteString(", requested by " + p.RequestedBy)
		}
		if p.RequestedAt != "" {
			b.WriteString(" at " + p.RequestedAt)
		}
		b.WriteString("\n")
		for _, o := range p.Options {
			b.WriteString("> - " + md.CodeSpan(o.ID) + " " + o.Label + "\n")
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
		b.WriteString("| " + strings.ReplaceAll(md.CodeSpan(typ), "|", `\|`) + " | " + model.Itoa(int64(c)) + " |\n")
	}
	b.WriteString("\n## Last event of each type\n")
	for it := st.types.Iterator(); !it.Done(); {
		_, typ := it.Next()
		raw, _ := st.last.Get(typ)
		js := compactJSON(raw)
		if n := utf8.RuneCountInString(js); n > maxEventJSON {
			js = string([]rune(js)[:maxEventJSON]) + "\n… " + model.Itoa(int64(n-maxEventJSON)) + " more characters"
		}
		b.WriteString("\n### " + md.CodeSpan(typ) + "\n\n" + md.Fence("json", js))
	}
	return b.String()
}
