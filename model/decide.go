package model

import "time"

// Decision is a human's answer to a Pending item, as rewind is asked to write
// it.
type Decision struct {
	// ID is the Pending item's ID.
	ID string
	// Approve is true to approve, false to reject.
	Approve bool
	// Option is the chosen option's id when approving ("" for none).
	Option string
	// Reason is the free-text reason when rejecting ("" for none).
	Reason string
	// By is the identity written as approver or rejecter (login name or --as).
	By string
	// Now is the decision's time.
	Now time.Time
}

// Verdict is how an item was decided, as a journal records it.
type Verdict struct {
	// ID is the decided item's id.
	ID string `json:"id"`
	// Approved is true for an approval, false for a rejection.
	Approved bool `json:"approved"`
	// By is who decided (approved_by / rejected_by).
	By string `json:"by"`
	// Option is the selected option for approvals.
	Option string `json:"option,omitempty"`
	// Reason is the reason for rejections.
	Reason string `json:"reason,omitempty"`
	// At is the position of the deciding event.
	At int `json:"at"`
}

// Decider is implemented by formats whose decisions are appended to the
// journal itself (Durable Stream, generic request/approve/reject journals).
// Delta Engine is answered through interaction/response.txt instead.
type Decider interface {
	// Verdict reports whether item id was decided in s, and how.
	Verdict(s State, id string) (Verdict, bool)
	// DecisionRecord returns the journal line (one JSON object, no newline)
	// that records d for the pending item p, in the format's own envelope.
	DecisionRecord(s State, p Pending, d Decision) ([]byte, error)
}
