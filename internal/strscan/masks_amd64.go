package strscan

import "golang.org/x/sys/cpu"

// masksAVX2 is masks with AVX2. Implemented in masks_amd64.s.
//
//go:noescape
func masksAVX2(p *byte) (quote, bslash, ctl, high, letter, u uint64)

// hasAVX2 says whether masks uses masksAVX2; the tests turn it off to
// check masksSWAR as well.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI1

// masks returns the masks of the 64 bytes b[0:64] (see masksSWAR).
func masks(b []byte) (quote, bslash, ctl, high, letter, u uint64) {
	if hasAVX2 {
		_ = b[63]
		return masksAVX2(&b[0])
	}
	return masksSWAR(b)
}

// quotesAVX2 is the quote and backslash masks of masksAVX2. Implemented in
// masks_amd64.s.
//
//go:noescape
func quotesAVX2(p *byte) (quote, bslash uint64)

// quotes returns the quote and backslash masks of the 64 bytes b[0:64].
func quotes(b []byte) (quote, bslash uint64) {
	if hasAVX2 {
		_ = b[63]
		return quotesAVX2(&b[0])
	}
	quote, bslash, _, _, _, _ = masksSWAR(b)
	return quote, bslash
}
