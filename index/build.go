package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// Feed sends a run's records to sink: the readers' Document, Delete and
// Problem calls. It is called once, from the goroutine that called Build;
// the sink is not safe for concurrent use, so a caller running readers in
// parallel must serialise their calls.
type Feed func(ctx context.Context, sink ingest.Sink) error

// Build runs a whole snapshot build:
//
//  1. NewBuilder: lock DATA, clean leftovers, open the previous snapshot;
//  2. carry the previous snapshot's documents into an ingest.Merger
//     (unless cfg.Fresh);
//  3. feed the run's records into the merger;
//  4. merge, then cfg.Prepare and Builder.Add each document in id order
//     (merging runs in its own goroutine, writing in this one);
//  5. Finish: publish, switch current, prune.
//
// Any error leaves the previous snapshot current and removes the temporary
// directory. Problems go to cfg.Problem when set.
func Build(ctx context.Context, cfg Config, feed Feed) (*snapshot.Manifest, error) {
	b, err := newBuilder(cfg, true)
	if err != nil {
		return nil, err
	}
	defer b.Abort()
	if b.delta != nil {
		return buildDelta(ctx, b, feed)
	}
	cfg = b.cfg // with defaults
	m, err := ingest.NewMerger(ingest.MergeConfig{Dir: b.WorkDir(), Now: cfg.Now, Decide: cfg.Decide,
		Problem: cfg.Problem, Logger: cfg.Logger, Records: cfg.Records})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	if prev := b.Previous(); prev != nil && cfg.Records && hasRecords(prev) {
		n, err := carryRecords(ctx, prev, cfg.KeepRecord, m)
		if err != nil {
			return nil, err
		}
		cfg.Logger.Info("index: carried over the previous snapshot's records", "id", prev.ID, "works", n)
	} else if prev != nil {
		n, err := readPrevious(ctx, prev, m.Carry)
		if err != nil {
			return nil, err
		}
		cfg.Logger.Info("index: carried over the previous snapshot", "id", prev.ID, "documents", n)
	}
	if feed != nil {
		if err := withProvenance(feed, cfg.Now)(ctx, m); err != nil {
			return nil, fmt.Errorf("index: feed: %w", err)
		}
	}
	if cfg.FeedInputs != nil {
		b.cfg.Inputs = cfg.FeedInputs()
	}
	if err := addMerged(ctx, b, m); err != nil {
		return nil, err
	}
	b.SetMergeStats(m.Stats())
	return b.Finish(ctx)
}

// addMerged adds the merged documents of m to b, listing those that cannot
// be published in rejects.
func addMerged(ctx context.Context, b *Builder, m *ingest.Merger) error {
	cfg := b.cfg
	return emit(ctx, m, func(d *ingest.Document) error {
		if cfg.Prepare != nil && d.Licence.Accepted {
			if err := cfg.Prepare(d); err != nil {
				return err
			}
		}
		before := b.ndocs
		err := b.Add(d)
		if b.records != nil && (err == nil || errors.Is(err, ErrInvalidDocument) || errors.Is(err, ErrNoTopic)) {
			doc := int32(-1)
			if b.ndocs > before {
				doc = int32(before)
			}
			if rerr := b.records.add(d, doc); rerr != nil {
				return rerr
			}
			if doc < 0 && d.ID != "" && datedLicence(d, cfg.Now) {
				// A work rejected until its licence takes effect is merged
				// again by every delta build, as a published one is.
				b.dated = append(b.dated, d.ID)
			}
		}
		if errors.Is(err, ErrInvalidDocument) || errors.Is(err, ErrNoTopic) {
			// Add has listed it in rejects; one bad record never stops the
			// batch.
			if cfg.Problem != nil {
				cfg.Problem(ingest.Problem{Path: d.Origin, Record: d.ID, Reason: err.Error()})
			}
			return nil
		}
		return err
	})
}

// emit runs the merger in its own goroutine (decoding and merging) and
// calls fn in this one (tokenising, encoding, compressing), so the two
// halves use two cores.
func emit(ctx context.Context, m *ingest.Merger, fn func(*ingest.Document) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan *ingest.Document, 64)
	errc := make(chan error, 1)
	go func() {
		defer close(ch)
		errc <- m.Each(ctx, func(d *ingest.Document) error {
			select {
			case ch <- d:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var ferr error
	for d := range ch {
		if ferr == nil {
			if ferr = fn(d); ferr != nil {
				cancel() // stop the merger; drain ch until it closes
			}
		}
	}
	if merr := <-errc; ferr == nil {
		ferr = merr
	}
	return ferr
}
