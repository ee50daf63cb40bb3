package deltamind

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rewind-tui/rewind/model"
)

// snapTouch is the last touch of one item as snapshot.json records it.
type snapTouch struct {
	index       int64  // 1-based position of the touching delta in deltaLog
	count       int    // deltas in deltaLog that touch the item
	kind        string // the touching delta's kind
	timestamp   string // the touching delta's timestamp
	lastTouched string // the snapshot item's lastTouched
}

// WithSnapshot returns a variant of Format for the journal whose
// .deltamind/snapshot.json (StateSnapshot, version 1) is snapshotJSON.
//
// DeltaMind stamps items it creates or upserts with the wall-clock time,
// which provenance.jsonl does not record. The variant gives an item the
// snapshot's lastTouched when the delta that last touched it in the replay
// is the one that last touched it in the snapshot's deltaLog (same index,
// same number of touches, same kind and timestamp), so documents rendered
// at the snapshot's position equal DeltaMind's byte for byte. Other items
// keep their delta's timestamp.
//
// It returns an error when snapshotJSON is not a snapshot object, and
// "snapshot version mismatch: N (rewind reads version 1)" when its version
// is not 1, as DeltaMind's parseSnapshot refuses it.
func WithSnapshot(snapshotJSON []byte) (model.Format, error) {
	var snap struct {
		Version jsontext.Value `json:"version"`
		Items   []struct {
			ID          string `json:"id"`
			LastTouched string `json:"lastTouched"`
		} `json:"items"`
		DeltaLog []jsontext.Value `json:"deltaLog"`
	}
	if err := model.Unmarshal(snapshotJSON, &snap); err != nil {
		return nil, fmt.Errorf("deltamind snapshot: %w", err)
	}
	if string(snap.Version) != "1" {
		v := string(snap.Version)
		if v == "" {
			v = "undefined"
		}
		return nil, fmt.Errorf("snapshot version mismatch: %s (rewind reads version 1)", v)
	}
	touches := map[string]snapTouch{}
	for i, raw := range snap.DeltaLog {
		d, ok := parseDelta(raw)
		if !ok {
			return nil, fmt.Errorf("deltamind snapshot: deltaLog[%d] is not a delta", i)
		}
		id := d.target()
		t := touches[id]
		t.index, t.kind, t.timestamp = int64(i+1), d.kind, d.timestamp
		t.count++
		touches[id] = t
	}
	f := format{snap: map[string]snapTouch{}}
	for _, it := range snap.Items {
		if t, ok := touches[it.ID]; ok {
			t.lastTouched = it.LastTouched
			f.snap[it.ID] = t
		}
	}
	return f, nil
}
