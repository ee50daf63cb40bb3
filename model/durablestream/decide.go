package durablestream

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// CorrelationID returns the correlation id rewind writes as stream_id and
// correlation_id of its decision events: 16 hex characters from
// crypto/rand, generated once per process, as Durable Stream generates one
// per DurableStream instance (generateCorrelationId).
func CorrelationID() string {
	correlationOnce.Do(func() { correlationID = randomHex() })
	return correlationID
}

var (
	correlationOnce sync.Once
	correlationID   string
)

// randomHex returns 8 random bytes as 16 hex characters.
func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// EventID returns a Durable Stream event id for the time t
// (generateEventId): the Unix milliseconds in base 36, left-padded with
// '0' to 9 characters, "_", and 16 random hex characters.
func EventID(t time.Time) string {
	ts := strconv.FormatInt(t.UnixMilli(), 36)
	if len(ts) < 9 {
		ts = strings.Repeat("0", 9-len(ts)) + ts
	}
	return ts + "_" + randomHex()
}

// ErrNotPending is returned by DecisionRecord for a checkpoint that is not
// pending in the state: Durable Stream's approveCheckpoint would write
// nothing for it.
var ErrNotPending = errors.New("checkpoint is not pending")

// DecisionRecord returns the checkpoint.approved or checkpoint.rejected line
// (compact JSON, no newline) that records d for the pending checkpoint p,
// with the keys in the order Durable Stream's createEvent writes them:
// type, stream_id, correlation_id, actor, payload, id, timestamp.
// stream_id and correlation_id are CorrelationID(); actor is d.By ("user",
// as CheckpointManager writes, when d.By is empty); payload is
// {checkpoint_id, approved_by, selected_option?} or {checkpoint_id,
// rejected_by, reason?}; id is EventID(d.Now) and timestamp d.Now in Unix
// ms (the current time when d.Now is zero).
//
// It fails with ErrNotPending when p is not pending in s, and when d
// approves with an option the checkpoint does not offer.
func (format) DecisionRecord(st model.State, p model.Pending, d model.Decision) ([]byte, error) {
	s, ok := st.(*state)
	if !ok {
		return nil, errors.New("durablestream: not a Durable Stream state")
	}
	id := p.ID
	if id == "" {
		id = d.ID
	}
	cp, ok := s.pendingCheckpoint(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotPending, id)
	}
	if d.Approve && d.Option != "" {
		found := false
		for _, o := range cp.options {
			found = found || o.ID == d.Option
		}
		if !found {
			return nil, fmt.Errorf("checkpoint %q offers no option %q", id, d.Option)
		}
	}
	by := d.By
	if by == "" {
		by = "user"
	}
	now := d.Now
	if now.IsZero() {
		now = time.Now()
	}
	corr := CorrelationID()
	payload := []string{"checkpoint_id", id}
	typ := "checkpoint.rejected"
	if d.Approve {
		typ = "checkpoint.approved"
		payload = append(payload, "approved_by", by)
		if d.Option != "" {
			payload = append(payload, "selected_option", d.Option)
		}
	} else {
		payload = append(payload, "rejected_by", by)
		if d.Reason != "" {
			payload = append(payload, "reason", d.Reason)
		}
	}
	var b []byte
	b = append(b, '{')
	b = member(b, "type", typ)
	b = append(b, ',')
	b = member(b, "stream_id", corr)
	b = append(b, ',')
	b = member(b, "correlation_id", corr)
	b = append(b, ',')
	b = member(b, "actor", by)
	b = append(b, `,"payload":{`...)
	for i := 0; i < len(payload); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = member(b, payload[i], payload[i+1])
	}
	b = append(b, "},"...)
	b = member(b, "id", EventID(now))
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, now.UnixMilli(), 10)
	b = append(b, '}')
	return b, nil
}

// member appends "key":"value" as JSON.stringify writes it (no HTML
// escaping); invalid UTF-8 becomes U+FFFD.
func member(b []byte, k, v string) []byte {
	b = quote(b, k)
	b = append(b, ':')
	return quote(b, v)
}

func quote(b []byte, s string) []byte {
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		out, _ = jsontext.AppendQuote(b, strings.ToValidUTF8(s, "\uFFFD"))
	}
	return out
}
