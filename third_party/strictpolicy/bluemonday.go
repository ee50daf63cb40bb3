// Package bluemonday stands in for github.com/microcosm-cc/bluemonday
// v1.0.27 in rewind's build (go.mod replaces the module with this
// directory). glamour's ansi package uses one thing of it: StrictPolicy's
// Sanitize, which strips the tags from the HTML in a Markdown document
// (raw HTML blocks and inline HTML) and keeps the text, escaped. The real
// package compiles about a hundred regular expressions at its
// initialization, and those of the CSS packages it imports (its css,
// aymerick/douceur, gorilla/css), for the policies that allow elements and
// styles, which StrictPolicy never uses: a sixth of the CPU every rewind
// command spent before its first line of work (perf record of `rewind
// --help`), and so of the TUI's first screen.
//
// Sanitize here is bluemonday's sanitize loop for the policy StrictPolicy
// returns (no element, attribute or comment allowed, AllowUnsafe and
// AddSpaceWhenStrippingTag off), over the same tokenizer
// (golang.org/x/net/html): the same tokens make the same decisions, so the
// output is bluemonday's, byte for byte. The test holds it to outputs the
// real package gave (testdata/strict.json, made by gen/main.go). A glamour
// version that uses more of bluemonday fails to build, and tells which
// names to add.
//
// The loop is adapted from bluemonday's sanitize.go, Copyright (c) 2014,
// David Kitchen; see LICENSE.md.
package bluemonday

import (
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// Policy is the strict policy: every element, attribute and comment is
// stripped, text is kept and HTML-escaped, and the content of the elements
// in skipContent (and of script and style) is dropped. It never changes,
// and is safe for concurrent use.
type Policy struct{}

// StrictPolicy returns the policy that strips all HTML elements and their
// attributes, keeping the text, as bluemonday's does.
func StrictPolicy() *Policy { return &Policy{} }

// skipContent are the elements whose content bluemonday's policies drop
// with the element (its addDefaultSkipElementContent).
var skipContent = map[string]bool{
	"frame": true, "frameset": true, "iframe": true, "noembed": true,
	"noframes": true, "noscript": true, "nostyle": true, "object": true,
	"script": true, "style": true, "title": true,
}

// Sanitize returns s with every tag, comment and doctype removed and the
// text that remains HTML-escaped (as html.EscapeString escapes it), less
// the content of script, style and the skipContent elements. A string of
// white space only is returned as it is; a tokenizer error other than the
// end of s (none can occur on a string) gives "", as bluemonday's does.
func (p *Policy) Sanitize(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	var b strings.Builder
	if err := sanitize(strings.NewReader(s), &b); err != nil {
		return ""
	}
	return b.String()
}

// sanitize is bluemonday's Policy.sanitize for the strict policy: the
// branches for allowed elements, attributes, comments, added spaces and
// unsafe elements are left out, since that policy never takes them.
func sanitize(r io.Reader, b *strings.Builder) error {
	var (
		skip       bool   // in an element whose content is dropped
		skipping   int    // how many such elements are open
		mostRecent string // the name of the last start tag, until its end tag
	)
	z := html.NewTokenizer(r)
	for {
		if z.Next() == html.ErrorToken {
			if err := z.Err(); err != io.EOF {
				return err
			}
			return nil
		}
		t := z.Token()
		switch t.Type {
		case html.DoctypeToken, html.CommentToken, html.SelfClosingTagToken:
			// Dropped.
		case html.StartTagToken:
			name := normaliseElementName(t.Data)
			mostRecent = name
			if name == "script" || name == "style" {
				continue // not counted in skipping: their text is dropped by mostRecent
			}
			if skipContent[t.Data] {
				skip = true
				skipping++
			}
		case html.EndTagToken:
			name := normaliseElementName(t.Data)
			if mostRecent == name {
				mostRecent = ""
			}
			if name == "script" || name == "style" {
				continue
			}
			if skipContent[t.Data] {
				if skipping--; skipping == 0 {
					skip = false
				}
			}
		case html.TextToken:
			if !skip && mostRecent != "script" && mostRecent != "style" {
				b.WriteString(t.String())
			}
		}
	}
}

// normaliseElementName is bluemonday's: the name lower-cased as Go would
// quote it in ASCII, without the quotes.
func normaliseElementName(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strconv.QuoteToASCII(s)), `"`), `"`)
}
