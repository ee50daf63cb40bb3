// Package styles is the registry of code themes (see package chroma: this
// is a stand-in that holds no built-in theme).
package styles

import (
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// Registry holds the themes registered, by name. glamour reads it under a
// lock of its own.
var Registry = map[string]*chroma.Style{}

var mu sync.Mutex

// Register adds s to Registry and returns it.
func Register(s *chroma.Style) *chroma.Style {
	mu.Lock()
	defer mu.Unlock()
	Registry[s.Name] = s
	return s
}
