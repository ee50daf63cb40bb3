//go:build !linux

package prefault

func populate([]byte) {}

// adviseHuge does nothing: only Linux is advised.
func adviseHuge([]byte) bool { return false }
