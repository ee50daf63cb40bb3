package demo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"
)

// Generate writes n events of the given format to w as fast as it can.
// The output depends only on format, n and seed.
//
// The events are those [Run] writes, with virtual timestamps that
// increase by realistic gaps and with the human decisions made up by the
// simulator:
//
//   - "durable-stream": one Durable Stream line per event, mostly
//     execution.text_delta and reasoning_delta, with tool parts carrying
//     outputs of up to about 20 KB, intents spawned and completed or
//     failed, ledger events, and checkpoints of which most are later
//     approved or rejected and a few are left pending.
//   - "delta-engine": the journal.jsonl of one run with contiguous seq:
//     RUN_START, USER_MESSAGE, then iterations of THOUGHT, ACTION_REQUEST
//     and ACTION_RESULT, with an occasional ask_human answered by
//     USER_MESSAGE and ACTION_RESULT.
//   - "deltamind": provenance.jsonl lines: accepted deltas of all eleven
//     kinds against existing items, and some rejected ones with the
//     reconciler's reason strings.
func Generate(w io.Writer, format string, n int, seed int64) error {
	switch format {
	case FormatDurableStream, FormatDeltaEngine, FormatDeltaMind:
	default:
		return fmt.Errorf("demo: unknown format %q", format)
	}
	if n <= 0 {
		return nil
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	e := newGenEngine(seed, n, func(line []byte) error {
		_, err := bw.Write(line)
		return err
	})
	var err error
	switch format {
	case FormatDurableStream:
		err = newDurable(e, "/home/dev/app").run()
	case FormatDeltaEngine:
		id := time.UnixMilli(e.clock).UTC().Format("20060102_150405") + "_" + e.hex(6)
		r := newDeltaRun(e, id, "/home/dev/agents/coder")
		r.ask = func(string, string) (string, error) { return pick(e, askAnswers), nil }
		err = r.run()
	case FormatDeltaMind:
		err = newMind(e, false).run()
	}
	if err != nil && !errors.Is(err, errEnough) {
		return err
	}
	return bw.Flush()
}
