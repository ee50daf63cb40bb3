package replay

import (
	"fmt"
	"time"

	"github.com/rewind-tui/rewind/model"
)

// SetExactBudget changes ExactBudget for a test and returns a restore func.
func SetExactBudget(d time.Duration) func() {
	old := ExactBudget
	ExactBudget = d
	return func() { ExactBudget = old }
}

// ScalarEqual is scalarEqual, and SlowScalarEqual what it was before its
// direct comparisons: both sides formatted.
var ScalarEqual = scalarEqual

func SlowScalarEqual(a, b any) bool {
	for _, v := range []any{a, b} {
		switch v.(type) {
		case model.Object, []any:
			return false
		}
	}
	return fmt.Sprint(normNum(a)) == fmt.Sprint(normNum(b)) && sameKind(a, b)
}
