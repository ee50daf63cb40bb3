package render

import (
	"charm.land/lipgloss/v2"
)

// Styles are every style rewind draws with, built once by NewStyles for a
// dark or light terminal (decided before the program starts; never queried
// while it runs). Styles is a value: copy it freely.
type Styles struct {
	Pane, PaneFocused   lipgloss.Style
	Title, TitleFocused lipgloss.Style

	Row, RowSelected, RowBad, RowProblem lipgloss.Style
	Pos, Key, Time, Type, Actor, Dim     lipgloss.Style

	TreeKey, TreeString, TreeNumber, TreeLiteral lipgloss.Style
	TreeChanged, TreeAdded, TreeCursor           lipgloss.Style

	Status, StatusInfo, StatusWarn, StatusErr lipgloss.Style
	Follow, Paused, PendingBadge              lipgloss.Style

	Dialog, DialogTitle, Option, OptionActive lipgloss.Style
}

// NewStyles returns the styles for a dark (dark=true) or light background.
func NewStyles(dark bool) Styles {
	ld := lipgloss.LightDark(dark)
	accent := ld(lipgloss.Color("#5A56E0"), lipgloss.Color("#8B87FF"))
	subtle := ld(lipgloss.Color("#9B9B9B"), lipgloss.Color("#5C5C5C"))
	text := ld(lipgloss.Color("#1A1A1A"), lipgloss.Color("#E4E4E4"))
	red := ld(lipgloss.Color("#C62828"), lipgloss.Color("#FF6B6B"))
	amber := ld(lipgloss.Color("#B26A00"), lipgloss.Color("#FFB454"))
	green := ld(lipgloss.Color("#2E7D32"), lipgloss.Color("#7BD88F"))
	blue := ld(lipgloss.Color("#1565C0"), lipgloss.Color("#6CB6FF"))
	selBg := ld(lipgloss.Color("#DCDAFF"), lipgloss.Color("#34305E"))

	pane := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(subtle)
	s := Styles{
		Pane:         pane,
		PaneFocused:  pane.BorderForeground(accent),
		Title:        lipgloss.NewStyle().Foreground(subtle).Bold(true),
		TitleFocused: lipgloss.NewStyle().Foreground(accent).Bold(true),

		Row:         lipgloss.NewStyle().Foreground(text),
		RowSelected: lipgloss.NewStyle().Background(selBg).Foreground(text).Bold(true),
		RowBad:      lipgloss.NewStyle().Foreground(red),
		RowProblem:  lipgloss.NewStyle().Foreground(amber),
		Pos:         lipgloss.NewStyle().Foreground(subtle),
		Key:         lipgloss.NewStyle().Foreground(blue),
		Time:        lipgloss.NewStyle().Foreground(subtle),
		Type:        lipgloss.NewStyle().Foreground(accent),
		Actor:       lipgloss.NewStyle().Foreground(green),
		Dim:         lipgloss.NewStyle().Foreground(subtle),

		TreeKey:     lipgloss.NewStyle().Foreground(blue),
		TreeString:  lipgloss.NewStyle().Foreground(green),
		TreeNumber:  lipgloss.NewStyle().Foreground(amber),
		TreeLiteral: lipgloss.NewStyle().Foreground(accent),
		TreeChanged: lipgloss.NewStyle().Foreground(amber).Bold(true),
		TreeAdded:   lipgloss.NewStyle().Foreground(green).Bold(true),
		TreeCursor:  lipgloss.NewStyle().Background(selBg),

		Status:       lipgloss.NewStyle().Foreground(text),
		StatusInfo:   lipgloss.NewStyle().Foreground(blue),
		StatusWarn:   lipgloss.NewStyle().Foreground(amber),
		StatusErr:    lipgloss.NewStyle().Foreground(red).Bold(true),
		Follow:       lipgloss.NewStyle().Foreground(green).Bold(true),
		Paused:       lipgloss.NewStyle().Foreground(amber).Bold(true),
		PendingBadge: lipgloss.NewStyle().Foreground(red).Bold(true),

		Dialog:       lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(amber).Padding(0, 1),
		DialogTitle:  lipgloss.NewStyle().Foreground(amber).Bold(true),
		Option:       lipgloss.NewStyle().Foreground(text),
		OptionActive: lipgloss.NewStyle().Foreground(text).Background(selBg).Bold(true),
	}
	return s
}
