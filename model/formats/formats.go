// Package formats knows every format rewind reads: it detects a journal's
// format from its content (formats.md, section 5) and finds a format by name.
package formats

import (
	"fmt"
	"strings"

	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/model/deltaengine"
	"github.com/rewind-tui/rewind/model/deltamind"
	"github.com/rewind-tui/rewind/model/durablestream"
	"github.com/rewind-tui/rewind/model/generic"
)

type entry struct {
	f     model.Format
	sniff func([]byte) bool
}

// The order matters: the most specific sniffers first.
var all = []entry{
	{deltaengine.Format, deltaengine.Sniff},
	{durablestream.Format, durablestream.Sniff},
	{deltamind.Format, deltamind.Sniff},
	{generic.Format, generic.Sniff},
}

// Names lists the format names --format accepts.
func Names() []string {
	out := make([]string, len(all))
	for i, e := range all {
		out[i] = e.f.Name()
	}
	return out
}

// ByName returns the format called name.
func ByName(name string) (model.Format, error) {
	for _, e := range all {
		if e.f.Name() == name {
			return e.f, nil
		}
	}
	return nil, fmt.Errorf("unknown format %q (known: %s)", name, strings.Join(Names(), ", "))
}

// DetectEvents is how many of a journal's first events Detect needs.
const DetectEvents = 50

// Detect returns the format of a journal from its first events (up to
// DetectEvents are looked at): the format that recognizes the most of
// them, the hint (the format the file's location implies) on a tie,
// generic when none does.
func Detect(first [][]byte, hint string) model.Format {
	best, bestN := model.Format(nil), 0
	for _, e := range all[:len(all)-1] {
		n := 0
		for _, raw := range first {
			if e.sniff(raw) {
				n++
			}
		}
		if n > bestN || (n == bestN && n > 0 && e.f.Name() == hint) {
			best, bestN = e.f, n
		}
	}
	if best == nil {
		if f, err := ByName(hint); err == nil && len(first) == 0 {
			return f
		}
		return generic.Format
	}
	return best
}
