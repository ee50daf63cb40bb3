//go:build !amd64

package render

// hasAVX2 is false: only amd64 has the AVX2 scan.
var hasAVX2 = false

// plainRun returns the index of the first byte of s that AppendJSONLiteral
// must look at, or len(s).
func plainRun(s []byte) int { return plainRunSWAR(s) }
