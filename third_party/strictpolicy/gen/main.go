// Command gen writes ../testdata/strict.txt: inputs, and what the real
// github.com/microcosm-cc/bluemonday v1.0.27's StrictPolicy().Sanitize
// returns for each over golang.org/x/net v0.39.0's tokenizer (rewind's),
// which the stand-in's test holds it to. It is a module of its own, so
// that it builds against the real package, not the stand-in that rewind's
// go.mod puts in its place.
//
//	cd third_party/strictpolicy/gen && go run .
package main

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/microcosm-cc/bluemonday"
)

// cases written by hand: each branch of the sanitize loop, the tokenizer's
// raw-text elements, and input that is not well formed.
var cases = []string{
	"", "   ", "\n\t ", "plain text", "a < b && c > d", "'quoted' \"double\"",
	"<b>bold</b> &amp; <i>it</i>", "<B>UPPER</B>", "<div>\n<b>raw</b> &copy;\n</div>",
	"<script>alert(1)</script>after", "<SCRIPT>x</SCRIPT>y", "<script>unclosed",
	"<style>p{color:red}</style>text", "<style>a</style><script>b</script>c",
	"<title>t</title>body", "<iframe src=x>in</iframe>out", "<noscript>n</noscript>m",
	"<object><param>o</object>p", "<frameset><frame>f</frameset>g", "<noembed>e</noembed>",
	"<noframes>x</noframes>y", "<nostyle>s</nostyle>t", "</iframe>x<iframe>y</iframe>z",
	"<iframe><iframe>a</iframe>b</iframe>c", "<title><b>x</b></title>y",
	"<textarea><b>t</b></textarea>", "<xmp><b>x</b></xmp>", "<plaintext><b>p</b>",
	"<!-- comment -->c", "<!-- unterminated", "<!DOCTYPE html><p>d", "<![CDATA[x<y]]>z",
	"<?xml version=\"1.0\"?>q", "<br/>line<br />", "<img src=\"a.png\" alt=\"x>y\">",
	"<a href=\"javascript:alert(1)\">link</a>", "<p onclick=\"x\">p</p>",
	"&lt;script&gt;", "&#27;[31m", "&bogus; &amp &#x41;", "< notatag", "<>", "</>", "<", ">",
	"a</b>c", "<b", "<b attr=\"unterminated>text", "<scrİpt>u</scrİpt>v", "<ſcript>x</ſcript>",
	"<script>a</script\n>b", "<script/>x", "<style/>y", "<div/>z", "\x00<b>\x00</b>",
	"\xff\xfe<b>x</b>", "<p>para<p>para2", "<ul><li>one<li>two</ul>", "<table><tr><td>c</td></tr></table>",
	"<svg><script>s</script></svg>t", "<math><style>m</style></math>n", "<SCRIPT SRC=x></SCRIPT>w",
	"text <!-- c --> more", "<script><!--\nx\n--></script>y", "<style>\n</style>\n",
	"   <b>padded</b>   ", "<b>\n</b>", "é<b>ü</b>漢字", "<a\nhref=x>multi\nline</a>",
}

// fragments are what the generated cases are made of.
var fragments = []string{
	"text", " ", "\n", "é", "漢", "&amp;", "&lt;", "&gt;", "&#27;", "&copy;", "&x;", "&", "<", ">",
	"\"", "'", "=", "/", "!", "-", "--", "<!--", "-->", "<!DOCTYPE x>", "<![CDATA[", "]]>",
	"<b>", "</b>", "<B>", "</B>", "<div class=\"a>b\">", "</div>", "<br/>", "<p>", "</p>",
	"<script>", "</script>", "<SCRIPT>", "</Script>", "<style>", "</style>", "<title>", "</title>",
	"<iframe>", "</iframe>", "<noscript>", "</noscript>", "<object>", "</object>", "<frame>",
	"<textarea>", "</textarea>", "<xmp>", "</xmp>", "<plaintext>", "<svg>", "</svg>",
	"<a href='x'>", "</a>", "<img src=x>", "<scrİpt>", "\x00", "\xff", "\t",
}

func main() {
	p := bluemonday.StrictPolicy()
	r := rand.New(rand.NewPCG(1, 2))
	in := append([]string(nil), cases...)
	for range 4000 {
		var b strings.Builder
		for range 1 + r.IntN(14) {
			b.WriteString(fragments[r.IntN(len(fragments))])
		}
		in = append(in, b.String())
	}
	// A line per case: the input and bluemonday's output, each as Go
	// quotes it (so that tabs, newlines and bytes that are not UTF-8 keep
	// to one line), separated by a tab.
	var b strings.Builder
	for _, s := range in {
		b.WriteString(strconv.Quote(s) + "\t" + strconv.Quote(p.Sanitize(s)) + "\n")
	}
	if err := os.WriteFile("../testdata/strict.txt", []byte(b.String()), 0o644); err != nil {
		panic(err)
	}
}
