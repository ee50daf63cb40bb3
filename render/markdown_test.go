package render

import (
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/rewind-tui/rewind/internal/hostile"
)

// renderSafe renders md and checks the result is safe and shows something.
func renderSafe(t *testing.T, m *Markdown, md string, width int) string {
	t.Helper()
	out, err := m.Render(md, width)
	if err != nil {
		t.Errorf("Render(%q): %v", clip(md), err)
	}
	checkSafe(t, out, true)
	if strings.Contains(out, "\x1b]8;") {
		t.Errorf("OSC 8 in output of %q", clip(md))
	}
	if strings.TrimSpace(ansi.Strip(out)) == "" {
		t.Errorf("Render(%q) shows nothing: %q", clip(md), clip(out))
	}
	return out
}

func TestRenderHostilePayloads(t *testing.T) {
	for _, dark := range []bool{true, false} {
		m := NewMarkdown(dark)
		for _, p := range hostile.All() {
			t.Run(p.Name, func(t *testing.T) {
				// Wrapped with Text, as callers do.
				renderSafe(t, m, "## "+Text(p.Name)+"\n\n"+Text(p.Value)+"\n\n- "+Text(p.Value)+"\n\n`"+Text(p.Value)+"`\n", 60)
				renderSafe(t, m, CodeBlock("sh", p.Value), 60)
				// Raw, embedded in every Markdown construct.
				for _, md := range []string{
					p.Value,
					"text " + p.Value + " text",
					"```\n" + p.Value + "\n```",
					"```go\n" + p.Value + "\n```",
					"`" + p.Value + "`",
					"[" + p.Value + "](https://x.example/)",
					"[x](" + p.Value + ")",
					"<https://a.example/" + p.Value + ">",
					"**" + p.Value + "** ~~" + p.Value + "~~",
					"> " + p.Value,
					"| h |\n|---|\n| " + p.Value + " |",
					"<div>" + p.Value + "</div>",
				} {
					renderSafe(t, m, md, 60)
				}
			})
		}
	}
}

func TestRenderEntities(t *testing.T) {
	m := NewMarkdown(true)
	for _, md := range []string{
		"&#27;[31mENTITY&#x1b;[0m",
		"~~&**#27;**[31mFAKE~~",
		"`&#27;[2J`",
		"&#155;31m &#x202e; &#xe0041; &#8238;",
		"[&#27;[31mx](https://x.example/&#27;)",
		"<b>&#27;[31m</b>",
	} {
		out := renderSafe(t, m, md, 60)
		// No colour sequence may come from the document itself.
		if strings.Contains(out, "\x1b[31m") || strings.Contains(out, "\x1b[0m\x1b[0m") {
			t.Errorf("Render(%q) let a decoded SGR through: %q", md, out)
		}
	}
	out := renderSafe(t, m, "~~&**#27;**[31mFAKE~~", 60)
	if vis := ansi.Strip(out); !strings.Contains(vis, "&#27;[31mFAKE") {
		t.Errorf("split entity not shown literally: %q", vis)
	}
}

func TestRenderAmpersands(t *testing.T) {
	m := NewMarkdown(true)
	md := Text("see https://a.example/?x=1&y=2 & <https://b.example/?p=1&q=2> and `a && b`") +
		"\n\n" + CodeBlock("", "if a && b { x := \"&amp;\" }")
	vis := ansi.Strip(renderSafe(t, m, md, 100))
	for _, want := range []string{
		"https://a.example/?x=1&y=2 &",
		"https://b.example/?p=1&q=2",
		"a && b",
		`if a && b { x := "&amp;" }`,
	} {
		if !strings.Contains(vis, want) {
			t.Errorf("rendered text lacks %q:\n%s", want, vis)
		}
	}
	if strings.Contains(strings.ReplaceAll(vis, `"&amp;"`, ""), "&amp;") {
		t.Errorf("escaped ampersand shown:\n%s", vis)
	}
}

func TestRenderLinkShowsTarget(t *testing.T) {
	m := NewMarkdown(true)
	for _, md := range []string{
		"[https://good.example](https://evil.example)",
		"text [click here for a long link label that wraps](https://evil.example/some/long/path/that/wraps/over/lines) text",
		"| a |\n|---|\n| [good](https://evil.example) |",
		"![good](https://evil.example/i.png)",
	} {
		out := renderSafe(t, m, md, 40)
		if vis := ansi.Strip(out); !strings.Contains(vis, "evil.example") {
			t.Errorf("Render(%q) hides the target:\n%s", md, vis)
		}
		if strings.Contains(out, "␛]8") {
			t.Errorf("Render(%q) left a visible hyperlink sequence:\n%s", md, out)
		}
	}
}

func TestRenderStyles(t *testing.T) {
	dark, _ := NewMarkdown(true).Render("# Hello\n\nworld", 40)
	light, _ := NewMarkdown(false).Render("# Hello\n\nworld", 40)
	if dark == light {
		t.Error("dark and light styles render identically")
	}
	for _, out := range []string{dark, light} {
		for _, line := range strings.Split(out, "\n") {
			if w := Width(line); w > 40 {
				t.Errorf("line wider than 40: %d %q", w, line)
			}
		}
	}
}

func TestRenderWrapsToWidth(t *testing.T) {
	m := NewMarkdown(true)
	md := strings.Repeat("word ", 100)
	for _, width := range []int{20, 60, 0} {
		out := renderSafe(t, m, md, width)
		limit := width
		if width < 1 {
			limit = DefaultWidth
		}
		for _, line := range strings.Split(out, "\n") {
			if w := Width(line); w > limit {
				t.Errorf("width %d: line is %d wide", width, w)
			}
		}
	}
}

func TestRenderConcurrent(t *testing.T) {
	m := NewMarkdown(true)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				p := hostile.Payloads[(i*20+j)%len(hostile.Payloads)]
				out, err := m.Render(Text(p.Value), 30+i)
				if err != nil || strings.Contains(out, "\x1b]") {
					t.Errorf("concurrent render of %s: %v", p.Name, err)
				}
			}
		}()
	}
	wg.Wait()
}

func TestStripHyperlinks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b]8;id=1;https://u/\x07x\x1b]8;;\x07 https://u/", "x https://u/"},
		{"\x1b]8;;https://u/\x1b\\x\x1b]8;;\x1b\\ https://u/", "x https://u/"},
		// The target is not shown anywhere: keep the sequence for Filter.
		{"\x1b]8;;secret\x07x\x1b]8;;\x07", "\x1b]8;;secret\x07x"},
		{"\x1b]8;;unterminated", "\x1b]8;;unterminated"},
	}
	for _, tt := range tests {
		if got := stripHyperlinks(tt.in); got != tt.want {
			t.Errorf("stripHyperlinks(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzRenderPipeline(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s, false)
		f.Add(s, true)
	}
	m := NewMarkdown(true)
	f.Fuzz(func(t *testing.T, s string, raw bool) {
		if len(s) > 4096 {
			return // glamour is slow; the sanitizer alone is fuzzed on long inputs
		}
		md := Text(s)
		if raw {
			md = s
		}
		out, _ := m.Render(md, 60)
		checkSafe(t, out, true)
		// Markdown syntax in journal text is kept (Text escapes only
		// '&', '<' and link reference definitions), so "#", "---", a
		// fence's info string or "[](#x)" may legitimately vanish; but
		// text without Markdown punctuation must stay visible.
		if !raw && hasAlnum(Sanitize(s)) && !strings.ContainsAny(s, "#`~[]()!*_-=+>|\\:") && !hasAlnum(ansi.Strip(out)) {
			t.Fatalf("Render(Text(%q)) hides the text: %q", s, out)
		}
	})
}

func TestRenderKeepsHTMLVisible(t *testing.T) {
	m := NewMarkdown(true)
	for _, tt := range []struct{ md, want string }{
		{Text("run <script>alert(1)</script> now"), "<script>alert(1)</script>"},
		{Text("see <https://x.example/a?b&c>"), "<https://x.example/a?b&c>"},
		{"<div>\n<b>raw</b> &copy;\n</div>", "<b>raw</b> &copy;"},
		{"inline <b>bold</b>", "<b>bold</b>"},
	} {
		vis := ansi.Strip(renderSafe(t, m, tt.md, 80))
		if !strings.Contains(vis, tt.want) {
			t.Errorf("Render(%q) lacks %q:\n%s", tt.md, tt.want, vis)
		}
	}
}

func hasAlnum(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}) >= 0
}

func TestTextLinkRefDefVisible(t *testing.T) {
	m := NewMarkdown(true)
	for _, s := range []string{"[a]: https://x.example", "> [note]: hidden?", "- [x]: y"} {
		vis := ansi.Strip(renderSafe(t, m, Text(s), 80))
		if !strings.Contains(vis, "]:") {
			t.Errorf("Render(Text(%q)) hides it: %q", s, vis)
		}
	}
}

// A fenced block is shown as written, each line in one piece and in the
// code colour of the style (251 dark, 235 light), with a language or
// without, as GitHub shows a block without one. chroma used to guess a
// language for a block without one (GDScript, for this tool output of a
// Delta Engine journal) and colour words as its keywords; rewind is now
// built without chroma (third_party/nochroma), and a render that reached
// it would fail (renderSafe checks that none does).
func TestCodeBlocksArePlain(t *testing.T) {
	code := "=== STDOUT ===\nscripts/deploy.sh:198: export async function refreshToken(session: Session): Promise<string> {\n" +
		"src/auth/middleware.ts:375: }\ntsconfig.json:17: select {\n\n=== EXIT CODE: 0 ===\n"
	for _, tc := range []struct {
		dark  bool
		color string
	}{{true, "\x1b[38;5;251m"}, {false, "\x1b[38;5;235m"}} {
		m := NewMarkdown(tc.dark)
		for _, lang := range []string{"", "sh", "json"} {
			out := renderSafe(t, m, "Before.\n\n```"+lang+"\n"+code+"```\n", 120)
			for _, line := range strings.Split(strings.TrimSpace(code), "\n") {
				if line != "" && !strings.Contains(out, tc.color+line+"\x1b[m") {
					t.Errorf("dark %v, ```%s: the line %q is not shown in one piece in %q:\n%q", tc.dark, lang, line, tc.color, out)
				}
			}
		}
	}
}

// Renders run in parallel, each with a glamour renderer of its own, and
// give what one render at a time gives.
func TestConcurrentRendersMatchSerial(t *testing.T) {
	m := NewMarkdown(false)
	docs := make([]string, 16)
	want := make([]string, len(docs))
	for i := range docs {
		docs[i] = strings.Repeat("## Section\n\nSome *text* with `code` and a list:\n\n- one\n- two\n\n", i+1) + "```go\nfunc f() {}\n```\n"
		want[i] = renderSafe(t, m, docs[i], 40+i%3)
	}
	var wg sync.WaitGroup
	got := make([]string, len(docs))
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(docs); i += 4 {
				got[i], _ = m.Render(docs[i], 40+i%3)
			}
		})
	}
	wg.Wait()
	for i := range docs {
		if got[i] != want[i] {
			t.Errorf("doc %d rendered concurrently differs from its serial render", i)
		}
	}
}
