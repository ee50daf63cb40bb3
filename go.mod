module github.com/rewind-tui/rewind

go 1.26.8

require (
	charm.land/bubbles/v2 v2.2.1
	charm.land/bubbletea/v2 v2.0.10
	charm.land/glamour/v2 v2.0.1
	charm.land/lipgloss/v2 v2.0.6
	github.com/aymanbagabas/go-udiff v0.4.1
	github.com/benbjohnson/immutable v0.4.3
	github.com/charmbracelet/colorprofile v0.4.3
	github.com/charmbracelet/x/ansi v0.11.8
	github.com/charmbracelet/x/exp/teatest/v2 v2.0.0-20260823001701-96af6d2cb5f6
	github.com/charmbracelet/x/term v0.2.2
	github.com/fsnotify/fsnotify v1.10.1
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3
	github.com/itchyny/gojq v0.12.20
	github.com/spf13/cobra v1.10.2
	github.com/yuin/goldmark v1.7.8
	golang.org/x/sys v0.47.0
)

require (
	github.com/alecthomas/chroma/v2 v2.14.0 // indirect
	github.com/atotto/clipboard v0.1.4 // indirect
	github.com/charmbracelet/harmonica v0.2.0 // indirect
	github.com/charmbracelet/ultraviolet v0.0.0-20260811164956-006e29f97886 // indirect
	github.com/charmbracelet/x/exp/golden v0.0.0-20251109135125-8916d276318f // indirect
	github.com/charmbracelet/x/exp/slice v0.0.0-20250327172914-2fdc97757edf // indirect
	github.com/charmbracelet/x/termios v0.1.1 // indirect
	github.com/charmbracelet/x/windows v0.2.2 // indirect
	github.com/clipperhouse/displaywidth v0.11.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/lucasb-eyer/go-colorful v1.4.1 // indirect
	github.com/mattn/go-runewidth v0.0.31 // indirect
	github.com/microcosm-cc/bluemonday v1.0.27 // indirect
	github.com/muesli/cancelreader v0.2.2 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/xo/terminfo v0.0.0-20220910002029-abceb7e1c41e // indirect
	github.com/yuin/goldmark-emoji v1.0.5 // indirect
	golang.org/x/exp v0.0.0-20231006140011-7918f672742d // indirect
	golang.org/x/net v0.39.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.24.0 // indirect
)

// glamour imports chroma for code highlighting, which rewind does not use
// (render.Markdown's style has no code theme); chroma's package init cost
// 16-25 ms at every start. third_party/nochroma has only the names glamour
// needs. See BENCHMARKS.md, "Start-up".
replace github.com/alecthomas/chroma/v2 => ./third_party/nochroma

// glamour's ansi package uses bluemonday's StrictPolicy to strip the tags
// of HTML in Markdown; bluemonday and the CSS packages it imports compile
// about a hundred regular expressions at init, for policies rewind never
// uses: 4-5 ms of every start. third_party/strictpolicy is its sanitize
// loop for the strict policy, held byte for byte to the real one's
// output. See BENCHMARKS.md, "Start-up".
replace github.com/microcosm-cc/bluemonday => ./third_party/strictpolicy
