package bench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // database/sql driver "duckdb", to read the snapshot

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/snapshot"
)

// corpusVersion changes when the generator changes, invalidating caches.
const corpusVersion = 3

// corpusStamp is Dir/corpus.json: what the cached snapshot was built from.
type corpusStamp struct {
	Version  int    `json:"version"`
	N        int    `json:"n"`
	Seed     uint64 `json:"seed"`
	Snapshot string `json:"snapshot"`
	BuildMS  int64  `json:"build_ms"`
	// ReindexMS is the last index.Reindex of the snapshot, if any.
	ReindexMS int64 `json:"reindex_ms,omitempty"`
	// Segments is the snapshot's segments when it was built as several
	// (Config.Segments), 0 for one.
	Segments int `json:"segments,omitempty"`
}

type topicInfo struct {
	slug string
	docs int64
}

// corpusInfo is the corpus being measured.
type corpusInfo struct {
	dataDir     string
	key         string // corpus version, size and seed: what the peers' loads are keyed by
	snap        *snapshot.Snapshot
	snapshotID  string
	buildTime   time.Duration
	bytes       int64
	indexBytes  int64         // search/index.bin
	reindexTime time.Duration // this run's index.Reindex

	n      int
	gen    *corpus.Generator
	topics []topicInfo
}

// ensureCorpus returns the cached corpus for cfg.N and cfg.Seed, building
// it first when missing, stale or cfg.Rebuild.
func ensureCorpus(ctx context.Context, cfg *Config) (*corpusInfo, error) {
	log := cfg.Logger
	if cfg.Fixtures == "" {
		return nil, fmt.Errorf("%w: no fixtures directory to read the vocabulary from", ErrConfig)
	}
	start := time.Now()
	vocab, err := corpus.ReadVocabulary(ctx, cfg.Vocabulary, cfg.Fixtures)
	if err != nil {
		return nil, err
	}
	slugs, its, err := corpus.DefaultTopics()
	if err != nil {
		return nil, err
	}
	gen, err := corpus.New(vocab, corpus.Config{Seed: cfg.Seed, Topics: slugs, Documents: cfg.N})
	if err != nil {
		return nil, err
	}
	log.Info("bench: vocabulary read", "records", vocab.Records, "real_words", vocab.RealWords,
		"words", len(vocab.Words), "elapsed", time.Since(start))

	segments := 0 // as the stamp records one segment
	if cfg.Segments > 1 {
		segments = cfg.Segments
	}
	c := &corpusInfo{dataDir: filepath.Join(cfg.Dir, "data"), n: cfg.N, gen: gen,
		key: fmt.Sprintf("corpus v%d n=%d seed=%d", corpusVersion, cfg.N, cfg.Seed)}
	stampPath := filepath.Join(cfg.Dir, "corpus.json")
	var stamp corpusStamp
	if b, err := os.ReadFile(stampPath); err == nil && !cfg.Rebuild && !cfg.RebuildOurs {
		if json.Unmarshal(b, &stamp) == nil && stamp.Version == corpusVersion && stamp.N == cfg.N && stamp.Seed == cfg.Seed && stamp.Segments == segments {
			if cur, err := snapshot.Current(c.dataDir); err == nil && (cur == stamp.Snapshot || reindexedFrom(c.dataDir, stamp, cfg.N)) {
				if cur != stamp.Snapshot {
					// A reindex published its snapshot but was stopped
					// before it could update the stamp.
					stamp.Snapshot = cur
					b, _ := json.Marshal(stamp)
					if err := writeFileAtomic(stampPath, b); err != nil {
						return nil, err
					}
				}
				log.Info("bench: reusing cached corpus", "snapshot", cur, "documents", cfg.N)
				c.buildTime = time.Duration(stamp.BuildMS) * time.Millisecond
				if cfg.Reindex {
					if err := c.reindexSearch(ctx, cfg, stampPath, stamp); err != nil {
						return nil, err
					}
				}
				return c, c.open()
			}
		}
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	if cfg.Reindex {
		log.Info("bench: no cached corpus to reindex; building it (its index is this build's)")
	}
	os.Remove(stampPath)
	if err := os.RemoveAll(c.dataDir); err != nil {
		return nil, err
	}
	log.Info("bench: building corpus", "documents", cfg.N, "segments", max(segments, 1), "dir", c.dataDir)
	start = time.Now()
	m, err := corpus.Build(ctx, corpus.BuildConfig{DataDir: c.dataDir, N: cfg.N, Generator: gen, Topics: its, Segments: segments,
		Logger: log, Progress: func(done int) {
			log.Info("bench: corpus progress", "documents", done, "elapsed", time.Since(start).Round(time.Second))
		}})
	if err != nil {
		return nil, fmt.Errorf("bench: build corpus: %w", err)
	}
	c.buildTime = time.Since(start)
	log.Info("bench: corpus built", "snapshot", m.ID, "elapsed", c.buildTime)
	stamp = corpusStamp{Version: corpusVersion, N: cfg.N, Seed: cfg.Seed, Snapshot: m.ID, BuildMS: c.buildTime.Milliseconds(),
		Segments: segments}
	b, _ := json.Marshal(stamp)
	if err := os.WriteFile(stampPath, b, 0o644); err != nil {
		return nil, err
	}
	return c, c.open()
}

// reindexedFrom reports whether the current snapshot is a reindex of the
// stamp's (index.Reindex names the reindexed snapshot as previous; the
// bench's builds are fresh and name none).
func reindexedFrom(dataDir string, stamp corpusStamp, n int) bool {
	snap, err := snapshot.Open(dataDir)
	return err == nil && snap.Manifest.Previous == stamp.Snapshot && snap.Manifest.Counts.Accepted == int64(n)
}

// reindexSearch rebuilds the cached snapshot's search index and records
// the new snapshot in the stamp, so the cache stays valid.
func (c *corpusInfo) reindexSearch(ctx context.Context, cfg *Config, stampPath string, stamp corpusStamp) error {
	log := cfg.Logger
	log.Info("bench: rebuilding the search index of the cached corpus", "snapshot", stamp.Snapshot)
	start := time.Now()
	m, err := index.Reindex(ctx, index.ReindexConfig{DataDir: c.dataDir, Logger: log, Keep: 1,
		Progress: func(done int64) {
			log.Info("bench: reindex progress", "documents", done, "elapsed", time.Since(start).Round(time.Second))
		}})
	if err != nil {
		return fmt.Errorf("bench: reindex: %w", err)
	}
	c.reindexTime = time.Since(start)
	log.Info("bench: search index rebuilt", "snapshot", m.ID, "elapsed", c.reindexTime)
	stamp.Snapshot, stamp.ReindexMS = m.ID, c.reindexTime.Milliseconds()
	b, _ := json.Marshal(stamp)
	return writeFileAtomic(stampPath, b)
}

// writeFileAtomic replaces path by b through a temporary file and a
// rename, so a killed run leaves the old stamp or the new one.
func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// open reads the snapshot's manifest and topic counts.
func (c *corpusInfo) open() error {
	snap, err := snapshot.Open(c.dataDir)
	if err != nil {
		return err
	}
	c.snap, c.snapshotID = snap, snap.ID
	c.bytes, c.indexBytes = 0, 0
	for _, f := range snap.Manifest.Files {
		c.bytes += f.Bytes
		if f.Name == search.File || strings.HasSuffix(f.Name, "/"+search.File) { // each segment's
			c.indexBytes += f.Bytes
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query("SELECT slug, documents FROM read_parquet(" + sqlString(snap.Path(snapshot.Topics)) +
		") WHERE documents > 0 ORDER BY slug")
	if err != nil {
		return fmt.Errorf("bench: topics: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t topicInfo
		if err := rows.Scan(&t.slug, &t.docs); err != nil {
			return err
		}
		c.topics = append(c.topics, t)
	}
	return rows.Err()
}

// documentFiles returns the files of the snapshot's documents table in
// id order of each: its one file, or each segment's of a segmented
// snapshot, oldest first. The peers load those files as they are, so a
// segmented snapshot must delete none (bench's own, Config.Segments,
// delete none).
func documentFiles(snap *snapshot.Snapshot) ([]string, error) {
	if !snap.Segmented() {
		return []string{snap.Path(snapshot.Documents)}, nil
	}
	var files []string
	for _, g := range snap.Manifest.Segments {
		if g.Deleted > 0 {
			return nil, fmt.Errorf("%w: segment %s of snapshot %s deletes %d documents; the peers load every segment's rows",
				ErrConfig, g.ID, snap.ID, g.Deleted)
		}
		files = append(files, filepath.Join(snap.SegmentDir(g.ID), snapshot.Documents+".parquet"))
	}
	return files, nil
}

// docRows reads the rows of files (documentFiles) one after another.
type docRows struct {
	files []string
	cur   *snapshot.Rows[peerDoc]
}

// next returns the next row, valid until the next call, or nil after
// the last.
func (r *docRows) next() (*peerDoc, error) {
	for {
		if r.cur == nil {
			if len(r.files) == 0 {
				return nil, nil
			}
			c, err := snapshot.OpenRows[peerDoc](r.files[0])
			if err != nil {
				return nil, fmt.Errorf("bench: %w", err)
			}
			r.cur, r.files = c, r.files[1:]
		}
		d, err := r.cur.Peek()
		if err != nil {
			return nil, err
		}
		if d != nil {
			r.cur.Next() // d stays valid until the next Peek
			return d, nil
		}
		r.cur.Close()
		r.cur = nil
	}
}

func (r *docRows) close() {
	if r.cur != nil {
		r.cur.Close()
	}
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// plainTerm is a term both tokenisers see the same way: PostgreSQL's
// parser splits some mixed tokens differently from ours.
var plainTerm = regexp.MustCompile(`^[a-z]{2,}$|^[a-z0-9]{3,}$`)

// sampleDocs returns n random generated documents of the corpus.
func (c *corpusInfo) sampleDocs(n int, rng *rand.Rand) []*ingest.Document {
	out := make([]*ingest.Document, n)
	for i := range out {
		out[i] = c.gen.Doc(rng.IntN(c.n))
	}
	return out
}
