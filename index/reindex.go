package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openshelf/openshelf/index/catalog"
	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// ErrReindexMismatch means a rebuilt search index does not describe the
// snapshot's documents (its document count differs from the manifest's).
var ErrReindexMismatch = errors.New("index: rebuilt search index does not match the snapshot")

// ReindexConfig configures Reindex.
type ReindexConfig struct {
	// DataDir is the data root; its current snapshot is reindexed.
	DataDir string
	// Now is the new snapshot's id and created time; zero means time.Now().
	Now    time.Time
	Logger *slog.Logger
	// Keep is how many snapshots to retain, current included; 0 means 3.
	// The files shared with the new snapshot survive the old one's
	// pruning (they are hard links).
	Keep int
	// SortMemory tunes the postings sort as in Config.
	SortMemory int
	// Progress, when set, is called every 100 000 documents.
	Progress func(done int64)
}

// Reindex rebuilds search/index.bin of the current snapshot with this
// build's search.Writer, from the snapshot's own Parquet tables (documents,
// fulltext, references), and publishes the result as a new snapshot the way
// a build does: the new snapshot directory holds hard links to every other
// file of the current one, the new index and a manifest that differs only
// in its id, created time, previous (the reindexed snapshot) and the
// index's entry (bytes, sha256); then DATA/current is switched atomically.
// A reader that has the old snapshot open keeps it.
//
// It is the way to move a large snapshot to a new index format, or to
// measure one, without regenerating the rest: the Parquet tables, bundles
// and content store are not rewritten. It takes the data directory's build
// lock.
func Reindex(ctx context.Context, rc ReindexConfig) (*snapshot.Manifest, error) {
	cfg := Config{DataDir: rc.DataDir, Now: rc.Now, Logger: rc.Logger, Keep: rc.Keep, SortMemory: rc.SortMemory}
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	unlock, err := snapshot.Lock(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := snapshot.RemoveLeftovers(cfg.DataDir); err != nil {
		return nil, err
	}
	cur, err := snapshot.Open(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if cur.Segmented() {
		return nil, fmt.Errorf("%w: snapshot %s has segments; merge it first (openshelf ingest -merge)", ErrConfig, cur.ID)
	}
	id, err := snapshot.NextID(cfg.DataDir, cfg.Now)
	if err != nil {
		return nil, err
	}
	b := &Builder{cfg: cfg, log: cfg.Logger, id: id,
		tmp: filepath.Join(cfg.DataDir, snapshot.SnapshotsDir, snapshot.TmpPrefix+id)}
	b.dir, b.work = b.tmp, filepath.Join(b.tmp, workDir)
	published := false
	defer func() {
		if b.postings != nil {
			b.postings.cleanup()
		}
		if b.cites != nil {
			b.cites.cleanup()
		}
		if !published {
			if b.sidx != nil {
				b.sidx.Abort()
			}
			os.RemoveAll(b.tmp)
		}
	}()
	if err := linkSnapshot(cur.Dir, b.tmp, isearch.File, snapshot.ManifestFile); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(b.work, 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	b.postings = newSorter(b.work, cfg.SortMemory)
	if err := b.openSearchIndex(); err != nil {
		return nil, err
	}

	start := time.Now()
	var ft []string
	_, err = readSnapshot(ctx, cur, func(row *documentRow, secs []sectionRow, d *ingest.Document) error {
		// The full-text values in the order publishDoc gave them: each
		// section's title, then its paragraphs, sections depth first.
		ft = ft[:0]
		for i := range secs {
			ft = append(append(ft, secs[i].Title), secs[i].Paragraphs...)
		}
		if _, err := b.indexSearch(int32(b.ndocs), d, row, ft); err != nil {
			return fmt.Errorf("index: reindex %s: %w", d.ID, err)
		}
		b.ndocs++
		if rc.Progress != nil && b.ndocs%100_000 == 0 {
			rc.Progress(b.ndocs)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if b.ndocs != cur.Manifest.Counts.Accepted {
		return nil, fmt.Errorf("%w: %d documents read, the manifest counts %d", ErrReindexMismatch,
			b.ndocs, cur.Manifest.Counts.Accepted)
	}
	b.log.Info("index: reindex: documents read", "documents", b.ndocs, "elapsed", time.Since(start))
	if err := b.resolveCitations(nil, func(cited, citing int32, _, _ string) error {
		return b.sidx.AddCitation(cited, citing)
	}); err != nil {
		return nil, err
	}
	if err := b.writePostings(ctx, nil); err != nil {
		return nil, err
	}
	f, err := b.closeSearchIndex()
	if err != nil {
		return nil, err
	}
	files := []snapshot.File{f}
	if _, err := os.Stat(filepath.Join(cur.Dir, filepath.FromSlash(catalog.File))); errors.Is(err, fs.ErrNotExist) {
		// A snapshot older than the catalog file gets one, so the server
		// need not convert it at every start.
		cf, err := b.convertCatalog(ctx, cur)
		if err != nil {
			return nil, err
		}
		files = append(files, cf)
	}
	if err := os.RemoveAll(b.work); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}

	man := cur.Manifest
	man.ID, man.Created, man.Previous = id, cfg.Now.Truncate(time.Second), cur.ID
	man.Files = slices.Clone(man.Files)
	for _, f := range files {
		i := slices.IndexFunc(man.Files, func(x snapshot.File) bool { return x.Name == f.Name })
		if i < 0 {
			man.Files = append(man.Files, f)
		} else {
			man.Files[i] = f
		}
	}
	slices.SortFunc(man.Files, func(x, y snapshot.File) int { return strings.Compare(x.Name, y.Name) })
	if err := snapshot.WriteManifest(b.tmp, &man); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := publish(cfg.DataDir, b.tmp, id, nil); err != nil {
		return nil, err
	}
	published = true
	b.log.Info("index: reindexed snapshot published", "id", id, "from", cur.ID, "documents", b.ndocs,
		"index_bytes", f.Bytes, "elapsed", time.Since(start))
	removed, err := snapshot.Prune(cfg.DataDir, cfg.Keep)
	for _, old := range removed {
		b.log.Info("index: pruned old snapshot", "id", old)
	}
	if err != nil {
		b.log.Warn("index: pruning old snapshots failed", "err", err)
	}
	return &man, nil
}

// linkSnapshot makes dst a copy of the snapshot directory src by hard
// links (snapshot files are immutable), leaving out the files named in
// skip (slash-separated, relative to the snapshot).
func linkSnapshot(src, dst string, skip ...string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == workDir {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if slices.Contains(skip, filepath.ToSlash(rel)) {
			return nil
		}
		if err := os.Link(p, filepath.Join(dst, rel)); err != nil {
			return fmt.Errorf("index: reindex: %w", err)
		}
		return nil
	})
}
