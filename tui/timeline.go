package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rewind-tui/rewind/journal"
	"github.com/rewind-tui/rewind/model"
	"github.com/rewind-tui/rewind/render"
)

// timeline is the pane with one row per record (events and bad lines). It
// renders only the visible rows and caches each row's description.
type timeline struct {
	st       render.Styles
	sess     sessionView
	recs     journal.Records
	sel      int // selected record index
	top      int // first visible record index
	w, h     int // inner size
	absolute bool
	rows     map[int]model.Row
	first    time.Time // time of the first timed record, for relative times
	scanned  int       // records looked at for first (the first 64 at most)
	writing  string    // "writing…" marker text, or ""
	// vis lists the record indexes shown, ascending, while a filter or a
	// hidden type is on; nil shows every record. top indexes vis then.
	vis []int
}

// count returns the number of rows shown.
func (t *timeline) count() int {
	if t.vis == nil {
		return t.recs.Len()
	}
	return len(t.vis)
}

// at returns the record index of shown row i.
func (t *timeline) at(i int) int {
	if t.vis == nil {
		return i
	}
	return t.vis[i]
}

// row index of the selection among the shown rows (the first shown row at
// or after it when the selected record is hidden).
func (t *timeline) selRow() int {
	if t.vis == nil {
		return t.sel
	}
	return sort.SearchInts(t.vis, t.sel)
}

// setVisible installs the shown records (nil: all) and keeps the
// selection on a shown row.
func (t *timeline) setVisible(vis []int) {
	t.vis = vis
	if len(vis) > 0 {
		i := t.selRow()
		if i >= len(vis) {
			i = len(vis) - 1
		}
		t.sel = vis[i]
	}
	t.clampTop()
}

// selectLast selects the last shown record.
func (t *timeline) selectLast() {
	if n := t.count(); n > 0 {
		t.selectRecord(t.at(n - 1))
	}
}

// sessionView is what the timeline needs from the session.
type sessionView interface {
	Read(journal.Record) ([]byte, error)
	Describe(model.Event) model.Row
	// Bad describes a bad line (Index.Describe).
	Bad(journal.Record) string
	// FindKey is the position of the first event with a seq or id.
	FindKey(key string) (int, error)
}

func newTimeline(st render.Styles, sv sessionView) timeline {
	return timeline{st: st, sess: sv, rows: map[int]model.Row{}}
}

// setRecords installs a new snapshot of the index; rows already described
// stay cached unless reset is true (the journal was re-read).
func (t *timeline) setRecords(recs journal.Records, reset bool) {
	if reset {
		t.rows = map[int]model.Row{}
		t.first, t.scanned = time.Time{}, 0
	}
	t.recs = recs
	if t.first.IsZero() && t.scanned < 64 {
		// Relative times count from the first timestamp among the first
		// records (read from their lines: the index keeps no times). The
		// rows described for it are kept for fill.
		for i, rec := range recs.All(t.scanned) {
			if i >= 64 {
				break
			}
			t.scanned = i + 1
			if !rec.Event() {
				continue
			}
			row, ok := t.rows[i]
			if !ok {
				row = t.describe(i)
				t.rows[i] = row
			}
			if !row.Time.IsZero() {
				t.first = row.Time
				break
			}
		}
	}
	if t.sel >= recs.Len() {
		t.sel = recs.Len() - 1
	}
	if t.sel < 0 {
		t.sel = 0
	}
	t.clampTop()
}

func (t *timeline) setSize(w, h int) {
	t.w, t.h = w, h
	t.clampTop()
}

// pos returns the event position whose state the selection shows: the
// selected event, or for a bad line the last event before it.
func (t *timeline) pos() int {
	if t.recs.Len() == 0 {
		return 0
	}
	return t.recs.EventsThrough(t.sel)
}

// atEnd reports whether the last shown record is selected (follow mode).
func (t *timeline) atEnd() bool {
	if t.vis == nil {
		return t.sel >= t.recs.Len()-1
	}
	return len(t.vis) == 0 || t.sel >= t.vis[len(t.vis)-1]
}

func (t *timeline) move(d int) {
	if t.vis == nil {
		t.selectRecord(t.sel + d)
		return
	}
	if len(t.vis) == 0 {
		return
	}
	i := t.selRow()
	if d < 0 && i < len(t.vis) && t.vis[i] != t.sel {
		// a hidden record is selected: the row above counts as one step
		i--
		d++
	}
	i += d
	if i >= len(t.vis) {
		i = len(t.vis) - 1
	}
	if i < 0 {
		i = 0
	}
	t.selectRecord(t.vis[i])
}

func (t *timeline) selectRecord(i int) {
	if i >= t.recs.Len() {
		i = t.recs.Len() - 1
	}
	if i < 0 {
		i = 0
	}
	t.sel = i
	t.clampTop()
}

// selectEvent selects the record of event position p (1-based).
func (t *timeline) selectEvent(p int) bool {
	i := t.recs.EventIndex(p)
	if i < 0 {
		return false
	}
	t.selectRecord(i)
	return true
}

func (t *timeline) clampTop() {
	vis := t.visibleRows()
	sel := t.selRow()
	if sel < t.top {
		t.top = sel
	}
	if vis > 0 && sel >= t.top+vis {
		t.top = sel - vis + 1
	}
	if maxTop := t.count() - vis; t.top > maxTop {
		t.top = maxTop
	}
	if t.top < 0 {
		t.top = 0
	}
}

func (t *timeline) visibleRows() int {
	n := t.h - 1 // header line
	if n < 1 {
		return 1
	}
	return n
}

// selectedType returns the type of the selected record.
func (t *timeline) selectedType() string {
	if t.recs.Len() == 0 {
		return ""
	}
	return t.recs.Type(t.sel)
}

// findType moves to the previous (dir<0) or next event of type typ.
func (t *timeline) findType(typ string, dir int) bool {
	for i := t.sel + dir; i >= 0 && i < t.recs.Len(); i += dir {
		if t.recs.IsEvent(i) && t.recs.Type(i) == typ {
			t.selectRecord(i)
			return true
		}
	}
	return false
}

// findKey moves to the first event whose own seq or id is key.
func (t *timeline) findKey(key string) bool {
	pos, err := t.sess.FindKey(key)
	if err != nil || pos == 0 {
		return false
	}
	return t.selectEvent(pos)
}

// fill describes the visible rows that are not cached yet. It reads their
// lines from the journal, so the root model calls it from Update, never
// from View.
func (t *timeline) fill() {
	if len(t.rows) > 4096 {
		t.rows = map[int]model.Row{}
	}
	end := min(t.top+t.visibleRows(), t.count())
	for vi := t.top; vi < end; vi++ {
		if i := t.at(vi); t.recs.IsEvent(i) {
			if _, ok := t.rows[i]; !ok {
				t.rows[i] = t.describe(i)
			}
		}
	}
}

// describe reads record i and returns its timeline row.
func (t *timeline) describe(i int) model.Row {
	rec := t.recs.At(i)
	raw, err := t.sess.Read(rec)
	if err != nil {
		return model.Row{Summary: "unreadable: " + err.Error()}
	}
	row := t.sess.Describe(model.Event{Pos: int(rec.Pos), Line: int(rec.Line), Off: rec.Off, Raw: raw})
	if row.Time.IsZero() {
		row.Time = rec.TimeIn(raw)
	}
	return row
}

func (t *timeline) timeText(tm time.Time) string {
	if tm.IsZero() {
		return ""
	}
	if t.absolute {
		return tm.Local().Format("15:04:05.000")
	}
	d := tm.Sub(t.first)
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	h := int(d.Hours())
	m := int(d.Minutes()) % 60
	s := d.Seconds() - float64(int(d.Minutes())*60)
	if h > 0 {
		return fmt.Sprintf("%s%d:%02d:%04.1f", sign, h, m, s)
	}
	return fmt.Sprintf("%s%02d:%04.1f", sign, m, s)
}

// view renders the visible rows; every journal string passes render.Line.
func (t *timeline) view() string {
	if t.recs.Len() == 0 {
		msg := "No events yet: waiting for the journal to grow."
		if t.writing != "" {
			msg += "\n" + t.writing
		}
		return t.st.Dim.Render(msg)
	}
	posW := len(strconv.Itoa(t.recs.Events()))
	if posW < 3 {
		posW = 3
	}
	keyW, timeW, typeW, actorW := 10, 12, 20, 12
	if t.w < 110 {
		keyW, timeW, typeW, actorW = 8, 9, 16, 8
		if t.absolute {
			timeW = 12
		}
	}
	header := fmt.Sprintf("%*s %-*s %-*s %-*s %-*s %s", posW, "#", keyW, "seq/id", timeW, "time", typeW, "type", actorW, "actor", "summary")
	lines := []string{t.st.Dim.Render(render.Truncate(header, t.w))}
	end := t.top + t.visibleRows()
	if end > t.count() {
		end = t.count()
	}
	if t.count() == 0 {
		lines = append(lines, t.st.Dim.Render(render.Truncate("No event matches the filter (X shows all types, / with nothing clears the filter).", t.w)))
	}
	for vi := t.top; vi < end; vi++ {
		i := t.at(vi)
		rec := t.recs.At(i)
		var line string
		style := t.st.Row
		if !rec.Event() {
			line = fmt.Sprintf("%*s %s", posW, "!", "bad "+t.sess.Bad(rec))
			style = t.st.RowBad
		} else {
			r, ok := t.rows[i]
			if !ok { // not described yet: what the index knows
				r = model.Row{Type: rec.Type(), Summary: "…"}
			}
			line = fmt.Sprintf("%*d %-*s %-*s %-*s %-*s %s", posW, rec.Pos,
				keyW, render.Fit(render.Line(firstLine(r.Key, 200)), keyW),
				timeW, t.timeText(r.Time),
				typeW, render.Fit(render.Line(firstLine(r.Type, 200)), typeW),
				actorW, render.Fit(render.Line(firstLine(r.Actor, 200)), actorW),
				render.Line(firstLine(r.Summary, 400)))
			if rec.Problem != journal.OK {
				line += "  ⚠ " + rec.Problem.String()
			}
			if r.Problem {
				style = t.st.RowProblem
			}
		}
		line = render.Fit(line, t.w)
		if i == t.sel {
			style = t.st.RowSelected
		}
		lines = append(lines, style.Render(line))
	}
	if t.writing != "" && len(lines) <= t.visibleRows() {
		lines = append(lines, t.st.Dim.Render(render.Truncate(t.writing, t.w)))
	}
	return strings.Join(lines, "\n")
}

// firstLine returns at most n bytes of s on one line (the summary column).
func firstLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
