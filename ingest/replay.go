package ingest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// A delta build (package index) carries into its Merger only the documents
// of the previous snapshot that the run's records touch, and it knows them
// only once the run is read; carried documents must still arrive before
// the run's records, whose precedence, superseding and deletions count on
// arrival order. So the run is first read into a Merger of its own, whose
// IDs say what it touches and whose Replay then hands its records and
// deletions, in their order of arrival, to the Merger that carried the
// touched documents.

// IDs calls fn with every project id the records received so far name
// (their own ids and aliases) and every id a deletion names. An id may
// come more than once. Call it before Each.
func (m *Merger) IDs(fn func(id string) error) error {
	if m.done {
		return ErrMergerDone
	}
	for _, e := range m.ids {
		if err := fn(e.key().String()); err != nil {
			return err
		}
	}
	for k := range m.deleted {
		if err := fn(k.String()); err != nil {
			return err
		}
	}
	return nil
}

// Replay sends the fresh records and the deletions received so far to
// sink in their order of arrival (a deletion named twice, once, at its
// last arrival, which hits every record the first did). Carried
// documents and problems are not replayed. Call it before Each; the
// Merger is unchanged.
func (m *Merger) Replay(ctx context.Context, sink Sink) error {
	if m.done {
		return ErrMergerDone
	}
	if err := m.w.Flush(); err != nil {
		return fmt.Errorf("ingest: merger spill: %w", err)
	}
	type del struct {
		key idKey
		at  uint32
	}
	dels := make([]del, 0, len(m.deleted))
	for k, at := range m.deleted {
		dels = append(dels, del{k, at})
	}
	slices.SortFunc(dels, func(a, b del) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return compareKeys(a.key, b.key)
	})
	var bufs spillBufs
	for i := range m.recs {
		for len(dels) > 0 && dels[0].at == uint32(i) {
			if err := sink.Delete(Deletion{ID: dels[0].key.String()}); err != nil {
				return err
			}
			dels = dels[1:]
		}
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := &m.recs[i]
		if r.flags&flagCarried != 0 {
			continue
		}
		d, err := m.readRecord(r, &bufs)
		if err != nil {
			return err
		}
		if err := sink.Document(d); err != nil {
			return err
		}
	}
	for _, d := range dels {
		if err := sink.Delete(Deletion{ID: d.key.String()}); err != nil {
			return err
		}
	}
	return nil
}
