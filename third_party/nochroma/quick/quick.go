// Package quick is chroma's one-call highlighter (see package chroma:
// this stand-in has none).
package quick

import (
	"errors"
	"io"
)

// ErrNoHighlighter is what Highlight returns.
var ErrNoHighlighter = errors.New("rewind is built without a syntax highlighter (third_party/nochroma): code blocks are written as plain text")

// Highlight writes nothing and returns ErrNoHighlighter. rewind's
// renderer never gets here (its glamour style has no code theme); when a
// glamour version does, the render fails and rewind shows the Markdown as
// plain text.
func Highlight(w io.Writer, source, lexer, formatter, style string) error {
	return ErrNoHighlighter
}
