//go:build race

package durablestream_test

// The reference tests fold thousands of lines and compare whole states
// after each; under the race detector they use the short sizes.
func init() { raceDetector = true }
