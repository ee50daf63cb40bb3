package replay

import "time"

// SetExactBudget changes ExactBudget for a test and returns a restore func.
func SetExactBudget(d time.Duration) func() {
	old := ExactBudget
	ExactBudget = d
	return func() { ExactBudget = old }
}
