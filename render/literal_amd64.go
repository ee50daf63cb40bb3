package render

import "golang.org/x/sys/cpu"

// plainRunAVX2 returns how many bytes at the start of s AppendJSONLiteral
// can copy as they are: a prefix of whole characters and escapes that
// AppendJSONString writes alike (\n \r \t \b \f \"), thirty-two bytes at a
// time while 33 bytes are left. It may stop early (at a \\ pair, at the
// last 32 bytes); what it returns is always where a character or an
// escape starts. Implemented in literal_amd64.s.
//
//go:noescape
func plainRunAVX2(s []byte) int

// hasAVX2 says whether plainRun uses plainRunAVX2; the tests turn it off
// to check plainRunSWAR as well.
var hasAVX2 = cpu.X86.HasAVX2

// plainRun returns the index of the first byte of s that AppendJSONLiteral
// must look at, or len(s): with AVX2, what plainRunAVX2 skips, then as
// plainRunSWAR does.
func plainRun(s []byte) int {
	if hasAVX2 && len(s) >= 33 {
		n := plainRunAVX2(s)
		if len(s)-n >= 33 {
			return n // it stopped at a byte, not for want of 33
		}
		return n + plainRunSWAR(s[n:])
	}
	return plainRunSWAR(s)
}
