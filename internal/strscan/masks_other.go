//go:build !amd64

package strscan

// hasAVX2 is false: only amd64 has the AVX2 masks.
var hasAVX2 = false

// masks returns the masks of the 64 bytes b[0:64] (see masksSWAR).
func masks(b []byte) (quote, bslash, ctl, high, letter, u uint64) { return masksSWAR(b) }

// quotes returns the quote and backslash masks of the 64 bytes b[0:64].
func quotes(b []byte) (quote, bslash uint64) {
	quote, bslash, _, _, _, _ = masksSWAR(b)
	return quote, bslash
}

// masksAVX2 is never called: hasAVX2 is false.
func masksAVX2(p *byte) (quote, bslash, ctl, high, letter, u uint64) {
	panic("strscan: no AVX2 on this architecture")
}
