package archive

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/snapshot"
)

// Store holds the generation being served and switches to a new one when
// DATA/current changes.
type Store struct {
	dataDir string
	log     *slog.Logger
	search  search.Options
	cur     atomic.Pointer[generation]
	mu      sync.Mutex // serialises reloads
	// segments keeps the open segments of segmented snapshots across
	// switches (segments.go).
	segments segmentCache
}

// StoreConfig configures a Store.
type StoreConfig struct {
	DataDir string
	Logger  *slog.Logger // nil: discard
	// Search are the options each snapshot's search index opens with.
	Search search.Options
}

// OpenStore opens DATA/current. It fails when there is no snapshot yet.
func OpenStore(ctx context.Context, cfg StoreConfig) (*Store, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{dataDir: cfg.DataDir, log: log, search: cfg.Search}
	if err := s.Reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Reload opens DATA/current if it names another snapshot than the one being
// served, then switches to it. The old generation closes when idle.
func (s *Store) Reload(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, err := snapshot.Current(s.dataDir)
	if err != nil {
		return fmt.Errorf("archive: current snapshot: %w", err)
	}
	if old := s.cur.Load(); old != nil && old.snap.ID == id {
		return nil
	}
	snap, err := snapshot.Open(s.dataDir)
	if err != nil {
		return fmt.Errorf("archive: open snapshot: %w", err)
	}
	start := time.Now()
	g, err := openGeneration(ctx, snap, &s.segments, s.search)
	if err != nil {
		return fmt.Errorf("archive: load snapshot %s: %w", snap.ID, err)
	}
	g.refs.Add(1) // the store's own reference
	old := s.cur.Swap(g)
	s.log.Info("serving snapshot", "id", snap.ID, "documents", g.stats.Documents, "load", time.Since(start))
	if old != nil {
		old.release()
	}
	return nil
}

// Watch reloads whenever DATA/current changes, polling every interval, until
// ctx ends. Errors are logged and the current generation keeps serving.
func (s *Store) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Reload(ctx); err != nil {
				s.log.Error("snapshot reload failed; still serving the previous one", "err", err)
			}
		}
	}
}

// Close releases the current generation.
func (s *Store) Close() error {
	if g := s.cur.Swap(nil); g != nil {
		g.release()
	}
	return nil
}

// acquire returns the current generation with a reference the caller must
// release. The re-check after taking the reference guarantees the
// generation cannot have been retired and closed in between.
func (s *Store) acquire() (*generation, error) {
	for {
		g := s.cur.Load()
		if g == nil {
			return nil, apierr.New(apierr.ErrUnavailable, "no_snapshot", "no snapshot is being served")
		}
		if g.refs.Add(1) > 1 && s.cur.Load() == g {
			return g, nil
		}
		g.release()
	}
}

// with runs fn on the current generation.
func with[T any](s *Store, fn func(*generation) (T, error)) (T, error) {
	g, err := s.acquire()
	if err != nil {
		var zero T
		return zero, err
	}
	defer g.release()
	return fn(g)
}

// Info describes the snapshot being served.
func (s *Store) Info() (SnapshotInfo, error) {
	return with(s, func(g *generation) (SnapshotInfo, error) {
		return SnapshotInfo{ID: g.snap.ID, Created: g.snap.Manifest.Created.UTC().Format(time.RFC3339),
			Documents: g.stats.Documents}, nil
	})
}

// Topics returns the topics of the snapshot being served.
func (s *Store) Topics() ([]Topic, error) {
	return with(s, func(g *generation) ([]Topic, error) { return append([]Topic(nil), g.topics...), nil })
}

// SnapshotInfo identifies a snapshot.
type SnapshotInfo struct {
	ID        string `json:"id"`
	Created   string `json:"created"`
	Documents int64  `json:"documents"`
}
