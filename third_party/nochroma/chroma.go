// Package chroma stands in for github.com/alecthomas/chroma/v2 in rewind's
// build (go.mod replaces the module with this directory). glamour imports
// chroma to highlight fenced code blocks; rewind's renderer gives glamour
// a style without a code theme (render.Markdown), so that glamour writes
// code blocks itself, in one colour, and never calls chroma. chroma's
// package initialization, which parses all its styles and registers all
// its lexers, still ran at the start of every rewind command: 16-25 ms of
// the 25-40 ms a command took before its first line of work, and of the
// TUI's first screen.
//
// This module has only what glamour's ansi package names: the token types
// of a code theme, StyleEntries, Style and MustNewStyle here, the styles
// registry, and quick.Highlight, which reports that there is no
// highlighter. A glamour version that uses more of chroma fails to build,
// and tells which names to add.
package chroma

// TokenType is the kind of a lexed token, a key of a code theme's entries.
type TokenType int

// The token types glamour's code theme (ansi.Chroma) has entries for.
const (
	Background TokenType = iota
	Text
	Error
	Comment
	CommentPreproc
	Keyword
	KeywordReserved
	KeywordNamespace
	KeywordType
	Operator
	Punctuation
	Name
	NameBuiltin
	NameTag
	NameAttribute
	NameClass
	NameConstant
	NameDecorator
	NameException
	NameFunction
	NameOther
	Literal
	LiteralNumber
	LiteralDate
	LiteralString
	LiteralStringEscape
	GenericDeleted
	GenericEmph
	GenericInserted
	GenericStrong
	GenericSubheading
)

// StyleEntries are a code theme's styles by token type, as chroma writes
// them ("#C4C4C4 bg:#373737 bold").
type StyleEntries map[TokenType]string

// Style is a named code theme.
type Style struct {
	Name    string
	Entries StyleEntries
}

// MustNewStyle returns the theme name with entries. It does not parse them.
func MustNewStyle(name string, entries StyleEntries) *Style {
	return &Style{Name: name, Entries: entries}
}
