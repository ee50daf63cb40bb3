package strscan

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refMasks is masks one byte at a time.
func refMasks(b []byte) (quote, bslash, ctl, high, letter, u uint64) {
	for k, c := range b[:64] {
		bit := uint64(1) << k
		switch {
		case c == '"':
			quote |= bit
		case c == '\\':
			bslash |= bit
		case c < 0x20:
			ctl |= bit
		case c > 0x7f:
			high |= bit
		case strings.IndexByte("/bfnrt", c) >= 0:
			letter |= bit
		case c == 'u':
			u |= bit
		}
	}
	if bslash == 0 {
		letter, u = 0, 0
	}
	return
}

// refEnd is End one byte at a time, as a JSON reader walks a string.
func refEnd(b []byte, j int) (int, Flags) {
	end, f := refEscapes(b, j)
	body := b[j:]
	if end >= 0 {
		body = b[j : end-1]
	}
	if !utf8.Valid(body) {
		f |= BadUTF8
	}
	return end, f
}

// refEscapes is refEnd without the UTF-8 check.
func refEscapes(b []byte, j int) (int, Flags) {
	var f Flags
	for k := j; k < len(b); k++ {
		switch c := b[k]; {
		case c == '"':
			return k + 1, f
		case c == '\\':
			f |= Escapes
			if !validEscape(b, k) {
				f |= BadEscape
			}
			if k+1 < len(b) {
				if n := b[k+1]; n < 0x20 {
					f |= Control
				} else if n > 0x7f {
					f |= NonASCII
				}
			}
			k++ // the escaped byte
		case c < 0x20:
			f |= Control
		case c > 0x7f:
			f |= NonASCII
		}
	}
	return -1, f
}

// randomBody is a string body of n bytes drawn mostly from the bytes that
// matter: quotes, runs of backslashes, escape letters, hex digits, control
// and high bytes.
func randomBody(r *rand.Rand, n int) []byte {
	const alphabet = `"\\\\\\nrtbfu/0aF9Gxy  ` + "\x00\x1f\x7f\x80\xc3\xa9\xff"
	b := make([]byte, n)
	for i := range b {
		if r.IntN(4) == 0 {
			b[i] = alphabet[r.IntN(len(alphabet))]
		} else {
			b[i] = byte('a' + r.IntN(26))
		}
	}
	return b
}

// The masks of a block, with AVX2 and without, are those of each byte.
func TestMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 64)
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(3) == 0 {
				b[i] = `"\ /bfnrtu`[r.IntN(10)]
			}
			if r.IntN(100) == 0 { // blocks without a backslash
				b = bytes.ReplaceAll(b, []byte(`\`), []byte("x"))
			}
		}
		wq, wb, wc, wh, wl, wu := refMasks(b)
		for _, avx := range []bool{false, true} {
			if avx && !hasAVX2 {
				continue
			}
			saved := hasAVX2
			hasAVX2 = avx
			q, bs, c, h, l, u := masks(b)
			hasAVX2 = saved
			if q != wq || bs != wb || c != wc || h != wh || l != wl || u != wu {
				t.Fatalf("avx2 %v, block %q:\nmasks %x %x %x %x %x %x\nwant  %x %x %x %x %x %x", avx, b, q, bs, c, h, l, u, wq, wb, wc, wh, wl, wu)
			}
		}
	}
}

// End finds the string's end, and what it holds, and Skip its end, as a
// byte-at-a-time reader does: across blocks, with runs of backslashes of every length
// on every side of a block's edge, with AVX2 and without.
func TestEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var cases [][]byte
	for n := range 200 {
		cases = append(cases, randomBody(r, n), randomBody(r, 60+r.IntN(200)))
	}
	for run := 1; run <= 70; run++ {
		for at := 55; at <= 66; at++ {
			s := strings.Repeat("x", at) + strings.Repeat(`\`, run) + `"tail"more`
			cases = append(cases, []byte(s))
		}
	}
	cases = append(cases, []byte(`\u00e9 \ud800 \uzzzz \u12"`), []byte(strings.Repeat(`\"`, 100)+`"`), []byte(`\`),
		[]byte(strings.Repeat("x", 62)+"→ é\xff\xc3\"z"), []byte(strings.Repeat("é", 40)+"\xe2\x86"), []byte("\xa9 a continuation first\""))
	for _, body := range cases {
		checkEnd(t, body)
	}
}

func checkEnd(t *testing.T, body []byte) {
	t.Helper()
	b := append([]byte(`{"k":"`), body...)
	want, wantF := refEnd(b, 6)
	for _, avx := range []bool{false, true} {
		if avx && !hasAVX2 {
			continue
		}
		saved := hasAVX2
		hasAVX2 = avx
		got, f := End(b, 6)
		skip := Skip(b, 6)
		hasAVX2 = saved
		if got != want || f != wantF {
			t.Fatalf("avx2 %v, body %q: End = %d, %04b; want %d, %04b", avx, body, got, f, want, wantF)
		}
		if skip != want {
			t.Fatalf("avx2 %v, body %q: Skip = %d, want %d", avx, body, skip, want)
		}
	}
}

func FuzzEnd(f *testing.F) {
	f.Add([]byte(`abc"`))
	f.Add([]byte(strings.Repeat(`ab\\\"cd\n`, 20) + `"x`))
	f.Add([]byte(`\u0041\ud83d\ude00"`))
	f.Fuzz(func(t *testing.T, body []byte) { checkEnd(t, body) })
}

// BenchmarkEnd scans a 1 KiB string with an escape every 37 bytes, as in
// a Delta Engine journal's tool output.
func BenchmarkEnd(b *testing.B) {
	var s bytes.Buffer
	for s.Len() < 1024 {
		s.WriteString(`for _, row := range rows { \"x\" }\n`)
	}
	body := append(s.Bytes(), `"}`...)
	b.SetBytes(int64(len(body)))
	b.Run("End", func(b *testing.B) {
		for b.Loop() {
			if e, _ := End(body, 0); e < 0 {
				b.Fatal("no end")
			}
		}
	})
	b.Run("Skip", func(b *testing.B) {
		for b.Loop() {
			if Skip(body, 0) < 0 {
				b.Fatal("no end")
			}
		}
	})
}
