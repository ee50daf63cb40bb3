package model_test

import (
	"bytes"
	"testing"

	"github.com/rewind-tui/rewind/internal/scalartest"
	"github.com/rewind-tui/rewind/model"
)

// TestLayoutSpanReadsTheOtherLinesOfALayout learns where values are in one
// line and reads them from another line of the same layout whose scalars
// have other lengths: a scalar, a value that holds scalars, one that holds
// none and one at the line's start must each come back as the second
// line's own.
func TestLayoutSpanReadsTheOtherLinesOfALayout(t *testing.T) {
	a := []byte(`{"id":"x","args":[1,"yy",{"k":true}],"e":{},"n":null}`)
	b := []byte(`{"id":"a longer id","args":[-20.5e3,"",{"k":true}],"e":{},"n":null}`)
	ls, err := scalartest.LineScalars(a)
	if err != nil {
		t.Fatal(err)
	}
	lt, err := scalartest.LineScalars(b)
	if err != nil {
		t.Fatal(err)
	}
	if ls.Layout != lt.Layout {
		t.Fatal("the two lines should share a layout")
	}
	for _, c := range []struct {
		in, want string
		scalar   bool
	}{
		{`"x"`, `"a longer id"`, true},
		{`[1,"yy",{"k":true}]`, `[-20.5e3,"",{"k":true}]`, false},
		{`"yy"`, `""`, true},
		{`1`, `-20.5e3`, true},
		{`{}`, `{}`, false},
		{`1,"yy"`, `-20.5e3,""`, false}, // two scalars, not one
		{`null`, `null`, true},
		{`{"id"`, `{"id"`, false},
	} {
		i := bytes.Index(a, []byte(c.in))
		sp, scalar := model.SpanOf(a, ls.Ends, a[i:i+len(c.in)])
		if scalar != c.scalar {
			t.Errorf("%s: SpanOf says scalar %v", c.in, scalar)
		}
		if got := sp.In(b, lt.Ends); string(got) != c.want {
			t.Errorf("%s: read %q from the other line, want %q", c.in, got, c.want)
		}
		if got := sp.In(a, ls.Ends); string(got) != c.in {
			t.Errorf("%s: read %q back from its own line", c.in, got)
		}
	}
	// A line with fewer scalars than the span's place gives nothing.
	short := []byte(`{"id":"x"}`)
	ss, _ := scalartest.LineScalars(short)
	i := bytes.Index(a, []byte(`null`))
	if sp, _ := model.SpanOf(a, ls.Ends, a[i:i+4]); sp.In(short, ss.Ends) != nil {
		t.Error("a span past the line's scalars should read nothing")
	}
}

// TestLayoutCacheForgetsPastMaxLayouts keeps what it is given, and starts
// over rather than grow past MaxLayouts.
func TestLayoutCacheForgetsPastMaxLayouts(t *testing.T) {
	var c model.LayoutCache[int]
	v := 7
	for k := range model.MaxLayouts {
		c.Put(k, &v)
	}
	if c.Get(0) != &v || c.Get(model.MaxLayouts-1) != &v || c.Get(-1) != nil {
		t.Fatal("the cache lost a layout below its limit, or made one up")
	}
	c.Put(model.MaxLayouts, &v)
	if c.Get(0) != nil || c.Get(model.MaxLayouts) != &v {
		t.Fatal("past MaxLayouts the cache should start over with the new layout")
	}
}
