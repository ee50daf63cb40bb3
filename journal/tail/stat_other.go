//go:build !unix

package tail

import "io/fs"

// nlink returns 0: without link counts, a file that left the path counts as
// deleted or replaced, never as rotated.
func nlink(fs.FileInfo) uint64 { return 0 }
