// Package styles is the registry of code themes (see package chroma: this
// is a stand-in that holds no built-in theme).
package styles

import "github.com/alecthomas/chroma/v2"

// Registry holds the themes registered, by name. Not safe for concurrent
// use, as chroma's is not: glamour reads and registers under a lock of its
// own.
var Registry = map[string]*chroma.Style{}

// Register adds s to Registry and returns it.
func Register(s *chroma.Style) *chroma.Style {
	Registry[s.Name] = s
	return s
}
