package render

import (
	"bytes"
	"io"
)

// PlainWriter writes what is written to it to w made safe as [Plain]
// makes it, a line at a time: what it writes is Plain of everything
// written, whatever the pieces, so a projection can be printed while it is
// built. Bytes after the last "\n" wait for the next Write or for Close.
// It is not safe for concurrent use.
type PlainWriter struct {
	w    io.Writer
	tail []byte // written bytes after the last "\n"
}

// NewPlainWriter returns a PlainWriter writing to w.
func NewPlainWriter(w io.Writer) *PlainWriter { return &PlainWriter{w: w} }

// Write takes p; it writes every line p completes and returns w's error.
func (pw *PlainWriter) Write(p []byte) (int, error) {
	k := bytes.LastIndexByte(p, '\n')
	if k < 0 {
		pw.tail = append(pw.tail, p...)
		return len(p), nil
	}
	lines := string(pw.tail) + string(p[:k+1])
	pw.tail = append(pw.tail[:0], p[k+1:]...)
	if _, err := io.WriteString(pw.w, Plain(lines)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes what is left after the last "\n". It does not close w.
func (pw *PlainWriter) Close() error {
	if len(pw.tail) == 0 {
		return nil
	}
	_, err := io.WriteString(pw.w, Plain(string(pw.tail)))
	pw.tail = pw.tail[:0]
	return err
}
