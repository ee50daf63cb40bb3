package deltaengine

import (
	"io"
	"strings"

	"github.com/rewind-tui/rewind/model"
)

// StreamView is View with the messages and the actions as model.Lazy
// values: each is read back from the journal and decoded when it is
// written, so `rewind state` on a gigabyte journal holds one message at a
// time instead of the whole conversation. Written out it gives View's
// bytes. Each Lazy reads the journal through its own reader; they may be
// written one after the other, not at the same time.
func (format) StreamView(s model.State) model.Object {
	st, ok := s.(*state)
	if !ok || st == nil || st.log == nil {
		if s == nil {
			return Format.Init().View()
		}
		return s.View()
	}
	sn := st.log.snapshot(st.nLog)
	msgs := model.Lazy{Len: st.msgs, Each: func(yield func(any) bool) {
		r := sn.reader(readBlock, nil)
		defer r.release()
		for i := range st.nLog {
			if sn.get(i).isMessage() && !yield(r.message(i).object()) {
				return
			}
		}
	}}
	actions := model.Lazy{Len: st.acts, Object: true, Each: func(yield func(any) bool) {
		r := sn.reader(readBlock, nil)
		defer r.release()
		for i := range st.nLog {
			if sn.get(i).has(fFirst) {
				a, _ := r.action(r.info(i).id)
				if !yield(model.Field{Key: a.id, Value: a.object()}) {
					return
				}
			}
		}
	}}
	return st.view(msgs, actions, st.problems())
}

// StreamRender writes Render(s, doc) to w: the header, then each message
// as it is read back from the journal, in pieces of about 64 KiB.
func (format) StreamRender(s model.State, doc string, w io.Writer) error {
	st, ok := s.(*state)
	if !ok || st == nil || doc != Doc || st.log == nil {
		_, err := io.WriteString(w, Format.Render(s, doc))
		return err
	}
	var b strings.Builder
	writeHeader(&b, st)
	sn := st.log.snapshot(st.nLog)
	seqr, lookr := sn.reader(readBlock, nil), sn.reader(readBlock, nil)
	defer seqr.release()
	defer lookr.release()
	for i := range st.nLog {
		if !sn.get(i).isMessage() {
			continue
		}
		writeMessage(&b, seqr, lookr, i)
		if b.Len() >= 64<<10 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
